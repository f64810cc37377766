//! Every option of the suite, once: its names, kind, default, check, help
//! and the programs that take it. The daemons' getopts parsers and nlpcd's
//! clap command are both built from this table, so nlpcd can never accept
//! what a daemon refuses.

use crate::run::options::opt::Check;
pub use crate::run::options::opt::{Kind, Operands, Opt, Program};

const NLPCD: u16 = Program::Nlpcd.bit();
const SCAN: u16 = Program::Scan.bit();
const RESOLVE: u16 = Program::Resolve.bit();
const FETCH: u16 = Program::Fetch.bit();
const VRFY: u16 = Program::Vrfy.bit();
const UP: u16 = Program::Up.bit();
const LIST: u16 = Program::List.bit();
const DUMP: u16 = Program::Dump.bit();
const STAT: u16 = Program::Stat.bit();
const INDEX: u16 = Program::Index.bit();
const SEARCH: u16 = Program::Search.bit();
const RELAY: u16 = Program::Relay.bit();
const EVERY: u16 =
    NLPCD | SCAN | RESOLVE | FETCH | VRFY | UP | LIST | DUMP | STAT | INDEX | SEARCH | RELAY;
const SELECTORS: u16 = UP | LIST | DUMP;

/// Content types nlpc-fetch accepts by default.
pub const DEFAULT_TYPES: &str =
    "text/html application/xhtml+xml text/plain text/xml application/xml";

const fn flag(long: &'static str, short: Option<char>, help: &'static str, programs: u16) -> Opt {
    Opt {
        long,
        short,
        kind: Kind::Flag,
        metavar: "",
        default: "",
        check: Check::None,
        help,
        programs,
        passed: true,
        setting: false,
    }
}

const fn value(
    long: &'static str,
    metavar: &'static str,
    default: &'static str,
    check: Check,
    help: &'static str,
    programs: u16,
) -> Opt {
    Opt {
        long,
        short: None,
        kind: Kind::Value,
        metavar,
        default,
        check,
        help,
        programs,
        passed: true,
        setting: false,
    }
}

const fn list(
    long: &'static str,
    metavar: &'static str,
    default: &'static str,
    check: Check,
    help: &'static str,
    programs: u16,
) -> Opt {
    Opt {
        kind: Kind::List,
        ..value(long, metavar, default, check, help, programs)
    }
}

const fn short(mut o: Opt, c: char) -> Opt {
    o.short = Some(c);
    o
}

/// One of the crawl's settings (see [`Opt::setting`]).
const fn setting(mut o: Opt) -> Opt {
    o.setting = true;
    o
}

/// Read by each program for itself; nlpcd does not hand it on.
const fn own(mut o: Opt) -> Opt {
    o.passed = false;
    o
}

const fn int(min: u64, max: u64) -> Check {
    Check::Int { min, max }
}

const DURATION: Check = Check::Duration { nonzero: false };
const MAX: u64 = u32::MAX as u64;

/// The table.
pub static OPTIONS: &[Opt] = &[
    // The common options.
    Opt {
        kind: Kind::Count,
        ..flag("", Some('d'), "more debug output (repeatable)", EVERY)
    },
    own(flag("help", Some('h'), "print this help and exit", EVERY)),
    own(flag("", Some('v'), "print the version and exit", EVERY)),
    value(
        "dir",
        "dir",
        "",
        Check::Path,
        "the crawl's directory, under which -p, -f, -a and -r default (default $NLPCRAWL_DIR, else $XDG_STATE_HOME/nlpcrawl or ~/.local/state/nlpcrawl)",
        EVERY,
    ),
    short(
        value("", "dbpath", "", Check::Path, "database path (default DIR/db)", EVERY),
        'p',
    ),
    short(
        value(
            "",
            "cachepath",
            "",
            Check::Path,
            "file cache path (default DIR/cache)",
            EVERY,
        ),
        'f',
    ),
    short(
        value(
            "",
            "archivepath",
            "",
            Check::Path,
            "archive path (default DIR/data)",
            EVERY,
        ),
        'a',
    ),
    short(
        value(
            "",
            "reppath",
            "",
            Check::Path,
            "robots.txt cache path (default DIR/rep)",
            EVERY,
        ),
        'r',
    ),
    value(
        "use-interval",
        "time",
        "120s",
        DURATION,
        "longest wait between looks for work when idle; nlpcd --once makes it 0.2s",
        EVERY,
    ),
    own(flag("once", None, "drain the input once and exit", EVERY)),
    // Only the writers that seed may create a database.
    own(flag(
        "create",
        None,
        "seeding: start a new database over an empty data.mdb or a lone lock.mdb",
        NLPCD | SCAN,
    )),
    // nlpcd's own.
    own(flag(
        "",
        Some('m'),
        "show a monitor, refreshed every second",
        NLPCD | FETCH,
    )),
    value(
        "log",
        "file",
        "",
        Check::Path,
        "append the daemons' log lines to this file (with -m: DBPATH/nlpcd.log)",
        NLPCD,
    ),
    Opt {
        kind: Kind::Repeat,
        ..value(
            "with",
            "daemon:arg",
            "",
            Check::DaemonArg,
            "pass ARG to one daemon, as in nlpc-fetch:--fetch-max-size=1M (repeatable)",
            NLPCD,
        )
    },
    // Admission: nlpc-scan's links and seeds, nlpc-fetch's redirects.
    setting(list(
        "filter-scheme",
        "list",
        "http https",
        Check::Scheme,
        "allowed URL schemes",
        NLPCD | SCAN | FETCH,
    )),
    setting(list(
        "filter-auth",
        "list",
        "",
        Check::Hosts,
        "allowed hosts, with their subdomains (default any)",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "max-url-length",
        "n",
        "1024",
        int(1, MAX),
        "longest URL accepted",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "max-path-depth",
        "n",
        "16",
        int(1, MAX),
        "most path segments accepted",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "max-repeat",
        "n",
        "3",
        int(1, MAX),
        "most times one path segment may recur",
        NLPCD | SCAN | FETCH,
    )),
    setting(flag(
        "allow-private",
        None,
        "accept hosts on loopback, private, link-local and other non-public addresses",
        NLPCD | SCAN | RESOLVE | FETCH,
    )),
    // The scope: which part of the web the crawl covers (web::scope).
    setting(list(
        "filter-deny",
        "list",
        "",
        Check::Deny,
        "hosts (with their subdomains) and URL globs never crawled",
        NLPCD | SCAN | FETCH,
    )),
    setting(list(
        "filter-include",
        "glob",
        "",
        Check::Pattern,
        "crawl only URLs matching one of these globs (* for any text; default any)",
        NLPCD | SCAN | FETCH,
    )),
    setting(list(
        "filter-exclude",
        "glob",
        "",
        Check::Pattern,
        "never crawl URLs matching one of these globs",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "filter-depth",
        "n",
        "",
        int(0, u16::MAX as u64 - 1),
        "most links from a seed (default no limit)",
        NLPCD | SCAN,
    )),
    setting(value(
        "filter-quota",
        "n",
        "0",
        int(0, MAX),
        "most pages per host, 0 for no limit",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "filter-query-variants",
        "n",
        "10000",
        int(0, MAX),
        "most URLs with a query string per host and path, 0 for no limit",
        NLPCD | SCAN | FETCH,
    )),
    setting(value(
        "filter-page-links",
        "n",
        "50000",
        int(0, MAX),
        "most links taken from one page, 0 for no limit",
        NLPCD | SCAN,
    )),
    setting(value(
        "filter-tunnel",
        "n",
        "2",
        int(0, 255),
        "follow the links of rejected pages, up to N rejected pages in a row",
        NLPCD | SCAN | VRFY,
    )),
    // nlpc-scan.
    setting(flag(
        "filter-ascend",
        None,
        "also enqueue the parent directories of new links",
        NLPCD | SCAN,
    )),
    setting(flag(
        "filter-ascend-scan",
        None,
        "enqueue the parent directories of scanned documents",
        NLPCD | SCAN,
    )),
    // nlpc-resolve.
    flag(
        "",
        Some('4'),
        "ask for IPv4 addresses only",
        NLPCD | RESOLVE,
    ),
    flag(
        "",
        Some('6'),
        "ask for IPv6 addresses only",
        NLPCD | RESOLVE,
    ),
    list(
        "nameserver",
        "addr[:port]",
        "",
        Check::Address,
        "ask this name server (repeatable; default: those of /etc/resolv.conf)",
        NLPCD | RESOLVE,
    ),
    value(
        "hosts-file",
        "path",
        "/etc/hosts",
        Check::Path,
        "names answered without DNS",
        RESOLVE,
    ),
    value(
        "dns-burst",
        "n",
        "256",
        int(1, MAX),
        "queries to one server before it rests",
        RESOLVE,
    ),
    value(
        "dns-pause",
        "time",
        "1s",
        DURATION,
        "rest of a server after a burst",
        RESOLVE,
    ),
    value(
        "dns-concurrency",
        "n",
        "16",
        int(1, 4096),
        "queries in flight to one server",
        RESOLVE,
    ),
    value(
        "dns-cache-age",
        "time",
        "120s",
        DURATION,
        "longest an answer is used without asking again",
        RESOLVE,
    ),
    value(
        "dns-timeout",
        "time",
        "5s",
        Check::Duration { nonzero: true },
        "wait for one answer",
        RESOLVE,
    ),
    value(
        "dns-retries",
        "n",
        "2",
        int(0, MAX),
        "further tries after a timeout or server failure",
        RESOLVE,
    ),
    // nlpc-fetch.
    setting(value(
        "fetch-burst",
        "n",
        "2",
        int(1, 1 << 16),
        "pages per burst to one address",
        NLPCD | FETCH,
    )),
    setting(value(
        "fetch-polite",
        "time",
        "10s",
        DURATION,
        "rest of an address between bursts (at most 1d)",
        NLPCD | FETCH,
    )),
    setting(value(
        "yield-sample",
        "n",
        "20",
        int(1, MAX),
        "pages of a host judged before --yield-min applies to it",
        NLPCD | FETCH,
    )),
    setting(value(
        "yield-min",
        "x",
        "0",
        Check::Fraction,
        "least share of a host's judged pages accepted, else its other pages are not fetched; 0 turns the rule off",
        NLPCD | FETCH,
    )),
    value(
        "fetch-pipeline",
        "n",
        "6",
        int(1, 1 << 16),
        "requests in flight on one HTTP/2 connection",
        NLPCD | FETCH,
    ),
    value(
        "fetch-hosts",
        "n",
        "512",
        int(1, 1 << 16),
        "addresses served at once",
        NLPCD | FETCH,
    ),
    value(
        "fetch-max-size",
        "bytes",
        "4M",
        Check::Size,
        "largest body accepted",
        FETCH,
    ),
    setting(value(
        "fetch-explore",
        "x",
        "0.1",
        Check::Fraction,
        "most share of requests for pages found only through rejected ones or on hosts with none accepted, while better ones wait",
        NLPCD | FETCH,
    )),
    flag(
        "fetch-no-focus",
        None,
        "lease records in the order found, not good hosts first and tunnelled or poor ones last",
        NLPCD | FETCH,
    ),
    flag(
        "fetch-sync-each",
        None,
        "make bodies durable with a sync of each file and directory, not of the file system per batch",
        FETCH,
    ),
    value(
        "fetch-store-cap",
        "bytes",
        "16M",
        Check::Size,
        "bodies waiting to be made durable at which no new request starts",
        FETCH,
    ),
    value(
        "fetch-timeout",
        "time",
        "60s",
        DURATION,
        "longest transfer",
        FETCH,
    ),
    value(
        "fetch-connect-timeout",
        "time",
        "10s",
        DURATION,
        "longest connect",
        FETCH,
    ),
    value(
        "fetch-min-speed",
        "bytes/s",
        "100",
        int(0, MAX),
        "slowest transfer rate accepted",
        FETCH,
    ),
    value(
        "fetch-slow-time",
        "time",
        "30s",
        DURATION,
        "how long a transfer may stay under --fetch-min-speed",
        FETCH,
    ),
    value(
        "fetch-max-delay",
        "time",
        "60s",
        DURATION,
        "longest Crawl-delay or Request-rate obeyed (at most 1d)",
        FETCH,
    ),
    value(
        "fetch-pause",
        "time",
        "60s",
        DURATION,
        "first pause of an address in distress (0: off; at most 1d)",
        FETCH,
    ),
    value(
        "fetch-pause-max",
        "time",
        "1h",
        DURATION,
        "longest pause of an address in distress (at most 1d)",
        FETCH,
    ),
    value(
        "fetch-max-retry-after",
        "time",
        "1h",
        DURATION,
        "longest Retry-After obeyed (at most 1d)",
        FETCH,
    ),
    value(
        "fetch-slow-factor",
        "n",
        "2",
        int(0, 100),
        "rest at least n times a slow server's response time",
        FETCH,
    ),
    value(
        "fetch-redirects",
        "n",
        "5",
        int(0, 255),
        "redirects followed from a first URL",
        FETCH,
    ),
    value(
        "fetch-cafile",
        "file",
        "",
        Check::Path,
        "trust the certificates in this file instead of the system's",
        FETCH,
    ),
    value(
        "robots-ttl",
        "time",
        "24h",
        DURATION,
        "longest a robots.txt is trusted",
        FETCH,
    ),
    setting(list(
        "filter-type",
        "list",
        DEFAULT_TYPES,
        Check::Text,
        "accepted content types",
        NLPCD | FETCH,
    )),
    setting(list(
        "filter-charset",
        "list",
        "",
        Check::Charset,
        "accepted charsets, by any WHATWG label (default any)",
        NLPCD | FETCH | VRFY,
    )),
    setting(list(
        "filter-lang",
        "list",
        "",
        Check::Lang,
        "accepted languages, by ISO 639 code or English name (default any)",
        NLPCD | FETCH | VRFY,
    )),
    setting(value(
        "from",
        "address",
        "",
        Check::Text,
        "the From header: who to contact about the crawl",
        NLPCD | FETCH,
    )),
    setting(value(
        "bot-url",
        "url",
        "",
        Check::Text,
        "a URL about the crawl, put in the User-Agent",
        NLPCD | FETCH,
    )),
    // nlpc-vrfy.
    setting(value(
        "filter-dict",
        "file",
        "",
        Check::Path,
        "dictionary: UTF-8, one lowercase word a line",
        NLPCD | VRFY,
    )),
    setting(value(
        "filter-dict-pct",
        "percent",
        "10",
        Check::Percent,
        "least percentage of words found in the dictionary",
        NLPCD | VRFY,
    )),
    value(
        "use-charset",
        "label",
        "",
        Check::Charset,
        "charset of HTML and text that name none and are not UTF-8 (default: detect)",
        NLPCD | VRFY,
    ),
    value(
        "max-replaced",
        "percent",
        "1",
        Check::Percent,
        "most percent of the text's characters that may be undecodable",
        VRFY,
    ),
    value(
        "lang-min-conf",
        "x",
        "0.5",
        Check::Fraction,
        "least language detection confidence, 0 to 1",
        VRFY,
    ),
    value(
        "lang-min-text",
        "n",
        "0",
        int(0, MAX),
        "fewest characters of text to judge the language of",
        VRFY,
    ),
    value(
        "lang-max-text",
        "n",
        "1024",
        int(0, MAX),
        "bytes of text sampled for language detection, 0 for all",
        VRFY,
    ),
    setting(value(
        "dup-similarity",
        "percent",
        "50",
        int(10, 100),
        "least estimated share of word shingles a near duplicate has in common, 10 to 100",
        NLPCD | VRFY,
    )),
    // The selectors of nlpc-up, nlpc-list and nlpc-dump.
    short(
        list(
            "",
            "state",
            "",
            Check::State,
            "records in this state (repeatable)",
            SELECTORS,
        ),
        's',
    ),
    list(
        "auth",
        "host",
        "",
        Check::Hosts,
        "records of this host and its subdomains",
        SELECTORS,
    ),
    // nlpc-up.
    value(
        "ttexp",
        "time",
        "10d",
        DURATION,
        "re-fetch SCANNED pages this long after their fetch",
        UP,
    ),
    value(
        "ttmin",
        "time",
        "1d",
        DURATION,
        "but never sooner, whatever the server says",
        UP,
    ),
    value(
        "ttrev",
        "time",
        "5d",
        DURATION,
        "revive UNREACH records this long after they failed",
        UP,
    ),
    value(
        "rtdead",
        "n",
        "5",
        int(0, u16::MAX as u64),
        "failed revivals in a row that make a record DEAD",
        UP,
    ),
    value(
        "ttdel",
        "time",
        "5d",
        DURATION,
        "prune DEAD records this long after they died",
        UP,
    ),
    value(
        "ttrej",
        "time",
        "",
        DURATION,
        "re-fetch REJECTED, EXCLUDED and REDIRECT records this long after (default: --ttexp)",
        UP,
    ),
    value(
        "ttaddr",
        "time",
        "1d",
        DURATION,
        "resolve a record's host again when its address is older",
        UP,
    ),
    flag("force-exp", None, "expire the selected records now", UP),
    flag("force-rev", None, "revive the selected records now", UP),
    flag(
        "force-dead",
        None,
        "declare the selected records DEAD now",
        UP,
    ),
    flag("force-del", None, "prune the selected DEAD records now", UP),
    // nlpc-list.
    flag("", Some('c'), "print the number of records per state", LIST),
    flag("json", None, "print JSON lines", LIST | SEARCH),
    flag(
        "hosts",
        None,
        "print pages fetched, accepted, harvest rate and yield per host",
        LIST,
    ),
    value(
        "history",
        "url",
        "",
        Check::Text,
        "print the stored and archived versions of this URL",
        LIST,
    ),
    value(
        "cluster",
        "url",
        "",
        Check::Text,
        "print the first copy of this URL's text and its duplicates",
        LIST,
    ),
    flag(
        "check",
        None,
        "check every page, record and index entry; print the problems",
        LIST,
    ),
    value(
        "backup",
        "dir",
        "",
        Check::Path,
        "copy the database, compacted, to dir/data.mdb while it runs",
        LIST,
    ),
    flag(
        "config",
        None,
        "print the crawl's settings: stored ones as NAME=VALUE, defaults after #",
        LIST,
    ),
    Opt {
        kind: Kind::Repeat,
        ..value(
            "set",
            "name=value",
            "",
            Check::Setting,
            "change a stored setting of the crawl, as in --set filter-auth=lv; an empty value removes it (repeatable)",
            LIST,
        )
    },
    // nlpc-dump.
    value(
        "warc",
        "file",
        "",
        Check::Path,
        "write a WARC 1.1 file here (- for standard output)",
        DUMP,
    ),
    value(
        "text",
        "dir",
        "",
        Check::Path,
        "write UTF-8 text files and index.tsv under this directory",
        DUMP,
    ),
    list(
        "lang",
        "list",
        "",
        Check::Lang,
        "only pages in these languages, by ISO 639 code or English name (default any)",
        DUMP,
    ),
    flag(
        "archived",
        None,
        "earlier versions too, from the archive",
        DUMP,
    ),
    value(
        "jsonl",
        "file",
        "",
        Check::Path,
        "write JSON Lines, a page's metadata and main text a line (- for standard output)",
        DUMP,
    ),
    value(
        "vert",
        "file",
        "",
        Check::Path,
        "write vertical text for corpus query systems (- for standard output)",
        DUMP,
    ),
    value(
        "wet",
        "file",
        "",
        Check::Path,
        "write the main text as WARC conversion records (- for standard output)",
        DUMP,
    ),
    value(
        "stat-every",
        "time",
        "60s",
        Check::Duration { nonzero: true },
        "how often nlpcd, nlpc-resolve and nlpc-fetch write their counters into the statistics history, and nlpc-relay publishes its node's",
        NLPCD | RESOLVE | FETCH | RELAY,
    ),
    // The cluster (nlpcd and nlpc-relay).
    list(
        "nats",
        "urls",
        "",
        Check::NatsUrl,
        "crawl as one node of a cluster over these NATS servers (nats://HOST:PORT, comma-separated); needs --node",
        NLPCD | RELAY,
    ),
    value(
        "node",
        "i/n",
        "",
        Check::Node,
        "with --nats: this node is partition I of N (from 0/N to N-1/N)",
        NLPCD | RELAY,
    ),
    // How the relay proves who it is and whom it talks to: files only, so
    // no secret is on a command line or among the stored settings.
    value(
        "nats-creds",
        "file",
        "",
        Check::Path,
        "with --nats: a NATS credentials file (a user JWT and its nkey seed)",
        NLPCD | RELAY,
    ),
    value(
        "nats-nkey",
        "file",
        "",
        Check::Path,
        "with --nats: a file holding this node's NATS nkey seed",
        NLPCD | RELAY,
    ),
    value(
        "nats-token",
        "file",
        "",
        Check::Path,
        "with --nats: a file holding the NATS token",
        NLPCD | RELAY,
    ),
    value(
        "nats-user",
        "name",
        "",
        Check::Text,
        "with --nats: the NATS user name; the password is read from --nats-password",
        NLPCD | RELAY,
    ),
    value(
        "nats-password",
        "file",
        "",
        Check::Path,
        "with --nats-user: a file holding the user's password",
        NLPCD | RELAY,
    ),
    value(
        "nats-ca",
        "file",
        "",
        Check::Path,
        "with --nats: the CA certificates (PEM) the NATS servers' certificates are checked against; TLS is required",
        NLPCD | RELAY,
    ),
    value(
        "nats-cert",
        "file",
        "",
        Check::Path,
        "with --nats: this node's client certificate (PEM), for servers that verify clients; needs --nats-key",
        NLPCD | RELAY,
    ),
    value(
        "nats-key",
        "file",
        "",
        Check::Path,
        "with --nats-cert: the client certificate's private key (PEM)",
        NLPCD | RELAY,
    ),
    // The links stream's limits, applied by every node's relay as it starts.
    value(
        "nats-max-bytes",
        "size",
        "1G",
        Check::Size,
        "with --nats: the most bytes the links stream holds (per replica)",
        NLPCD | RELAY,
    ),
    value(
        "nats-max-age",
        "time",
        "30d",
        Check::Duration { nonzero: false },
        "with --nats: how long a link waits in the stream for its node before it is dropped (0: forever)",
        NLPCD | RELAY,
    ),
    value(
        "nats-max-msg",
        "size",
        "8k",
        Check::Size,
        "with --nats: the largest message the links stream takes",
        NLPCD | RELAY,
    ),
    value(
        "nats-discard",
        "policy",
        "new",
        Check::Text,
        "with --nats: when the links stream is full, refuse new links (new; they wait in the senders' outboxes) or drop the oldest (old)",
        NLPCD | RELAY,
    ),
    // nlpc-stat.
    flag("csv", None, "print CSV: a header line, then one row a step", STAT),
    value(
        "png",
        "file",
        "",
        Check::Path,
        "draw the charts into this PNG file",
        STAT,
    ),
    value(
        "svg",
        "file",
        "",
        Check::Path,
        "draw the charts into this SVG file",
        STAT,
    ),
    value(
        "width",
        "pixels",
        "1200",
        int(200, 10_000),
        "width of the charts",
        STAT,
    ),
    value(
        "height",
        "pixels",
        "900",
        int(200, 10_000),
        "height of the charts",
        STAT,
    ),
    value(
        "since",
        "time",
        "",
        Check::Text,
        "only what changed at or after this time: RFC 3339, Unix seconds, or a stretch back from now such as 6h or 2d",
        DUMP | STAT,
    ),
    value(
        "cursor",
        "name",
        "",
        Check::Text,
        "only pages changed since the last export with this cursor, which then advances",
        DUMP,
    ),
    flag(
        "duplicates",
        None,
        "exact and near duplicates in the text and corpus formats too (WARC has them always)",
        DUMP,
    ),
    flag(
        "dedup-paragraphs",
        None,
        "leave paragraphs written once out of later texts (--text)",
        DUMP,
    ),
    flag(
        "lang-paragraphs",
        None,
        "leave out the paragraphs in a language other than the page's",
        DUMP,
    ),
    value(
        "step",
        "time",
        "60s",
        Check::Duration { nonzero: true },
        "one row (one point of the charts) per this much time; the last entry of each daemon in it counts",
        STAT,
    ),
    value(
        "font",
        "file",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        Check::Path,
        "TrueType font of the charts' text (Debian: fonts-dejavu-core)",
        STAT,
    ),
    // nlpc-index and nlpc-search.
    value(
        "index",
        "dir",
        "",
        Check::Path,
        "the search index's directory (default: index beside the database, DIR/index)",
        NLPCD | INDEX | SEARCH,
    ),
    flag(
        "kwic",
        None,
        "print a concordance: each hit with its left and right context",
        SEARCH,
    ),
    value(
        "freq",
        "what",
        "",
        Check::Text,
        "print a frequency list: words, or the hits' left or right neighbours",
        SEARCH,
    ),
    value(
        "context",
        "n",
        "40",
        int(1, 1000),
        "characters of context on each side of a concordance hit",
        SEARCH,
    ),
    value(
        "sort",
        "side",
        "",
        Check::Text,
        "sort the concordance by its left or right context (default: by rank)",
        SEARCH,
    ),
    flag(
        "fold",
        None,
        "match with and without diacritics (zale finds zāle)",
        SEARCH,
    ),
    value(
        "limit",
        "n",
        "20",
        int(0, MAX),
        "print at most this many results, concordance lines or words (0: all)",
        SEARCH,
    ),
    value(
        "serve",
        "addr",
        "",
        Check::Text,
        "serve a search page at this port on 127.0.0.1, or at this address and port (e.g. 127.0.0.1:8470)",
        SEARCH,
    ),
    value(
        "serve-workers",
        "n",
        "2",
        int(1, 64),
        "with --serve: queries answered at once; more wait up to a second, then are told the page is busy",
        SEARCH,
    ),
    value(
        "serve-budget",
        "time",
        "2s",
        Check::Duration { nonzero: true },
        "with --serve: the time one query may take; past it the page says what was done and why it stopped",
        SEARCH,
    ),
    value(
        "serve-connections",
        "n",
        "1024",
        int(1, 65_536),
        "with --serve: connections open at once; one more is closed at once",
        SEARCH,
    ),
];

/// The option a parser knows by `key` (long name, or short letter).
pub fn find(key: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.key() == key)
}

/// The options `p` takes.
pub fn of(p: Program) -> impl Iterator<Item = &'static Opt> {
    OPTIONS.iter().filter(move |o| o.takes(p))
}

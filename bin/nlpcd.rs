//! nlpcd: the one-line start. Seeds the database, runs every daemon with
//! the shared filters, restarts those that die, stops them all on SIGINT or
//! SIGTERM, and shows a monitor with -m.

use std::path::PathBuf;

use clap::{ArgAction, Parser};
use nlpcrawl::launch::supervisor::{self, Launch, Shared};
use nlpcrawl::run::options::{DEFAULT_ARCHIVE, DEFAULT_CACHE, DEFAULT_DB, DEFAULT_REP};
use nlpcrawl::run::{daemon, log};
use nlpcrawl::stage::scan;

const NAME: &str = "nlpcd";

/// Crawl the web for pages in one language: seed, then run every nlpcrawl
/// daemon under supervision.
#[derive(Parser, Debug)]
#[command(name = "nlpcd", version, disable_version_flag = true)]
struct Opts {
    /// More debug output, passed to every daemon (repeatable).
    #[arg(short = 'd', action = ArgAction::Count)]
    debug: u8,
    /// Show a monitor, refreshed every second.
    #[arg(short = 'm')]
    monitor: bool,
    /// Print the version and exit.
    #[arg(short = 'v', action = ArgAction::Version)]
    version: Option<bool>,
    /// Database path.
    #[arg(short = 'p', value_name = "dbpath", default_value = DEFAULT_DB)]
    db: PathBuf,
    /// File cache path.
    #[arg(short = 'f', value_name = "cachepath", default_value = DEFAULT_CACHE)]
    cache: PathBuf,
    /// Archive path.
    #[arg(short = 'a', value_name = "archivepath", default_value = DEFAULT_ARCHIVE)]
    archive: PathBuf,
    /// robots.txt cache path.
    #[arg(short = 'r', value_name = "reppath", default_value = DEFAULT_REP)]
    rep: PathBuf,
    /// Run until no record can advance, then stop every daemon and exit.
    #[arg(long)]
    once: bool,
    /// Start a new database even over an empty data.mdb or a lone lock.mdb.
    #[arg(long)]
    create: bool,
    /// Append the daemons' log lines to this file (default: standard error;
    /// with -m, DBPATH/nlpcd.log).
    #[arg(long, value_name = "file")]
    log: Option<PathBuf>,
    /// The longest an idle daemon waits before looking again (default 120s;
    /// 0.2s with --once); new work wakes it within 10 ms regardless.
    #[arg(long, value_name = "time")]
    use_interval: Option<String>,
    /// Allowed URL schemes.
    #[arg(long, value_name = "list")]
    filter_scheme: Vec<String>,
    /// Allowed hosts, with their subdomains.
    #[arg(long, value_name = "list")]
    filter_auth: Vec<String>,
    /// Also enqueue the parent directories of new links.
    #[arg(long)]
    filter_ascend: bool,
    /// Enqueue the parent directories of verified documents.
    #[arg(long)]
    filter_ascend_scan: bool,
    /// Accepted content types.
    #[arg(long, value_name = "list")]
    filter_type: Vec<String>,
    /// Accepted charsets.
    #[arg(long, value_name = "list")]
    filter_charset: Vec<String>,
    /// Accepted languages (ISO 639-1 or 639-3).
    #[arg(long, value_name = "list")]
    filter_lang: Vec<String>,
    /// Dictionary: UTF-8, one lowercase word a line.
    #[arg(long, value_name = "file")]
    filter_dict: Option<PathBuf>,
    /// Share of a page's words that must be in the dictionary.
    #[arg(long, value_name = "percent")]
    filter_dict_pct: Option<String>,
    /// Charset of pages that declare none.
    #[arg(long, value_name = "label")]
    use_charset: Option<String>,
    /// Pages per burst to one address.
    #[arg(long, value_name = "n")]
    fetch_burst: Option<String>,
    /// Rest of an address between bursts.
    #[arg(long, value_name = "time")]
    fetch_polite: Option<String>,
    /// Addresses served at once.
    #[arg(long, value_name = "n")]
    fetch_hosts: Option<String>,
    /// Requests multiplexed on one HTTP/2 connection.
    #[arg(long, value_name = "n")]
    fetch_pipeline: Option<String>,
    /// The From header: who to contact about the crawl.
    #[arg(long, value_name = "address")]
    from: Option<String>,
    /// A URL about the crawl, put in the User-Agent.
    #[arg(long, value_name = "url")]
    bot_url: Option<String>,
    /// Name servers to ask instead of the system's (ADDR[:PORT]).
    #[arg(long, value_name = "addr")]
    nameserver: Vec<String>,
    /// Allow hosts that resolve to private, loopback or link-local addresses.
    #[arg(long)]
    allow_private: bool,
    /// Resolve to IPv4 addresses only.
    #[arg(short = '4', conflicts_with = "ipv6")]
    ipv4: bool,
    /// Resolve to IPv6 addresses only.
    #[arg(short = '6')]
    ipv6: bool,
    /// Pass ARG to one daemon: "nlpc-fetch:--fetch-max-size=1M" (repeatable).
    #[arg(long, value_name = "daemon:arg")]
    with: Vec<String>,
    /// Seed URLs, or - to read them from standard input.
    #[arg(value_name = "url")]
    urls: Vec<String>,
}

fn main() {
    let o = Opts::parse();
    log::init(NAME, o.debug);
    let interval = o
        .use_interval
        .clone()
        .or_else(|| o.once.then(|| "0.2s".to_string()));
    let shared = Shared {
        db: o.db.clone(),
        cache: o.cache.clone(),
        archive: o.archive.clone(),
        rep: o.rep.clone(),
        debug: o.debug,
        interval,
        filter_scheme: o.filter_scheme.clone(),
        filter_auth: o.filter_auth.clone(),
        filter_ascend: o.filter_ascend,
        filter_ascend_scan: o.filter_ascend_scan,
        filter_type: o.filter_type.clone(),
        filter_charset: o.filter_charset.clone(),
        filter_lang: o.filter_lang.clone(),
        filter_dict: o.filter_dict.clone(),
        filter_dict_pct: o.filter_dict_pct.clone(),
        use_charset: o.use_charset.clone(),
        fetch_burst: o.fetch_burst.clone(),
        fetch_polite: o.fetch_polite.clone(),
        fetch_hosts: o.fetch_hosts.clone(),
        fetch_pipeline: o.fetch_pipeline.clone(),
        from: o.from.clone(),
        bot_url: o.bot_url.clone(),
        nameserver: o.nameserver.clone(),
        allow_private: o.allow_private,
        ipv4: o.ipv4,
        ipv6: o.ipv6,
        with: o.with.clone(),
    };
    let daemons = shared.daemons().unwrap_or_else(|e| daemon::fail(NAME, e));
    let filter = shared
        .seed_filter()
        .unwrap_or_else(|e| daemon::fail(NAME, e));
    let seeds: Box<dyn Iterator<Item = (usize, String)>> = if o.urls == ["-"] {
        Box::new(scan::seed_lines(std::io::stdin().lock(), |e| {
            daemon::fail(NAME, format!("standard input: {e}"))
        }))
    } else {
        Box::new(
            o.urls
                .clone()
                .into_iter()
                .enumerate()
                .map(|(i, u)| (i + 1, u)),
        )
    };
    let log = o
        .log
        .clone()
        .or_else(|| o.monitor.then(|| o.db.join("nlpcd.log")));
    let launch = Launch {
        db: o.db.clone(),
        seeds,
        filter,
        daemons,
        once: o.once,
        create: o.create,
        monitor: o.monitor,
        log,
    };
    if let Err(e) = supervisor::run(launch) {
        daemon::fail(NAME, e);
    }
}

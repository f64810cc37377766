//! nlpc-fetch: fetch READY and DIRTY records politely, per physical address.

use std::time::Duration;

use nlpcrawl::document::{charset, lang};
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{OrExit, Parser};
use nlpcrawl::stage::fetch::{Config, Fetcher};
use nlpcrawl::web::admit::Filter;
use nlpcrawl::web::http::{self, HeaderFilter};
use nlpcrawl::web::politeness::Policy;

const NAME: &str = "nlpc-fetch";
const TYPES: &str = "text/html application/xhtml+xml text/plain text/xml application/xml";

/// "4M", "512k", "100000": a byte count.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1 << 10),
        Some((i, 'm' | 'M')) => (&s[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

fn main() {
    let mut p = Parser::new(NAME, "");
    p.opts()
        .optflag("m", "", "monitor: show what is fetched, once a second")
        .optopt(
            "",
            "fetch-burst",
            "pages per burst to one address (default 2)",
            "n",
        )
        .optopt(
            "",
            "fetch-polite",
            "rest of an address between bursts (default 10s)",
            "time",
        )
        .optopt(
            "",
            "fetch-pipeline",
            "requests in flight on one connection (default 6)",
            "n",
        )
        .optopt(
            "",
            "fetch-hosts",
            "addresses served at once (default 64)",
            "n",
        )
        .optopt(
            "",
            "fetch-max-size",
            "largest body accepted (default 4M)",
            "bytes",
        )
        .optopt(
            "",
            "fetch-timeout",
            "longest transfer (default 60s)",
            "time",
        )
        .optopt(
            "",
            "fetch-connect-timeout",
            "longest connect (default 10s)",
            "time",
        )
        .optopt(
            "",
            "fetch-min-speed",
            "slowest transfer rate accepted (default 100)",
            "bytes/s",
        )
        .optopt(
            "",
            "fetch-slow-time",
            "how long a transfer may stay under it (default 30s)",
            "time",
        )
        .optopt(
            "",
            "fetch-max-delay",
            "longest Crawl-delay or Request-rate obeyed (default 60s)",
            "time",
        )
        .optopt(
            "",
            "fetch-redirects",
            "redirects followed from a first URL (default 5)",
            "n",
        )
        .optmulti("", "filter-type", "accepted content types", "list")
        .optmulti(
            "",
            "filter-charset",
            "accepted charsets (default any)",
            "list",
        )
        .optmulti(
            "",
            "filter-lang",
            "accepted content languages, by ISO 639 code or English name (default any)",
            "list",
        )
        .optopt(
            "",
            "fetch-cafile",
            "trust the certificates in this file instead of the system's",
            "file",
        )
        .optopt(
            "",
            "robots-ttl",
            "longest a robots.txt is trusted (default 24h)",
            "time",
        )
        .optopt(
            "",
            "from",
            "the From header: who to contact about the crawl",
            "address",
        )
        .optopt(
            "",
            "bot-url",
            "a URL about the crawl, put in the User-Agent",
            "url",
        )
        .optmulti(
            "",
            "filter-scheme",
            "allowed URL schemes (default \"http https\")",
            "list",
        )
        .optmulti(
            "",
            "filter-auth",
            "allowed hosts, with their subdomains (default any)",
            "list",
        )
        .optopt(
            "",
            "max-url-length",
            "longest URL accepted (default 1024)",
            "n",
        )
        .optopt(
            "",
            "max-path-depth",
            "most path segments accepted (default 16)",
            "n",
        )
        .optopt(
            "",
            "max-repeat",
            "most times one path segment may recur (default 3)",
            "n",
        )
        .optflag(
            "",
            "allow-private",
            "admit URLs whose host is a private or loopback IP address",
        );
    let o = p.parse_env();
    let monitor = o.matches.opt_present("m");
    // The monitor owns the terminal: no debug lines then.
    log::init(NAME, if monitor { 0 } else { o.common.debug });
    let policy = Policy {
        burst: o.value("fetch-burst", 2usize).or_exit(),
        polite: o
            .duration("fetch-polite", Duration::from_secs(10))
            .or_exit(),
        pipeline: o.value("fetch-pipeline", 6usize).or_exit(),
    };
    if policy.burst == 0 || policy.pipeline == 0 {
        o.usage_error("--fetch-burst and --fetch-pipeline must be at least 1")
            .exit();
    }
    let max_size = match o.matches.opt_str("fetch-max-size") {
        None => 4 << 20,
        Some(v) => parse_size(&v).unwrap_or_else(|| {
            o.usage_error(format!("--fetch-max-size: {v:?} is not a size"))
                .exit()
        }),
    };
    let mut charsets = Vec::new();
    for c in o.list("filter-charset", "") {
        match charset::parse(&c) {
            Ok(e) => charsets.push(e),
            Err(e) => o.usage_error(format!("--filter-charset: {e}")).exit(),
        }
    }
    let mut langs = Vec::new();
    for code in o.list("filter-lang", "") {
        match lang::parse(&code) {
            Ok(l) => langs.push(l),
            Err(e) => o.usage_error(format!("--filter-lang: {e}")).exit(),
        }
    }
    let types: Vec<String> = o
        .list("filter-type", TYPES)
        .iter()
        .map(|t| t.to_ascii_lowercase())
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    let user_agent = match o.matches.opt_str("bot-url") {
        Some(u) => format!("nlpcrawl/{version} (+{u})"),
        None => format!("nlpcrawl/{version}"),
    };
    let hosts = o.value("fetch-hosts", 64usize).or_exit().max(1);
    // Redirect targets and Sitemap lines are admitted as nlpc-scan admits links.
    let d = Filter::default();
    let lists = Filter::from_lists(
        &o.list("filter-scheme", ""),
        &o.list("filter-auth", ""),
        o.matches.opt_present("allow-private"),
    )
    .unwrap_or_else(|e| o.usage_error(e).exit());
    let admit = Filter {
        max_len: o.value("max-url-length", d.max_len).or_exit(),
        max_depth: o.value("max-path-depth", d.max_depth).or_exit(),
        max_repeat: o.value("max-repeat", d.max_repeat).or_exit(),
        ..lists
    };
    let cfg = Config {
        policy,
        hosts,
        http: http::Config {
            user_agent,
            from: o.matches.opt_str("from"),
            accept: types.join(", "),
            connect_timeout: o
                .duration("fetch-connect-timeout", Duration::from_secs(10))
                .or_exit(),
            timeout: o
                .duration("fetch-timeout", Duration::from_secs(60))
                .or_exit(),
            min_speed: o.value("fetch-min-speed", 100u32).or_exit(),
            slow_time: o
                .duration("fetch-slow-time", Duration::from_secs(30))
                .or_exit(),
            max_size,
            filter: HeaderFilter {
                types,
                charsets,
                langs,
            },
            max_connections: hosts * 2,
            pipeline: policy.pipeline,
            ca_file: o.matches.opt_str("fetch-cafile").map(Into::into),
        },
        robots_ttl: o
            .duration("robots-ttl", Duration::from_secs(86_400))
            .or_exit(),
        max_delay: o
            .duration("fetch-max-delay", nlpcrawl::stage::fetch::DEFAULT_MAX_DELAY)
            .or_exit(),
        max_redirects: o.value("fetch-redirects", 5u8).or_exit(),
        admit,
        monitor,
    };
    if let Err(e) = cfg.validate() {
        o.usage_error(e).exit();
    }
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    let res = Fetcher::new(&d, cfg).and_then(|mut f| f.run());
    if let Err(e) = res {
        daemon::fail(NAME, e);
    }
}

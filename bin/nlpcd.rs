//! nlpcd: the one-line start. Seeds the database, runs every daemon with
//! the shared filters, restarts those that die, stops them all on SIGINT or
//! SIGTERM, and shows a monitor with -m.

use std::ffi::OsString;
use std::io::BufRead;
use std::path::PathBuf;

use clap::{ArgAction, Parser};
use nlpcrawl::options::{DEFAULT_ARCHIVE, DEFAULT_CACHE, DEFAULT_DB, DEFAULT_REP};
use nlpcrawl::scan::{self, Filter};
use nlpcrawl::supervisor::{self, Daemon, Launch};
use nlpcrawl::{daemon, log};

const NAME: &str = "nlpcd";
const DAEMONS: [&str; 5] = [
    "nlpc-scan",
    "nlpc-resolve",
    "nlpc-fetch",
    "nlpc-vrfy",
    "nlpc-up",
];

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
    /// Append the daemons' log lines to this file (default: standard error;
    /// with -m, DBPATH/nlpcd.log).
    #[arg(long, value_name = "file")]
    log: Option<PathBuf>,
    /// How often an idle daemon looks for work (default 120s; 0.2s with --once).
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

fn push_opt(args: &mut Vec<OsString>, name: &str, v: &Option<String>) {
    if let Some(v) = v {
        args.push(format!("--{name}").into());
        args.push(v.into());
    }
}

fn push_list(args: &mut Vec<OsString>, name: &str, v: &[String]) {
    for x in v {
        args.push(format!("--{name}").into());
        args.push(x.into());
    }
}

fn main() {
    let o = Opts::parse();
    log::init(NAME, o.debug);
    let interval = o
        .use_interval
        .clone()
        .or_else(|| o.once.then(|| "0.2s".to_string()));
    let mut common: Vec<OsString> = vec![
        "-p".into(),
        o.db.clone().into(),
        "-f".into(),
        o.cache.clone().into(),
        "-a".into(),
        o.archive.clone().into(),
        "-r".into(),
        o.rep.clone().into(),
    ];
    for _ in 0..o.debug {
        common.push("-d".into());
    }
    push_opt(&mut common, "use-interval", &interval);

    let mut per: Vec<(&'static str, Vec<OsString>)> =
        DAEMONS.iter().map(|d| (*d, common.clone())).collect();
    for (name, args) in per.iter_mut() {
        match *name {
            "nlpc-scan" => {
                push_list(args, "filter-scheme", &o.filter_scheme);
                push_list(args, "filter-auth", &o.filter_auth);
                if o.filter_ascend {
                    args.push("--filter-ascend".into());
                }
                if o.filter_ascend_scan {
                    args.push("--filter-ascend-scan".into());
                }
            }
            "nlpc-resolve" => {
                push_list(args, "nameserver", &o.nameserver);
                if o.allow_private {
                    args.push("--allow-private".into());
                }
                if o.ipv4 {
                    args.push("-4".into());
                }
                if o.ipv6 {
                    args.push("-6".into());
                }
            }
            "nlpc-fetch" => {
                push_opt(args, "fetch-burst", &o.fetch_burst);
                push_opt(args, "fetch-polite", &o.fetch_polite);
                push_opt(args, "fetch-hosts", &o.fetch_hosts);
                push_opt(args, "fetch-pipeline", &o.fetch_pipeline);
                push_list(args, "filter-type", &o.filter_type);
                push_list(args, "filter-charset", &o.filter_charset);
                push_list(args, "filter-lang", &o.filter_lang);
                push_opt(args, "from", &o.from);
                push_opt(args, "bot-url", &o.bot_url);
            }
            "nlpc-vrfy" => {
                push_list(args, "filter-charset", &o.filter_charset);
                push_list(args, "filter-lang", &o.filter_lang);
                push_opt(
                    args,
                    "filter-dict",
                    &o.filter_dict.as_ref().map(|p| p.display().to_string()),
                );
                push_opt(args, "filter-dict-pct", &o.filter_dict_pct);
                push_opt(args, "use-charset", &o.use_charset);
            }
            _ => {}
        }
    }
    for w in &o.with {
        let Some((d, arg)) = w.split_once(':') else {
            daemon::fail(NAME, format!("--with {w:?}: expected DAEMON:ARG"));
        };
        let d = if d.starts_with("nlpc-") {
            d.to_string()
        } else {
            format!("nlpc-{d}")
        };
        match per.iter_mut().find(|(n, _)| *n == d) {
            Some((_, args)) => args.push(arg.into()),
            None => daemon::fail(NAME, format!("--with {w:?}: no daemon {d}")),
        }
    }

    let mut auth = Vec::new();
    for a in o
        .filter_auth
        .iter()
        .flat_map(|s| s.split([' ', ',']))
        .filter(|s| !s.is_empty())
    {
        match scan::normalise_host(a) {
            Ok(h) => auth.push(h),
            Err(e) => daemon::fail(NAME, format!("--filter-auth: {e}")),
        }
    }
    let schemes: Vec<String> = o
        .filter_scheme
        .iter()
        .flat_map(|s| s.split([' ', ',']))
        .filter(|s| !s.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let filter = Filter {
        schemes: if schemes.is_empty() {
            Filter::default().schemes
        } else {
            schemes
        },
        auth,
        ..Filter::default()
    };
    let seeds: Vec<(usize, String)> = if o.urls == ["-"] {
        let mut v = Vec::new();
        for (i, line) in std::io::stdin().lock().lines().enumerate() {
            match line {
                Ok(l) => v.push((i + 1, l)),
                Err(e) => daemon::fail(NAME, format!("standard input: line {}: {e}", i + 1)),
            }
        }
        v
    } else {
        o.urls
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, u)| (i + 1, u))
            .collect()
    };
    let log = o
        .log
        .clone()
        .or_else(|| o.monitor.then(|| o.db.join("nlpcd.log")));
    let launch = Launch {
        db: o.db.clone(),
        seeds,
        filter,
        daemons: per.into_iter().map(|(n, a)| Daemon::new(n, a)).collect(),
        once: o.once,
        monitor: o.monitor,
        log,
    };
    if let Err(e) = supervisor::run(launch) {
        daemon::fail(NAME, e);
    }
}

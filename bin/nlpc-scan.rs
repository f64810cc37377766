//! nlpc-scan: seed the database, and extract links from verified documents.

use nlpcrawl::info;
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{OrExit, Parser};
use nlpcrawl::stage::scan::{self, Config};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::State;
use nlpcrawl::store::{self, Store};
use nlpcrawl::web::admit::{self, Filter};

const NAME: &str = "nlpc-scan";

fn main() {
    let mut p = Parser::new(NAME, "[url ... | -]");
    p.opts()
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
        .optflag(
            "",
            "filter-ascend",
            "also enqueue the parent directories of new links",
        )
        .optflag(
            "",
            "filter-ascend-scan",
            "enqueue the parent directories of scanned documents",
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
            "create",
            "seeding: start a new database over an empty data.mdb or a lone lock.mdb",
        );
    let o = p.parse_env();
    log::init(NAME, o.common.debug);
    let d = Filter::default();
    let auth = admit::host_patterns(&o.list("filter-auth", ""))
        .unwrap_or_else(|e| o.usage_error(format!("--filter-auth: {e}")).exit());
    let filter = Filter {
        schemes: o
            .list("filter-scheme", "http https")
            .iter()
            .map(|s| s.to_ascii_lowercase())
            .collect(),
        auth,
        max_len: o.value("max-url-length", d.max_len).or_exit(),
        max_depth: o.value("max-path-depth", d.max_depth).or_exit(),
        max_repeat: o.value("max-repeat", d.max_repeat).or_exit(),
    };
    let cfg = Config {
        filter,
        ascend: o.matches.opt_present("filter-ascend"),
        ascend_scan: o.matches.opt_present("filter-ascend-scan"),
        ..Config::default()
    };

    if !o.free().is_empty() {
        // Seeding mode: insert the operands (or stdin's lines) and exit.
        let create = if o.matches.opt_present("create") {
            store::Create::Force
        } else {
            store::Create::IfAbsent
        };
        let opts = store::Options {
            create,
            ..store::Options::default()
        };
        let store = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
        let from_stdin = o.free() == ["-"];
        let operands = o.free().to_vec();
        let urls: Box<dyn Iterator<Item = (usize, String)>> = if from_stdin {
            Box::new(scan::seed_lines(std::io::stdin().lock(), |e| {
                daemon::fail(NAME, format!("standard input: {e}"))
            }))
        } else {
            Box::new(operands.into_iter().enumerate().map(|(i, u)| (i + 1, u)))
        };
        let rep = scan::seed(&store, &cfg.filter, urls).unwrap_or_else(|e| daemon::fail(NAME, e));
        info!(
            "seeded {} new, {} known, {} bad",
            rep.added, rep.known, rep.bad
        );
        std::process::exit(if rep.bad > 0 { 2 } else { 0 });
    }

    if o.matches.opt_present("create") {
        o.usage_error("--create applies to seeding only: give URLs or -")
            .exit();
    }
    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = d.run(&[State::Verified], |d| scan::step(d, &cfg, &cache)) {
        daemon::fail(NAME, e);
    }
}

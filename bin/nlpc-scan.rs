//! nlpc-scan: seed the database, and extract links from verified documents.

use nlpcrawl::info;
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{settings, Parser, Program};
use nlpcrawl::stage::scan::{self, Config};
use nlpcrawl::stage::tunnel;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-scan";

fn main() {
    let o = Parser::new(Program::Scan).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));

    if !o.free().is_empty() {
        // Seeding mode: insert the operands (or stdin's lines) and exit.
        let create = if o.flag("create") {
            store::Create::Force
        } else {
            store::Create::IfAbsent
        };
        let opts = store::Options {
            create,
            ..store::Options::default()
        };
        let store = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
        daemon::log_overrides(&o.common);
        if store.created() {
            // The crawl begins: its settings are those given now.
            let given = o.given_settings();
            settings::store_all(&store, &given).unwrap_or_else(|e| daemon::fail(NAME, e));
            if !given.is_empty() {
                info!("stored settings: {}", settings::describe(&given));
            }
        }
        let from_stdin = o.free() == ["-"];
        let operands = o.free().to_vec();
        let urls: Box<dyn Iterator<Item = scan::Seed>> = if from_stdin {
            Box::new(scan::seed_lines(std::io::stdin().lock(), |e| {
                daemon::fail(NAME, format!("standard input: {e}"))
            }))
        } else {
            Box::new(scan::seed_args(operands))
        };
        let rep = scan::seed(&store, &cfg.filter, urls).unwrap_or_else(|e| daemon::fail(NAME, e));
        info!(
            "seeded {} new, {} known, {} bad",
            rep.added, rep.known, rep.bad
        );
        std::process::exit(if rep.bad > 0 { 2 } else { 0 });
    }

    if o.flag("create") {
        o.fail(nlpcrawl::Error::Usage(
            "--create applies to seeding only: give URLs or -".into(),
        ));
    }
    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = d.run_on(
        tunnel::scan_wake_mask(),
        &mut (),
        // Verified pages, then the rejected ones --filter-tunnel follows.
        |_, d| Ok(scan::step(d, &cfg, &cache)? + tunnel::step(d, &cfg, &cache)?),
        |_, d| tunnel::scan_waiting(d),
    ) {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

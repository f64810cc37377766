//! nlpc-up: expire, revive, kill and prune records, on a timer or at once.

use nlpcrawl::info;
use nlpcrawl::run::clock;
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::stage::up::{self, Config};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-up";

fn main() {
    let o = Parser::new(Program::Up).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let actions = up::actions(&o, &cfg).unwrap_or_else(|e| o.fail(e));

    let cache = Cache::new(&o.common.cache);
    if !actions.is_empty() {
        let opts = store::Options {
            create: store::Create::Never,
            ..store::Options::default()
        };
        let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
        let explicit = !cfg.select.states.is_empty();
        match up::force(&st, &cache, &cfg, &actions, explicit, clock::now()) {
            Ok(rep) => info!("forced: {rep}"),
            Err(e) => daemon::fail(NAME, e),
        }
        return;
    }

    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    let res = d.run(&[], |d| {
        let n = up::step(&d.store, &cache, &cfg)?;
        // One pass handles everything due, so a daemon rests after each;
        // --once repeats until a pass finds nothing (a record killed in one
        // pass may be due for pruning in the next).
        Ok(if d.common.once { n } else { 0 })
    });
    if let Err(e) = res {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

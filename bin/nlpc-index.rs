//! nlpc-index: keep the search index of the verified pages' main text up
//! to date, following the store's change log.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::search::index::{Config, Indexer};
use nlpcrawl::store::cache::Cache;

const NAME: &str = "nlpc-index";

fn main() {
    let o = Parser::new(Program::Index).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    let mut ix = Indexer::open(&cfg, &d.store).unwrap_or_else(|e| daemon::fail(NAME, e));
    // The change log is not a state: an idle nlpc-index looks again every
    // --use-interval (or at once when a step did work).
    if let Err(e) = d.run(&[], |d| ix.step(&d.store, &cache)) {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

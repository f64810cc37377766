//! nlpc-index: keep the search index of the verified pages' main text up
//! to date, following the store's change log.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::search::index::{Config, Indexer};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::wake;

const NAME: &str = "nlpc-index";

fn main() {
    let o = Parser::new(Program::Index).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    let mut ix = Indexer::open(&cfg, &d.store).unwrap_or_else(|e| daemon::fail(NAME, e));
    // The change log is not a state: commits that log a change wake an
    // idle nlpc-index (wake::CHANGES); --use-interval is the fallback.
    let run = d.run_on(
        wake::CHANGES,
        &mut ix,
        |ix, d| {
            // A few changes wait for more, up to COMMIT_GAP after the last
            // commit, so a crawl does not cost a commit per verdict; a stop
            // signal ends the wait (and they are flushed on the way out).
            if let Some(left) = ix.hold(&d.store)? {
                if d.signals.wait(left) {
                    return Ok(0);
                }
            }
            ix.step(&d.store, &cache)
        },
        |ix, d| ix.pending(&d.store),
    );
    // What waited for the commit gap is committed before stopping.
    let run = run.and_then(|()| ix.flush(&d.store, &cache).map(drop));
    if let Err(e) = run {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

//! nlpc-resolve: resolve the host names of NEW records; NEW → READY.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::stage::resolve::figures::Figures;
use nlpcrawl::stage::resolve::{self, Config, Resolver};
use nlpcrawl::store::record::State;

const NAME: &str = "nlpc-resolve";

fn main() {
    let o = Parser::new(Program::Resolve).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    // After Daemon::start, so the runtime's threads inherit the blocked
    // stop signals.
    let mut r = Resolver::new(cfg).unwrap_or_else(|e| daemon::fail(NAME, e));
    let every = o.duration("stat-every").unwrap_or_else(|e| o.fail(e));
    let mut figures = Figures::new(every);
    let res = d.run(&[State::New], |d| {
        let n = resolve::step(d, &mut r)?;
        figures.update(&d.store, r.stats(), false)?;
        Ok(n)
    });
    // The last figures go into the history too.
    if let Err(e) = res.and_then(|()| figures.update(&d.store, r.stats(), true)) {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
    let s = r.stats();
    nlpcrawl::debug!(
        "{} queries, {} hosts resolved, {} cache hits",
        s.queries,
        s.resolved,
        s.cache_hits
    );
}

//! nlpc-vrfy: verify fetched documents' charset, language, dictionary words
//! and robots directives, moving FRESH records to VERIFIED or REJECTED.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::stage::vrfy::{self, Config};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::State;

const NAME: &str = "nlpc-vrfy";

fn main() {
    let o = Parser::new(Program::Vrfy).parse_env();
    log::init(NAME, o.common.debug);
    let mut cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    // Before the database is opened: a bad word list changes nothing.
    cfg.load_dict().unwrap_or_else(|e| o.fail(e));
    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = d.run(&[State::Fresh], |d| vrfy::step(d, &cfg, &cache)) {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

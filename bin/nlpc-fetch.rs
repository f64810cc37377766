//! nlpc-fetch: fetch READY and DIRTY records politely, per physical address.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::stage::fetch::{Config, Fetcher};

const NAME: &str = "nlpc-fetch";

fn main() {
    let o = Parser::new(Program::Fetch).parse_env();
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    // The monitor owns the terminal: no debug lines then.
    log::init(NAME, if cfg.monitor { 0 } else { o.common.debug });
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    let res = Fetcher::new(&d, cfg).and_then(|mut f| f.run());
    if let Err(e) = res {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

//! nlpc-relay: carry links between the nodes of a cluster over NATS
//! JetStream, and the nodes' counters for the monitor.

use nlpcrawl::cluster::relay::{self, Config};
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};

const NAME: &str = "nlpc-relay";

fn main() {
    let o = Parser::new(Program::Relay).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = relay::run(&d, cfg) {
        daemon::fail(NAME, e);
    }
    daemon::finish(d);
}

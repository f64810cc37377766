//! nlpcd: the one-line start. Checks every option of every daemon, seeds
//! the database, runs every daemon with the shared filters, restarts those
//! that die, stops them all on SIGINT or SIGTERM, and shows a monitor with -m.

use nlpcrawl::launch::args;
use nlpcrawl::launch::supervisor::{self, Launch};
use nlpcrawl::run::{daemon, log};
use nlpcrawl::stage::scan;

const NAME: &str = "nlpcd";

fn main() {
    let m = args::command()
        .try_get_matches()
        .unwrap_or_else(|e| args::clap_exit(e));
    // A refusal before anything starts is a plain line, not a log line.
    let plan = args::plan(&m).unwrap_or_else(|e| args::refuse(e));
    log::init(NAME, plan.debug);
    let seeds: Box<dyn Iterator<Item = scan::Seed>> = if plan.seeds == ["-"] {
        Box::new(scan::seed_lines(std::io::stdin().lock(), |e| {
            daemon::fail(NAME, format!("standard input: {e}"))
        }))
    } else {
        Box::new(scan::seed_args(plan.seeds))
    };
    let launch = Launch {
        db: plan.db,
        seeds,
        filter: plan.filter,
        daemons: plan.daemons,
        once: plan.once,
        create: plan.create,
        monitor: plan.monitor,
        stat_every: plan.stat_every,
        log: plan.log,
        settings: plan.settings,
        partition: plan.partition,
    };
    if let Err(e) = supervisor::run(launch) {
        daemon::fail(NAME, e);
    }
}

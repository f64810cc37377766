//! nlpc-up: expire, revive, kill and prune records, on a timer or at once.

use nlpcrawl::info;
use nlpcrawl::output::list;
use nlpcrawl::run::clock;
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{OrExit, Parser};
use nlpcrawl::stage::up::{self, Action, Config};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-up";

fn main() {
    let mut p = Parser::new(NAME, "[pattern]");
    list::selector_options(p.opts());
    p.opts()
        .optopt(
            "",
            "ttexp",
            "re-fetch SCANNED pages this long after their fetch (default 10d)",
            "time",
        )
        .optopt(
            "",
            "ttmin",
            "but never sooner, whatever the server says (default 1d)",
            "time",
        )
        .optopt(
            "",
            "ttrev",
            "revive UNREACH records this long after they failed (default 5d)",
            "time",
        )
        .optopt(
            "",
            "rtdead",
            "failed revivals in a row that make a record DEAD (default 5)",
            "n",
        )
        .optopt(
            "",
            "ttdel",
            "prune DEAD records this long after they died (default 5d)",
            "time",
        )
        .optopt(
            "",
            "ttrej",
            "re-fetch REJECTED, EXCLUDED and REDIRECT records this long after (default: --ttexp)",
            "time",
        )
        .optopt(
            "",
            "ttaddr",
            "resolve a record's host again when its address is older (default 1d)",
            "time",
        )
        .optflag("", "force-exp", "expire the selected records now")
        .optflag("", "force-rev", "revive the selected records now")
        .optflag("", "force-dead", "declare the selected records DEAD now")
        .optflag("", "force-del", "prune the selected DEAD records now");
    let o = p.parse_env();
    log::init(NAME, o.common.debug);
    let d = Config::default();
    let secs = |opt: &str, default: u64| {
        o.duration(opt, std::time::Duration::from_secs(default))
            .or_exit()
            .as_secs()
    };
    let ttexp = secs("ttexp", d.ttexp);
    let cfg = Config {
        ttexp,
        ttmin: secs("ttmin", d.ttmin),
        ttrev: secs("ttrev", d.ttrev),
        rtdead: o.value("rtdead", d.rtdead).or_exit(),
        ttdel: secs("ttdel", d.ttdel),
        ttrej: secs("ttrej", ttexp),
        ttaddr: secs("ttaddr", d.ttaddr),
        select: list::selector(&o).or_exit(),
        ..d
    };
    if cfg.ttmin > cfg.ttexp {
        o.usage_error("--ttmin is longer than --ttexp").exit();
    }

    let actions: Vec<Action> = [
        ("force-exp", Action::Expire),
        ("force-rev", Action::Revive),
        ("force-dead", Action::Kill),
        ("force-del", Action::Prune),
    ]
    .into_iter()
    .filter(|(opt, _)| o.matches.opt_present(opt))
    .map(|(_, a)| a)
    .collect();
    // Of expiry, revival and death only one makes sense at a time; death
    // and pruning together purge.
    let exclusive = actions.iter().filter(|a| **a != Action::Prune).count();
    if exclusive > 1 {
        o.usage_error("--force-exp, --force-rev and --force-dead exclude each other")
            .exit();
    }
    for s in &cfg.select.states {
        if !actions.is_empty() && !actions.iter().any(|a| a.applies_to(*s)) {
            let names: Vec<&str> = actions.iter().map(|a| a.option()).collect();
            o.usage_error(format!("{} does not apply to {s} records", names.join(" ")))
                .exit();
        }
    }

    let cache = Cache::new(&o.common.cache);
    if !actions.is_empty() {
        let st = Store::open(&o.common.db, store::Options::default())
            .unwrap_or_else(|e| daemon::fail(NAME, e));
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
}

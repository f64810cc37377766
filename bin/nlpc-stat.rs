//! nlpc-stat: the statistics history as a table, as CSV, or as charts.

use std::io::Write;

use nlpcrawl::output::stat::{self, Config};
use nlpcrawl::run::daemon;
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-stat";

fn main() {
    let o = Parser::new(Program::Stat).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    let rows = stat::load(&st, cfg.from_time(), cfg.step).unwrap_or_else(|e| daemon::fail(NAME, e));
    if rows.is_empty() {
        nlpcrawl::info!("no statistics history in {}", o.common.db.display());
    }
    if let Some(p) = &cfg.png {
        stat::png(&rows, p, &cfg).unwrap_or_else(|e| daemon::fail(NAME, e));
    }
    if let Some(p) = &cfg.svg {
        stat::svg(&rows, p, &cfg).unwrap_or_else(|e| daemon::fail(NAME, e));
    }
    let text = if cfg.csv {
        stat::csv(&rows)
    } else if cfg.png.is_none() && cfg.svg.is_none() {
        stat::table(&rows, cfg.step)
    } else {
        return;
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            daemon::fail(
                NAME,
                nlpcrawl::Error::io("standard output", "cannot write", e),
            );
        }
    }
}

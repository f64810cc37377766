//! nlpc-search: query the word index nlpc-index keeps: ranked results,
//! concordances and frequency lists, or a search page.

use nlpcrawl::run::daemon;
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::search::cli::{self, Config};

const NAME: &str = "nlpc-search";

fn main() {
    let o = Parser::new(Program::Search).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Err(e) = cli::run(&cfg, &mut out) {
        daemon::fail(NAME, e);
    }
    if let Err(e) = std::io::Write::flush(&mut out) {
        daemon::fail(
            NAME,
            nlpcrawl::Error::io("standard output", "cannot write", e),
        );
    }
}

//! nlpc-dump: export the verified corpus as WARC 1.1, as UTF-8 text, and
//! as JSON Lines, vertical text and WET.

use nlpcrawl::info;
use nlpcrawl::output::dump::{self, Config};
use nlpcrawl::run::daemon;
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parser, Program};
use nlpcrawl::store::archive::Archive;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-dump";

fn main() {
    let o = Parser::new(Program::Dump).parse_env();
    log::init(NAME, o.common.debug);
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    // Read-only, but for a cursor, which the dump advances.
    let opts = store::Options {
        read_only: cfg.cursor.is_none(),
        create: store::Create::Never,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    let cache = Cache::new(&o.common.cache);
    let arch = Archive::new(&o.common.archive);
    match dump::dump(&st, &cache, &arch, &cfg) {
        Ok(r) => info!(
            "dumped {} pages, {} versions ({} revisits), {} missing, {} WARC bytes, {} text files, \
             {} documents, {} exported before, {} duplicates left out, {} versions without main text",
            r.records,
            r.versions,
            r.revisits,
            r.missing,
            r.warc_bytes,
            r.text_files,
            r.documents,
            r.skipped,
            r.duplicates,
            r.no_text
        ),
        Err(e) => daemon::fail(NAME, e),
    }
}

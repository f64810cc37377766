//! nlpc-dump: export the verified corpus as WARC 1.1 and as UTF-8 text.

use nlpcrawl::document::lang;
use nlpcrawl::info;
use nlpcrawl::output::dump::{self, Config, CORPUS};
use nlpcrawl::output::list;
use nlpcrawl::run::daemon;
use nlpcrawl::run::log;
use nlpcrawl::run::options::{OrExit, Parser};
use nlpcrawl::store::archive::Archive;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-dump";

fn main() {
    let mut p = Parser::new(NAME, "[pattern]");
    list::selector_options(p.opts());
    p.opts()
        .optopt(
            "",
            "warc",
            "write a WARC 1.1 file here (- for standard output)",
            "file",
        )
        .optopt(
            "",
            "text",
            "write UTF-8 text files and index.tsv under this directory",
            "dir",
        )
        .optmulti(
            "",
            "lang",
            "only pages in these languages, by ISO 639 code or English name (default any)",
            "list",
        )
        .optflag("", "archived", "earlier versions too, from the archive");
    let o = p.parse_env();
    log::init(NAME, o.common.debug);
    let select = list::selector(&o).or_exit();
    for s in &select.states {
        if !CORPUS.contains(s) {
            o.usage_error(format!(
                "-s: {s} records are not part of the corpus (VERIFIED, SCANNED)"
            ))
            .exit();
        }
    }
    let mut langs = Vec::new();
    for code in o.list("lang", "") {
        match lang::parse(&code) {
            Ok(l) => langs.push(l),
            Err(e) => o.usage_error(format!("--lang: {e}")).exit(),
        }
    }
    let cfg = Config {
        select,
        langs,
        archived: o.matches.opt_present("archived"),
        warc: o.matches.opt_str("warc").map(Into::into),
        text: o.matches.opt_str("text").map(Into::into),
    };
    if cfg.warc.is_none() && cfg.text.is_none() {
        o.usage_error("nothing to do: give --warc, --text or both")
            .exit();
    }
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    let cache = Cache::new(&o.common.cache);
    let arch = Archive::new(&o.common.archive);
    match dump::dump(&st, &cache, &arch, &cfg) {
        Ok(r) => info!(
            "dumped {} pages, {} versions ({} revisits), {} missing, {} WARC bytes, {} text files",
            r.records, r.versions, r.revisits, r.missing, r.warc_bytes, r.text_files
        ),
        Err(e) => daemon::fail(NAME, e),
    }
}

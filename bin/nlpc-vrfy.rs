//! nlpc-vrfy: verify fetched documents' charset, language, dictionary words
//! and robots directives, moving FRESH records to VERIFIED or REJECTED.

use std::path::Path;

use nlpcrawl::document::charset;
use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::lang;
use nlpcrawl::info;
use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::{Parsed, Parser};
use nlpcrawl::stage::vrfy::{self, Config};
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::State;

const NAME: &str = "nlpc-vrfy";

/// A percentage option, 0 to 100, as a share.
fn pct(o: &Parsed, opt: &str, default: f64) -> f64 {
    let v: f64 = o.value(opt, default).unwrap_or_else(|e| e.exit());
    if !(0.0..=100.0).contains(&v) {
        o.usage_error(format!("--{opt}: {v} is not between 0 and 100"))
            .exit();
    }
    v / 100.0
}

fn main() {
    let mut p = Parser::new(NAME, "");
    p.opts()
        .optmulti(
            "",
            "filter-charset",
            "allowed charsets, by any WHATWG label (default any)",
            "list",
        )
        .optmulti(
            "",
            "filter-lang",
            "allowed languages, by ISO 639 code or English name (default any)",
            "list",
        )
        .optopt(
            "",
            "filter-dict",
            "UTF-8 word list, one lowercase word a line",
            "file",
        )
        .optopt(
            "",
            "filter-dict-pct",
            "least percentage of words found in the word list (default 10)",
            "n",
        )
        .optopt(
            "",
            "use-charset",
            "charset of HTML and text that name none (default iso-8859-1)",
            "label",
        )
        .optopt(
            "",
            "max-replaced",
            "most percent of the text's characters that may be undecodable (default 1)",
            "n",
        )
        .optopt(
            "",
            "lang-min-conf",
            "least language detection confidence, 0 to 1 (default 0.5)",
            "x",
        )
        .optopt(
            "",
            "lang-min-text",
            "fewest characters of text to judge the language of (default 200)",
            "n",
        )
        .optopt(
            "",
            "lang-max-text",
            "bytes of text sampled for language detection, 0 for all (default 1024)",
            "n",
        );
    let o = p.parse_env();
    log::init(NAME, o.common.debug);
    if !o.free().is_empty() {
        o.usage_error("no operands expected").exit();
    }

    let mut charsets = Vec::new();
    for label in o.list("filter-charset", "") {
        match charset::parse(&label) {
            Ok(e) if !charsets.contains(&e) => charsets.push(e),
            Ok(_) => {}
            Err(e) => o.usage_error(format!("--filter-charset: {e}")).exit(),
        }
    }
    let use_charset = o.matches.opt_str("use-charset");
    let default_charset = match use_charset.as_deref() {
        None => encoding_rs::WINDOWS_1252,
        Some(l) => charset::parse(l)
            .unwrap_or_else(|e| o.usage_error(format!("--use-charset: {e}")).exit()),
    };
    let mut langs = Vec::new();
    for code in o.list("filter-lang", "") {
        match lang::parse_detectable(&code) {
            Ok(l) if !langs.contains(&l) => langs.push(l),
            Ok(_) => {}
            Err(e) => o.usage_error(format!("--filter-lang: {e}")).exit(),
        }
    }
    let lang_min_conf: f64 = o
        .value("lang-min-conf", vrfy::DEFAULT_LANG_MIN_CONF)
        .unwrap_or_else(|e| e.exit());
    if !(0.0..=1.0).contains(&lang_min_conf) {
        o.usage_error(format!(
            "--lang-min-conf: {lang_min_conf} is not between 0 and 1"
        ))
        .exit();
    }
    let dict = o.matches.opt_str("filter-dict").map(|f| {
        let t = std::time::Instant::now();
        let d = Dict::load(Path::new(&f)).unwrap_or_else(|e| daemon::fail(NAME, e));
        info!(
            "dictionary {f}: {} words, {} MB, loaded in {:.2}s",
            d.len(),
            d.heap_bytes() / (1 << 20),
            t.elapsed().as_secs_f64()
        );
        d
    });
    let cfg = Config {
        charsets,
        default_charset,
        max_replaced: pct(&o, "max-replaced", vrfy::DEFAULT_MAX_REPLACED_PCT),
        langs,
        lang_min_conf,
        lang_min_text: o
            .value("lang-min-text", vrfy::DEFAULT_LANG_MIN_TEXT)
            .unwrap_or_else(|e| e.exit()),
        lang_max_text: o
            .value("lang-max-text", vrfy::DEFAULT_LANG_MAX_TEXT)
            .unwrap_or_else(|e| e.exit()),
        dict,
        dict_min: pct(&o, "filter-dict-pct", vrfy::DEFAULT_DICT_PCT),
        ..Config::default()
    };

    let cache = Cache::new(&o.common.cache);
    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = d.run(&[State::Fresh], |d| vrfy::step(d, &cfg, &cache)) {
        daemon::fail(NAME, e);
    }
}

//! nlpc-vrfy: moves FRESH records to VERIFIED or REJECTED by checking the
//! stored document's charset, text, language and dictionary words, and its
//! robots directives.
//!
//! The checks run in a fixed order, cheapest and most certain first, and
//! the first that fails names the reason; what each check learned (charset,
//! language, confidence, dictionary ratio) is recorded either way.

use std::fmt;
use std::fs::File;
use std::path::PathBuf;

use encoding_rs::Encoding;
use whatlang::Lang;

use crate::document::charset::{self, Detected, Hints, Kind, Quality, Source};
use crate::document::dict::Dict;
use crate::document::extract::tally::Tally;
use crate::document::fingerprint::Fingerprint;
use crate::document::lang;
use crate::document::{extract, text};
use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::daemon::{Contained, Daemon};
use crate::run::options::Parsed;
use crate::store::cache::Cache;
use crate::store::dups;
use crate::store::record::{Flags, Record, State};
use crate::store::textcache;
use crate::store::Key;
use crate::{debug, info};

/// How nlpc-vrfy judges documents.
pub struct Config {
    /// `--filter-charset`: the charsets allowed; empty allows any.
    pub charsets: Vec<&'static Encoding>,
    /// `--use-charset`: for HTML and plain text that name no charset and
    /// are not valid UTF-8; None leaves it to the detector.
    pub use_charset: Option<&'static Encoding>,
    /// `--max-replaced`: the largest share (0 to 1) of the visible text's
    /// characters that may be replacement characters.
    pub max_replaced: f64,
    /// `--filter-lang`: the languages allowed; empty allows any, and then
    /// the language is only recorded.
    pub langs: Vec<Lang>,
    /// `--lang-min-conf`: the least confidence (0 to 1) in an allowed
    /// language.
    pub lang_min_conf: f64,
    /// `--lang-min-text`: the fewest characters of text a page needs for
    /// its language to be judged (0: no floor; whatlang's confidence
    /// already falls with the length of the text).
    pub lang_min_text: usize,
    /// `--lang-max-text`: bytes of text sampled for language detection; 0
    /// gives it all.
    pub lang_max_text: usize,
    /// `--filter-dict`, once loaded ([`Config::load_dict`]).
    pub dict: Option<Dict>,
    /// `--filter-dict`: the word list's file.
    pub dict_file: Option<PathBuf>,
    /// `--filter-dict-pct`, as a share (0 to 1).
    pub dict_min: f64,
    /// `--dup-similarity`: the least share of word shingles, in percent,
    /// that a near duplicate has in common with a page of its cluster, as
    /// their MinHash signatures estimate it (see `store::dups`).
    pub dup_similarity: u32,
    /// `--filter-tunnel`: when not 0, a rejected page's body stays in the
    /// cache for nlpc-scan, which follows its links and then drops it.
    pub tunnel: u64,
    /// Records taken per transaction.
    pub batch: usize,
}

/// Defaults, also the values the manual gives.
pub const DEFAULT_MAX_REPLACED_PCT: f64 = 1.0;
pub const DEFAULT_LANG_MIN_CONF: f64 = 0.5;
pub const DEFAULT_LANG_MIN_TEXT: usize = 0;
pub const DEFAULT_LANG_MAX_TEXT: usize = lang::DEFAULT_SAMPLE;
pub const DEFAULT_DICT_PCT: f64 = 10.0;

impl Default for Config {
    fn default() -> Config {
        Config {
            charsets: Vec::new(),
            use_charset: None,
            max_replaced: DEFAULT_MAX_REPLACED_PCT / 100.0,
            langs: Vec::new(),
            lang_min_conf: DEFAULT_LANG_MIN_CONF,
            lang_min_text: DEFAULT_LANG_MIN_TEXT,
            lang_max_text: DEFAULT_LANG_MAX_TEXT,
            dict: None,
            dict_file: None,
            dict_min: DEFAULT_DICT_PCT / 100.0,
            dup_similarity: dups::DEFAULT_SIMILARITY,
            tunnel: 2,
            batch: 64,
        }
    }
}

impl Config {
    /// nlpc-vrfy's configuration from its options. The dictionary is only
    /// opened, to say now if it cannot be read; [`Config::load_dict`] loads
    /// it when the daemon starts.
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let dict_file = o.path("filter-dict");
        if let Some(f) = &dict_file {
            File::open(f).map_err(|e| Error::io(f, "cannot read dictionary", e))?;
        }
        Ok(Config {
            charsets: o.charsets("filter-charset")?,
            use_charset: o.optional_charset("use-charset")?,
            max_replaced: o.share("max-replaced")?,
            langs: o.detectable_langs("filter-lang")?,
            lang_min_conf: o.share("lang-min-conf")?,
            lang_min_text: o.int("lang-min-text")?,
            lang_max_text: o.int("lang-max-text")?,
            dict_file,
            dict_min: o.share("filter-dict-pct")?,
            dup_similarity: o.int("dup-similarity")?,
            tunnel: o.int("filter-tunnel")?,
            ..Config::default()
        })
    }

    /// Loads the `--filter-dict` word list, if one is named.
    pub fn load_dict(&mut self) -> Result<()> {
        let Some(f) = &self.dict_file else {
            return Ok(());
        };
        let t = std::time::Instant::now();
        let d = Dict::load(f)?;
        info!(
            "dictionary {}: {} words, {} MB, loaded in {:.2}s",
            f.display(),
            d.len(),
            d.heap_bytes() / (1 << 20),
            t.elapsed().as_secs_f64()
        );
        self.dict = Some(d);
        Ok(())
    }
}

/// Why a document is rejected; its text is the record's reason.
#[derive(Clone, Debug, PartialEq)]
pub enum Rejection {
    /// The file cache holds no body for the record.
    NoBody,
    /// The fetcher saw `X-Robots-Tag: noindex` (or `none`).
    NoindexHeader,
    /// Not a text document.
    ContentType(String),
    /// The charset, by its WHATWG name, is not in `--filter-charset`.
    Charset(&'static str),
    /// NUL or other control characters: binary data, not text.
    Binary,
    /// Mostly replacement characters, in percent.
    Undecodable(f64),
    /// `<meta name=robots content=noindex>`.
    NoindexMeta,
    /// More of the visible text than `--max-replaced` is replacement
    /// characters: the declared charset is wrong.
    CharsetMismatch(&'static str, f64),
    /// Fewer characters than `--lang-min-text`.
    TooLittleText(usize),
    /// whatlang found no language.
    LanguageUnknown,
    /// A language outside `--filter-lang`.
    Language(&'static str),
    /// An allowed language, below `--lang-min-conf`, and no dictionary
    /// ratio to confirm it.
    LanguageUncertain(&'static str, f64),
    /// Dictionary share and the least allowed, both in percent.
    Dictionary(f64, f64),
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::NoBody => f.write_str("no stored body"),
            Rejection::NoindexHeader => f.write_str("noindex (X-Robots-Tag)"),
            Rejection::ContentType(t) => write!(f, "content type {t}"),
            Rejection::Charset(c) => write!(f, "charset {c}"),
            Rejection::Binary => f.write_str("undecodable (binary)"),
            Rejection::Undecodable(p) => write!(f, "undecodable ({p:.0}% replaced)"),
            Rejection::NoindexMeta => f.write_str("noindex (meta robots)"),
            Rejection::CharsetMismatch(c, p) => {
                write!(f, "charset {c} does not fit ({p:.1}% replaced)")
            }
            Rejection::TooLittleText(n) => write!(f, "too little text ({n} characters)"),
            Rejection::LanguageUnknown => f.write_str("language unknown"),
            Rejection::Language(l) => write!(f, "language {l}"),
            Rejection::LanguageUncertain(l, c) => write!(f, "language {l} uncertain ({c:.2})"),
            Rejection::Dictionary(r, min) => write!(f, "dictionary {r:.1}% < {min}%"),
        }
    }
}

/// What verifying one document found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// None: verified.
    pub rejection: Option<Rejection>,
    /// The charset found and used, if the check got that far.
    pub charset: Option<Detected>,
    /// The language detected, if any.
    pub language: Option<lang::Guess>,
    /// The dictionary ratio, if a dictionary is configured and the check
    /// got that far.
    pub dict_ratio: Option<f64>,
    /// Bytes of the text the language was judged on (the main text).
    pub text: u64,
    /// The fingerprint of the judged text, for duplicates; verified pages
    /// only.
    pub fingerprint: Option<Fingerprint>,
    /// The title and the judged text, for the text cache
    /// (`store::textcache`); verified pages only.
    pub main: Option<textcache::Text>,
}

impl Verdict {
    fn reject(mut self, r: Rejection) -> Verdict {
        self.rejection = Some(r);
        self
    }

    /// The record after the verdict: state, reason and what was measured.
    pub fn apply(&self, rec: &Record, now: u64) -> Record {
        let mut r = rec.clone();
        r.changed = now;
        r.state = if self.rejection.is_some() {
            State::Rejected
        } else {
            State::Verified
        };
        r.reason = self
            .rejection
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        if self.rejection.is_some() {
            crate::store::sched::forget_body(&mut r);
        }
        if let Some(d) = &self.charset {
            r.charset = d.encoding.name().to_string();
            r.charset_source = Some(d.source);
        }
        // A re-fetched page is judged afresh: nothing measured on an older
        // body stays.
        r.language = self
            .language
            .map(|g| g.lang.code().to_string())
            .unwrap_or_default();
        r.lang_conf = self.language.map_or(0, |g| thousandths(g.confidence));
        r.dict_ratio = self.dict_ratio.map_or(0, thousandths);
        r
    }
}

fn thousandths(x: f64) -> u16 {
    (x.clamp(0.0, 1.0) * 1000.0).round() as u16
}

/// Bytes of text the dictionary ratio is measured on, sampled over the
/// text as for language detection: a share of words settles well before
/// this, and a long page costs no more than this.
pub const DICT_SAMPLE: usize = 16 * 1024;

/// Share of control characters above which a document is binary: text has
/// none, but a stray one in a long page is tolerated.
const BINARY_SHARE: f64 = 0.01;
/// Share of replaced characters above which a document is undecodable.
const UNDECODABLE_SHARE: f64 = 0.5;

/// Judges the document `body` of record `rec` (`None`: nothing stored).
pub fn verify(cfg: &Config, rec: &Record, body: Option<&[u8]>) -> Verdict {
    let v = Verdict::default();
    // 1. A body to judge.
    let Some(body) = body else {
        return v.reject(Rejection::NoBody);
    };
    // 2. The server's X-Robots-Tag, recorded by the fetcher.
    if rec.flags & Flags::NOINDEX != 0 {
        return v.reject(Rejection::NoindexHeader);
    }
    // 3. A text document.
    let Some(kind) = Kind::of(&rec.content_type) else {
        let mime = rec.content_type.split(';').next().unwrap_or("").trim();
        return v.reject(Rejection::ContentType(mime.to_ascii_lowercase()));
    };
    // 4. The charset, recorded whatever follows. The record's charset is
    // the server's, unless an earlier verification decided it otherwise.
    let http = match rec.charset_source {
        None | Some(Source::Http) if !rec.charset.is_empty() => rec.charset.as_str(),
        None => charset::content_type_charset(&rec.content_type).unwrap_or(""),
        Some(_) => "",
    };
    let hints = Hints {
        user: cfg.use_charset,
        tld: Some(rec.host()),
    };
    let det = charset::detect(body, http, kind, &hints);
    let mut v = Verdict {
        charset: Some(det),
        ..v
    };
    let name = det.encoding.name();
    // 5. Decoding: binary data, or bytes the charset mostly cannot map.
    // This comes before the charset filter so that an image served as
    // text/html is called what it is.
    let doc = charset::decode(body, &det);
    // A text without controls or replacements passes both tests whatever
    // its other counts, which are then not taken.
    let q = if Quality::clean(&doc) {
        Quality::default()
    } else {
        Quality::of(&doc)
    };
    if q.controls as f64 > q.chars as f64 * BINARY_SHARE {
        return v.reject(Rejection::Binary);
    }
    if q.replaced_share() > UNDECODABLE_SHARE {
        return v.reject(Rejection::Undecodable(q.replaced_share() * 100.0));
    }
    // 6. The charset filter, on the charset however it was decided.
    if !cfg.charsets.is_empty() && !cfg.charsets.contains(&det.encoding) {
        return v.reject(Rejection::Charset(name));
    }
    // 7 to 10 read the page in one tokenizer pass: its main text, meta
    // robots and, if the decoder replaced anything, how much of the
    // visible text that is.
    let mut scan = text::Scan::new(kind, q.replaced > 0);
    let (main, tally) = extract::main_text_tallied(&doc, kind, &mut scan);
    // 7. Meta robots.
    if scan.noindex() {
        return v.reject(Rejection::NoindexMeta);
    }
    // 8. Replacement characters in the visible text: mostly, it is
    // undecodable; more than a few, the declared charset is not the
    // document's.
    if q.replaced > 0 {
        let share = scan.quality().replaced_share();
        if share > UNDECODABLE_SHARE {
            return v.reject(Rejection::Undecodable(share * 100.0));
        }
        if share > cfg.max_replaced {
            return v.reject(Rejection::CharsetMismatch(name, share * 100.0));
        }
    }
    // 9 and 10. The language and the dictionary, on the page's main
    // text: menus and footers are often in another language (English
    // "Home", "Contact") or in none. A page with no main text is judged
    // by all its visible text, but has no text in the corpus (nor in the
    // text cache the index reads).
    let corpus_text = main.text();
    let visible = main
        .blocks
        .is_empty()
        .then(|| text::visible(&doc, kind).text);
    let judged: &str = visible.as_deref().unwrap_or(&corpus_text);
    v.text = judged.len() as u64;
    // The main text's words came with its extraction, for the dictionary
    // and the fingerprint.
    let tally = tally.filter(|_| !main.blocks.is_empty());
    match judge_text_counted(cfg, judged, tally.as_ref(), &mut v) {
        Some(r) => v.reject(r),
        None => Verdict {
            fingerprint: Some(
                tally
                    .as_ref()
                    .map_or_else(|| Fingerprint::of(judged), |t| t.fingerprint(judged)),
            ),
            main: Some(textcache::Text {
                title: main.title,
                text: corpus_text,
            }),
            ..v
        },
    }
}

/// The language and dictionary checks on `text`, the page's text as the
/// caller chose it; fills in what they measured and returns why the page
/// fails, if it does.
///
/// The rule (nlpc-vrfy(1) says it in words): with no `--filter-lang` the
/// language is only recorded. Otherwise a page whose text is shorter than
/// `--lang-min-text` fails. whatlang's best language outside the filter
/// fails the page, unless whatlang calls its guess unreliable and the
/// dictionary (the second witness) reaches `--filter-dict-pct`. A language
/// of the filter passes if whatlang's confidence reaches
/// `--lang-min-conf`, or, below that, if the dictionary reaches
/// `--filter-dict-pct`; else it is uncertain. Then, with a dictionary, the
/// ratio must reach `--filter-dict-pct` in any case.
pub fn judge_text(cfg: &Config, text: &str, v: &mut Verdict) -> Option<Rejection> {
    judge_text_counted(cfg, text, None, v)
}

/// [`judge_text`], given the words of `text` when the caller has them
/// (they are looked up only where the rule asks for the ratio).
fn judge_text_counted(
    cfg: &Config,
    text: &str,
    counted: Option<&Tally>,
    v: &mut Verdict,
) -> Option<Rejection> {
    // The language, recorded whether or not it is asked for.
    v.language = language(cfg, text);
    let ratio = |v: &mut Verdict| {
        cfg.dict.as_ref().map(|d| {
            *v.dict_ratio.get_or_insert_with(|| {
                counted
                    .map_or_else(
                        || d.ratio(&lang::sample(text, DICT_SAMPLE)),
                        |t| t.ratio(d, text, DICT_SAMPLE),
                    )
                    .share()
            })
        })
    };
    if !cfg.langs.is_empty() {
        if cfg.lang_min_text > 0 {
            let chars = text.chars().count();
            if chars < cfg.lang_min_text {
                return Some(Rejection::TooLittleText(chars));
            }
        }
        let Some(g) = v.language else {
            return Some(Rejection::LanguageUnknown);
        };
        // The dictionary confirms a language of the filter only where the
        // profiles rank it first, when it has one: a short text in a
        // language whatlang is unsure of shares enough short words with a
        // Latvian dictionary now and then.
        let ranked = |l: Lang| {
            let l = lang::of(l);
            lang::Profile::of(text).is_none_or(|p| p.lead_of(l).is_none_or(|lead| lead >= 0.0))
        };
        let witness = |v: &mut Verdict, l: Lang| {
            ratio(v).is_some_and(|share| share >= cfg.dict_min) && ranked(l)
        };
        let allowed = g.lang.whatlang.is_some_and(|w| cfg.langs.contains(&w));
        if !allowed {
            // whatlang's unreliable guess at a short or unaccented text
            // (a Latvian sentence without diacritics reads as French to
            // it) yields to the dictionary; the language recorded is then
            // the filter's first, with no confidence of whatlang's.
            if g.reliable || !witness(v, cfg.langs[0]) {
                return Some(Rejection::Language(g.lang.code()));
            }
            v.language = Some(lang::Guess {
                lang: lang::of(cfg.langs[0]),
                confidence: 0.0,
                reliable: false,
            });
        } else if !g.reliable
            && g.confidence < cfg.lang_min_conf
            && !g.lang.whatlang.is_some_and(|l| witness(v, l))
        {
            return Some(Rejection::LanguageUncertain(g.lang.code(), g.confidence));
        }
    }
    if let Some(share) = ratio(v) {
        if share < cfg.dict_min {
            return Some(Rejection::Dictionary(share * 100.0, cfg.dict_min * 100.0));
        }
    }
    None
}

/// The language of `text` (the main text's blocks, one a line) as
/// [`judge_text`] finds it: [`lang::of_text`], whatlang asked about
/// samples of `--lang-max-text` bytes.
pub fn language(cfg: &Config, text: &str) -> Option<lang::Guess> {
    lang::of_text(text, cfg.lang_max_text)
}

/// One FRESH → VERIFIED/REJECTED step over up to `cfg.batch` records;
/// returns how many records were judged.
pub fn step(d: &Daemon, cfg: &Config, cache: &Cache) -> Result<usize> {
    let (lease, batch) = d.lease_batch(State::Fresh, cfg.batch)?;
    if batch.is_empty() {
        return Ok(0);
    }
    // Reading and judging happen outside any transaction, so other daemons
    // are not held up by them, and one record at a time inside `contain`,
    // so an unreadable body or a panic in a decoder sets that record aside
    // instead of killing the daemon on it forever.
    let mut results = Vec::with_capacity(batch.len());
    let mut stop = None;
    for (key, rec) in &batch {
        let v = match d.contain(&rec.url, || {
            let body = cache.read(key)?;
            Ok(verify(cfg, rec, body.as_deref()))
        }) {
            Ok(v) => v,
            Err(e) => {
                stop = Some(e);
                break;
            }
        };
        if let Contained::Done(v) = &v {
            if let Some(c) = &v.charset {
                debug!(
                    "{}: charset {} ({})",
                    rec.url,
                    c.encoding.name(),
                    c.source.name()
                );
            }
        }
        results.push(v);
    }
    let now = clock::now();
    let mut w = d.store.write()?;
    let mut done = 0;
    let mut rejected = Vec::new();
    for ((key, rec), v) in batch.iter().zip(&mut results) {
        let v = match v {
            Contained::Done(v) => v,
            Contained::Quarantine(why) => {
                let mut new = rec.clone();
                new.state = State::Quarantined;
                new.reason = why.clone();
                new.changed = now;
                if w.finish(key, &new, lease)? {
                    dups::record(&mut w, key, None, cfg.dup_similarity)?;
                    done += 1;
                }
                continue;
            }
        };
        let new = v.apply(rec, now);
        if !w.finish(key, &new, lease)? {
            debug!("{}: lease lost, skipped", rec.url);
            continue;
        }
        // For nlpc-index: verified pages are (re)indexed, rejected dropped.
        w.log_change(key, new.state)?;
        done += 1;
        crate::store::harvest::judged(&mut w, key, &new, v.text)?;
        match &v.rejection {
            Some(r) => {
                info!("rejected {}: {r}", rec.url);
                // With tunnelling, nlpc-scan reads the body for its links
                // and drops it then (`stage::tunnel`).
                if cfg.tunnel == 0 {
                    rejected.push(*key);
                }
            }
            None => info!("verified {} ({})", rec.url, summary(v)),
        }
        // The duplicate marks move with the verdict, in its transaction.
        match dups::record(&mut w, key, v.fingerprint.as_ref(), cfg.dup_similarity)? {
            Some(m) => {
                let first = w.get(&m.first)?.map(|r| r.url).unwrap_or_default();
                info!(
                    "{}: {} duplicate of {first} (distance {})",
                    rec.url, m.kind, m.distance
                );
            }
            None => keep_text(cache, key, rec, v),
        }
    }
    // Stopping on an error: what was done is kept, and the records not
    // reached go back as they were.
    for (key, rec) in &batch[results.len()..] {
        w.finish(key, rec, lease)?;
    }
    w.commit()?;
    // Only once the record no longer names it (a kill before this leaves a
    // file the next fetch of the page overwrites).
    for key in &rejected {
        cache.remove(key)?;
    }
    match stop {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Keeps a verified page's text for nlpc-index (`store::textcache`), tied
/// to the body's hash, which the record holds: nothing else writes the
/// body of a record nlpc-vrfy has leased. The text is a cache, so a file
/// that cannot be written is logged and left to be extracted again.
///
/// Only a first copy's text is kept, for nlpc-index indexes no duplicate
/// (a duplicate whose cluster dissolves is extracted again): on the test
/// web of `scripts/bench/compare`, where 3,359 of 4,071 verified pages are
/// near duplicates, writing every text was 15% of nlpc-vrfy's CPU. So it
/// is written once the page's mark is known, in the transaction of its
/// verdict: before the commit, which wakes nlpc-index, so the index never
/// looks for a text still to come.
fn keep_text(cache: &Cache, key: &Key, rec: &Record, v: &mut Verdict) {
    let Some(t) = v.main.take() else {
        return;
    };
    if let Err(e) = textcache::write(cache, key, &rec.hash, &t) {
        crate::error!("{}: text not kept: {e}", rec.url);
    }
}

/// "lv 0.93, dict 0.41" for the log.
fn summary(v: &Verdict) -> String {
    let mut s = match v.language {
        Some(g) => format!("{} {:.2}", g.lang.code(), g.confidence),
        None => "language unknown".into(),
    };
    if let Some(r) = v.dict_ratio {
        s.push_str(&format!(", dict {r:.2}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    fn rec(ct: &str, charset: &str) -> Record {
        let mut r = Record::new("http://example.lv/", 1);
        r.state = State::Fresh;
        r.content_type = ct.into();
        r.charset = charset.into();
        r
    }

    #[test]
    fn reasons_read_well() {
        assert_eq!(
            Rejection::Dictionary(4.25, 10.0).to_string(),
            "dictionary 4.2% < 10%"
        );
        assert_eq!(
            Rejection::LanguageUncertain("lv", 0.4166).to_string(),
            "language lv uncertain (0.42)"
        );
        assert_eq!(
            Rejection::CharsetMismatch("UTF-8", 6.33).to_string(),
            "charset UTF-8 does not fit (6.3% replaced)"
        );
    }

    #[test]
    fn early_checks() {
        let cfg = Config::default();
        assert_eq!(
            verify(&cfg, &rec("", ""), None).rejection,
            Some(Rejection::NoBody)
        );
        let mut r = rec("text/html", "");
        r.flags |= Flags::NOINDEX;
        assert_eq!(
            verify(&cfg, &r, Some(b"<p>x")).rejection,
            Some(Rejection::NoindexHeader)
        );
        assert_eq!(
            verify(&cfg, &rec("image/png; q=1", ""), Some(b"\x89PNG")).rejection,
            Some(Rejection::ContentType("image/png".into()))
        );
        let png =
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0\x5c\x72\xa8\x66";
        assert_eq!(
            verify(&cfg, &rec("text/html", ""), Some(png)).rejection,
            Some(Rejection::Binary)
        );
    }

    #[test]
    fn random_documents_never_panic() {
        // Pieces that steer the sniffer, tokenizer and segmenter into their
        // corners, joined with random bytes.
        let pieces: Vec<&[u8]> = vec![
            b"<meta charset=".as_slice(),
            b"<meta http-equiv=content-type content='text/html;charset=".as_slice(),
            b"koi8-r'>".as_slice(),
            b"utf-16".as_slice(),
            b"<?xml version='1.0' encoding='".as_slice(),
            b"?>".as_slice(),
            b"<!--".as_slice(),
            b"-->".as_slice(),
            b"<script>".as_slice(),
            b"</script>".as_slice(),
            b"<template>".as_slice(),
            b"<meta name=robots content=".as_slice(),
            b"&amp;".as_slice(),
            b"&#x".as_slice(),
            b"\xEF\xBB\xBF".as_slice(),
            b"\xFF\xFE".as_slice(),
            "Rīga ".as_bytes(),
            "ūdens ".as_bytes(),
            b"<![CDATA[".as_slice(),
            b"\0".as_slice(),
            b"'\"=/ >".as_slice(),
        ];
        let cfg = Config {
            langs: vec![Lang::Lav],
            dict: Dict::from_bytes(b"r\xC4\xABga\n\xC5\xABdens\n".to_vec()).ok(),
            ..Config::default()
        };
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x = xorshift(x);
            x
        };
        for _ in 0..500 {
            let mut doc = Vec::new();
            for _ in 0..next() % 40 {
                let r = next();
                if r % 3 == 0 {
                    doc.push((r >> 8) as u8);
                } else {
                    doc.extend_from_slice(pieces[(r >> 8) as usize % pieces.len()]);
                }
            }
            for ct in [
                "text/html",
                "application/xhtml+xml",
                "text/xml",
                "text/plain",
            ] {
                let v = verify(&cfg, &rec(ct, ""), Some(&doc));
                let out = v.apply(&rec(ct, ""), 1);
                assert_eq!(out.state == State::Rejected, !out.reason.is_empty());
            }
        }
    }

    /// The fingerprint made from the words read in extraction is the
    /// one of the text kept, with a dictionary or without, whatever white
    /// space the page holds.
    #[test]
    fn fingerprint_is_the_one_of_the_text_kept() {
        let para = "<p>Latvija ir valsts Baltijas jūras austrumu krastā, un tās \
                    galvaspilsēta ir Rīga, kur dzīvo gandrīz trešdaļa iedzīvotāju.</p>";
        let pages = [
            format!("<nav><a href=/>Sākums</a></nav><article>{para}{para}</article>"),
            format!("<article>{para}<p>&nbsp;</p>{para}<p>a&nbsp;b\u{b}c \u{3000}</p>{para}</article>"),
            format!("<article><h1>Ziņas\u{2003}</h1>{para}<p>1918. gada 18. novembrī</p>{para}</article>"),
            para.to_string(),
        ];
        let with_dict = Config {
            dict: Dict::from_bytes("latvija\nir\nvalsts\nrīga\nun\n".into()).ok(),
            ..Config::default()
        };
        for cfg in [Config::default(), with_dict] {
            for p in &pages {
                let v = verify(&cfg, &rec("text/html", "utf-8"), Some(p.as_bytes()));
                assert_eq!(v.rejection, None, "{p}");
                let text = &v.main.as_ref().unwrap().text;
                assert_eq!(v.fingerprint, Some(Fingerprint::of(text)), "{p}");
            }
        }
    }

    #[test]
    fn verified_record_carries_measures() {
        let cfg = Config::default();
        let r = rec("text/html", "utf-8");
        let v = verify(
            &cfg,
            &r,
            Some("<p>Latvija ir valsts Baltijas jūras austrumu krastā, un tās galvaspilsēta ir Rīga.".as_bytes()),
        );
        assert_eq!(v.rejection, None);
        let out = v.apply(&r, 7);
        assert_eq!(out.state, State::Verified);
        assert_eq!(out.charset, "UTF-8");
        assert_eq!(out.language, "lv");
        assert_eq!(out.reason, "");
        assert_eq!(out.changed, 7);
    }
}

//! Languages: the one table of the codes and names users and servers use
//! for them, and language identification with whatlang.
//!
//! Every language has its ISO 639-1 code where one exists, its ISO 639-3
//! code, other codes that name the same language for a crawl's purpose and
//! its English names. Where ISO 639-1 names a macrolanguage, the 639-3 code
//! is the macrolanguage's and the individual language people actually write
//! is another code of the same entry: Latvian is `lv`, `lav` and `lvs`
//! (Standard Latvian), Estonian `et`, `est` and `ekk`, Chinese `zh`, `zho`
//! and `cmn` (Mandarin, which whatlang detects). ISO 639-2/B codes (`ger`,
//! `fre`) and withdrawn ISO 639-1 codes still sent in headers (`iw`, `in`,
//! `ji`) are there too.
//!
//! Latgalian (`ltg`) is its own entry, not Latvian: ISO puts it in the `lav`
//! macrolanguage, but a crawl for Latvian wants Standard Latvian, and a
//! server that says `ltg` means Latgalian. whatlang does not know it (it
//! reads Latgalian as Latvian), so only the Content-Language check can
//! select it. The same holds for every entry without a whatlang language.
//!
//! whatlang's cost grows with the text, and a page's language shows in a
//! few thousand characters, so a long text is sampled: slices from the
//! beginning, middle and end rather than only the beginning, which on many
//! sites is a menu in another language.

use std::borrow::Cow;
use std::fmt;

use whatlang::{Detector, Lang};

use crate::document::lower::lowercase;

mod features;
pub mod judge;
mod scorer;
pub mod witness;

pub use judge::{judge, of_blocks, of_text, Blocks};
pub use witness::{Profile, MIN_LETTERS, MIN_MARGIN, WITNESS_SAMPLE};

/// One language and every name it goes by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Language {
    /// ISO 639-1, or "" when the language has none.
    pub iso1: &'static str,
    /// ISO 639-3 (for a macrolanguage, the macrolanguage's code).
    pub iso3: &'static str,
    /// Other codes meaning the same here: individual languages of the
    /// macrolanguage, ISO 639-2/B and withdrawn 639-1 codes.
    pub other: &'static [&'static str],
    /// English names; the first is the one printed.
    pub names: &'static [&'static str],
    /// whatlang's language, when whatlang can detect it.
    pub whatlang: Option<Lang>,
}

impl Language {
    /// The code printed and stored: ISO 639-1 where one exists, else 639-3.
    pub fn code(&self) -> &'static str {
        if self.iso1.is_empty() {
            self.iso3
        } else {
            self.iso1
        }
    }

    /// The English name.
    pub fn name(&self) -> &'static str {
        self.names.first().copied().unwrap_or(self.iso3)
    }

    /// Every code of this language.
    fn codes(&self) -> impl Iterator<Item = &'static str> {
        [self.iso1, self.iso3]
            .into_iter()
            .filter(|c| !c.is_empty())
            .chain(self.other.iter().copied())
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

const fn l(
    iso1: &'static str,
    iso3: &'static str,
    other: &'static [&'static str],
    names: &'static [&'static str],
    whatlang: Option<Lang>,
) -> Language {
    Language {
        iso1,
        iso3,
        other,
        names,
        whatlang,
    }
}

/// The table, sorted by the printed code. Every whatlang language first
/// (whatlang 0.18 knows 70), then languages a Content-Language header may
/// name that whatlang cannot detect, chiefly Latvia's and its neighbours'.
#[rustfmt::skip]
pub const LANGUAGES: &[Language] = &[
    l("af", "afr", &[], &["Afrikaans"], Some(Lang::Afr)),
    l("ak", "aka", &["twi", "fat"], &["Akan"], Some(Lang::Aka)),
    l("am", "amh", &[], &["Amharic"], Some(Lang::Amh)),
    l("ar", "ara", &["arb"], &["Arabic"], Some(Lang::Ara)),
    l("az", "aze", &["azj"], &["Azerbaijani"], Some(Lang::Aze)),
    l("be", "bel", &[], &["Belarusian"], Some(Lang::Bel)),
    l("bg", "bul", &[], &["Bulgarian"], Some(Lang::Bul)),
    l("bn", "ben", &[], &["Bengali", "Bangla"], Some(Lang::Ben)),
    l("ca", "cat", &[], &["Catalan", "Valencian"], Some(Lang::Cat)),
    l("cs", "ces", &["cze"], &["Czech"], Some(Lang::Ces)),
    l("cy", "cym", &["wel"], &["Welsh"], Some(Lang::Cym)),
    l("da", "dan", &[], &["Danish"], Some(Lang::Dan)),
    l("de", "deu", &["ger"], &["German"], Some(Lang::Deu)),
    l("el", "ell", &["gre"], &["Greek"], Some(Lang::Ell)),
    l("en", "eng", &[], &["English"], Some(Lang::Eng)),
    l("eo", "epo", &[], &["Esperanto"], Some(Lang::Epo)),
    l("es", "spa", &[], &["Spanish", "Castilian"], Some(Lang::Spa)),
    l("et", "est", &["ekk"], &["Estonian"], Some(Lang::Est)),
    l("fa", "fas", &["per", "pes"], &["Persian", "Farsi"], Some(Lang::Pes)),
    l("fi", "fin", &[], &["Finnish"], Some(Lang::Fin)),
    l("fr", "fra", &["fre"], &["French"], Some(Lang::Fra)),
    l("gu", "guj", &[], &["Gujarati"], Some(Lang::Guj)),
    l("he", "heb", &["iw"], &["Hebrew"], Some(Lang::Heb)),
    l("hi", "hin", &[], &["Hindi"], Some(Lang::Hin)),
    l("hr", "hrv", &[], &["Croatian"], Some(Lang::Hrv)),
    l("hu", "hun", &[], &["Hungarian"], Some(Lang::Hun)),
    l("hy", "hye", &["arm"], &["Armenian"], Some(Lang::Hye)),
    l("id", "ind", &["in"], &["Indonesian"], Some(Lang::Ind)),
    l("it", "ita", &[], &["Italian"], Some(Lang::Ita)),
    l("ja", "jpn", &[], &["Japanese"], Some(Lang::Jpn)),
    l("jv", "jav", &[], &["Javanese"], Some(Lang::Jav)),
    l("ka", "kat", &["geo"], &["Georgian"], Some(Lang::Kat)),
    l("km", "khm", &[], &["Khmer", "Central Khmer"], Some(Lang::Khm)),
    l("kn", "kan", &[], &["Kannada"], Some(Lang::Kan)),
    l("ko", "kor", &[], &["Korean"], Some(Lang::Kor)),
    l("la", "lat", &[], &["Latin"], Some(Lang::Lat)),
    l("lt", "lit", &[], &["Lithuanian"], Some(Lang::Lit)),
    LATVIAN,
    l("mk", "mkd", &["mac"], &["Macedonian"], Some(Lang::Mkd)),
    l("ml", "mal", &[], &["Malayalam"], Some(Lang::Mal)),
    l("mr", "mar", &[], &["Marathi"], Some(Lang::Mar)),
    l("my", "mya", &["bur"], &["Burmese"], Some(Lang::Mya)),
    l("nb", "nob", &["no", "nor"], &["Norwegian Bokmål", "Bokmal", "Bokmål", "Norwegian"], Some(Lang::Nob)),
    l("ne", "nep", &["npi"], &["Nepali"], Some(Lang::Nep)),
    l("nl", "nld", &["dut"], &["Dutch", "Flemish"], Some(Lang::Nld)),
    l("or", "ori", &["ory"], &["Odia", "Oriya"], Some(Lang::Ori)),
    l("pa", "pan", &[], &["Punjabi", "Panjabi"], Some(Lang::Pan)),
    l("pl", "pol", &[], &["Polish"], Some(Lang::Pol)),
    l("pt", "por", &[], &["Portuguese"], Some(Lang::Por)),
    l("ro", "ron", &["rum", "mo", "mol"], &["Romanian", "Moldavian"], Some(Lang::Ron)),
    l("ru", "rus", &[], &["Russian"], Some(Lang::Rus)),
    l("si", "sin", &[], &["Sinhala", "Sinhalese"], Some(Lang::Sin)),
    l("sk", "slk", &["slo"], &["Slovak"], Some(Lang::Slk)),
    l("sl", "slv", &[], &["Slovenian", "Slovene"], Some(Lang::Slv)),
    l("sn", "sna", &[], &["Shona"], Some(Lang::Sna)),
    l("sr", "srp", &[], &["Serbian"], Some(Lang::Srp)),
    l("sv", "swe", &[], &["Swedish"], Some(Lang::Swe)),
    l("ta", "tam", &[], &["Tamil"], Some(Lang::Tam)),
    l("te", "tel", &[], &["Telugu"], Some(Lang::Tel)),
    l("th", "tha", &[], &["Thai"], Some(Lang::Tha)),
    l("tk", "tuk", &[], &["Turkmen"], Some(Lang::Tuk)),
    l("tl", "tgl", &["fil"], &["Tagalog", "Filipino"], Some(Lang::Tgl)),
    l("tr", "tur", &[], &["Turkish"], Some(Lang::Tur)),
    l("uk", "ukr", &[], &["Ukrainian"], Some(Lang::Ukr)),
    l("ur", "urd", &[], &["Urdu"], Some(Lang::Urd)),
    l("uz", "uzb", &["uzn"], &["Uzbek"], Some(Lang::Uzb)),
    l("vi", "vie", &[], &["Vietnamese"], Some(Lang::Vie)),
    l("yi", "yid", &["ji", "ydd"], &["Yiddish"], Some(Lang::Yid)),
    l("zh", "zho", &["chi", "cmn"], &["Chinese", "Mandarin"], Some(Lang::Cmn)),
    l("zu", "zul", &[], &["Zulu"], Some(Lang::Zul)),
    // Languages whatlang cannot detect.
    l("bs", "bos", &[], &["Bosnian"], None),
    l("eu", "eus", &["baq"], &["Basque"], None),
    l("fy", "fry", &[], &["Western Frisian", "Frisian"], None),
    l("ga", "gle", &[], &["Irish"], None),
    l("gl", "glg", &[], &["Galician"], None),
    l("is", "isl", &["ice"], &["Icelandic"], None),
    l("kk", "kaz", &[], &["Kazakh"], None),
    l("ky", "kir", &[], &["Kyrgyz", "Kirghiz"], None),
    l("lb", "ltz", &[], &["Luxembourgish"], None),
    l("mn", "mon", &["khk"], &["Mongolian"], None),
    l("ms", "msa", &["may", "zsm"], &["Malay"], None),
    l("mt", "mlt", &[], &["Maltese"], None),
    l("nn", "nno", &[], &["Norwegian Nynorsk", "Nynorsk"], None),
    l("se", "sme", &[], &["Northern Sami"], None),
    l("sq", "sqi", &["alb", "als"], &["Albanian"], None),
    l("sw", "swa", &["swh"], &["Swahili"], None),
    l("tg", "tgk", &[], &["Tajik"], None),
    l("", "liv", &[], &["Livonian"], None),
    l("", "ltg", &[], &["Latgalian"], None),
    l("", "vro", &[], &["Võro", "Voro"], None),
];

/// Why a code or name names no language nlpcrawl can use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LangError {
    /// Not in the table.
    #[error("{0:?} is not a language code or name nlpcrawl knows (known codes: {list})", list = known_codes())]
    Unknown(String),
    /// In the table, but whatlang cannot detect it.
    #[error("{} ({}) is not a language nlpc-vrfy can detect", .0.code(), .0.name())]
    Undetectable(Language),
}

/// The printed codes of every language, space-separated, for messages.
pub fn known_codes() -> String {
    let codes: Vec<&str> = LANGUAGES.iter().map(Language::code).collect();
    codes.join(" ")
}

/// The language a code (any of an entry's, case ignored) or English name
/// names.
pub fn parse(s: &str) -> Result<Language, LangError> {
    lookup(s).ok_or_else(|| LangError::Unknown(s.to_string()))
}

/// Like [`parse`], for a language whatlang can detect.
pub fn parse_detectable(s: &str) -> Result<Lang, LangError> {
    let l = parse(s)?;
    l.whatlang.ok_or(LangError::Undetectable(l))
}

fn lookup(s: &str) -> Option<Language> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let by_code = LANGUAGES
        .iter()
        .find(|l| l.codes().any(|c| c.eq_ignore_ascii_case(s)));
    let lower = lowercase(s);
    by_code
        .or_else(|| {
            LANGUAGES
                .iter()
                .find(|l| l.names.iter().any(|n| lowercase(n) == lower))
        })
        .copied()
}

/// The table's entry for a whatlang language.
pub fn of(w: Lang) -> Language {
    LANGUAGES
        .iter()
        .find(|l| l.whatlang == Some(w))
        .copied()
        // Unreachable while the table covers whatlang (a test checks); a
        // newer whatlang's language still gets its own code.
        .unwrap_or(Language {
            iso1: "",
            iso3: w.code(),
            other: &[],
            names: &[],
            whatlang: Some(w),
        })
}

/// The code a record stores for a whatlang language: ISO 639-1 where one
/// exists, else 639-3.
pub fn code(w: Lang) -> &'static str {
    of(w).code()
}

/// The language of one language tag ("lv-LV", "LV", "lvs", "en;q=0.5"):
/// its primary subtag looked up by code, so "lv", "lav" and "lvs" are one
/// language. None for a tag the table does not know (and for "*", "mul",
/// private-use "x-..." tags).
pub fn of_tag(tag: &str) -> Option<Language> {
    let tag = tag.split(';').next().unwrap_or("").trim();
    let primary = tag.split(['-', '_']).next().unwrap_or("");
    // Names are not tags: only codes count here.
    LANGUAGES
        .iter()
        .find(|l| l.codes().any(|c| c.eq_ignore_ascii_case(primary)))
        .copied()
}

/// The languages of a Content-Language value ("lv-LV, en;q=0.5"), one per
/// tag, None for a tag the table does not know.
pub fn of_header(value: &str) -> Vec<Option<Language>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(of_tag)
        .collect()
}

/// The entry of no language, for the impossible case of a profiled code
/// missing from the table; in no filter.
pub const UNDETERMINED: Language = l("", "und", &[], &["Undetermined"], None);

/// Standard Latvian, the language the witnesses were built around.
pub const LATVIAN: Language = l(
    "lv",
    "lav",
    &["lvs"],
    &["Latvian", "Standard Latvian"],
    Some(Lang::Lav),
);

/// A detected language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guess {
    pub lang: Language,
    /// whatlang's confidence, 0 to 1: how far the best language's score
    /// stands above the second's, for the length of the text.
    pub confidence: f64,
    /// whatlang's `is_reliable` (in whatlang 0.18, a confidence above 0.9).
    pub reliable: bool,
}

/// Slices taken from a long text, joined by spaces.
const SLICES: usize = 8;

/// At most about `cap` bytes of `text` (0: all of it), in [`SLICES`] slices
/// spread evenly over its inside: the first and last slices start one
/// interval in from the ends, where menus and footers are. Each slice is
/// cut at white space so no word is broken.
pub fn sample(text: &str, cap: usize) -> Cow<'_, str> {
    if cap == 0 || text.len() <= cap {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(cap + 2 * SLICES);
    for piece in pieces(text, cap) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(piece);
    }
    Cow::Owned(out)
}

/// The byte ranges of `text` that [`sample`] joins with a space between
/// them, in order, none empty (they may overlap): the whole text when it
/// is no longer than `cap` or `cap` is 0. Each is between characters.
pub fn slices(text: &str, cap: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let whole = cap == 0 || text.len() <= cap;
    let slice = (cap / SLICES).max(1);
    let usable = text.len().saturating_sub(slice);
    let parts = (0..SLICES).filter(move |_| !whole).filter_map(move |k| {
        let from = word_start(text, usable * (k + 1) / (SLICES + 1));
        let to = word_end(text, from.saturating_add(slice).min(text.len()));
        (from < to).then_some(from..to)
    });
    std::iter::once(0..text.len())
        .filter(move |_| whole)
        .chain(parts)
}

/// The slices [`sample`] joins, without joining them.
pub fn pieces(text: &str, cap: usize) -> impl Iterator<Item = &str> {
    slices(text, cap).filter_map(move |r| text.get(r))
}

/// How far a slice's ends move to find white space; text without spaces
/// (Chinese, Japanese, Thai) is cut at a character boundary instead.
const WORD_SEARCH: usize = 64;

/// A slice start at or after byte `at`: after the next space if one is
/// near, else at the next character boundary.
fn word_start(text: &str, at: usize) -> usize {
    if at == 0 {
        return 0;
    }
    let b = text.as_bytes();
    let at = at.min(b.len());
    let near = &b[at..b.len().min(at + WORD_SEARCH)];
    match near.iter().position(|&c| c == b' ') {
        Some(p) => at + p + 1,
        None => (at..=b.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(b.len()),
    }
}

/// A slice end at or after byte `at`: the next space if one is near, else
/// the next character boundary.
fn word_end(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let at = at.min(b.len());
    let near = &b[at..b.len().min(at + WORD_SEARCH)];
    match near.iter().position(|&c| c == b' ') {
        Some(p) => at + p,
        None if at + near.len() == b.len() => b.len(),
        None => (at..=b.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(b.len()),
    }
}

/// Detects the language of `text`, sampling at most about `cap` bytes of
/// it (0: all).
pub fn detect(detector: &Detector, text: &str, cap: usize) -> Option<Guess> {
    let s = sample(text, cap);
    detector.detect(&s).map(|i| Guess {
        lang: of(i.lang()),
        confidence: i.confidence(),
        reliable: i.is_reliable(),
    })
}

/// Bytes of text whatlang is first asked about by [`detect_in_steps`].
/// whatlang's cost grows with the text (about 40 us a KB) over a floor of
/// scoring each candidate language, and a sample this size of clear prose
/// already gets a reliable answer.
pub const FIRST_SAMPLE: usize = 256;

/// Bytes of a text whatlang is asked about by default (nlpc-vrfy's
/// `--lang-max-text`, nlpc-dump's per-block languages).
pub const DEFAULT_SAMPLE: usize = 1024;

/// [`detect`] in two steps: first on a sample of [`FIRST_SAMPLE`] bytes;
/// when `settled` accepts that guess it stands, else the language is
/// detected again on the sample of `cap` bytes, as [`detect`] would. A
/// text no longer than the first sample, or a cap no larger, is asked
/// about once.
pub fn detect_in_steps(
    detector: &Detector,
    text: &str,
    cap: usize,
    settled: impl Fn(&Guess) -> bool,
) -> Option<Guess> {
    if text.len() <= FIRST_SAMPLE || (cap != 0 && cap <= FIRST_SAMPLE) {
        return detect(detector, text, cap);
    }
    match detect(detector, text, FIRST_SAMPLE) {
        Some(g) if settled(&g) => Some(g),
        _ => detect(detector, text, cap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_both_ways() {
        let parse = parse_detectable;
        assert_eq!(parse("lv"), Ok(Lang::Lav));
        assert_eq!(parse("LAV"), Ok(Lang::Lav));
        assert_eq!(parse(" lt "), Ok(Lang::Lit));
        assert_eq!(parse("ekk"), Ok(Lang::Est));
        assert_eq!(parse("ger"), Ok(Lang::Deu));
        assert!(parse("xx").is_err());
        assert_eq!(code(Lang::Lav), "lv");
        assert_eq!(code(Lang::Rus), "ru");
        // Every whatlang language has its 639-1 code, and it parses back.
        for l in Lang::all() {
            assert_eq!(code(*l).len(), 2, "{l:?}");
            assert_eq!(parse(code(*l)), Ok(*l));
            assert_eq!(parse(l.code()), Ok(*l));
        }
    }

    #[test]
    fn every_whatlang_language_has_one_entry_that_round_trips() {
        for w in Lang::all() {
            let entries: Vec<_> = LANGUAGES
                .iter()
                .filter(|l| l.whatlang == Some(*w))
                .collect();
            assert_eq!(entries.len(), 1, "{w:?}");
            let e = *entries[0];
            // By every code, its printed code, whatlang's code and name.
            for c in e.codes().chain([e.code(), w.code(), w.eng_name()]) {
                assert_eq!(parse(c), Ok(e), "{w:?} {c}");
                assert_eq!(parse(&c.to_uppercase()), Ok(e), "{w:?} {c}");
            }
            assert_eq!(of(*w), e);
            assert_eq!(parse_detectable(e.name()), Ok(*w));
        }
    }

    #[test]
    fn no_code_or_name_names_two_languages() {
        let mut seen = std::collections::HashMap::new();
        for l in LANGUAGES {
            assert!(!l.iso3.is_empty() && l.iso3.len() == 3, "{l:?}");
            assert!(l.iso1.is_empty() || l.iso1.len() == 2, "{l:?}");
            assert!(!l.names.is_empty(), "{l:?}");
            let names = l.names.iter().map(|n| n.to_lowercase());
            for k in l.codes().map(str::to_string).chain(names) {
                if let Some(other) = seen.insert(k.clone(), l.iso3) {
                    panic!("{k} names both {other} and {}", l.iso3);
                }
            }
            // Codes are ASCII lowercase, so a case-blind match is exact.
            assert!(l.codes().all(|c| c.bytes().all(|b| b.is_ascii_lowercase())));
        }
    }

    #[test]
    fn latvian_by_every_name() {
        for s in [
            "lv", "lav", "lvs", "LV", "Lvs", "latvian", "LATVIAN", " lv ",
        ] {
            let l = parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!((l.code(), l.whatlang), ("lv", Some(Lang::Lav)), "{s}");
        }
        // Latgalian is its own language, which whatlang cannot detect.
        let ltg = parse("ltg").unwrap();
        assert_eq!((ltg.code(), ltg.name()), ("ltg", "Latgalian"));
        assert_ne!(parse("ltg"), parse("lv"));
        assert_eq!(
            parse_detectable("ltg").unwrap_err().to_string(),
            "ltg (Latgalian) is not a language nlpc-vrfy can detect"
        );
        assert_eq!(parse("ekk").unwrap().code(), "et");
        assert_eq!(parse("cmn").unwrap().code(), "zh");
        assert_eq!(parse("zsm").unwrap().code(), "ms");
    }

    #[test]
    fn unknown_codes_are_refused_with_the_list() {
        for s in ["xx", "", "lv-LV", "latvia"] {
            let e = parse(s).unwrap_err();
            assert_eq!(e, LangError::Unknown(s.to_string()));
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("{s:?} is not a language")),
                "{msg}"
            );
            assert_eq!(msg.lines().count(), 1, "{msg}");
            for l in LANGUAGES {
                assert!(
                    msg.contains(&format!(" {} ", l.code()))
                        || msg.contains(&format!(" {})", l.code()))
                        || msg.contains(&format!(": {} ", l.code())),
                    "{} missing: {msg}",
                    l.code()
                );
            }
        }
    }

    #[test]
    fn content_language_tags() {
        let lv = parse("lv").unwrap();
        let en = parse("en").unwrap();
        assert_eq!(of_header("lv-LV, en;q=0.5"), [Some(lv), Some(en)]);
        for v in ["LV", "lvs", "lv_LV", "lav-Latn-LV", " lv "] {
            assert_eq!(of_header(v), [Some(lv)], "{v}");
        }
        assert_eq!(of_header("x-klingon, mul,, *"), [None, None, None]);
        assert_eq!(of_header(""), []);
        // Names are not tags.
        assert_eq!(of_tag("latvian"), None);
        assert_eq!(of_tag("ltg-LV").map(|l| l.code()), Some("ltg"));
    }

    #[test]
    fn sampling_keeps_whole_words() {
        let text: String = (0..2000).map(|i| format!("vārds{i} ")).collect();
        let text = text.trim_end();
        let s = sample(text, 400);
        assert!(s.len() <= 400 + SLICES * 16, "{}", s.len());
        assert!(s.len() >= 300, "{}", s.len());
        for w in s.split(' ') {
            assert!(w.starts_with("vārds") && w.len() > "vārds".len(), "{w:?}");
        }
        // From the inside of the text, not its ends.
        assert!(!s.contains("vārds0 ") && !s.contains("vārds1999"));
        assert!(s.contains("vārds2") && s.contains("vārds17"), "{s}");
        assert_eq!(sample("īss teksts", 400), "īss teksts");
        assert_eq!(sample(text, 0), text);
        // Text without spaces is still capped, at character boundaries.
        let cjk = "語".repeat(5000);
        let s = sample(&cjk, 400);
        assert!(s.len() < 500 && s.replace(' ', "").chars().all(|c| c == '語'));
    }

    #[test]
    fn pieces_are_the_sample_unjoined() {
        let text: String = (0..3000).map(|i| format!("vārds{i} ")).collect();
        for cap in [0, 1, 64, 256, 512, 4096, text.len(), text.len() + 1] {
            let joined = pieces(&text, cap).collect::<Vec<_>>().join(" ");
            assert_eq!(joined, sample(&text, cap), "{cap}");
        }
        assert_eq!(pieces("", 512).collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn steps_settle_early_or_ask_again() {
        let text = "Latvija ir valsts Baltijas jūras austrumu krastā. Tās galvaspilsēta ir Rīga, \
                    lielākā pilsēta Baltijas valstīs, kurā dzīvo gandrīz trešdaļa iedzīvotāju. "
            .repeat(8);
        let d = Detector::new();
        let asked = &std::cell::Cell::new(0);
        let count = |settle: bool| {
            move |_: &Guess| {
                asked.set(asked.get() + 1);
                settle
            }
        };
        // Settled by the first sample: that guess, asked about once.
        let first = detect_in_steps(&d, &text, 1024, count(true)).unwrap();
        assert_eq!(asked.get(), 1);
        assert_eq!(Some(first), detect(&d, &text, FIRST_SAMPLE));
        assert_eq!(first.lang, LATVIAN);
        // Not settled: the answer is the full sample's.
        let full = detect_in_steps(&d, &text, 1024, count(false));
        assert_eq!(asked.get(), 2);
        assert_eq!(full, detect(&d, &text, 1024));
        // A short text or a small cap: one question, no judgement asked.
        let short = "Rīga ir Latvijas galvaspilsēta.";
        assert_eq!(
            detect_in_steps(&d, short, 1024, count(false)),
            detect(&d, short, 0)
        );
        assert_eq!(
            detect_in_steps(&d, &text, 200, count(false)),
            detect(&d, &text, 200)
        );
        assert_eq!(asked.get(), 2);
    }

    #[test]
    fn detects_latvian() {
        let g = detect(
            &Detector::new(),
            "Latvija ir valsts Baltijas jūras austrumu krastā. Tās galvaspilsēta ir Rīga, \
             lielākā pilsēta Baltijas valstīs, kurā dzīvo gandrīz trešdaļa iedzīvotāju.",
            0,
        )
        .unwrap();
        assert_eq!(g.lang, LATVIAN);
    }
}

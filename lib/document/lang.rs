//! Language identification with whatlang, and the language codes users
//! type: ISO 639-1 (`lv`) or ISO 639-3 (`lav`), plus a few common aliases.
//!
//! whatlang's cost grows with the text, and a page's language shows in a
//! few thousand characters, so a long text is sampled: slices from the
//! beginning, middle and end rather than only the beginning, which on many
//! sites is a menu in another language.

use std::borrow::Cow;

use whatlang::{Detector, Lang};

/// ISO 639-3 (whatlang's) to ISO 639-1, for every language whatlang knows.
const ISO1: &[(Lang, &str)] = &[
    (Lang::Afr, "af"),
    (Lang::Aka, "ak"),
    (Lang::Amh, "am"),
    (Lang::Ara, "ar"),
    (Lang::Aze, "az"),
    (Lang::Bel, "be"),
    (Lang::Ben, "bn"),
    (Lang::Bul, "bg"),
    (Lang::Cat, "ca"),
    (Lang::Ces, "cs"),
    (Lang::Cmn, "zh"),
    (Lang::Cym, "cy"),
    (Lang::Dan, "da"),
    (Lang::Deu, "de"),
    (Lang::Ell, "el"),
    (Lang::Eng, "en"),
    (Lang::Epo, "eo"),
    (Lang::Est, "et"),
    (Lang::Fin, "fi"),
    (Lang::Fra, "fr"),
    (Lang::Guj, "gu"),
    (Lang::Heb, "he"),
    (Lang::Hin, "hi"),
    (Lang::Hrv, "hr"),
    (Lang::Hun, "hu"),
    (Lang::Hye, "hy"),
    (Lang::Ind, "id"),
    (Lang::Ita, "it"),
    (Lang::Jav, "jv"),
    (Lang::Jpn, "ja"),
    (Lang::Kan, "kn"),
    (Lang::Kat, "ka"),
    (Lang::Khm, "km"),
    (Lang::Kor, "ko"),
    (Lang::Lat, "la"),
    (Lang::Lav, "lv"),
    (Lang::Lit, "lt"),
    (Lang::Mal, "ml"),
    (Lang::Mar, "mr"),
    (Lang::Mkd, "mk"),
    (Lang::Mya, "my"),
    (Lang::Nep, "ne"),
    (Lang::Nld, "nl"),
    (Lang::Nob, "nb"),
    (Lang::Ori, "or"),
    (Lang::Pan, "pa"),
    (Lang::Pes, "fa"),
    (Lang::Pol, "pl"),
    (Lang::Por, "pt"),
    (Lang::Ron, "ro"),
    (Lang::Rus, "ru"),
    (Lang::Sin, "si"),
    (Lang::Slk, "sk"),
    (Lang::Slv, "sl"),
    (Lang::Sna, "sn"),
    (Lang::Spa, "es"),
    (Lang::Srp, "sr"),
    (Lang::Swe, "sv"),
    (Lang::Tam, "ta"),
    (Lang::Tel, "te"),
    (Lang::Tgl, "tl"),
    (Lang::Tha, "th"),
    (Lang::Tuk, "tk"),
    (Lang::Tur, "tr"),
    (Lang::Ukr, "uk"),
    (Lang::Urd, "ur"),
    (Lang::Uzb, "uz"),
    (Lang::Vie, "vi"),
    (Lang::Yid, "yi"),
    (Lang::Zul, "zu"),
];

/// Other codes people use for a language whatlang knows: macrolanguage and
/// individual-language codes, and ISO 639-2/B bibliographic codes.
const ALIASES: &[(&str, Lang)] = &[
    ("lvs", Lang::Lav),
    ("ekk", Lang::Est),
    ("no", Lang::Nob),
    ("nor", Lang::Nob),
    ("zho", Lang::Cmn),
    ("chi", Lang::Cmn),
    ("fas", Lang::Pes),
    ("per", Lang::Pes),
    ("ger", Lang::Deu),
    ("fre", Lang::Fra),
    ("cze", Lang::Ces),
    ("dut", Lang::Nld),
    ("gre", Lang::Ell),
    ("rum", Lang::Ron),
    ("slo", Lang::Slk),
    ("mac", Lang::Mkd),
    ("arm", Lang::Hye),
    ("geo", Lang::Kat),
    ("bur", Lang::Mya),
    ("wel", Lang::Cym),
];

/// The code a record stores: ISO 639-1 where one exists, else 639-3.
pub fn code(l: Lang) -> &'static str {
    ISO1.iter()
        .find(|(x, _)| *x == l)
        .map(|(_, c)| *c)
        .unwrap_or_else(|| l.code())
}

/// The language a user's code names, or why it names none.
pub fn parse(s: &str) -> Result<Lang, String> {
    let c = s.trim().to_ascii_lowercase();
    ISO1.iter()
        .find(|(_, two)| *two == c)
        .map(|(l, _)| *l)
        .or_else(|| Lang::from_code(c.as_str()))
        .or_else(|| ALIASES.iter().find(|(a, _)| *a == c).map(|(_, l)| *l))
        .ok_or_else(|| format!("{s:?} is not a language code whatlang knows"))
}

/// A detected language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guess {
    pub lang: Lang,
    /// whatlang's confidence, 0 to 1.
    pub confidence: f64,
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
    let slice = (cap / SLICES).max(1);
    let usable = text.len() - slice;
    let mut out = String::with_capacity(cap + 2 * SLICES);
    for k in 0..SLICES {
        let from = word_start(text, usable * (k + 1) / (SLICES + 1));
        let to = word_end(text, (from + slice).min(text.len()));
        if from < to {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&text[from..to]);
        }
    }
    Cow::Owned(out)
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
        lang: i.lang(),
        confidence: i.confidence(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_both_ways() {
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
    fn detects_latvian() {
        let g = detect(
            &Detector::new(),
            "Latvija ir valsts Baltijas jūras austrumu krastā. Tās galvaspilsēta ir Rīga, \
             lielākā pilsēta Baltijas valstīs, kurā dzīvo gandrīz trešdaļa iedzīvotāju.",
            0,
        )
        .unwrap();
        assert_eq!(g.lang, Lang::Lav);
    }
}

//! Stop words: the short function words (articles, pronouns, prepositions,
//! conjunctions, auxiliaries) that running prose is full of and menus,
//! link lists and captions are not. A block's share of them is the
//! extractor's best single witness of prose. The lists are the project's
//! own, kept short: the most frequent function words of each language,
//! lowercase.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use crate::document::words::{lowercase_into, lowercase_of, Kinds};

/// The languages with a list, in the order of [`LISTS`].
pub const LANGS: [&str; 4] = ["en", "lv", "hu", "de"];

const EN: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "even",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "often",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "said",
    "says",
    "many",
    "still",
    "since",
    "although",
    "another",
    "around",
    "because",
    "back",
    "well",
    "like",
    "than",
    "one",
    "two",
    "first",
    "last",
    "new",
    "made",
    "make",
    "get",
    "got",
    "there",
    "s",
    "t",
    "don",
    "didn",
    "doesn",
    "isn",
    "wasn",
    "won",
    "can't",
    "according",
    "almost",
    "already",
    "among",
    "across",
    "away",
    "become",
    "became",
    "cannot",
    "either",
    "else",
    "enough",
    "less",
    "least",
    "let",
    "neither",
    "next",
    "nothing",
    "rather",
    "something",
    "thus",
    "toward",
    "towards",
    "whatever",
    "whenever",
    "wherever",
    "whole",
    "being",
    "put",
    "take",
    "took",
    "went",
    "go",
    "going",
    "come",
    "came",
    "know",
    "think",
    "see",
    "way",
];

const LV: &[&str] = &[
    "un",
    "ir",
    "ka",
    "par",
    "uz",
    "no",
    "ar",
    "kā",
    "arī",
    "bet",
    "vai",
    "lai",
    "to",
    "tas",
    "tā",
    "tie",
    "tās",
    "šis",
    "šī",
    "šo",
    "šie",
    "šīs",
    "kas",
    "kur",
    "kad",
    "jo",
    "ja",
    "tad",
    "vēl",
    "jau",
    "pie",
    "pēc",
    "līdz",
    "starp",
    "pret",
    "bez",
    "caur",
    "zem",
    "virs",
    "aiz",
    "pa",
    "priekš",
    "dēļ",
    "nav",
    "bija",
    "būs",
    "būt",
    "bijis",
    "bijusi",
    "tiek",
    "tika",
    "tiks",
    "var",
    "varētu",
    "kļūst",
    "kļuva",
    "viņš",
    "viņa",
    "viņi",
    "viņas",
    "viņu",
    "viņam",
    "viņai",
    "viņiem",
    "mēs",
    "jūs",
    "es",
    "tu",
    "mani",
    "man",
    "mums",
    "jums",
    "sev",
    "savu",
    "savā",
    "savas",
    "savus",
    "savi",
    "sava",
    "tikai",
    "ne",
    "nē",
    "gan",
    "tomēr",
    "taču",
    "kamēr",
    "kopš",
    "tāpēc",
    "tāds",
    "tāda",
    "tādi",
    "kāds",
    "kāda",
    "kādi",
    "kurš",
    "kura",
    "kuri",
    "kuras",
    "kuru",
    "kurā",
    "kuriem",
    "šajā",
    "šā",
    "šīm",
    "tajā",
    "tam",
    "tai",
    "tiem",
    "tām",
    "to",
    "ļoti",
    "vairāk",
    "vairs",
    "visi",
    "visas",
    "viss",
    "visu",
    "kopā",
    "gadā",
    "kurus",
    "nekā",
    "it",
    "ik",
    "citi",
    "cits",
    "cita",
    "citu",
    "sevi",
    "savukārt",
    "tomēr",
    "tātad",
    "proti",
    "kā",
    "te",
    "tur",
    "šeit",
    "tagad",
    "arī",
    "nu",
    "jā",
];

const HU: &[&str] = &[
    "a", "az", "és", "is", "hogy", "nem", "egy", "de", "meg", "van", "volt", "vagy", "csak", "már",
    "még", "mint", "ez", "azt", "ezt", "el", "ki", "be", "fel", "le", "sem", "mert", "ha", "el",
    "aki", "ami", "amely", "amit", "akkor", "így", "úgy", "után", "előtt", "között", "alatt",
    "felett", "szerint", "miatt", "nagyon", "lesz", "lett", "lehet", "kell", "vannak", "voltak",
    "őket", "ők", "ő", "én", "te", "mi", "ti", "nekem", "neki", "nekik", "velük", "vele", "ezzel",
    "azzal", "ennek", "annak", "ebben", "abban", "erre", "arra", "itt", "ott", "most", "majd",
    "pedig", "azonban", "illetve", "valamint", "sok", "minden", "mindig", "egész", "több", "nincs",
    "amikor", "ahol", "hanem", "tehát", "hiszen", "ezek", "azok", "olyan", "ilyen", "amelyek",
    "ezért", "azért", "maga", "saját", "mely", "melyek", "újra",
];

const DE: &[&str] = &[
    "der", "die", "das", "und", "in", "den", "von", "zu", "mit", "ist", "des", "sich", "im", "dem",
    "nicht", "ein", "eine", "als", "auch", "es", "an", "er", "hat", "aus", "bei", "sie", "nach",
    "wird", "einer", "um", "am", "sind", "noch", "wie", "einem", "über", "einen", "so", "zum",
    "war", "haben", "nur", "oder", "aber", "vor", "zur", "bis", "mehr", "durch", "man", "dann",
    "soll", "wenn", "werden", "ich", "wir", "ihr", "ihre", "ihren", "seine", "seiner", "sein",
    "kann", "können", "wurde", "wurden", "dass", "daß", "was", "wo", "auf", "für", "unter",
    "gegen", "ohne", "doch", "schon", "sehr", "hier", "dort", "diese", "dieser", "dieses",
    "diesem", "jetzt", "immer", "weil", "ob", "sowie", "uns", "euch", "ihm", "ihn",
];

/// The share of a block's words on the list at or above which it reads as
/// prose, and as near prose, per language of [`LANGS`]. English's were
/// tuned on the extraction dev set (scripts/bench/extract); inflecting
/// languages say with endings what English says with function words, so
/// their prose holds fewer (the paragraphs of tests/data/vrfy's Latvian
/// news page run at 0.23 to 0.35 on this list).
pub const SHARES: [(f64, f64); 4] = [(0.23, 0.20), (0.20, 0.17), (0.20, 0.17), (0.27, 0.24)];

/// The lists, in the order of [`LANGS`].
const LISTS: [&[&str]; 4] = [EN, LV, HU, DE];

/// Each stop word, with a bit per language whose list holds it.
fn table() -> &'static FxHashMap<&'static str, u8> {
    static T: OnceLock<FxHashMap<&'static str, u8>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = FxHashMap::default();
        for (i, list) in LISTS.iter().enumerate() {
            for w in *list {
                *t.entry(*w).or_insert(0) |= 1 << i;
            }
        }
        t
    })
}

/// The languages (a bit each, as [`LANGS`]) whose list holds lowercase
/// word `w`; 0 when none does.
pub fn langs_of(w: &str) -> u8 {
    table().get(w).copied().unwrap_or(0)
}

/// Characters in the longest stop word. Lowercasing never makes a word
/// shorter in characters, so a longer word is on no list whatever its
/// case, and is not lowercased to find that out.
pub const LONGEST: usize = 10;

/// [`langs_of`] a word of any case, of which the segmenter learned
/// `kinds`; `buf` holds its lowercase when it needs one.
pub(crate) fn langs_of_any(w: &str, kinds: Kinds, buf: &mut String) -> u8 {
    if kinds.ascii {
        if w.len() > LONGEST {
            return 0;
        }
        if !kinds.upper {
            return langs_of(w);
        }
        buf.clear();
        buf.push_str(w);
        buf.make_ascii_lowercase();
    } else {
        // A character is at most 4 bytes, and lowercasing never makes
        // fewer characters: a longer word is on no list.
        if w.len() > 4 * LONGEST {
            return 0;
        }
        // Most words are lowercase already: only the others are copied.
        let (mut chars, mut lower) = (0, true);
        for c in w.chars() {
            chars += 1;
            lower &= lowercase_of(c) == Some(c);
        }
        if chars > LONGEST {
            return 0;
        }
        if lower {
            return langs_of(w);
        }
        buf.clear();
        lowercase_into(buf, w);
    }
    langs_of(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_lowercase_words() {
        for list in LISTS {
            for w in list {
                assert!(
                    !w.is_empty() && w.chars().all(|c| !c.is_uppercase() && !c.is_whitespace()),
                    "{w}"
                );
            }
        }
        assert_eq!(langs_of("the"), 1);
        assert_eq!(langs_of("un"), 2);
        assert_eq!(langs_of("a"), 1 | 4);
        assert_eq!(langs_of("rīga"), 0);
        let longest = LISTS
            .iter()
            .flat_map(|l| l.iter())
            .map(|w| w.chars().count());
        assert_eq!(longest.max(), Some(LONGEST));
    }

    #[test]
    fn any_case_finds_what_lowercase_finds() {
        let mut buf = String::new();
        let any = |w: &str, buf: &mut String| {
            let kinds = Kinds {
                letter: true,
                ascii: w.is_ascii(),
                upper: w.bytes().any(|b| b.is_ascii_uppercase()),
            };
            langs_of_any(w, kinds, buf)
        };
        for list in LISTS {
            for w in list {
                let bits = langs_of(w);
                assert_ne!(bits, 0);
                assert_eq!(any(w, &mut buf), bits, "{w}");
                assert_eq!(any(&w.to_uppercase(), &mut buf), bits, "{w}");
                let mut cap = w.chars();
                let first: String = cap
                    .next()
                    .into_iter()
                    .flat_map(char::to_uppercase)
                    .collect();
                assert_eq!(any(&(first + cap.as_str()), &mut buf), bits, "{w}");
            }
        }
        assert_eq!(any("Rīga", &mut buf), 0);
        assert_eq!(any("THEREFOREANDSO", &mut buf), 0);
    }
}

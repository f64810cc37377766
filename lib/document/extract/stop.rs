//! Stop words: the short function words (articles, pronouns, prepositions,
//! conjunctions, auxiliaries) that running prose is full of and menus,
//! link lists and captions are not. A block's share of them is the
//! extractor's best single witness of prose. The lists are the project's
//! own, kept short: the most frequent function words of each language,
//! lowercase.

use std::sync::OnceLock;

use crate::document::lower;
use crate::document::words::Kinds;

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

/// Bytes in the longest stop word (in UTF-8): a word whose lowercase is
/// longer is on no list.
pub const LONGEST_BYTES: usize = 10;

/// Slots of [`Table`]: a power of two, about four times the number of
/// words, so that a word not on a list (most are not) is told so in a
/// probe or two.
const SLOTS: usize = 2048;

/// Each stop word, with a bit per language whose list holds it, in an
/// open-addressing table keyed by the word's bytes packed in a u128 (a
/// word is at most [`LONGEST_BYTES`]): a lookup is a multiplication and a
/// compare or two, where a hash map of strings hashed and compared bytes.
/// Each slot also has a tag, more bits of the key's hash and never 0 in a
/// slot in use: most words are on no list and their search ends on an
/// empty slot's tag, in 2 KB of tags rather than 32 KB of keys.
struct Table {
    tags: Box<[u8; SLOTS]>,
    keys: Box<[u128; SLOTS]>,
    bits: Box<[u8; SLOTS]>,
}

/// The slot where key `k` starts its search, and its tag.
#[inline]
fn home(k: u128) -> (usize, u8) {
    let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let slot_bits = SLOTS.trailing_zeros();
    // The tag's bits are the ones below the slot's.
    let tag = (h >> (64 - slot_bits - 8)) as u8 | 1;
    ((h >> (64 - slot_bits)) as usize, tag)
}

impl Table {
    fn get(&self, k: u128) -> u8 {
        let (mut i, tag) = home(k);
        loop {
            let t = self.tags[i];
            // A slot not in use ends the search.
            if t == 0 {
                return 0;
            }
            if t == tag && self.keys[i] == k {
                return self.bits[i];
            }
            i = (i + 1) % SLOTS;
        }
    }
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Table {
            tags: Box::new([0; SLOTS]),
            keys: Box::new([0; SLOTS]),
            bits: Box::new([0; SLOTS]),
        };
        for (l, list) in LISTS.iter().enumerate() {
            for w in *list {
                // tests::lists_are_lowercase_words holds every word to
                // LONGEST_BYTES.
                let Some(k) = key(w.as_bytes()) else {
                    continue;
                };
                let (mut i, tag) = home(k);
                while t.tags[i] != 0 && t.keys[i] != k {
                    i = (i + 1) % SLOTS;
                }
                t.tags[i] = tag;
                t.keys[i] = k;
                t.bits[i] |= 1 << l;
            }
        }
        t
    })
}

/// The bytes of a word packed in a u128, if there are at most
/// [`LONGEST_BYTES`]: equal words, equal keys; and since no word holds a
/// NUL, words of different lengths differ.
#[inline]
fn key(w: &[u8]) -> Option<u128> {
    if w.is_empty() || w.len() > LONGEST_BYTES {
        return None;
    }
    let mut k = [0u8; 16];
    k[..w.len()].copy_from_slice(w);
    Some(u128::from_le_bytes(k))
}

/// The languages (a bit each, as [`LANGS`]) whose list holds lowercase
/// word `w`; 0 when none does.
pub fn langs_of(w: &str) -> u8 {
    key(w.as_bytes()).map_or(0, |k| table().get(k))
}

/// Characters in the longest stop word. Lowercasing never makes a word
/// shorter in characters, so a longer word is on no list whatever its
/// case, and is not lowercased to find that out.
pub const LONGEST: usize = 10;

/// [`langs_of`] a word of any case, of which the segmenter learned
/// `kinds`, lowercased on the way into its key.
pub(crate) fn langs_of_any(w: &str, kinds: Kinds) -> u8 {
    let mut k = [0u8; 16];
    if kinds.ascii {
        if w.len() > LONGEST_BYTES {
            return 0;
        }
        if kinds.upper {
            for (d, c) in k.iter_mut().zip(w.bytes()) {
                *d = c.to_ascii_lowercase();
            }
        } else if let Some(d) = k.get_mut(..w.len()) {
            // Lowercase already.
            d.copy_from_slice(w.as_bytes());
        }
    } else {
        // A character is at most 4 bytes, and lowercasing never makes
        // fewer characters: a longer word is on no list.
        if w.len() > 4 * LONGEST {
            return 0;
        }
        match lower_by_table(w.as_bytes(), &mut k) {
            Some(true) => return table().get(u128::from_le_bytes(k)),
            Some(false) => return 0,
            // A character of three or four bytes: by the characters.
            None => k = [0; 16],
        }
        let mut n = 0;
        let mut put = |l: char| {
            let len = l.len_utf8();
            match k.get_mut(n..n + len) {
                Some(d) if n + len <= LONGEST_BYTES => {
                    l.encode_utf8(d);
                    n += len;
                    true
                }
                _ => false,
            }
        };
        for c in w.chars() {
            let fits = lower::each_lower(c, &mut put);
            if !fits {
                return 0;
            }
        }
        if n == 0 {
            return 0;
        }
    }
    table().get(u128::from_le_bytes(k))
}

/// [`langs_of_any`] of word `w`, a slice of `text` (the block the
/// segmenter read it from). An ASCII word's key is read straight from the
/// text, sixteen bytes at once, masked to the word's length and lowercased
/// eight bytes at a time, where sixteen bytes of the text are there; a
/// word past ASCII longer than any stop word with no character of three
/// bytes or more is on no list, for lowercasing such a word never makes it
/// shorter in bytes (tests::two_byte_lowercase_never_shrinks). The rest
/// goes the way of [`langs_of_any`].
#[inline]
pub(crate) fn langs_of_in(text: &str, w: &str, kinds: Kinds) -> u8 {
    let n = w.len();
    if kinds.ascii {
        if n > LONGEST_BYTES {
            return 0;
        }
        // `w` lies in `text`, so this is its offset there; anything else
        // finds no sixteen bytes and takes the long way.
        let at = (w.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        if let Some(s) = text
            .as_bytes()
            .get(at..)
            .and_then(|s| s.first_chunk::<16>())
        {
            // n is at most 10: the shift stays inside the u128.
            let mut k = u128::from_le_bytes(*s) & ((1u128 << (8 * n)) - 1);
            if kinds.upper {
                k = ascii_lower(k);
            }
            return table().get(k);
        }
    } else if n > LONGEST_BYTES && !w.bytes().any(|c| c >= 0xE0) {
        return 0;
    }
    langs_of_any(w, kinds)
}

/// `k`'s bytes, all ASCII, with 'A' to 'Z' lowercased: a byte plus 0x3F
/// reaches bit 7 when it is at least 'A', plus 0x25 when it is past 'Z',
/// and neither sum leaves its byte.
#[inline]
fn ascii_lower(k: u128) -> u128 {
    const ONES: u128 = u128::from_le_bytes([1; 16]);
    let at_least_a = k + ONES * (0x80 - u128::from(b'A'));
    let past_z = k + ONES * (0x80 - u128::from(b'Z') - 1);
    k | ((at_least_a & !past_z & (ONES * 0x80)) >> 2)
}

/// Lowercases `w` into `k` a byte at a time in ASCII and by the two-byte
/// table past it: Some(true) when done, Some(false) when the lowercase
/// is longer than [`LONGEST_BYTES`] (or empty), None when `w` holds a
/// character the table does not (and `k` is part written).
#[inline]
fn lower_by_table(w: &[u8], k: &mut [u8; 16]) -> Option<bool> {
    let t = &**lower::TABLE;
    let mut n = 0;
    let mut i = 0;
    while let Some(&c) = w.get(i) {
        if c < 0x80 {
            let Some(d) = k.get_mut(n).filter(|_| n < LONGEST_BYTES) else {
                return Some(false);
            };
            *d = c.to_ascii_lowercase();
            n += 1;
            i += 1;
        } else if c < 0xE0 {
            let e = lower::of(t, c, *w.get(i + 1)?)?;
            let len = usize::from(e.len);
            if len == 0 {
                return None;
            }
            if n + len > LONGEST_BYTES {
                return Some(false);
            }
            // All four bytes, for a copy of fixed size: those past `len`
            // are 0 (lower.rs's tests), as the key's are past the word.
            k.get_mut(n..n + 4)?.copy_from_slice(&e.bytes);
            n += len;
            i += 2;
        } else {
            return None;
        }
    }
    Some(n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::lower::lowercase_of;
    use crate::document::xorshift::xorshift;

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
        let longest = LISTS.iter().flat_map(|l| l.iter()).map(|w| w.len());
        assert_eq!(longest.max(), Some(LONGEST_BYTES));
        let used = table().keys.iter().filter(|&&k| k != 0).count();
        assert!(used > 500 && used * 3 < SLOTS, "{used}");
    }

    #[test]
    fn any_case_finds_what_lowercase_finds() {
        let any = |w: &str| {
            let kinds = Kinds {
                letter: true,
                ascii: w.is_ascii(),
                upper: w.bytes().any(|b| b.is_ascii_uppercase()),
            };
            langs_of_any(w, kinds)
        };
        for list in LISTS {
            for w in list {
                let bits = langs_of(w);
                assert_ne!(bits, 0);
                assert_eq!(any(w), bits, "{w}");
                assert_eq!(any(&w.to_uppercase()), bits, "{w}");
                let mut cap = w.chars();
                let first: String = cap
                    .next()
                    .into_iter()
                    .flat_map(char::to_uppercase)
                    .collect();
                assert_eq!(any(&(first + cap.as_str())), bits, "{w}");
            }
        }
        assert_eq!(any("Rīga"), 0);
        assert_eq!(any("THEREFOREANDSO"), 0);
    }

    #[test]
    fn two_byte_lowercase_never_shrinks() {
        for u in 0u32..0x800 {
            let Some(c) = char::from_u32(u) else {
                continue;
            };
            let low: String = c.to_lowercase().collect();
            assert!(low.len() >= c.len_utf8(), "U+{u:04X}");
            if let Some(l) = lowercase_of(c) {
                assert!(l.len_utf8() >= c.len_utf8(), "U+{u:04X}");
            }
        }
    }

    /// The fast way in [`langs_of_in`] against [`langs_of_any`], for words
    /// as the segmenter gives them, anywhere in their text (near its end
    /// too, where sixteen bytes are not there): stop words in any case,
    /// other words, non-ASCII and long ones.
    #[test]
    fn in_text_is_any_case() {
        let mut words: Vec<String> = LISTS
            .iter()
            .flat_map(|l| l.iter())
            .flat_map(|w| [w.to_string(), w.to_uppercase(), capitalised(w)])
            .collect();
        words.extend(
            [
                "Rīga",
                "galvaspilsēta",
                "GALVASPILSĒTA",
                "ŠAJĀ",
                "Şajā",
                "İt",
                "KAS",
                "kasa",
                "theREFORE",
                "@the",
                "[un]",
                "Z",
                "z",
                "1918",
                "ab12",
                "ǅ",
                "ﬃ",
                "語",
                "ẞ",
                "aaaaaaaaaaaaaaaaaaa",
                "ÜBER",
                "über",
                "ĀĀĀĀĀĀ",
                "kĀ",
                "Kā",
                "\u{212A}as",
            ]
            .map(String::from),
        );
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut tried = 0;
        let mut found = 0;
        for _ in 0..30 {
            let mut text = String::new();
            let mut spans = Vec::new();
            for _ in 0..200 {
                x = xorshift(x);
                let w = &words[(x >> 8) as usize % words.len()];
                let start = text.len();
                text.push_str(w);
                spans.push(start..text.len());
                text.push_str(["", " ", ", ", "\u{a0}", "-"][(x >> 40) as usize % 5]);
            }
            crate::document::words::words(&text, |w, kinds| {
                let bits = langs_of_any(w, kinds);
                assert_eq!(langs_of_in(&text, w, kinds), bits, "{w:?}");
                tried += 1;
                found += usize::from(bits != 0);
            });
            // Words at the very end, and a word not in the text.
            for r in spans.iter().rev().take(3) {
                let w = &text[r.clone()];
                let kinds = kinds_of(w);
                assert_eq!(
                    langs_of_in(&text, w, kinds),
                    langs_of_any(w, kinds),
                    "{w:?}"
                );
                assert_eq!(langs_of_in("", w, kinds), langs_of_any(w, kinds), "{w:?}");
            }
        }
        assert!(tried > 3000 && found * 4 > tried, "{found} of {tried}");
    }

    fn capitalised(w: &str) -> String {
        let mut cs = w.chars();
        let first: String = cs.next().into_iter().flat_map(char::to_uppercase).collect();
        first + cs.as_str()
    }

    fn kinds_of(w: &str) -> Kinds {
        Kinds {
            letter: true,
            ascii: w.is_ascii(),
            upper: w.bytes().any(|b| b.is_ascii_uppercase()),
        }
    }

    #[test]
    fn ascii_lower_is_bytewise() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..100_000 {
            let mut b = [0u8; 16];
            for c in b.iter_mut() {
                x = xorshift(x);
                *c = (x >> 20) as u8 & 0x7F;
            }
            let want = b.map(|c| c.to_ascii_lowercase());
            assert_eq!(
                ascii_lower(u128::from_le_bytes(b)),
                u128::from_le_bytes(want),
                "{b:?}"
            );
        }
    }

    #[test]
    fn the_table_is_the_lists() {
        // The lists as a map of lowercase strings, as they were read.
        let mut map = std::collections::HashMap::new();
        for (l, list) in LISTS.iter().enumerate() {
            for w in *list {
                *map.entry(w.to_string()).or_insert(0u8) |= 1 << l;
            }
        }
        let want = |w: &str| {
            let mut low = String::new();
            crate::document::lower::lowercase_into(&mut low, w);
            map.get(&low).copied().unwrap_or(0)
        };
        let mut words: Vec<String> = map.keys().cloned().collect();
        words.extend(map.keys().map(|w| w.to_uppercase()));
        // Random words from letters that lowercase to more or fewer bytes
        // (İ, the Kelvin sign), stop words' letters, and others.
        let alphabet: Vec<char> = "aeinstuārūšžēīAĀŠİKẞΣЖ語\u{301}ȺµÉ".chars().collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..50_000 {
            x = xorshift(x);
            let n = 1 + (x % 12) as usize;
            words.push(
                (0..n)
                    .map(|i| alphabet[(x >> (4 * i + 8)) as usize % alphabet.len()])
                    .collect(),
            );
        }
        let mut found = 0;
        for w in &words {
            let kinds = Kinds {
                letter: true,
                ascii: w.is_ascii(),
                upper: w.bytes().any(|b| b.is_ascii_uppercase()),
            };
            let bits = want(w);
            assert_eq!(langs_of_any(w, kinds), bits, "{w:?}");
            found += usize::from(bits != 0);
            let mut low = String::new();
            crate::document::lower::lowercase_into(&mut low, w);
            assert_eq!(langs_of(&low), bits, "{w:?}");
        }
        assert!(found > 2 * map.len(), "{found}");
    }
}

//! Words as the index sees them: the suite's one word split
//! (`document::words`, UAX #29 word boundaries), lower-cased by Unicode's
//! rules (`document::lower`, so Ā Č Ē Ģ Ī Ķ Ļ Ņ Š Ū Ž become ā č ē ģ ī ķ
//! ļ ņ š ū ž), and, for the folded field, without diacritics. The same
//! function splits text for the index, for queries and for concordances,
//! so a hit is found where it was indexed.

use std::rc::Rc;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use crate::document::lower::{each_lower, lowercase};
use crate::document::words::word_indices;

/// Longest word indexed, in bytes: longer "words" (base64, a minified
/// script) are noise, and tantivy refuses terms above 64 KiB.
pub const MAX_WORD: usize = 100;

/// The name the exact tokenizer is registered under.
pub const EXACT: &str = "nlpc_words";
/// The name the diacritics-folding tokenizer is registered under.
pub const FOLDED: &str = "nlpc_folded";

/// One word of a text: where it is and its normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the text (on char boundaries).
    pub start: usize,
    pub end: usize,
    /// Lower-cased, and folded if asked.
    pub norm: String,
}

/// The letter without its diacritic, for the Latin letters of Latvian,
/// Lithuanian and the Western European languages; other characters stay.
/// The rule itself; [`fold_char`] looks it up in [`FOLD`].
const fn fold_rule(c: char) -> char {
    match c {
        'ā' | 'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ą' | 'ă' => 'a',
        'č' | 'ç' | 'ć' => 'c',
        'ď' => 'd',
        'ē' | 'è' | 'é' | 'ê' | 'ë' | 'ė' | 'ę' | 'ě' => 'e',
        'ģ' | 'ğ' => 'g',
        'ī' | 'ì' | 'í' | 'î' | 'ï' | 'į' | 'ı' => 'i',
        'ķ' => 'k',
        'ļ' | 'ł' | 'ľ' | 'ĺ' => 'l',
        'ņ' | 'ñ' | 'ń' | 'ň' => 'n',
        'ō' | 'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ő' => 'o',
        'ŗ' | 'ř' | 'ŕ' => 'r',
        'š' | 'ś' | 'ş' => 's',
        'ť' | 'ţ' => 't',
        'ū' | 'ù' | 'ú' | 'û' | 'ü' | 'ų' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ž' | 'ź' | 'ż' => 'z',
        c => c,
    }
}

/// The characters below U+0250 (ASCII, Latin-1, Latin Extended-A and B):
/// every letter [`fold_rule`] changes is one of them.
const LATIN_END: usize = 0x250;

/// [`fold_rule`] of each character below [`LATIN_END`], made at compile
/// time: a load instead of a chain of comparisons a character.
static FOLD: [char; LATIN_END] = {
    let mut t = ['\0'; LATIN_END];
    let mut i = 0;
    while i < LATIN_END {
        // Below U+0250 every code point is a char (no surrogates).
        t[i] = match char::from_u32(i as u32) {
            Some(c) => fold_rule(c),
            None => '\0',
        };
        i += 1;
    }
    t
};

/// The letter without its diacritic ([`fold_rule`]).
fn fold_char(c: char) -> char {
    FOLD.get(c as usize).copied().unwrap_or(c)
}

/// `s` with [`fold_char`] applied, appended to `out`: the runs between
/// the characters it changes are copied whole.
fn fold_into(s: &str, out: &mut String) {
    let mut run = 0;
    for (i, c) in s.char_indices() {
        if !c.is_ascii() {
            let f = fold_char(c);
            if f != c {
                out.push_str(&s[run..i]);
                out.push(f);
                run = i + c.len_utf8();
            }
        }
    }
    out.push_str(&s[run..]);
}

/// The normal form of one word: lower-cased, folded when `fold`.
pub fn normalise(w: &str, fold: bool) -> String {
    let mut out = String::with_capacity(w.len());
    normalise_into(w, fold, &mut out);
    out
}

/// [`normalise`] into `out` (cleared first), so a token stream reuses one
/// buffer instead of allocating a string a word.
pub fn normalise_into(w: &str, fold: bool, out: &mut String) {
    out.clear();
    normalise_append(w, fold, out);
}

/// [`normalise`] appended to `out`: a split keeps all its words' forms in
/// one string.
fn normalise_append(w: &str, fold: bool, out: &mut String) {
    if w.is_ascii() {
        // Most words of most texts: nothing to fold, and ASCII's case
        // rule is a byte's.
        let from = out.len();
        out.push_str(w);
        out[from..].make_ascii_lowercase();
        return;
    }
    let from = out.len();
    for c in w.chars() {
        if c == 'Σ' {
            // Σ lower-cases by its place in the word (σ or ς), which only
            // the whole-word fold knows: the word again, its way.
            out.truncate(from);
            let lower = lowercase(w);
            if fold {
                out.extend(lower.chars().map(fold_char));
            } else {
                out.push_str(&lower);
            }
            return;
        } else {
            // Otherwise str::to_lowercase is this, char by char.
            each_lower(c, |l| {
                out.push(if fold { fold_char(l) } else { l });
                true
            });
        }
    }
}

/// One text cut into words: each word's place and its lower-cased form
/// (all forms in one string), so the folded field can be made from the
/// exact field's words without cutting the text again.
struct Split {
    /// The text cut, to know it again.
    text: String,
    words: Vec<Cut>,
    /// The lower-cased words, one after another.
    norms: String,
}

/// One word of a [`Split`].
struct Cut {
    pos: usize,
    start: usize,
    end: usize,
    /// Where its form ends in `norms` (it starts where the last one ended).
    norm_end: usize,
}

impl Split {
    /// Cuts `text` into words (`document::words`); words longer than
    /// [`MAX_WORD`] are skipped but keep their position, so phrases never
    /// join across them.
    fn new(text: &str) -> Split {
        let mut words = Vec::with_capacity(text.len() / 6);
        let mut norms = String::with_capacity(text.len());
        let mut pos = 0;
        word_indices(text, |start, w| {
            if w.len() <= MAX_WORD {
                normalise_append(w, false, &mut norms);
                words.push(Cut {
                    pos,
                    start,
                    end: start + w.len(),
                    norm_end: norms.len(),
                });
            }
            pos += 1;
        });
        Split {
            text: text.to_string(),
            words,
            norms,
        }
    }
}

/// How many of the exact tokenizer's last splits a thread keeps: a
/// document's title and text, which tantivy tokenizes (fields in schema
/// order) just before their folded copies.
const KEPT: usize = 2;

thread_local! {
    /// The exact tokenizer's last splits on this thread, which the folding
    /// tokenizer takes when it is given the same text: each text is cut
    /// and lower-cased once for both fields.
    static LAST: std::cell::RefCell<Vec<Rc<Split>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The split of `text`: for the exact field made and kept; for the folded
/// field taken from what was kept when it is the same text, else made.
fn split_of(text: &str, fold: bool) -> Rc<Split> {
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if fold {
            if let Some(s) = last.iter().find(|s| s.text == text) {
                return s.clone();
            }
            return Rc::new(Split::new(text));
        }
        let s = Rc::new(Split::new(text));
        if last.len() >= KEPT {
            last.remove(0);
        }
        last.push(s.clone());
        s
    })
}

/// Calls `f` with each word of `text` in order; words longer than
/// [`MAX_WORD`] are skipped but keep their position, so phrases never
/// join across them.
pub fn each(text: &str, fold: bool, mut f: impl FnMut(usize, Word)) {
    let mut s = Stream::of(Rc::new(Split::new(text)), fold);
    while s.advance() {
        let t = s.token();
        f(
            t.position,
            Word {
                start: t.offset_from,
                end: t.offset_to,
                norm: t.text.clone(),
            },
        );
    }
}

/// The words of `text` with their positions.
pub fn split(text: &str, fold: bool) -> Vec<(usize, Word)> {
    let mut out = Vec::new();
    each(text, fold, |p, w| out.push((p, w)));
    out
}

/// The tokenizer registered in tantivy.
#[derive(Clone, Copy, Debug)]
pub struct Words {
    pub fold: bool,
}

/// Its token stream: the words of one split, folded when asked.
pub struct Stream {
    split: Rc<Split>,
    next: usize,
    fold: bool,
    token: Token,
}

impl Stream {
    fn of(split: Rc<Split>, fold: bool) -> Stream {
        Stream {
            split,
            next: 0,
            fold,
            token: Token::default(),
        }
    }
}

impl Tokenizer for Words {
    type TokenStream<'a> = Stream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Stream {
        Stream::of(split_of(text, self.fold), self.fold)
    }
}

impl TokenStream for Stream {
    fn advance(&mut self) -> bool {
        let Some(c) = self.split.words.get(self.next) else {
            return false;
        };
        let from = match self.next {
            0 => 0,
            i => self.split.words[i - 1].norm_end,
        };
        self.next += 1;
        let norm = &self.split.norms[from..c.norm_end];
        let t = &mut self.token;
        t.offset_from = c.start;
        t.offset_to = c.end;
        t.position = c.pos;
        t.position_length = 1;
        t.text.clear();
        if self.fold && !norm.is_ascii() {
            // Folding the lower-cased word is folding the word.
            fold_into(norm, &mut t.text);
        } else {
            t.text.push_str(norm);
        }
        true
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    #[test]
    fn latvian_letters_lower_and_fold() {
        let w: Vec<String> = split("ĀBOLS Čūska ĢĪĶĻŅ ŠŪŽ, e-pasts.", false)
            .into_iter()
            .map(|(_, w)| w.norm)
            .collect();
        assert_eq!(w, ["ābols", "čūska", "ģīķļņ", "šūž", "e", "pasts"]);
        assert_eq!(normalise("Zāle", true), "zale");
        assert_eq!(normalise("Zāle", false), "zāle");
    }

    /// The fast paths give what str::to_lowercase (and folding its
    /// result) gives, final sigma and multi-char lower cases included.
    #[test]
    fn normal_forms_match_the_unicode_lower_case() {
        for w in [
            "Rīga",
            "RĪGA",
            "abc",
            "ABC",
            "ΟΔΟΣ",
            "ΣΑΣ",
            "İstanbul",
            "Straße",
            "ǅemal",
            "ŽŪŠ",
            "Ærø",
            "",
        ] {
            let lower = w.to_lowercase();
            assert_eq!(normalise(w, false), lower, "{w}");
            let folded: String = lower.chars().map(fold_char).collect();
            assert_eq!(normalise(w, true), folded, "{w}");
        }
    }

    /// The tables give what the rules give, for every character up to
    /// U+2FFF alone and inside words (tables end at U+0250; Ⱥ's lower case
    /// is past it, İ's is two characters, Σ's depends on its place).
    #[test]
    fn the_tables_give_what_the_rules_give() {
        for i in 0..0x3000u32 {
            let Some(c) = char::from_u32(i) else {
                continue;
            };
            assert_eq!(fold_char(c), fold_rule(c), "{c:?}");
            let mut out = String::from("x");
            fold_into(&format!("{c}ā{c}b"), &mut out);
            let want: String = format!("x{c}ā{c}b").chars().map(fold_rule).collect();
            assert_eq!(out, want, "{c:?}");
            for w in [
                c.to_string(),
                format!("ā{c}Z"),
                format!("{c}Σ{c}"),
                format!("Σ{c}"),
            ] {
                let lower = w.to_lowercase();
                assert_eq!(normalise(&w, false), lower, "{w:?}");
                let folded: String = lower.chars().map(fold_rule).collect();
                assert_eq!(normalise(&w, true), folded, "{w:?}");
                // Appending keeps what was there.
                let mut out = String::from("x");
                normalise_append(&w, true, &mut out);
                assert_eq!(out, format!("x{folded}"), "{w:?}");
            }
        }
    }

    /// The folding tokenizer gives the same tokens whether it takes the
    /// exact tokenizer's split of the same text or cuts the text itself.
    #[test]
    fn the_folded_stream_is_the_same_with_and_without_the_kept_split() {
        fn tokens(fold: bool, text: &str) -> Vec<(usize, usize, usize, String)> {
            let mut s = Words { fold }.token_stream(text);
            let mut v = Vec::new();
            while s.advance() {
                let t = s.token();
                v.push((t.position, t.offset_from, t.offset_to, t.text.clone()));
            }
            v
        }
        let text = "Zāle ir ZAĻA, bet Šis ŪDENS — ΟΔΟΣ; x";
        let alone = tokens(true, text);
        let exact = tokens(false, text);
        let after = tokens(true, text);
        assert_eq!(alone, after);
        assert_eq!(after[0].3, "zale");
        assert_eq!(exact[0].3, "zāle");
        assert_eq!(after[2].3, "zala");
        assert_eq!(after.len(), exact.len());
        // Another text is not given the kept split.
        assert_eq!(tokens(true, "Ābols")[0].3, "abols");
    }

    /// The index's words are the words UAX #29 finds
    /// (`unicode-segmentation`), the one difference that of the suite's
    /// split (`document::words`), which always parts words at ASCII white
    /// space: a word that begins with white space (a combining letter
    /// mark such as U+0345 or an Indic vowel sign, which UAX #29 attaches
    /// to the white space before it) begins after its last ASCII white
    /// space. Texts mixed from the characters whose rules are
    /// tricky: marks and joiners after blanks, other spaces, apostrophes,
    /// full stops and commas between letters and digits, CJK, emoji,
    /// regional indicators, Latin letters.
    #[test]
    fn the_words_are_the_words_uax29_finds() {
        use unicode_segmentation::UnicodeSegmentation;
        let mut differ = 0;
        const PARTS: &[&str] = &[
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\u{b}",
            "\u{3000}",
            "\u{a0}",
            "a",
            "Zāle",
            "ļ",
            "ß",
            "×",
            "÷",
            "9",
            "3.14",
            "1,5",
            ".",
            ",",
            "'",
            "’",
            ":",
            ";",
            "_",
            "-",
            "\u{301}",
            "\u{93e}",
            "\u{200d}",
            "\u{200b}",
            "\u{ad}",
            "日本",
            "カタ",
            "ไทย",
            "👍",
            "🇱🇻",
            "e\u{301}",
            "don't",
            "U.S.A.",
            "x_y",
            "\u{5d0}\"",
            "ǅ",
            "ɏ",
            "ȿ",
            "Ā",
            "\u{fe0f}",
            "(",
            ")",
            "\"",
            "!",
            "?",
            "Rīga,",
            "(vārds).",
            "«",
            "»",
            "a.",
            ".a",
            "_a",
            "a_",
            "'a'",
            "\u{5d0}",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut t = String::new();
            x = xorshift(x);
            let n = (x % 12) as usize;
            for _ in 0..n {
                x = xorshift(x);
                t.push_str(PARTS[(x % PARTS.len() as u64) as usize]);
            }
            let want: Vec<(usize, &str)> = t
                .unicode_word_indices()
                .map(|(s, w)| {
                    let lead = w.len() - w.trim_start().len();
                    let cut = w[..lead]
                        .rfind(|c: char| c.is_ascii_whitespace())
                        .map_or(0, |i| i + 1);
                    (s + cut, &w[cut..])
                })
                .collect();
            let mut got = Vec::new();
            word_indices(&t, |s, w| got.push((s, w)));
            assert_eq!(got, want, "{t:?}");
            differ += usize::from(
                t.unicode_words()
                    .any(|w| w.starts_with(char::is_whitespace)),
            );
        }
        // The generator does make the one difference.
        assert!(differ > 0);
    }

    #[test]
    fn long_words_are_skipped_and_keep_their_place() {
        let long = "x".repeat(MAX_WORD + 1);
        let w = split(&format!("a {long} b"), false);
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].0, w[1].0), (0, 2));
    }
}

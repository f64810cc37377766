//! Words: UAX #29 word boundaries (a fast path for the scripts of our
//! languages, checked against `unicode-segmentation`). The suite's one
//! word split: the stop words, dictionary ratio and fingerprints of
//! nlpc-vrfy, the index's words (`search::words`) and the tokens of
//! vertical text (`document::tokens`) all take their words from here.

use unicode_segmentation::UnicodeSegmentation;

use crate::document::fingerprint::{piece_words, FNV_OFFSET, FNV_PRIME};
use crate::document::letters;
use crate::document::lower::{self, Low};

/// Word-break classes of UAX #29, for the characters [`class`] knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Wb {
    /// ALetter.
    Letter,
    Numeric,
    /// MidLetter: ':' and '·'.
    MidLetter,
    /// MidNumLet and Single_Quote: '.' and '\''.
    MidNumLet,
    /// MidNum: ',' and ';'.
    MidNum,
    /// ExtendNumLet: '_'.
    ExtendNumLet,
    /// Extend and Format: combining diacritics and the soft hyphen, which
    /// belong to the character before them.
    Extend,
    /// Other characters that are alphanumeric all the same (superscript
    /// digits, vulgar fractions): a word of one character each.
    OtherAlnum,
    Other,
}

/// The word-break class of `c`, for the scripts most pages are in (ASCII,
/// Latin, Greek, Cyrillic); None for any other character, whose text then
/// goes to the full UAX #29 implementation.
#[inline]
pub(crate) fn class(c: char) -> Option<Wb> {
    Some(match c {
        'a'..='z' | 'A'..='Z' => Wb::Letter,
        '0'..='9' => Wb::Numeric,
        ':' | '\u{B7}' => Wb::MidLetter,
        '.' | '\'' => Wb::MidNumLet,
        ',' | ';' => Wb::MidNum,
        '_' => Wb::ExtendNumLet,
        '\0'..='\u{7F}' => Wb::Other,
        '\u{AA}' | '\u{B5}' | '\u{BA}' => Wb::Letter,
        // The cedilla joins letters (ALetter) but is no letter itself, so
        // alone it is no word: the tables have it.
        '\u{B8}' => return None,
        '\u{C0}'..='\u{24F}' if c != '\u{D7}' && c != '\u{F7}' => Wb::Letter,
        '\u{AD}' => Wb::Extend,
        '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{BC}'..='\u{BE}' => Wb::OtherAlnum,
        '\u{A0}'..='\u{BF}' | '\u{D7}' | '\u{F7}' => Wb::Other,
        // U+0345 and U+0363 to U+036F are alphabetic though they combine;
        // leave them to the tables.
        '\u{300}'..='\u{344}' | '\u{346}'..='\u{362}' => Wb::Extend,
        '\u{391}'..='\u{3A1}' | '\u{3A3}'..='\u{3A9}' | '\u{3AC}'..='\u{3CE}' => Wb::Letter,
        '\u{400}'..='\u{481}' | '\u{48A}'..='\u{52F}' => Wb::Letter,
        '\u{483}'..='\u{489}' => Wb::Extend,
        // Dashes, quotation marks and the ellipsis of General
        // Punctuation, which pages use as much as ASCII punctuation.
        '\u{2018}' | '\u{2019}' | '\u{2024}' => Wb::MidNumLet,
        '\u{2027}' => Wb::MidLetter,
        '\u{2010}'..='\u{2017}' | '\u{201A}'..='\u{2023}' | '\u{2025}' | '\u{2026}' => Wb::Other,
        _ => return None,
    })
}

/// Calls `f` with each word of `text`, as [`UnicodeSegmentation::unicode_words`]
/// finds them (segments between UAX #29 word boundaries that hold a letter
/// or digit). tests::segmentation_matches_unicode_words holds the two to
/// the same result, but for one case that changes no ratio: a combining
/// mark after white space, which UAX #29 joins to the space, is not.
pub fn for_each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    words(text, |w, _| f(w));
}

/// Calls `f` with the byte offset in `text` and the text of each word of
/// `text`, as [`for_each_word`] finds them: the one split of the suite,
/// which the index (`search::words`) and the tokens of vertical text
/// (`document::tokens`) take their words from.
pub fn word_indices<'t>(text: &'t str, mut f: impl FnMut(usize, &'t str)) {
    // Every word is a slice of `text`, so its offset is the distance
    // between their starts.
    let base = text.as_ptr() as usize;
    words(text, |w, _| f(w.as_ptr() as usize - base, w));
}

/// What the segmenter learned about a word on the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Kinds {
    /// It holds a letter (not only digits).
    pub(crate) letter: bool,
    /// It is all ASCII.
    pub(crate) ascii: bool,
    /// It holds an ASCII capital (meaningful when `ascii`).
    pub(crate) upper: bool,
}

impl Kinds {
    fn of(w: &str) -> Kinds {
        Kinds {
            letter: w.chars().any(letters::alphabetic),
            ascii: w.is_ascii(),
            upper: w.bytes().any(|b| b.is_ascii_uppercase()),
        }
    }
}

/// The word being built by [`words`].
#[derive(Clone, Copy)]
pub(crate) struct Word {
    start: usize,
    end: usize,
    /// The class of its last unit: Letter, Numeric, ExtendNumLet or
    /// OtherAlnum.
    last: Wb,
    /// It holds a letter or digit (a run of '_' alone is no word).
    wordy: bool,
    kinds: Kinds,
    /// A MidLetter, MidNum or MidNumLet unit after it, which joins only if
    /// the right unit follows: its class and end.
    mid: Option<(Wb, usize)>,
}

/// What an ASCII letter or digit is, for [`words`]' runs of them: 0 for
/// any other byte.
const RUN_ALNUM: u8 = 1;
const RUN_LETTER: u8 = 2;
const RUN_UPPER: u8 = 4;
const ASCII_RUN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        if b.is_ascii_digit() {
            t[c] = RUN_ALNUM;
        } else if b.is_ascii_lowercase() {
            t[c] = RUN_ALNUM | RUN_LETTER;
        } else if b.is_ascii_uppercase() {
            t[c] = RUN_ALNUM | RUN_LETTER | RUN_UPPER;
        }
        c += 1;
    }
    t
};

/// The piece of `b` at `i` (just after white space, or at the start) when
/// it is a plain word: ASCII letters and digits and the Latin letters of
/// U+00C0 to U+024F (two bytes each), then the end, ASCII white space, or
/// one ASCII punctuation mark but '_' and then either. Every unit of such
/// a word joins the one before it (WB5, WB8 to WB10), and the mark, if
/// any, neither joins it (no letter or digit follows) nor is a word. The
/// word's end, where to go on, its kinds and, with `HASH`, its hash for
/// the shingles: such a word is also one run of letters and digits, a
/// shingle's word, whose FNV-1a of the lowercase is taken on the way.
// Inlined into the loop of `words`, which calls it for nearly every word.
#[inline(always)]
fn plain_piece<const HASH: bool>(
    b: &[u8],
    i: usize,
    low: &[Low],
) -> Option<(usize, usize, Kinds, u64)> {
    let mut j = i;
    let mut seen = 0;
    let mut ascii = true;
    let mut h = FNV_OFFSET;
    loop {
        match b.get(j) {
            Some(&c) if ASCII_RUN[usize::from(c)] != 0 => {
                seen |= ASCII_RUN[usize::from(c)];
                if HASH {
                    // An ASCII letter or digit: 0x20 makes it lowercase.
                    h = (h ^ u64::from(c | 0x20)).wrapping_mul(FNV_PRIME);
                }
                j += 1;
            }
            Some(&c @ 0xC3..=0xC9) => {
                let c1 = *b.get(j + 1)?;
                let u = (u32::from(c & 0x1F) << 6) | u32::from(c1 & 0x3F);
                // class(): Letter from U+00C0 to U+024F but × and ÷.
                if !(0xC0..=0x24F).contains(&u) || u == 0xD7 || u == 0xF7 {
                    return None;
                }
                if HASH {
                    // The lowercase's bytes, as the shingles' own split
                    // hashes them (an entry of no bytes, which the table's
                    // test rules out, is left to that split).
                    let e = lower::of(low, c, c1).filter(|e| e.len != 0)?;
                    for &l in e.bytes.get(..usize::from(e.len)).unwrap_or_default() {
                        h = (h ^ u64::from(l)).wrapping_mul(FNV_PRIME);
                    }
                }
                seen |= RUN_LETTER;
                ascii = false;
                j += 2;
            }
            _ => break,
        }
    }
    if j == i {
        return None;
    }
    let ends = |k: usize| b.get(k).is_none_or(u8::is_ascii_whitespace);
    let next = if ends(j) {
        j
    } else if b[j].is_ascii_punctuation() && b[j] != b'_' && ends(j + 1) {
        j + 1
    } else {
        return None;
    };
    Some((
        j,
        next,
        Kinds {
            letter: seen & RUN_LETTER != 0,
            ascii,
            upper: seen & RUN_UPPER != 0,
        },
        h,
    ))
}

/// The words of `text` with what is known of them, in one pass: ASCII
/// white space always is a word boundary, and between two white spaces
/// (a piece) the UAX #29 rules that apply to the classes of [`class`]
/// (WB4-WB13b) are followed with one unit of lookahead (the middle of
/// "don't", "e.g", "3.14"). A piece holding any other character goes to
/// the crate's tables whole, so a piece's words are held back until its
/// end.
pub(crate) fn words<'t>(text: &'t str, f: impl FnMut(&'t str, Kinds)) {
    split::<false>(text, f, |_| {});
}

/// [`words`], and the words of the shingles (`fingerprint`: runs of
/// letters and digits, not of digits alone) given to `g` in order as the
/// FNV-1a of their lowercase, as `fingerprint::piece_words` finds them:
/// the two splits read the same pass, and the MinHash of a text is then
/// made from these hashes alone (`fingerprint::minhash_of_words`). True
/// when `text` is normalised for the text hash: its words with one space
/// between them, and no other white space (`char::is_whitespace`).
pub(crate) fn words_hashed<'t>(
    text: &'t str,
    f: impl FnMut(&'t str, Kinds),
    g: impl FnMut(u64),
) -> bool {
    split::<true>(text, f, g)
}

/// [`words`], and with `HASH` [`words_hashed`]. ASCII white space parts
/// the shingles' words too, so a piece's words in that split are its own:
/// a plain piece's one word is hashed where it is read, any other piece
/// is handed whole to `fingerprint::piece_words` once its end is known.
/// Whether the text is normalised is told from its ASCII white space (one
/// space after each piece but the last) and from the pieces not plain
/// (a plain one holds none).
#[inline(always)]
fn split<'t, const HASH: bool>(
    text: &'t str,
    mut f: impl FnMut(&'t str, Kinds),
    mut g: impl FnMut(u64),
) -> bool {
    use Wb::*;
    let b = text.as_bytes();
    let mut normal = true;
    // Only the hashing reads the table (and makes it, the first time).
    let low: &[Low] = if HASH { &lower::TABLE } else { &[] };
    let mut found: Vec<(usize, usize, Kinds)> = Vec::new();
    let mut word: Option<Word> = None;
    // Whether the previous unit is part of `word` (or its pending mid), so
    // an Extend after it extends it (WB4).
    let mut attached = false;
    let mut piece_start = 0;
    let mut i = 0;
    let end_word = |word: &mut Option<Word>, found: &mut Vec<(usize, usize, Kinds)>| {
        if let Some(w) = word.take() {
            if w.wordy {
                found.push((w.start, w.end, w.kinds));
            }
        }
    };
    while i < b.len() {
        let c0 = b[i];
        if c0.is_ascii_whitespace() {
            // A piece not read as plain ends here (a plain one passed its
            // white space itself); white space here with no piece before
            // it is at the start or after other white space.
            if HASH {
                normal &= c0 == b' '
                    && i > piece_start
                    && b.get(i + 1).is_some_and(|n| !n.is_ascii_whitespace());
                if i > piece_start {
                    if let Some(p) = text.get(piece_start..i) {
                        normal &= !piece_words(p, &mut g);
                    }
                }
            }
            end_word(&mut word, &mut found);
            for &(a, z, k) in &found {
                f(&text[a..z], k);
            }
            found.clear();
            attached = false;
            i += 1;
            piece_start = i;
            continue;
        }
        // Most pieces are one word of letters and digits, at most one
        // punctuation mark after it: told at once, without the rules.
        if i == piece_start {
            if let Some((end, next, kinds, h)) = plain_piece::<HASH>(b, i, low) {
                f(&text[i..end], kinds);
                // Words of digits alone are not the shingles'.
                if HASH && kinds.letter {
                    g(h);
                }
                // After the piece: the end, or one space and a piece.
                if HASH {
                    normal &= b.get(next).is_none_or(|&c| {
                        c == b' ' && b.get(next + 1).is_some_and(|n| !n.is_ascii_whitespace())
                    });
                }
                // The piece ends at white space or the end, with no word
                // pending: the white space is passed here, and the next
                // piece starts after it.
                i = next;
                while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                piece_start = i;
                attached = false;
                continue;
            }
        }
        // Most of a text is ASCII letters inside words: take a run of them
        // at once when it starts or continues a word.
        if c0.is_ascii_alphanumeric() {
            let joins = match &word {
                None => true,
                Some(w) => w.mid.is_none() && matches!(w.last, Letter | Numeric | ExtendNumLet),
            };
            if joins {
                // The run's end and what it holds, in one look at each
                // byte.
                let mut run = 0;
                let mut seen = 0;
                while let Some(&c) = b.get(i + run) {
                    let t = ASCII_RUN[usize::from(c)];
                    if t == 0 {
                        break;
                    }
                    seen |= t;
                    run += 1;
                }
                let letter = seen & RUN_LETTER != 0;
                let upper = seen & RUN_UPPER != 0;
                let w = word.get_or_insert(Word {
                    start: i,
                    end: i,
                    last: Letter,
                    wordy: true,
                    kinds: Kinds {
                        letter: false,
                        ascii: true,
                        upper: false,
                    },
                    mid: None,
                });
                i += run;
                w.end = i;
                w.last = if b[i - 1].is_ascii_digit() {
                    Numeric
                } else {
                    Letter
                };
                w.wordy = true;
                w.kinds.letter |= letter;
                w.kinds.upper |= upper;
                attached = true;
                continue;
            }
        }
        // `i` is always at a character boundary here.
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let Some(k) = class(c) else {
            // A character the rules here do not cover: the tables take
            // the whole piece, and its words so far are dropped.
            let end = b[i..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(b.len(), |p| i + p);
            for w in text[piece_start..end].unicode_words() {
                f(w, Kinds::of(w));
            }
            found.clear();
            word = None;
            attached = false;
            i = end;
            continue;
        };
        let start = i;
        let end = i + c.len_utf8();
        i = end;
        let ascii = c.is_ascii();
        if k == Extend {
            if let (true, Some(w)) = (attached, word.as_mut()) {
                match &mut w.mid {
                    Some((_, e)) => *e = end,
                    None => {
                        w.end = end;
                        w.kinds.ascii = false;
                    }
                }
            }
            // At the start of a piece, or after an Other, it stands alone
            // or with that unit: no word either way.
            continue;
        }
        if let Some(w) = word.as_mut() {
            if let Some((m, _)) = w.mid {
                let joins = matches!(
                    (w.last, m, k),
                    (Letter, MidLetter | MidNumLet, Letter) // WB6, WB7
                        | (Numeric, MidNum | MidNumLet, Numeric) // WB11, WB12
                );
                if joins {
                    // The mid (and any Extend on it) joins the word too.
                    w.mid = None;
                    w.end = end;
                    w.last = k;
                    w.kinds.ascii &= text[w.start..end].is_ascii();
                    w.kinds.letter |= k == Letter;
                    w.kinds.upper |= c.is_ascii_uppercase();
                    attached = true;
                    continue;
                }
                w.mid = None;
            } else {
                match (w.last, k) {
                    // WB5, WB8-WB10, WB13a, WB13b.
                    (Letter | Numeric | ExtendNumLet, Letter | Numeric | ExtendNumLet) => {
                        w.end = end;
                        w.last = k;
                        w.wordy |= k != ExtendNumLet;
                        w.kinds.letter |= k == Letter;
                        w.kinds.ascii &= ascii;
                        w.kinds.upper |= c.is_ascii_uppercase();
                        attached = true;
                        continue;
                    }
                    (Letter, MidLetter | MidNumLet) | (Numeric, MidNum | MidNumLet) => {
                        w.mid = Some((k, end));
                        attached = true;
                        continue;
                    }
                    _ => {}
                }
            }
            // A boundary: the word ends before this unit.
            end_word(&mut word, &mut found);
        }
        attached = matches!(k, Letter | Numeric | ExtendNumLet | OtherAlnum);
        if attached {
            word = Some(Word {
                start,
                end,
                last: k,
                wordy: k != ExtendNumLet,
                kinds: Kinds {
                    letter: k == Letter,
                    ascii,
                    upper: c.is_ascii_uppercase(),
                },
                mid: None,
            });
        }
    }
    if HASH && piece_start < b.len() {
        if let Some(p) = text.get(piece_start..) {
            normal &= !piece_words(p, &mut g);
        }
    }
    end_word(&mut word, &mut found);
    for &(a, z, k) in &found {
        f(&text[a..z], k);
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::lower::{lowercase_of, LOWER_TABLE_END};

    #[test]
    fn lowercase_table_agrees_with_std() {
        for u in 0..LOWER_TABLE_END + 16 {
            let Some(c) = char::from_u32(u) else {
                continue;
            };
            if let Some(l) = lowercase_of(c) {
                assert_eq!(l.to_string(), c.to_lowercase().to_string(), "U+{u:04X}");
            } else {
                assert!(
                    u >= LOWER_TABLE_END || c.to_lowercase().count() > 1,
                    "U+{u:04X}"
                );
            }
        }
    }

    fn words_both_ways(text: &str) {
        let mut fast = Vec::new();
        words(text, |w, k| {
            assert_eq!(k, Kinds::of(w), "{w:?} in {text:?}");
            fast.push(w.trim_start());
        });
        // The one difference: UAX #29 attaches a combining mark to white
        // space before it, and U+0345 is alphabetic, so " \u{345}" is a
        // word there and "\u{345}" here.
        let slow: Vec<&str> = text.unicode_words().map(str::trim_start).collect();
        assert_eq!(fast, slow, "{text:?}");
    }

    /// Every character `class` knows, between and beside letters, digits
    /// and the marks the rules weigh, read both ways.
    #[test]
    fn each_known_character_in_context() {
        let context = [
            "a", "Z", "ā", "9", ".", ":", ",", "'", "_", "\u{301}", " ", "-", "",
        ];
        for u in (0..LOWER_TABLE_END).chain(0x2000..0x2070) {
            let Some(c) = char::from_u32(u).filter(|&c| class(c).is_some()) else {
                continue;
            };
            for x in context {
                for y in context {
                    words_both_ways(&format!("{x}{c}{y}"));
                    words_both_ways(&format!("a{x}{c}{y}b"));
                    words_both_ways(&format!("1{x}{c}{y}2"));
                }
            }
        }
    }

    #[test]
    fn segmentation_matches_unicode_words() {
        for t in [
            "Rīga ir Latvijas galvaspilsēta, kopš 1918. gada.",
            "don't rock'n'roll l'homme U.S.A. e.g. 3.14 1,000,000 a1b2 x_y _a_ __ a:b k:a",
            "pār\u{AD}baude \u{301}a cafe\u{301} a.\u{301}b 1.\u{301}2 ,a a, ;1; 1;",
            "Байкал — озеро; «ёлка» ñandú Ελλάδα µm ªº 2×3 ½ a·b",
            "日本語のテキスト 中文 עִבְרִית \u{a0}non-breaking\u{a0}space a\u{2019}b",
            "",
            "   ",
            "...",
            "Vārds, vārds. VĀRDS! Ābols\tÉcole\n1918? x×y ɐb a_ _a a__ a.) ā, ā.b",
        ] {
            words_both_ways(t);
        }
        // Random strings from an alphabet of the characters the rules
        // care about.
        let alphabet: Vec<char> =
            "aZā9ж_.':,;-\u{AD}\u{301}\u{345} \u{a0}語ά·\u{2019}\u{5d0}ĀÉ×÷ɐ\u{24F}!\")\t\n\u{b}–—‘„“”…\u{2024}\u{2027}\u{2028}"
                .chars()
                .collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 16) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push(alphabet[(x >> 33) as usize % alphabet.len()]);
            }
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            words_both_ways(&s);
        }
    }
}

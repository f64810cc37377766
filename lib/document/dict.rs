//! The dictionary: a UTF-8 word list, one lowercase word a line, and the
//! share of a text's words found in it.
//!
//! Real word lists are large (an expanded Latvian aspell list has about five
//! million forms), so the file is read once into one buffer, compacted in
//! place to `word\n` runs, and indexed by an open-addressing hash table of
//! 32-bit slots: about 7 bytes of table and the word's own bytes per word,
//! and no allocation per word. A slot holds the word's offset in the
//! buffer and, in the bits the offset does not need, a few bits of the
//! word's hash, so that a probe past other words rarely touches their
//! bytes: lookups of words that are not in the list (half a page's, often)
//! cost one cache miss, not several.

use std::hash::BuildHasher;
use std::path::Path;

use unicode_segmentation::UnicodeSegmentation;

use crate::error::{Error, Result};

/// A loaded word list.
pub struct Dict {
    /// Every distinct word, each followed by `\n`.
    words: Vec<u8>,
    /// 0 for an empty slot, else a word's tag above `off_bits` and its
    /// offset in `words` + 1 below; the length is a power of two.
    slots: Vec<u32>,
    /// 64 - log2 of the number of slots.
    shift: u32,
    /// Bits of a slot that hold the offset.
    off_bits: u32,
    len: usize,
}

/// The words of a text and how many the dictionary holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ratio {
    pub words: usize,
    pub found: usize,
}

impl Ratio {
    /// found / words, 0 for a text without words.
    pub fn share(&self) -> f64 {
        if self.words == 0 {
            0.0
        } else {
            self.found as f64 / self.words as f64
        }
    }
}

/// Fx's hash of `w`, spread by a multiplication: its high bits choose the
/// home slot (Fx's low bits cluster for words that differ only in their
/// last letters), bits from 16 up give the tag.
fn mixed(w: &[u8]) -> u64 {
    rustc_hash::FxBuildHasher
        .hash_one(w)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// What is wrong with a line that holds `c`.
fn bad_line(c: char, word: &str) -> String {
    let what = if c.is_whitespace() {
        "more than one word"
    } else {
        "control character"
    };
    format!("{what} in {word:?}")
}

impl Dict {
    /// Loads the word list in `path`; a line that is not UTF-8 or not one
    /// word is an error naming the file and the line.
    pub fn load(path: &Path) -> Result<Dict> {
        let buf = std::fs::read(path).map_err(|e| Error::io(path, "cannot read dictionary", e))?;
        Dict::from_bytes(buf)
            .map_err(|(line, why)| Error::Input(format!("{}: line {line}: {why}", path.display())))
    }

    /// Builds the dictionary from a word list's bytes; on error, the line
    /// number (from 1) and what is wrong with it.
    pub fn from_bytes(mut buf: Vec<u8>) -> std::result::Result<Dict, (usize, String)> {
        if buf.len() >= u32::MAX as usize {
            return Err((0, "dictionary larger than 4 GB".into()));
        }
        // One validation of the whole file is much faster than one a line.
        if let Err(e) = std::str::from_utf8(&buf) {
            let at = e.valid_up_to();
            let line_start = buf[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            let line = 1 + buf[..at].iter().filter(|&&b| b == b'\n').count();
            return Err((
                line,
                format!("not UTF-8 (byte {} of the line)", at - line_start + 1),
            ));
        }
        // A final line without its newline gets one, so every word is
        // followed by one.
        if buf.last().is_some_and(|&b| b != b'\n') {
            buf.push(b'\n');
        }
        // Compact the lines in place to `word\n` runs: the write position
        // never passes the end of the line being read, so unread lines are
        // never overwritten. A word that lowercasing makes longer than its
        // line (rare: 'İ') is set aside and appended at the end.
        let mut w = 0;
        // A byte order mark is not part of the first word.
        let mut r = if buf.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let mut line = 0;
        let mut starts: Vec<u32> = Vec::new();
        let mut spill: Vec<u8> = Vec::new();
        while r < buf.len() {
            line += 1;
            // The buffer ends with a newline, so there is always one.
            let end = r + memchr::memchr(b'\n', &buf[r..]).unwrap_or(buf.len() - r);
            let raw = &buf[r..end];
            let (at, n, lowered) = if raw.is_ascii() {
                let t = raw.trim_ascii();
                if let Some(&c) = t.iter().find(|&&c| c <= b' ' || c == 0x7F) {
                    return Err((line, bad_line(c as char, &String::from_utf8_lossy(t))));
                }
                let at = r + (t.as_ptr() as usize - raw.as_ptr() as usize);
                (at, t.len(), None)
            } else {
                // Validated above; a line boundary is a character boundary.
                let s = std::str::from_utf8(raw).map_err(|_| (line, "not UTF-8".to_string()))?;
                let t = s.trim();
                // Word lists keep proper names capitalised; pages' words are
                // lowercased before lookup, so the list's must be too.
                let mut upper = false;
                for c in t.chars() {
                    if c.is_whitespace() || c.is_control() {
                        return Err((line, bad_line(c, t)));
                    }
                    upper |= lowercase_of(c) != Some(c);
                }
                let at = r + (t.as_ptr() as usize - s.as_ptr() as usize);
                let lowered = upper.then(|| {
                    let mut l = String::with_capacity(t.len());
                    lowercase_into(&mut l, t);
                    l
                });
                (at, t.len(), lowered)
            };
            r = end + 1;
            if n == 0 {
                continue;
            }
            let len = match lowered {
                None => {
                    buf.copy_within(at..at + n, w);
                    buf[w..w + n].make_ascii_lowercase();
                    n
                }
                Some(l) if w + l.len() <= end => {
                    buf[w..w + l.len()].copy_from_slice(l.as_bytes());
                    l.len()
                }
                Some(l) => {
                    spill.extend_from_slice(l.as_bytes());
                    spill.push(b'\n');
                    continue;
                }
            };
            starts.push(w as u32);
            w += len;
            buf[w] = b'\n';
            w += 1;
        }
        buf.truncate(w);
        // Words that grew when lowercased go at the end.
        for word in spill.split(|&b| b == b'\n').filter(|w| !w.is_empty()) {
            starts.push(buf.len() as u32);
            buf.extend_from_slice(word);
            buf.push(b'\n');
        }
        if buf.len() >= u32::MAX as usize {
            return Err((line, "dictionary larger than 4 GB".into()));
        }
        buf.shrink_to_fit();
        let cap = (starts.len() * 10 / 7 + 1).next_power_of_two().max(16);
        // Offsets run to buf.len() (stored + 1); the bits above are tag.
        let off_bits = usize::BITS - buf.len().leading_zeros();
        let mut d = Dict {
            words: buf,
            slots: vec![0; cap],
            shift: 64 - cap.trailing_zeros(),
            off_bits,
            len: 0,
        };
        // Inserting is a cache miss per word in a large table. Misses
        // overlap when their addresses are known early, so each batch's
        // home slots are computed and read first, then filled.
        for batch in starts.chunks(64) {
            let mut homes = [0usize; 64];
            let mut touch = 0u32;
            for (h, &off) in homes.iter_mut().zip(batch) {
                *h = (mixed(d.word_at(off as usize)) >> d.shift) as usize;
                touch ^= d.slots[*h];
            }
            std::hint::black_box(touch);
            for &off in batch {
                d.insert(off);
            }
        }
        Ok(d)
    }

    fn word_at(&self, off: usize) -> &[u8] {
        let rest = &self.words[off..];
        let n = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        &rest[..n]
    }

    /// The slot value of a word at `off` whose hash is `h`.
    fn slot_value(&self, off: usize, h: u64) -> u32 {
        let tag = (h >> 16) << self.off_bits;
        ((tag | (off as u64 + 1)) & u64::from(u32::MAX)) as u32
    }

    /// The slot holding `w`, or the empty slot where it would go.
    fn probe(&self, w: &[u8]) -> usize {
        let mask = self.slots.len() - 1;
        let h = mixed(w);
        let mut i = (h >> self.shift) as usize;
        let off_mask = (1u64 << self.off_bits) - 1;
        let tag = u64::from(self.slot_value(0, h)) & !off_mask;
        loop {
            let s = u64::from(self.slots[i]);
            if s == 0 {
                return i;
            }
            if s & !off_mask == tag {
                let off = (s & off_mask) as usize - 1;
                // The word, then its terminating newline.
                if self.words.get(off + w.len()) == Some(&b'\n')
                    && self.words[off..off + w.len()] == *w
                {
                    return i;
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, off: u32) {
        let (i, h) = {
            let w = self.word_at(off as usize);
            (self.probe(w), mixed(w))
        };
        if self.slots[i] == 0 {
            self.slots[i] = self.slot_value(off as usize, h);
            self.len += 1;
        }
    }

    /// True when the list holds `w` (already lowercase).
    pub fn contains(&self, w: &str) -> bool {
        self.slots[self.probe(w.as_bytes())] != 0
    }

    /// Distinct words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a list without words.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of memory the dictionary holds.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() + self.slots.capacity() * std::mem::size_of::<u32>()
    }

    /// The words of `text` (split on Unicode word boundaries, UAX #29;
    /// only words with a letter count, so numbers do not) and how many of
    /// them, lowercased, the dictionary holds.
    pub fn ratio(&self, text: &str) -> Ratio {
        let mut r = Ratio::default();
        let mut lower = String::new();
        words(text, |w, k| {
            if !k.letter {
                return;
            }
            let w = if k.ascii {
                if k.upper {
                    lower.clear();
                    lower.extend(w.bytes().map(|c| char::from(c.to_ascii_lowercase())));
                    lower.as_str()
                } else {
                    w
                }
            } else if w.chars().any(|c| lowercase_of(c) != Some(c)) {
                // Most words are lowercase already: only the others are
                // copied.
                lower.clear();
                lowercase_into(&mut lower, w);
                lower.as_str()
            } else {
                w
            };
            r.words += 1;
            r.found += self.contains(w) as usize;
        });
        r
    }
}

/// Characters below this have their lowercase in [`LOWER`]: Latin, Greek
/// and Cyrillic.
const LOWER_TABLE_END: u32 = 0x530;

/// The lowercase of each character below [`LOWER_TABLE_END`] that has a
/// one-character lowercase, else NUL; made from the standard library's own
/// tables, which are slower to search each time.
static LOWER: std::sync::LazyLock<Vec<char>> = std::sync::LazyLock::new(|| {
    (0..LOWER_TABLE_END)
        .map(|u| {
            let c = char::from_u32(u).unwrap_or('\0');
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(one), None) => one,
                _ => '\0',
            }
        })
        .collect()
});

/// Appends `s` lowercased character by character (so the dictionary and
/// the pages agree, whatever the context rules of `str::to_lowercase`).
fn lowercase_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match lowercase_of(c) {
            Some(l) => out.push(l),
            None => out.extend(c.to_lowercase()),
        }
    }
}

/// The lowercase of `c` when it is one character and the table has it.
#[inline]
fn lowercase_of(c: char) -> Option<char> {
    if c.is_ascii() {
        return Some(c.to_ascii_lowercase());
    }
    match LOWER.get(c as usize) {
        Some(&l) if l != '\0' => Some(l),
        _ => None,
    }
}

/// Word-break classes of UAX #29, for the characters [`class`] knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wb {
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
fn class(c: char) -> Option<Wb> {
    Some(match c {
        'a'..='z' | 'A'..='Z' => Wb::Letter,
        '0'..='9' => Wb::Numeric,
        ':' | '\u{B7}' => Wb::MidLetter,
        '.' | '\'' => Wb::MidNumLet,
        ',' | ';' => Wb::MidNum,
        '_' => Wb::ExtendNumLet,
        '\0'..='\u{7F}' => Wb::Other,
        '\u{AA}' | '\u{B5}' | '\u{BA}' => Wb::Letter,
        '\u{C0}'..='\u{24F}' if c != '\u{D7}' && c != '\u{F7}' => Wb::Letter,
        '\u{AD}' => Wb::Extend,
        '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{BC}'..='\u{BE}' => Wb::OtherAlnum,
        '\u{A0}'..='\u{BF}' | '\u{D7}' | '\u{F7}' => Wb::Other,
        // U+0345 is alphabetic though it combines; leave it to the tables.
        '\u{300}'..='\u{344}' | '\u{346}'..='\u{36F}' => Wb::Extend,
        '\u{391}'..='\u{3A1}' | '\u{3A3}'..='\u{3A9}' | '\u{3AC}'..='\u{3CE}' => Wb::Letter,
        '\u{400}'..='\u{481}' | '\u{48A}'..='\u{52F}' => Wb::Letter,
        '\u{483}'..='\u{489}' => Wb::Extend,
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

/// What the segmenter learned about a word on the way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kinds {
    /// It holds a letter (not only digits).
    letter: bool,
    /// It is all ASCII.
    ascii: bool,
    /// It holds an ASCII capital (meaningful when `ascii`).
    upper: bool,
}

impl Kinds {
    fn of(w: &str) -> Kinds {
        Kinds {
            letter: w.chars().any(char::is_alphabetic),
            ascii: w.is_ascii(),
            upper: w.bytes().any(|b| b.is_ascii_uppercase()),
        }
    }
}

/// The word being built by [`words`].
#[derive(Clone, Copy)]
struct Word {
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

/// The words of `text` with what is known of them, in one pass: ASCII
/// white space always is a word boundary, and between two white spaces
/// (a piece) the UAX #29 rules that apply to the classes of [`class`]
/// (WB4-WB13b) are followed with one unit of lookahead (the middle of
/// "don't", "e.g", "3.14"). A piece holding any other character goes to
/// the crate's tables whole, so a piece's words are held back until its
/// end.
fn words<'t>(text: &'t str, mut f: impl FnMut(&'t str, Kinds)) {
    use Wb::*;
    let b = text.as_bytes();
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
        // Most of a text is ASCII letters inside words: take a run of them
        // at once when it starts or continues a word.
        if c0.is_ascii_alphanumeric() {
            let joins = match &word {
                None => true,
                Some(w) => w.mid.is_none() && matches!(w.last, Letter | Numeric | ExtendNumLet),
            };
            if joins {
                let run = b[i..]
                    .iter()
                    .position(|c| !c.is_ascii_alphanumeric())
                    .unwrap_or(b.len() - i);
                let run_bytes = &b[i..i + run];
                let letter = run_bytes.iter().any(u8::is_ascii_alphabetic);
                let upper = run_bytes.iter().any(u8::is_ascii_uppercase);
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
    end_word(&mut word, &mut found);
    for &(a, z, k) in &found {
        f(&text[a..z], k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(s: &[u8]) -> Dict {
        Dict::from_bytes(s.to_vec()).unwrap()
    }

    #[test]
    fn loads_and_finds() {
        let d = dict("rīga\n\n  jūra \r\nRĪGA\nvalsts\nvalsts\nİstanbul\nx".as_bytes());
        assert_eq!(d.len(), 5);
        for w in ["rīga", "jūra", "valsts", "x", "i̇stanbul"] {
            assert!(d.contains(w), "{w}");
        }
        for w in ["rīg", "rīgaa", "jura", "", "valst"] {
            assert!(!d.contains(w), "{w}");
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let e = Dict::from_bytes(b"labs\nslikts \xff\n".to_vec())
            .err()
            .unwrap();
        assert_eq!(e.0, 2);
        assert!(e.1.contains("not UTF-8"), "{}", e.1);
        let e = Dict::from_bytes(b"a\nb\n\ndivi vardi\n".to_vec())
            .err()
            .unwrap();
        assert_eq!(e.0, 4);
        assert!(e.1.contains("more than one word"), "{}", e.1);
        let e = Dict::from_bytes(b"a\x01b\n".to_vec()).err().unwrap();
        assert_eq!(e.0, 1);
    }

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
        ] {
            words_both_ways(t);
        }
        // Random strings from an alphabet of the characters the rules
        // care about.
        let alphabet: Vec<char> = "aZā9ж_.':,;-\u{AD}\u{301}\u{345} \u{a0}語ά·\u{2019}\u{5d0}"
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

    #[test]
    fn ratio_of_words() {
        let d = dict("rīga\nir\nlatvijas\ngalvaspilsēta\n".as_bytes());
        let r = d.ratio("Rīga ir Latvijas galvaspilsēta, kopš 1918. gada — \"RĪGA\"!");
        assert_eq!(r, Ratio { words: 7, found: 5 });
        assert_eq!(d.ratio("123 456").share(), 0.0);
        assert!(dict(b"").is_empty());
    }
}

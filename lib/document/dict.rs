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

use crate::document::lower;
use crate::document::lower::{lowercase_into, lowercase_of};
use crate::document::words::{words, Kinds};

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
        words(text, |w, k| self.count(w, k, &mut lower, &mut r));
        r
    }

    /// Adds word `w` of a text, as [`words`] found it, to `r`: a word
    /// with a letter counts, and is found if the list holds it
    /// lowercased (`lower` is scratch space).
    pub(crate) fn count(&self, w: &str, k: Kinds, lower: &mut String, r: &mut Ratio) {
        if !k.letter {
            return;
        }
        let w = if k.ascii {
            if k.upper {
                lower.clear();
                lower.push_str(w);
                lower.make_ascii_lowercase();
                lower.as_str()
            } else {
                w
            }
        } else if !lowercase_already(w) {
            // Most words are lowercase already: only the others are
            // copied.
            lower.clear();
            lowercase_by_bytes(lower, w);
            lower.as_str()
        } else {
            w
        };
        r.words += 1;
        r.found += self.contains(w) as usize;
    }
}

/// True when `lowercase_into` would give `w` back as it is: told by the
/// bytes in ASCII and for two-byte characters (their lowercase, from
/// `lower::TABLE`, is the character itself), by the characters past them.
fn lowercase_already(w: &str) -> bool {
    let t = &**lower::TABLE;
    let b = w.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c < 0x80 {
            if c.is_ascii_uppercase() {
                return false;
            }
            i += 1;
        } else if c < 0xE0 {
            let Some(&c1) = b.get(i + 1) else {
                return false;
            };
            match lower::of(t, c, c1) {
                Some(e) if e.len == 2 && e.bytes[0] == c && e.bytes[1] == c1 => i += 2,
                _ => return false,
            }
        } else {
            // `i` is at a character boundary.
            return w
                .get(i..)
                .is_some_and(|r| r.chars().all(|c| lowercase_of(c) == Some(c)));
        }
    }
    true
}

/// `lowercase_into(out, w)`, by the bytes in ASCII and for two-byte
/// characters (`lower::TABLE` holds their lowercase, at most three bytes
/// each), for a word of at most 32 bytes; by the characters from the first
/// character of three bytes or more, or for a longer word.
fn lowercase_by_bytes(out: &mut String, w: &str) {
    let t = &**lower::TABLE;
    let b = w.as_bytes();
    let mut buf = [0u8; 96];
    let (mut i, mut n) = (0, 0);
    while let Some(&c) = b.get(i).filter(|_| b.len() <= 32) {
        if c < 0x80 {
            buf[n] = c.to_ascii_lowercase();
            n += 1;
            i += 1;
            continue;
        }
        let e = (c < 0xE0)
            .then(|| b.get(i + 1).and_then(|&c1| lower::of(t, c, c1)))
            .flatten()
            .filter(|e| e.len != 0);
        let Some(e) = e else {
            break;
        };
        let len = usize::from(e.len);
        match (buf.get_mut(n..n + len), e.bytes.get(..len)) {
            (Some(d), Some(l)) => d.copy_from_slice(l),
            _ => break,
        }
        n += len;
        i += 2;
    }
    // Only whole characters were written, and `i` is at a character
    // boundary; were it otherwise, the characters would take all of it.
    match std::str::from_utf8(&buf[..n]) {
        Ok(s) => out.push_str(s),
        Err(_) => i = 0,
    }
    if let Some(rest) = w.get(i..).filter(|r| !r.is_empty()) {
        lowercase_into(out, rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    /// What `count` decides by `lowercase_already` is what lowercasing
    /// gives: a word it calls lowercase is its own lowercase.
    #[test]
    fn lowercase_already_is_lowercase() {
        let alphabet: Vec<char> = "aZāĀšŠİKẞΣσЖж語\u{301}ȺµÉ\u{530}\u{5d0}ǅ1'"
            .chars()
            .collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut already = 0;
        for _ in 0..50_000 {
            x = xorshift(x);
            let n = 1 + (x % 6) as usize;
            let w: String = (0..n)
                .map(|i| alphabet[(x >> (5 * i + 8)) as usize % alphabet.len()])
                .collect();
            let mut low = String::new();
            lowercase_into(&mut low, &w);
            let mut by_bytes = String::from("x");
            lowercase_by_bytes(&mut by_bytes, &w);
            assert_eq!(by_bytes[1..], low, "{w:?}");
            let old = !w.chars().any(|c| lowercase_of(c) != Some(c));
            if lowercase_already(&w) {
                assert_eq!(low, w, "{w:?}");
                already += 1;
            } else {
                // Only where the character test also lowercases.
                assert!(!old || low == w, "{w:?}");
            }
            assert!(!old || lowercase_already(&w), "{w:?}");
        }
        assert!(already > 1000, "{already}");
        // Past 32 bytes, and a three-byte character amid two-byte ones.
        for w in [
            "ĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀ",
            "ĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀ",
            "ŠA語ŽK\u{212A}Ā",
            "İİİİİİİİİİ",
        ] {
            let mut low = String::new();
            lowercase_into(&mut low, w);
            let mut by_bytes = String::new();
            lowercase_by_bytes(&mut by_bytes, w);
            assert_eq!(by_bytes, low, "{w:?}");
        }
        // Every two-byte character alone.
        for u in 0x80u32..0x800 {
            if let Some(c) = char::from_u32(u) {
                let w = c.to_string();
                let mut low = String::new();
                lowercase_into(&mut low, &w);
                assert_eq!(lowercase_already(&w), low == w, "U+{u:04X}");
                let mut by_bytes = String::new();
                lowercase_by_bytes(&mut by_bytes, &w);
                assert_eq!(by_bytes, low, "U+{u:04X}");
            }
        }
    }

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
    fn ratio_of_words() {
        let d = dict("rīga\nir\nlatvijas\ngalvaspilsēta\n".as_bytes());
        let r = d.ratio("Rīga ir Latvijas galvaspilsēta, kopš 1918. gada — \"RĪGA\"!");
        assert_eq!(r, Ratio { words: 7, found: 5 });
        assert_eq!(d.ratio("123 456").share(), 0.0);
        assert!(dict(b"").is_empty());
    }
}

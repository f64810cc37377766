//! The dictionary: a UTF-8 word list, one lowercase word a line, and the
//! share of a text's words found in it.
//!
//! Real word lists are large (an expanded Latvian aspell list has about five
//! million forms), so the file is read once into one buffer, compacted in
//! place to `word\n` runs, and indexed by an open-addressing hash table of
//! 32-bit offsets into it: about 4 bytes of table and the word's own bytes
//! per word, and no allocation per word.

use std::hash::BuildHasher;
use std::path::Path;

use unicode_segmentation::UnicodeSegmentation;

use crate::error::{Error, Result};

/// A loaded word list.
pub struct Dict {
    /// Every distinct word, each followed by `\n`.
    words: Vec<u8>,
    /// Offset + 1 of a word in `words`, 0 for an empty slot; the length is
    /// a power of two.
    slots: Vec<u32>,
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

fn hash(w: &[u8]) -> usize {
    rustc_hash::FxBuildHasher.hash_one(w) as usize
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
            let end = r + buf[r..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(buf.len() - r);
            let (at, n, lowered) = {
                let raw = &buf[r..end];
                let s = std::str::from_utf8(raw).map_err(|e| {
                    (
                        line,
                        format!("not UTF-8 (byte {} of the line)", e.valid_up_to() + 1),
                    )
                })?;
                let word = s.trim();
                if let Some(c) = word.chars().find(|c| c.is_whitespace() || c.is_control()) {
                    let what = if c.is_whitespace() {
                        "more than one word"
                    } else {
                        "control character"
                    };
                    return Err((line, format!("{what} in {word:?}")));
                }
                let at = r + (word.as_ptr() as usize - s.as_ptr() as usize);
                // Word lists keep proper names capitalised; pages' words are
                // lowercased before lookup, so the list's must be too.
                let lowered = word
                    .chars()
                    .any(char::is_uppercase)
                    .then(|| word.to_lowercase());
                (at, word.len(), lowered)
            };
            r = end + 1;
            if n == 0 {
                continue;
            }
            let len = match lowered {
                None => {
                    buf.copy_within(at..at + n, w);
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
        let mut at = 0;
        while at < spill.len() {
            let n = spill[at..].iter().position(|&b| b == b'\n').unwrap_or(0);
            starts.push(buf.len() as u32);
            buf.extend_from_slice(&spill[at..at + n + 1]);
            at += n + 1;
        }
        if buf.len() >= u32::MAX as usize {
            return Err((line, "dictionary larger than 4 GB".into()));
        }
        buf.shrink_to_fit();
        let cap = (starts.len() * 10 / 7 + 1).next_power_of_two().max(16);
        let mut d = Dict {
            words: buf,
            slots: vec![0; cap],
            len: 0,
        };
        for s in starts {
            d.insert(s);
        }
        Ok(d)
    }

    fn word_at(&self, off: usize) -> &[u8] {
        let rest = &self.words[off..];
        let n = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        &rest[..n]
    }

    /// The slot holding `w`, or the empty slot where it would go.
    fn probe(&self, w: &[u8]) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash(w) & mask;
        loop {
            let s = self.slots[i] as usize;
            if s == 0 {
                return i;
            }
            let off = s - 1;
            // Compare in place: the word, then its terminating newline.
            if self.words.get(off..off + w.len()) == Some(w)
                && self.words.get(off + w.len()) == Some(&b'\n')
            {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, off: u32) {
        let i = {
            let w = self.word_at(off as usize);
            self.probe(w)
        };
        if self.slots[i] == 0 {
            self.slots[i] = off + 1;
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
        for w in text.unicode_words() {
            let ascii = w.is_ascii();
            let letter = if ascii {
                w.bytes().any(|b| b.is_ascii_alphabetic())
            } else {
                w.chars().any(char::is_alphabetic)
            };
            if !letter {
                continue;
            }
            r.words += 1;
            let w = if ascii && !w.bytes().any(|b| b.is_ascii_uppercase()) {
                w
            } else if ascii {
                lower.clear();
                lower.extend(w.chars().map(|c| c.to_ascii_lowercase()));
                lower.as_str()
            } else if w.chars().any(char::is_uppercase) {
                lower.clear();
                lower.extend(w.chars().flat_map(char::to_lowercase));
                lower.as_str()
            } else {
                w
            };
            r.found += self.contains(w) as usize;
        }
        r
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
    fn ratio_of_words() {
        let d = dict("rīga\nir\nlatvijas\ngalvaspilsēta\n".as_bytes());
        let r = d.ratio("Rīga ir Latvijas galvaspilsēta, kopš 1918. gada — \"RĪGA\"!");
        assert_eq!(r, Ratio { words: 7, found: 5 });
        assert_eq!(d.ratio("123 456").share(), 0.0);
        assert!(dict(b"").is_empty());
    }
}

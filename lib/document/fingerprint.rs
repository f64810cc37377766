//! Fingerprints of a page's main text, by which duplicates are found: a
//! hash of the text with its white space normalised (equal for exact
//! copies) and a MinHash signature of its shingles of words (agreeing in
//! most slots for near copies: [`minhash`]). A 64-bit SimHash of the same
//! shingles ([`simhash`]: close in Hamming distance for copies about 97%
//! the same) is no part of a fingerprint; it is kept for
//! `scripts/bench/dups`, which measures the two against each other.
//!
//! Words are the runs of letters and digits (Unicode alphanumerics; a
//! split far cheaper than UAX #29 word boundaries and, for shingles, as
//! good), lower-cased; words of digits alone are left out, since the dates, counters and times that
//! change on every fetch of a page are mostly that; a shingle is
//! [`SHINGLE`] words in a row. Each shingle's 64-bit hash is offered to a
//! slot of the MinHash signature (or, for the SimHash, votes for or
//! against each of its bits).

use crate::document::letters::alphanumeric;
use crate::document::lower;
use crate::document::lower::each_lower;
use crate::document::swar::{controls, lanes, word_at, zero_bytes, HIGH};

pub mod minhash;
#[cfg(test)]
mod reference;
mod votes;

pub use minhash::Signature;
use minhash::Sketch;
use votes::Votes;

/// Words per shingle: long enough that two pages sharing vocabulary but
/// not sentences stay apart, short enough that one changed word touches
/// few shingles.
pub const SHINGLE: usize = 3;

/// What a text is, for finding its copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// BLAKE3 of the text, runs of white space read as one space and none
    /// at either end; the first 16 bytes.
    pub text: [u8; 16],
    /// The MinHash signature of the text's word shingles.
    pub minhash: Signature,
}

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Fingerprint {
        // Both in one pass over the text.
        let mut feed = Feed::new(text.len());
        let mut sketch = Sketch::new();
        each_shingle(text, Some(&mut feed), |h| sketch.add(h));
        Fingerprint {
            text: feed.finish(),
            minhash: sketch.finish(),
        }
    }

    /// [`Fingerprint::of`] the text of `blocks`, each followed by a line
    /// break, of `len` bytes in all, whose shingles' words ([`piece_words`])
    /// are `words`. A block said to be normalised (its words with one
    /// space between them and nothing else, as `words::words_hashed` tells)
    /// is hashed as it is; the others are read for their white space.
    pub(crate) fn of_blocks<'a>(
        blocks: impl IntoIterator<Item = (&'a str, bool)>,
        len: usize,
        words: impl IntoIterator<Item = u64>,
    ) -> Fingerprint {
        let mut feed = Feed::new(len);
        let mut started = false;
        for (block, normal) in blocks {
            if normal {
                feed.stretch(block.as_bytes(), 0, block.len(), &mut started);
            } else {
                feed.words(block, &mut started);
            }
        }
        Fingerprint {
            text: feed.finish(),
            minhash: minhash_of_words(words),
        }
    }
}

/// Bytes given to BLAKE3 an update: several of its 1 KiB chunks, which it
/// then hashes side by side.
const HASH_CHUNK: usize = 64 * 1024;

/// What a byte can start, for white space: 0 no white space; 1 ASCII
/// white space but the space; 2 the space; 3 a character past ASCII
/// that may be white space (U+0085, U+00A0 behind 0xC2; U+1680 behind
/// 0xE1; U+2000 to U+205F behind 0xE2; U+3000 behind 0xE3).
/// tests::space_classes_cover_white_space holds it to `char::is_whitespace`.
const SPACE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0x09;
    while c <= 0x0D {
        t[c] = 1;
        c += 1;
    }
    t[b' ' as usize] = 2;
    t[0xC2] = 3;
    t[0xE1] = 3;
    t[0xE2] = 3;
    t[0xE3] = 3;
    t
};

/// The bytes of the white space character at byte `i` of `text`, if one
/// is there.
#[inline]
fn space_at(text: &str, i: usize) -> Option<usize> {
    match SPACE_CLASS[usize::from(*text.as_bytes().get(i)?)] {
        0 => None,
        1 | 2 => Some(1),
        // A lead byte is at a character boundary.
        _ => text
            .get(i..)
            .and_then(|t| t.chars().next())
            .filter(|c| c.is_whitespace())
            .map(char::len_utf8),
    }
}

/// The normalised text on its way to BLAKE3, in large updates.
struct Feed {
    h: blake3::Hasher,
    buf: Vec<u8>,
}

impl Feed {
    fn new(len: usize) -> Feed {
        Feed {
            h: blake3::Hasher::new(),
            buf: Vec::with_capacity(len.min(HASH_CHUNK)),
        }
    }

    /// Feeds `b[from..to]`, a stretch of normalised text that white space
    /// ends, if it is not empty: after one space, unless it is the first.
    #[inline]
    fn stretch(&mut self, b: &[u8], from: usize, to: usize, started: &mut bool) {
        let Some(piece) = b.get(from..to).filter(|p| !p.is_empty()) else {
            return;
        };
        if *started {
            self.push(b" ");
        }
        self.push(piece);
        *started = true;
    }

    /// The first 16 bytes of the hash of all that was fed.
    fn finish(self) -> [u8; 16] {
        let Feed { mut h, buf } = self;
        h.update(&buf);
        let mut out = [0; 16];
        out.copy_from_slice(&h.finalize().as_bytes()[..16]);
        out
    }

    fn push(&mut self, piece: &[u8]) {
        if self.buf.len() + piece.len() > HASH_CHUNK {
            if !self.buf.is_empty() {
                self.h.update(&self.buf);
                self.buf.clear();
            }
            if piece.len() >= HASH_CHUNK {
                self.h.update(piece);
                return;
            }
        }
        self.buf.extend_from_slice(piece);
    }
}

/// Hash of `text` with white space normalised: two texts that differ only
/// in line breaks and spacing hash the same. What is hashed is the text's
/// words (runs of characters that are not `char::is_whitespace`) with one
/// space between them.
pub fn text_hash(text: &str) -> [u8; 16] {
    let mut feed = Feed::new(text.len());
    feed.words(text, &mut false);
    feed.finish()
}

impl Feed {
    /// Feeds the words of `text` with one space between them, and one
    /// before the first if `started` (a word was fed before).
    fn words(&mut self, text: &str, started: &mut bool) {
        // Stretches of the text that are normalised already (words with
        // one space between them, most of a main text) are copied whole,
        // found a byte at a time from a table; only the lead bytes of the
        // few white space characters past ASCII are decoded.
        let b = text.as_bytes();
        let mut i = 0;
        loop {
            while let Some(n) = space_at(text, i) {
                i += n;
            }
            if i >= b.len() {
                break;
            }
            let start = i;
            while let Some(&c) = b.get(i) {
                // Eight bytes at a time while they hold no white space but
                // single spaces between words, nor a lead byte of a white
                // space character past ASCII (C2, E1 to E3; E0 too, on the
                // safe side).
                if let Some(x) = word_at(b, i) {
                    let sp = zero_bytes(x ^ lanes(b' '));
                    if controls(x) == 0
                        && sp & (sp >> 8) == 0
                        && (x & HIGH == 0
                            || (zero_bytes(x ^ lanes(0xC2))
                                | zero_bytes((x & lanes(0xFC)) ^ lanes(0xE0)))
                                == 0)
                    {
                        // A space last is left for the next look, which
                        // sees what follows it (it is after a byte that is
                        // no space).
                        i += if sp >> 56 == 0 { 8 } else { 7 };
                        continue;
                    }
                }
                match SPACE_CLASS[usize::from(c)] {
                    0 => i += 1,
                    // One space between two words stays as it is.
                    2 if b
                        .get(i + 1)
                        .is_some_and(|&n| SPACE_CLASS[usize::from(n)] == 0) =>
                    {
                        i += 2
                    }
                    3 => match text.get(i..).and_then(|t| t.chars().next()) {
                        Some(ch) if !ch.is_whitespace() => i += ch.len_utf8(),
                        _ => break,
                    },
                    _ => break,
                }
            }
            // A stretch ends only at white space or the end: the next one
            // is a word after white space.
            self.stretch(b, start, i, started);
        }
    }
}

/// The number of bits in which two fingerprints differ.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// SplitMix64's finaliser: spreads every input bit over every output bit,
/// so the hashes of similar shingles are not correlated.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a's offset basis and prime.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
pub(crate) const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// `h` followed by the UTF-8 of `c` lower-cased, in FNV-1a.
#[inline]
fn fnv_lower(mut h: u64, c: char) -> u64 {
    // ASCII, most letters of most pages, without the case tables.
    if c.is_ascii() {
        h ^= u64::from(c.to_ascii_lowercase() as u8);
        return h.wrapping_mul(FNV_PRIME);
    }
    let mut buf = [0u8; 4];
    // The suite's one fold (Latin, Greek and Cyrillic from its table):
    // the standard library's, so the hashes of databases made before it
    // stay the same (tests::words_hash_as_the_standard_library_folds_them).
    each_lower(c, |l| {
        for b in l.encode_utf8(&mut buf).bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        true
    });
    h
}

/// Each ASCII byte's lowercase when it is a letter or a digit, else 0.
const ASCII_ALNUM_LOWER: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() {
            t[c] = b.to_ascii_lowercase();
        }
        c += 1;
    }
    t
};

/// [`ASCII_ALNUM_LOWER`] over every byte value: 0 past ASCII.
const ASCII_ALNUM_LOWER_ALL: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        t[c] = ASCII_ALNUM_LOWER[c];
        c += 1;
    }
    t
};

/// The 64-bit SimHash of `text`'s word shingles; 0 for a text without
/// words. A text of fewer than [`SHINGLE`] words is one shingle.
pub fn simhash(text: &str) -> u64 {
    let mut votes = Votes::new();
    each_shingle(text, None, |h| {
        // A text's votes are capped only by u32 (4 G shingles are far
        // beyond any body nlpc-fetch keeps): the shingles after are left
        // out.
        if votes.n < u32::MAX {
            votes.add(h);
        }
    });
    votes.bits()
}

/// The MinHash signature of `text`'s word shingles, the words and
/// shingles being those of [`simhash`]; [`Signature::NONE`] for a text
/// without words.
pub fn minhash(text: &str) -> Signature {
    let mut sketch = Sketch::new();
    each_shingle(text, None, |h| sketch.add(h));
    sketch.finish()
}

/// The MinHash signature of a text whose words (FNV-1a of their
/// lowercase, words of digits alone left out) are `words`, in order, as
/// [`piece_words`] gives them: [`minhash`] of that text.
pub(crate) fn minhash_of_words(words: impl IntoIterator<Item = u64>) -> Signature {
    let mut words = words.into_iter();
    let mut sketch = Sketch::new();
    let first = [words.next(), words.next(), words.next()];
    let [Some(w0), Some(w1), Some(w2)] = first else {
        // Fewer than three words: one shingle of them.
        let mut s = Shingles::new();
        for h in first.into_iter().flatten() {
            s.word(mix(h));
        }
        if let Some(h) = s.short() {
            sketch.add(h);
        }
        return sketch.finish();
    };
    // What `Shingles` does a word at a time, with the window in two
    // variables: a shingle a word from the third on.
    let (mut a, mut b) = (mix(w0), mix(w1));
    for w in std::iter::once(w2).chain(words) {
        let c = mix(w);
        sketch.add(shingle_hash(&[a, b, c]));
        (a, b) = (b, c);
    }
    sketch.finish()
}

/// Gives `add` the hash of each of `text`'s word shingles, in order (one
/// shingle of what there is for a text of fewer than [`SHINGLE`] words;
/// none for a text without words), and with `feed` feeds its text hash in
/// the same pass ([`walk`]).
#[inline(always)]
fn each_shingle(text: &str, feed: Option<&mut Feed>, mut add: impl FnMut(u64)) {
    let mut s = Shingles::new();
    walk(text, feed, |h| {
        if let Some(x) = s.word(mix(h)) {
            add(x);
        }
    });
    if let Some(x) = s.short() {
        add(x);
    }
}

/// Gives `g` the words of `piece` as the shingles' split reads and hashes them
/// (FNV-1a of the lowercase; words of digits alone left out), and tells
/// whether it holds white space. Any two texts joined by white space (or
/// by anything that is neither a letter nor a digit) have the words of
/// the one, then of the other.
pub(crate) fn piece_words(piece: &str, g: impl FnMut(u64)) -> bool {
    walk(piece, None, g);
    // Only a byte of the table's classes can start white space, and each
    // is at a character boundary (none is a continuation byte).
    piece
        .bytes()
        .enumerate()
        .any(|(i, c)| SPACE_CLASS[usize::from(c)] != 0 && space_at(piece, i).is_some())
}

/// The words of `text` for its shingles, each given to `word` as the FNV-1a
/// of its lowercase (words of digits alone left out), and with `feed`, its
/// text hash fed there in the same pass: every byte the words' split looks
/// at anyway is also asked whether it is white space that the text hash
/// does not keep as it is.
// Inlined into its callers, so that the text hash's part is left out of
// the others altogether.
#[inline(always)]
fn walk(text: &str, mut feed: Option<&mut Feed>, mut word: impl FnMut(u64)) {
    // One pass over the text, a byte at a time from a table in ASCII, a
    // character at a time past it: the word being read is hashed as it
    // goes, and whether it is digits alone noted.
    let b = text.as_bytes();
    let low = &**lower::TABLE;
    let mut i = 0;
    let mut h = FNV_OFFSET;
    let mut in_word = false;
    let mut digits = true;
    // For the text hash: `b[from..]` up to the byte being read is
    // normalised already (words with single spaces between them, which
    // start at `from`), and is fed whole when white space that is not a
    // single space between two words ends it.
    let mut from = 0;
    let mut started = false;
    while let Some(&c) = b.get(i) {
        let at = i;
        if c < 0x80 {
            i += 1;
            let l = ASCII_ALNUM_LOWER[usize::from(c)];
            if l != 0 {
                h = (h ^ u64::from(l)).wrapping_mul(FNV_PRIME);
                // The rest of the run of ASCII letters and digits, in a
                // loop of its own: the lowercase bytes ORed together have
                // bit 0x40 if a letter is among them (digits are 0x30 to
                // 0x39, lowercase letters 0x61 to 0x7A).
                let mut seen = l;
                while let Some(&c) = b.get(i) {
                    let l = ASCII_ALNUM_LOWER_ALL[usize::from(c)];
                    if l == 0 {
                        break;
                    }
                    h = (h ^ u64::from(l)).wrapping_mul(FNV_PRIME);
                    seen |= l;
                    i += 1;
                }
                digits &= seen & 0x40 == 0;
                in_word = true;
                continue;
            }
            if let Some(f) = feed.as_deref_mut() {
                let class = SPACE_CLASS[usize::from(c)];
                // One space after a word and before one (a byte that is
                // neither white space nor may start it) stays as it is.
                if class != 0
                    && !(class == 2
                        && at > from
                        && b.get(i).is_some_and(|&n| SPACE_CLASS[usize::from(n)] == 0))
                {
                    f.stretch(b, from, at, &mut started);
                    from = i;
                }
            }
        } else if let Some(e) = b
            .get(i + 1)
            .filter(|_| c < 0xE0)
            .and_then(|&c1| lower::of(low, c, c1))
            .filter(|e| e.len != 0)
        {
            // A character of two bytes (Latin, Greek, Cyrillic), from the
            // table: what `alphanumeric`, `is_numeric` and `fnv_lower` say.
            i += 2;
            if e.alnum {
                digits &= e.numeric;
                for &l in e.bytes.get(..usize::from(e.len)).unwrap_or_default() {
                    h = (h ^ u64::from(l)).wrapping_mul(FNV_PRIME);
                }
                in_word = true;
                continue;
            }
            // U+0085 and U+00A0, the white space of two bytes.
            if let Some(f) = feed.as_deref_mut() {
                if c == 0xC2 && matches!(b.get(at + 1), Some(0x85 | 0xA0)) {
                    f.stretch(b, from, at, &mut started);
                    from = i;
                }
            }
        } else {
            // `i` is at a character boundary: past ASCII it moves a
            // character at a time.
            let Some(ch) = text.get(i..).and_then(|t| t.chars().next()) else {
                break;
            };
            i += ch.len_utf8();
            if alphanumeric(ch) {
                // Once a letter is seen, no table need be asked.
                digits = digits && ch.is_numeric();
                h = fnv_lower(h, ch);
                in_word = true;
                continue;
            }
            if let Some(f) = feed.as_deref_mut() {
                if SPACE_CLASS[usize::from(c)] == 3 && ch.is_whitespace() {
                    f.stretch(b, from, at, &mut started);
                    from = i;
                }
            }
        }
        // Words of digits alone are left out.
        if in_word && !digits {
            word(h);
        }
        h = FNV_OFFSET;
        in_word = false;
        digits = true;
    }
    if in_word && !digits {
        word(h);
    }
    if let Some(f) = feed {
        f.stretch(b, from, b.len(), &mut started);
    }
}

/// The window of a text's words, as they come, that makes its shingles.
struct Shingles {
    window: [u64; SHINGLE],
    words: usize,
}

impl Shingles {
    fn new() -> Shingles {
        Shingles {
            window: [0; SHINGLE],
            words: 0,
        }
    }

    /// The next word's hash; the hash of the shingle it ends, if it ends
    /// one.
    #[inline]
    fn word(&mut self, hash: u64) -> Option<u64> {
        self.window.rotate_left(1);
        self.window[SHINGLE - 1] = hash;
        self.words = self.words.saturating_add(1);
        (self.words >= SHINGLE).then(|| shingle_hash(&self.window))
    }

    /// The one shingle of a text of fewer than [`SHINGLE`] words, but
    /// none: a text of more had all its shingles from [`Shingles::word`].
    fn short(&self) -> Option<u64> {
        (self.words > 0 && self.words < SHINGLE)
            .then(|| shingle_hash(&self.window[SHINGLE - self.words..]))
    }
}

/// A shingle's hash: its words' hashes chained in order, so "a b c" and
/// "c b a" differ.
fn shingle_hash(words: &[u64]) -> u64 {
    words.iter().fold(0x9e37_79b9_7f4a_7c15, |h, w| mix(h ^ w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    fn article(date: &str, counter: u32) -> String {
        let mut s = format!("Published {date}. Read {counter} times.\n");
        for i in 0..40 {
            s.push_str(&format!(
                "Paragraph {i} of the story tells how the river town rebuilt its \
                 old wooden bridge after the spring flood of year {}, and what \
                 the builders learned.\n",
                1900 + i
            ));
        }
        s
    }

    #[test]
    fn white_space_does_not_change_the_text_hash() {
        assert_eq!(text_hash("a  b\nc "), text_hash(" a b c"));
        assert_ne!(text_hash("a b c"), text_hash("a bc"));
        assert_eq!(Fingerprint::of("x y").text, text_hash("x\ty"));
    }

    #[test]
    fn case_and_punctuation_do_not_change_the_simhash() {
        assert_eq!(
            simhash("The Bridge, rebuilt in spring!"),
            simhash("the bridge rebuilt IN Spring")
        );
        assert_eq!(simhash(""), 0);
        assert_eq!(simhash("... !!"), 0);
        // Word order matters within a shingle.
        assert_ne!(simhash("one two three"), simhash("three two one"));
        // Short texts: one shingle of what there is.
        assert_ne!(simhash("one"), simhash("two"));
        assert_ne!(simhash("Rīga ūdens"), 0);
    }

    #[test]
    fn near_copies_are_close_and_other_texts_far() {
        let a = simhash(&article("12 March 2024", 1041));
        // Numbers alone are left out: a counter moves nothing, though the
        // text is another.
        let counted = article("12 March 2024", 1187);
        assert_eq!(simhash(&counted), a);
        assert_ne!(
            text_hash(&counted),
            text_hash(&article("12 March 2024", 1041))
        );
        let b = simhash(&article("14 April 2024", 1042));
        let d = distance(a, b);
        assert!(d <= 3, "a changed date and counter moved {d} bits");
        let mut other = String::new();
        for i in 0..40 {
            other.push_str(&format!(
                "Chapter {i}: the committee met on Tuesday to discuss the \
                 railway timetable and the price of tickets for {} riders.\n",
                100 + i
            ));
        }
        let far = distance(a, simhash(&other));
        assert!(far > 16, "two different texts only {far} bits apart");
    }

    /// A word's hash as first written: FNV-1a over the UTF-8 of its
    /// characters lower-cased by the standard library.
    fn word_hash(w: &str) -> u64 {
        let mut h = FNV_OFFSET;
        let mut buf = [0u8; 4];
        for c in w.chars() {
            for l in c.to_lowercase() {
                for b in l.encode_utf8(&mut buf).bytes() {
                    h ^= u64::from(b);
                    h = h.wrapping_mul(FNV_PRIME);
                }
            }
        }
        mix(h)
    }

    /// The fingerprint as first written, an update a word, for the faster
    /// code to be held to: the text hash and the hashes of the shingles.
    fn reference(text: &str) -> ([u8; 16], Vec<u64>) {
        let mut h = blake3::Hasher::new();
        for (i, w) in text.split_whitespace().enumerate() {
            if i > 0 {
                h.update(b" ");
            }
            h.update(w.as_bytes());
        }
        let mut hash = [0; 16];
        hash.copy_from_slice(&h.finalize().as_bytes()[..16]);
        let mut shingles = Vec::new();
        let mut window = [0u64; SHINGLE];
        let mut words = 0usize;
        for w in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            if w.chars().all(char::is_numeric) {
                continue;
            }
            window.rotate_left(1);
            window[SHINGLE - 1] = word_hash(w);
            words += 1;
            if words >= SHINGLE {
                shingles.push(shingle_hash(&window));
            }
        }
        if words > 0 && words < SHINGLE {
            shingles.push(shingle_hash(&window[SHINGLE - words..]));
        }
        (hash, shingles)
    }

    /// The SimHash of these shingles, a vote a bit at a time.
    fn votes_of(shingles: &[u64]) -> u64 {
        let mut ones = [0u64; 64];
        for h in shingles {
            for (i, o) in ones.iter_mut().enumerate() {
                *o += (h >> i) & 1;
            }
        }
        let n = shingles.len() as u64;
        let mut sim = 0u64;
        for (i, o) in ones.iter().enumerate() {
            if 2 * o > n {
                sim |= 1 << i;
            }
        }
        sim
    }

    /// The MinHash signature of these shingles (`minhash::Sketch`, whose
    /// own tests hold it to its definition).
    fn sketch_of(shingles: &[u64]) -> Signature {
        let mut s = Sketch::new();
        for &h in shingles {
            s.add(h);
        }
        s.finish()
    }

    /// Every character's hash is FNV-1a of its lowercase as the standard
    /// library gives it, as the fingerprints of existing databases were
    /// made: the suite's one fold changed no fingerprint.
    #[test]
    fn words_hash_as_the_standard_library_folds_them() {
        let mut buf = [0u8; 4];
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else {
                continue;
            };
            let mut want = FNV_OFFSET;
            for l in c.to_lowercase() {
                for b in l.encode_utf8(&mut buf).bytes() {
                    want = (want ^ u64::from(b)).wrapping_mul(FNV_PRIME);
                }
            }
            assert_eq!(fnv_lower(FNV_OFFSET, c), want, "U+{u:04X}");
        }
    }

    #[test]
    fn fast_fingerprint_is_the_reference_one() {
        let long_word = "ā".repeat(3000);
        let mut texts = vec![
            String::new(),
            " ".into(),
            "one".into(),
            "Rīga ūdens".into(),
            "×÷ a×b 1½ ² ٣ Ǆemal ƀ ɏ ʃ Ωmega 語 ß".into(),
            format!("x {long_word} y {long_word}{long_word} z"),
            article("12 March 2024", 1041),
        ];
        // Over 255 shingles, and every byte lane's flush.
        texts.push(article("1 May", 7).repeat(20));
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let alphabet: Vec<char> =
            "aZā9 \n\t\r\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{2003}\u{3000}.,šŪ×½²жЖΩΣİẞ語-"
                .chars()
                .collect();
        for len in [10usize, 100, 1000, 20_000] {
            let mut s = String::new();
            for _ in 0..len {
                x = xorshift(x);
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            texts.push(s);
        }
        for t in &texts {
            let (hash, shingles) = reference(t);
            assert_eq!(text_hash(t), hash, "{:?}", t.get(..40));
            assert_eq!(simhash(t), votes_of(&shingles), "{:?}", t.get(..40));
            let both = Fingerprint::of(t);
            let sig = sketch_of(&shingles);
            assert_eq!((both.text, both.minhash), (hash, sig), "{:?}", t.get(..40));
            assert_eq!(minhash(t), sig, "{:?}", t.get(..40));
        }
    }

    #[test]
    fn space_classes_cover_white_space() {
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else {
                continue;
            };
            let mut buf = [0u8; 4];
            let lead = c.encode_utf8(&mut buf).as_bytes()[0];
            if c.is_whitespace() {
                assert_ne!(SPACE_CLASS[usize::from(lead)], 0, "U+{u:04X}");
            }
            if c.is_ascii() {
                assert_eq!(
                    SPACE_CLASS[usize::from(lead)] != 0,
                    c.is_whitespace(),
                    "U+{u:04X}"
                );
                assert_eq!(
                    ASCII_ALNUM_LOWER[u as usize],
                    if c.is_alphanumeric() {
                        c.to_ascii_lowercase() as u8
                    } else {
                        0
                    },
                    "U+{u:04X}"
                );
            }
        }
    }

    /// Texts of many kinds for the old and new definitions to be held
    /// equal on: Latvian, Cyrillic, Greek, CJK, digits, every kind of
    /// white space, combining marks, rare and unassigned characters, long
    /// runs without spaces, in random mixes and lengths up to past the
    /// 64 KiB hashing chunk.
    fn generated_texts() -> Vec<String> {
        let pieces: &[&str] = &[
            "Rīga",
            "ir",
            "Latvijas",
            "galvaspilsēta",
            "ŪDENS",
            "Ķeguma",
            "ģimene",
            "ļoti",
            "Ņ",
            "žurnāls",
            "čūska",
            "Москва",
            "ЁЛКА",
            "ёж",
            "Ελλάδα",
            "ΣΊΣΥΦΟΣ",
            "語",
            "日本語のテキスト",
            "中文",
            "1918.",
            "2024",
            "3,14",
            "½",
            "²",
            "٣",
            "Ⅻ",
            "don't",
            "e.g.",
            "a_b",
            "cafe\u{301}",
            "\u{345}",
            "İstanbul",
            "ẞ",
            "ǅ",
            "K",
            "ﬃ",
            "ß",
            "\u{10FFFD}",
            "\u{E000}",
            "\u{378}",
            "\u{1F600}",
            "\u{200B}",
            "\u{FEFF}",
            "–",
            "—",
            "…",
            "«",
            "»",
            "©",
            "\u{AD}",
            "×",
            "÷",
            "x",
            "Z",
            "q9",
            "_",
            "'",
            ".",
            ",",
            "-",
            "/",
            "&",
            "\u{1c}",
            "\u{0}",
            "\u{7f}",
            "\u{85}",
        ];
        let spaces: &[&str] = &[
            " ", " ", " ", " ", "  ", "\n", "\t", "\r\n", "\u{b}", "\u{c}", "\u{a0}", "\u{1680}",
            "\u{2000}", "\u{2007}", "\u{200a}", "\u{2028}", "\u{2029}", "\u{202f}", "\u{205f}",
            "\u{3000}", "\u{85}", " \u{a0} ", "\n\n", "",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x = xorshift(x);
            x
        };
        let mut texts = Vec::new();
        for round in 0..400 {
            let words = match round % 5 {
                0 => next() % 4,
                1 => next() % 20,
                2 => next() % 200,
                3 => next() % 2000,
                _ => 12_000 + next() % 4000,
            };
            let mut s = String::new();
            if next() % 3 == 0 {
                s.push_str(spaces[next() as usize % spaces.len()]);
            }
            for _ in 0..words {
                let r = next();
                let w = pieces[(r >> 8) as usize % pieces.len()];
                // Mostly Latvian prose, at times a random character.
                if r % 11 == 0 {
                    let u = (next() % 0x11_0000) as u32;
                    s.extend(char::from_u32(u));
                } else {
                    s.push_str(w);
                }
                if r % 7 != 0 {
                    s.push_str(spaces[(r >> 20) as usize % spaces.len()]);
                }
            }
            texts.push(s);
        }
        texts
    }

    #[test]
    fn fingerprints_are_the_old_definitions() {
        let mut texts = generated_texts();
        texts.push("x".repeat(HASH_CHUNK + 5));
        texts.push(format!("{}  {}", "y".repeat(HASH_CHUNK - 1), "z".repeat(3)));
        texts.push(" \u{a0}\u{3000}".repeat(HASH_CHUNK));
        let mut long_words = 0;
        for t in &texts {
            assert_eq!(text_hash(t), reference::text_hash(t), "{:?}", t.get(..60));
            assert_eq!(simhash(t), reference::simhash(t), "{:?}", t.get(..60));
            assert_eq!(
                Fingerprint::of(t),
                Fingerprint {
                    text: reference::text_hash(t),
                    minhash: sketch_of(&reference(t).1),
                },
                "{:?}",
                t.get(..60)
            );
            long_words += usize::from(t.len() > HASH_CHUNK);
        }
        // The texts reach the corners they are meant to.
        assert!(long_words >= 10, "{long_words}");
        assert!(texts.iter().filter(|t| simhash(t) == 0).count() >= 5);
    }

    /// Short texts of hostile characters, each checked against both
    /// definitions of the SimHash, and the fingerprint (the text hash and
    /// the MinHash in one pass) against the first: ASCII letters of both
    /// cases and digits beside
    /// apostrophes, punctuation, controls, NUL and DEL; two-byte letters,
    /// digits, signs and spaces; three- and four-byte letters, digits and
    /// marks; runs of a few letters ending at every place in an eight-byte
    /// load and at the text's end, and random code points.
    #[test]
    fn fingerprint_is_the_reference_on_hostile_text() {
        let mut words = 0usize;
        let mut empty = 0usize;
        for t in hostile_texts() {
            let (hash, shingles) = reference(&t);
            let want = votes_of(&shingles);
            assert_eq!(simhash(&t), want, "{t:?}");
            assert_eq!(reference::simhash(&t), want, "{t:?}");
            assert_eq!(text_hash(&t), hash, "{t:?}");
            let both = Fingerprint::of(&t);
            assert_eq!(
                (both.text, both.minhash),
                (hash, sketch_of(&shingles)),
                "{t:?}"
            );
            words += usize::from(!shingles.is_empty());
            empty += usize::from(shingles.is_empty());
        }
        // Both texts with words and texts without were made.
        assert!(words > 15_000 && empty > 1000, "{words} {empty}");
    }

    /// Texts of the units the splits weigh (ASCII letters and digits in
    /// runs, punctuation, controls and NUL, white space of every kind,
    /// letters that grow when lowercased, marks, digits that are not
    /// ASCII, random characters), short and long.
    fn hostile_texts() -> Vec<String> {
        let units: &[&str] = &[
            "a",
            "Z",
            "q",
            "M",
            "0",
            "9",
            "5",
            "'",
            "\u{2019}",
            "-",
            ".",
            ",",
            "_",
            "@",
            "[",
            "`",
            "{",
            "/",
            ":",
            "\u{0}",
            "\u{1f}",
            "\u{7f}",
            "\t",
            "\n",
            " ",
            " ",
            "ā",
            "Ž",
            "ß",
            "²",
            "½",
            "×",
            "÷",
            "\u{a0}",
            "\u{85}",
            "\u{ad}",
            "µ",
            "Ж",
            "ё",
            "Ω",
            "ΐ",
            "İ",
            "\u{301}",
            "\u{345}",
            "٣",
            "語",
            "ア",
            "ẞ",
            "ﬃ",
            "Ⅻ",
            "\u{3000}",
            "\u{2028}",
            "\u{200b}",
            "\u{1d7d8}",
            "\u{1f600}",
            "\u{10fffd}",
            "a語",
            "don't",
            "x1",
            "1x",
            "Ǆ",
            "ǅ",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x = xorshift(x);
            x
        };
        let mut texts = Vec::new();
        for round in 0..24_000u64 {
            let len = match round % 4 {
                0 => next() % 8,
                1 => next() % 24,
                2 => next() % 80,
                _ => next() % 400,
            };
            let mut t = String::new();
            for _ in 0..len {
                let r = next();
                match r % 16 {
                    // A run of ASCII letters and digits, of any length
                    // to sixteen.
                    0..=3 => {
                        for k in 0..(r >> 8) % 17 {
                            let c = b"aBc9Zy0xQ"[((r >> (12 + k)) % 9) as usize];
                            t.push(char::from(c));
                        }
                    }
                    4 => t.extend(char::from_u32((r >> 8) as u32 % 0x11_0000)),
                    5 => t.extend(char::from_u32((r >> 8) as u32 % 0x800)),
                    _ => t.push_str(units[(r >> 8) as usize % units.len()]),
                }
            }
            texts.push(t);
        }
        texts
    }

    /// The words' split that reads each word for the shingles on its way
    /// (`words::words_hashed`) and the fingerprint made from blocks and
    /// those words (`Fingerprint::of_blocks`) against the definitions: the
    /// same words for the dictionary, the same shingles' words, the right
    /// answer to whether a text is normalised, the same fingerprint.
    #[test]
    fn words_read_once_give_the_reference_fingerprint() {
        let mut texts = hostile_texts();
        // Huge runs, and the white space the text hash weighs at the
        // edges of a text and between its pieces.
        for run in ["a", "Z9", "ā", "İ", "7", "語", "\u{a0}", " ", "-", "\u{0}"] {
            texts.push(run.repeat(70_000));
            texts.push(format!("x {} y", run.repeat(5_000)));
        }
        for t in [
            "",
            "a",
            "a b",
            "a  b",
            " a",
            "a ",
            "a\tb",
            "a\u{b}b",
            "a\u{a0}b",
            "a,\u{a0}b",
            "a. b",
            "a.  b",
            "a.\nb",
            "a\u{2003}",
            "don't stop",
            "don't  stop",
            "3.14 x",
            "a\u{85}",
            "\u{85}a b",
            "a b\u{3000}",
            "x\u{1680}y z",
        ] {
            texts.push(t.to_string());
        }
        let (mut normal, mut not) = (0usize, 0usize);
        for t in &texts {
            let mut got = Vec::new();
            let mut hashes = Vec::new();
            let is_normal = crate::document::words::words_hashed(
                t,
                |w, k| got.push((w, k)),
                |h| hashes.push(h),
            );
            let mut want = Vec::new();
            crate::document::words::words(t, |w, k| want.push((w, k)));
            assert_eq!(got, want, "{t:?}");
            let mut whole = Vec::new();
            piece_words(t, |h| whole.push(h));
            assert_eq!(hashes, whole, "{t:?}");
            let (hash, shingles) = reference(t);
            let sig = sketch_of(&shingles);
            assert_eq!(minhash_of_words(hashes.iter().copied()), sig, "{t:?}");
            let normalised = t.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(is_normal, *t == normalised, "{t:?}");
            normal += usize::from(is_normal);
            not += usize::from(!is_normal);
            // The text as one block, told normalised or not.
            let one = format!("{t}\n");
            assert_eq!(reference(&one).0, hash);
            for told in [is_normal, false] {
                let f =
                    Fingerprint::of_blocks([(t.as_str(), told)], one.len(), hashes.iter().copied());
                assert_eq!((f.text, f.minhash), (hash, sig), "{t:?}");
            }
        }
        assert!(normal > 2000 && not > 10_000, "{normal} {not}");
        // Main texts of several blocks: the texts cut at their line
        // breaks, each block read by itself.
        for group in texts.chunks(7) {
            let mut main = String::new();
            let mut blocks = Vec::new();
            let mut hashes = Vec::new();
            for t in group {
                for block in t.split('\n').filter(|b| !b.is_empty()) {
                    let normal =
                        crate::document::words::words_hashed(block, |_, _| {}, |h| hashes.push(h));
                    blocks.push((block, normal));
                    main.push_str(block);
                    main.push('\n');
                }
            }
            let (hash, shingles) = reference(&main);
            let f = Fingerprint::of_blocks(blocks, main.len(), hashes);
            assert_eq!(
                (f.text, f.minhash),
                (hash, sketch_of(&shingles)),
                "{main:?}"
            );
        }
    }

    #[test]
    fn distance_counts_bits() {
        assert_eq!(distance(0, 0), 0);
        assert_eq!(distance(0b1011, 0b0001), 2);
        assert_eq!(distance(0, u64::MAX), 64);
    }
}

//! Fingerprints of a page's main text, by which duplicates are found: a
//! hash of the text with its white space normalised (equal for exact
//! copies), and a 64-bit SimHash over shingles of words (close in Hamming
//! distance for near-copies: a changed date line or counter moves a few
//! bits, a different article about half of them).
//!
//! Words are the runs of letters and digits (Unicode alphanumerics; a
//! split far cheaper than UAX #29 word boundaries and, for shingles, as
//! good), lower-cased; words of digits alone are left out, since the dates, counters and times that
//! change on every fetch of a page are mostly that; a shingle is
//! [`SHINGLE`] words in a row. Each shingle's 64-bit hash votes for or
//! against each bit; the fingerprint has the bits that won.

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
    /// The SimHash of the text's word shingles.
    pub simhash: u64,
}

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Fingerprint {
        Fingerprint {
            text: text_hash(text),
            simhash: simhash(text),
        }
    }
}

/// Hash of `text` with white space normalised: two texts that differ only
/// in line breaks and spacing hash the same.
pub fn text_hash(text: &str) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    for (i, w) in text.split_whitespace().enumerate() {
        if i > 0 {
            h.update(b" ");
        }
        h.update(w.as_bytes());
    }
    let mut out = [0; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

/// The number of bits in which two fingerprints differ.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// SplitMix64's finaliser: spreads every input bit over every output bit,
/// so the votes of similar shingles are not correlated.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A word's hash, lower-cased as it is hashed (FNV-1a over the UTF-8 of
/// its lower-case characters), without allocating.
fn word_hash(w: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buf = [0u8; 4];
    for c in w.chars() {
        // ASCII, most letters of most pages, without the case tables.
        if c.is_ascii() {
            h ^= u64::from(c.to_ascii_lowercase() as u8);
            h = h.wrapping_mul(0x0100_0000_01b3);
            continue;
        }
        for l in c.to_lowercase() {
            for b in l.encode_utf8(&mut buf).bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    mix(h)
}

/// The 64-bit SimHash of `text`'s word shingles; 0 for a text without
/// words. A text of fewer than [`SHINGLE`] words is one shingle.
pub fn simhash(text: &str) -> u64 {
    let mut ones = [0u32; 64];
    let mut n: u32 = 0;
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
            vote(shingle_hash(&window), &mut ones, &mut n);
        }
        // A text's votes are capped only by u32: 4 G shingles are far
        // beyond any body nlpc-fetch keeps.
        if n == u32::MAX {
            break;
        }
    }
    if words > 0 && words < SHINGLE {
        vote(shingle_hash(&window[SHINGLE - words..]), &mut ones, &mut n);
    }
    let mut out = 0u64;
    for (i, o) in ones.iter().enumerate() {
        // Ties go to 0: n is at most u32::MAX, so 2 * o fits in u64.
        if 2 * u64::from(*o) > u64::from(n) {
            out |= 1 << i;
        }
    }
    out
}

/// One shingle's votes: a one for each of its set bits.
fn vote(h: u64, ones: &mut [u32; 64], n: &mut u32) {
    for (i, o) in ones.iter_mut().enumerate() {
        *o += ((h >> i) & 1) as u32;
    }
    *n += 1;
}

/// A shingle's hash: its words' hashes chained in order, so "a b c" and
/// "c b a" differ.
fn shingle_hash(words: &[u64]) -> u64 {
    words.iter().fold(0x9e37_79b9_7f4a_7c15, |h, w| mix(h ^ w))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn distance_counts_bits() {
        assert_eq!(distance(0, 0), 0);
        assert_eq!(distance(0b1011, 0b0001), 2);
        assert_eq!(distance(0, u64::MAX), 64);
    }
}

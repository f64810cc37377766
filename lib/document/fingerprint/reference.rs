//! The fingerprint functions as they were before the faster ones in
//! `fingerprint` replaced them: kept, for tests only, as the definition the
//! stored fingerprints of existing databases were made with.

use super::{fnv_lower, mix, shingle_hash, FNV_OFFSET, SHINGLE};

/// Hash of `text` with white space normalised: two texts that differ only
/// in line breaks and spacing hash the same.
pub(super) fn text_hash(text: &str) -> [u8; 16] {
    // The text's words, one space between them, go to BLAKE3 through a
    // buffer, read a byte at a time (a character at a time only past
    // ASCII): an update a word, or `split_whitespace`, cost more than the
    // hashing itself. The bytes hashed are the same.
    let mut h = blake3::Hasher::new();
    let mut buf = [0u8; 4096];
    let mut n = 0;
    let b = text.as_bytes();
    let mut pending = false;
    let mut started = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let (len, space) = if c < 0x80 {
            // char::is_whitespace in ASCII: tab to carriage return, space.
            (1, matches!(c, b'\t'..=b'\r' | b' '))
        } else {
            // `i` is at a character boundary: it moves a character at a
            // time.
            match text.get(i..).and_then(|t| t.chars().next()) {
                Some(ch) => (ch.len_utf8(), ch.is_whitespace()),
                None => break,
            }
        };
        if space {
            pending = true;
            i += len;
            continue;
        }
        if n + len + 1 > buf.len() {
            h.update(&buf[..n]);
            n = 0;
        }
        if pending && started {
            buf[n] = b' ';
            n += 1;
        }
        pending = false;
        started = true;
        if len == 1 {
            buf[n] = c;
        } else {
            buf[n..n + len].copy_from_slice(&b[i..i + len]);
        }
        n += len;
        i += len;
    }
    h.update(&buf[..n]);
    let mut out = [0; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

/// The 64-bit SimHash of `text`'s word shingles; 0 for a text without
/// words. A text of fewer than [`SHINGLE`] words is one shingle.
pub(super) fn simhash(text: &str) -> u64 {
    // The votes a bit at a time, and the number of shingles.
    let mut ones = [0u64; 64];
    let mut n = 0u64;
    let mut vote = |h: u64| {
        for (i, o) in ones.iter_mut().enumerate() {
            *o += (h >> i) & 1;
        }
        n += 1;
        n
    };
    let mut window = [0u64; SHINGLE];
    let mut words = 0usize;
    // One pass over the text, a byte at a time in ASCII: the word being
    // read is hashed as it goes, and whether it is digits alone noted.
    let b = text.as_bytes();
    let mut i = 0;
    let mut h = FNV_OFFSET;
    let mut in_word = false;
    let mut digits = true;
    loop {
        let c = match b.get(i) {
            None => None,
            Some(&c) if c < 0x80 => Some(char::from(c)),
            // `i` is at a character boundary: it moves a character at a
            // time.
            Some(_) => text.get(i..).and_then(|t| t.chars().next()),
        };
        if let Some(c) = c.filter(|&c| super::alphanumeric(c)) {
            in_word = true;
            // Once a letter is seen, no table need be asked.
            digits = digits
                && if c.is_ascii() {
                    c.is_ascii_digit()
                } else {
                    c.is_numeric()
                };
            h = fnv_lower(h, c);
            i += c.len_utf8();
            continue;
        }
        // Words of digits alone are left out.
        if in_word && !digits {
            window.rotate_left(1);
            window[SHINGLE - 1] = mix(h);
            words += 1;
            // A text's votes are capped only by u32: 4 G shingles are far
            // beyond any body nlpc-fetch keeps.
            if words >= SHINGLE && vote(shingle_hash(&window)) == u64::from(u32::MAX) {
                break;
            }
        }
        h = FNV_OFFSET;
        in_word = false;
        digits = true;
        match c {
            Some(c) => i += c.len_utf8(),
            None => break,
        }
    }
    if words > 0 && words < SHINGLE {
        vote(shingle_hash(&window[SHINGLE - words..]));
    }
    let mut out = 0u64;
    for (i, o) in ones.iter().enumerate() {
        // Ties go to 0: n is at most u32::MAX, so 2 * o fits in u64.
        if 2 * o > n {
            out |= 1 << i;
        }
    }
    out
}

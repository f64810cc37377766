//! Eight bytes at a time in a u64 (SWAR): tests on every byte of a word
//! at once, for the passes over a page's bytes and text whose every byte
//! mostly needs nothing done.

/// Bit 7 of each byte of a word.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// `b` in each byte of a word.
pub(crate) const fn lanes(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

/// Bit 7 set in each byte of `z` that is 0, exactly: (z & 0x7F) + 0x7F
/// carries into bit 7 of its byte unless the byte's low bits are all 0,
/// and never out of it.
#[inline]
pub(crate) const fn zero_bytes(z: u64) -> u64 {
    !(((z & !HIGH) + !HIGH) | z) & HIGH
}

/// Bit 7 set in each byte of `x` that is ASCII and below 0x20:
/// (x | 0x80) - 0x20 keeps bit 7 exactly in the bytes at least 0x20,
/// with no borrow between bytes.
#[inline]
pub(crate) const fn controls(x: u64) -> u64 {
    !((x | HIGH) - lanes(0x20)) & !x & HIGH
}

/// The continuation bytes of UTF-8 (bit 7 set, bit 6 clear) among the
/// eight of `x`: their marks, one a byte, summed by a multiply into the
/// top byte.
#[inline]
pub(crate) const fn continuations(x: u64) -> usize {
    let m = x & HIGH & !(x << 1);
    ((m >> 7).wrapping_mul(lanes(1)) >> 56) as usize
}

/// The eight bytes of `b` from `i`, if there are eight.
#[inline]
pub(crate) fn word_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*b.get(i..)?.first_chunk::<8>()?))
}

/// Whether eight bytes, inside a stretch of words with one space between
/// them (one that does not end in them), keep it so: no ASCII control,
/// no two spaces together, and no space last (what follows it is not
/// known). A space first is after a byte of the stretch, which is then
/// no space.
#[inline]
pub(crate) const fn collapsed(x: u64) -> bool {
    let sp = zero_bytes(x ^ lanes(b' '));
    controls(x) == 0 && sp & (sp >> 8) == 0 && sp >> 56 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    /// The definitions a byte at a time.
    fn collapsed_slowly(w: &[u8; 8]) -> bool {
        w.iter().all(|&c| c >= 0x20) && w.windows(2).all(|p| p != b"  ") && w[7] != b' '
    }

    #[test]
    fn word_tests_are_the_byte_tests() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        // Bytes that matter more often than at random.
        let some = [
            b' ', b' ', b'\t', b'\n', 0, 0x1F, 0x20, 0x21, 0x7F, 0x80, 0xC2, 0xFF,
        ];
        for round in 0..200_000 {
            x = xorshift(x);
            let mut w = x.to_le_bytes();
            if round % 2 == 0 {
                for (k, c) in w.iter_mut().enumerate() {
                    if (x >> (k + 3)) & 1 == 1 {
                        *c = some[(x >> (4 * k)) as usize % some.len()];
                    }
                }
            }
            let v = u64::from_le_bytes(w);
            for (k, &c) in w.iter().enumerate() {
                let bit = |m: u64| (m >> (8 * k + 7)) & 1 == 1;
                assert_eq!(bit(zero_bytes(v ^ lanes(0xC2))), c == 0xC2, "{w:?}");
                assert_eq!(bit(controls(v)), c < 0x20, "{w:?}");
                // Only bit 7 of each byte.
                assert_eq!(controls(v) & !HIGH, 0);
            }
            assert_eq!(collapsed(v), collapsed_slowly(&w), "{w:?}");
            let cont = w.iter().filter(|&&c| c & 0xC0 == 0x80).count();
            assert_eq!(continuations(v), cont, "{w:?}");
            let b = [&w[..], b"xyz"].concat();
            assert_eq!(
                word_at(&b, 3),
                Some(u64::from_le_bytes(b[3..11].try_into().unwrap()))
            );
            assert_eq!(word_at(&b, 4), None);
        }
    }
}

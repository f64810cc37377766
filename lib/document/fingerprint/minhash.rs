//! MinHash signatures of a text's word shingles, by which near copies are
//! found: the share of slots two signatures agree in estimates the
//! Jaccard similarity of their sets of shingles (shared shingles over all
//! shingles of either), and [`BANDS`] bands of [`ROWS`] slots are the
//! keys of locality-sensitive hashing, under which texts alike meet.
//!
//! One hash a shingle (one-permutation hashing): the shingle's hash picks
//! a slot from its top bits and offers the slot its low 32 bits, and each
//! slot keeps the least offered. A text of few shingles leaves slots
//! empty; each is filled from the next slot that is not, to its right
//! (around), shifted by how far it looked (densification by rotation), so
//! two texts still agree in a slot as often as their sets overlap. The
//! cost is one comparison a shingle, whatever the number of slots.

use std::fmt;

/// Slots of a signature.
pub const SLOTS: usize = 128;
/// Slots per band: a pair of texts of Jaccard similarity `j` shares a
/// given band with chance `j^ROWS`, and some band with chance
/// `1 - (1 - j^ROWS)^BANDS`: at 0.5, 87%; at 0.6, 99%; at 0.3, 23%.
pub const ROWS: usize = 4;
/// Bands of a signature.
pub const BANDS: usize = SLOTS / ROWS;

/// A text's MinHash signature.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature(pub [u32; SLOTS]);

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({:08x} {:08x} ..)", self.0[0], self.0[1])
    }
}

/// What an empty slot holds until it is filled; a text without words
/// keeps it in every slot.
const EMPTY: u32 = u32::MAX;

impl Signature {
    /// The signature of a text without words.
    pub const NONE: Signature = Signature([EMPTY; SLOTS]);
    /// Bytes of a stored signature.
    pub const BYTES: usize = SLOTS * 4;

    /// True for the signature of a text without words, which is like no
    /// other.
    pub fn is_none(&self) -> bool {
        *self == Signature::NONE
    }

    /// The estimated Jaccard similarity of the two texts' shingles, in
    /// hundredths: the share of slots in which they agree. 0 when either
    /// has no words.
    pub fn similarity(&self, other: &Signature) -> u32 {
        if self.is_none() || other.is_none() {
            return 0;
        }
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        // At most SLOTS.
        (same * 100 / SLOTS) as u32
    }

    /// The key of band `band` (below [`BANDS`]): its slots hashed.
    pub fn band(&self, band: usize) -> u32 {
        let rows = self.0.get(band * ROWS..(band + 1) * ROWS).unwrap_or(&[]);
        let h = rows
            .iter()
            .fold(0x9e37_79b9_7f4a_7c15u64 ^ band as u64, |h, &r| {
                super::mix(h ^ u64::from(r))
            });
        (h >> 32) as u32
    }

    /// The signature as stored: its slots in little-endian order.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|s| s.to_le_bytes()).collect()
    }

    /// A signature stored by [`Signature::to_bytes`]; None if `b` is not
    /// one.
    pub fn from_bytes(b: &[u8]) -> Option<Signature> {
        if b.len() != SLOTS * 4 {
            return None;
        }
        let mut s = [0u32; SLOTS];
        for (slot, c) in s.iter_mut().zip(b.chunks_exact(4)) {
            *slot = u32::from_le_bytes(c.try_into().ok()?);
        }
        Some(Signature(s))
    }
}

/// A signature being made, a shingle at a time.
#[derive(Clone)]
pub(crate) struct Sketch {
    slots: [u32; SLOTS],
    filled: bool,
}

impl Sketch {
    pub(crate) fn new() -> Sketch {
        Sketch {
            slots: [EMPTY; SLOTS],
            filled: false,
        }
    }

    /// Offers a shingle's hash (well mixed: its top and low bits are
    /// independent).
    #[inline]
    pub(crate) fn add(&mut self, shingle: u64) {
        // SLOTS = 128: the top seven bits.
        let slot = (shingle >> 57) as usize;
        // Below EMPTY, so that a filled slot is told from an empty one.
        let v = (shingle as u32).min(EMPTY - 1);
        if let Some(s) = self.slots.get_mut(slot) {
            *s = (*s).min(v);
        }
        self.filled = true;
    }

    pub(crate) fn finish(self) -> Signature {
        if !self.filled {
            return Signature::NONE;
        }
        let mut out = self.slots;
        for (i, o) in out.iter_mut().enumerate() {
            if *o != EMPTY {
                continue;
            }
            // Some slot is filled: at most SLOTS - 1 steps.
            for step in 1..SLOTS {
                let v = self.slots[(i + step) % SLOTS];
                if v != EMPTY {
                    *o = v.wrapping_add((step as u32).wrapping_mul(0x9e37_79b9)) % EMPTY;
                    break;
                }
            }
        }
        Signature(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{minhash, Fingerprint};
    use super::*;

    fn story(seed: usize, n: usize) -> String {
        let words = [
            "upe",
            "pilsēta",
            "tilts",
            "pavasaris",
            "plūdi",
            "koka",
            "būvnieki",
            "atjaunoja",
            "vecais",
            "jaunais",
            "skola",
            "ceļš",
            "mežs",
            "jūra",
            "vējš",
            "lietus",
            "saule",
            "zeme",
            "laiks",
            "darbs",
            "māja",
            "dārzs",
        ];
        let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        let mut s = String::new();
        for i in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push_str(words[x % words.len()]);
            s.push(if i % 12 == 11 { '\n' } else { ' ' });
        }
        s
    }

    #[test]
    fn signatures_estimate_the_shared_shingles() {
        let a = story(1, 600);
        assert_eq!(minhash(&a), minhash(&a.to_uppercase()));
        // One word changed in 600 touches three shingles of ~600.
        let b = a.replacen("upe", "ezers", 1);
        let s = minhash(&a).similarity(&minhash(&b));
        assert!(s >= 90, "one word changed: {s}");
        // Half the text another's: about a third of the shingles shared.
        let c = format!("{}{}", &a[..a.len() / 2], story(2, 300));
        let s = minhash(&a).similarity(&minhash(&c));
        assert!((15..=55).contains(&s), "half replaced: {s}");
        let s = minhash(&a).similarity(&minhash(&story(3, 600)));
        assert!(s <= 10, "other text: {s}");
        assert_eq!(minhash("").similarity(&minhash("")), 0);
        assert!(minhash("... 12 34").is_none());
        assert!(!minhash("one").is_none());
    }

    #[test]
    fn short_texts_fill_every_slot() {
        let s = minhash("Rīga ir Latvijas galvaspilsēta un ostas pilsēta");
        assert!(s.0.iter().all(|&v| v != EMPTY));
        assert_eq!(s.similarity(&s), 100);
        let t = minhash("Rīga ir Latvijas galvaspilsēta un ostas pilsēta jūrā");
        assert!(s.similarity(&t) > 50, "{}", s.similarity(&t));
    }

    #[test]
    fn bands_meet_for_near_copies_and_rarely_otherwise() {
        let a = minhash(&story(5, 400));
        let b = minhash(&story(5, 400).replacen("tilts", "laipa", 1));
        assert!((0..BANDS).filter(|&i| a.band(i) == b.band(i)).count() > BANDS / 2);
        let c = minhash(&story(6, 400));
        assert!((0..BANDS).all(|i| a.band(i) != c.band(i)));
        // Bands of one signature differ from each other even when their
        // slots are equal.
        let n = Signature([7; SLOTS]);
        assert_ne!(n.band(0), n.band(1));
    }

    #[test]
    fn signatures_round_trip_and_come_with_the_fingerprint() {
        let a = minhash(&story(9, 100));
        assert_eq!(Signature::from_bytes(&a.to_bytes()), Some(a));
        assert_eq!(Signature::from_bytes(&[0; 5]), None);
        let t = story(9, 100);
        assert_eq!(Fingerprint::of(&t).minhash, a);
    }
}

//! The SimHash's votes, counted bit-sliced: bit i of `planes[p]` is bit p
//! of the number of shingle hashes with bit i set, so that one hash is
//! counted into all 64 counters by a few word-wide operations, not 64
//! adds. Hashes come in batches of eight, folded into the lowest three
//! planes by a tree of carry-save adders (the sum of three words bit by
//! bit, as a sum bit and a carry bit); only what carries past the fours
//! ripples into the planes above.

/// Planes of the counters: a count is at most the number of hashes,
/// which [`Votes::add`]'s caller keeps within u32.
const PLANES: usize = 32;

/// Hashes a batch.
const BATCH: usize = 8;

/// The votes of a text's shingles.
pub(super) struct Votes {
    planes: [u64; PLANES],
    batch: [u64; BATCH],
    pending: usize,
    /// Hashes counted.
    pub(super) n: u32,
}

/// The sum of `a`, `b` and `c` in each bit: (carry, sum).
#[inline(always)]
fn csa(a: u64, b: u64, c: u64) -> (u64, u64) {
    let u = a ^ b;
    ((a & b) | (u & c), u ^ c)
}

impl Votes {
    pub(super) fn new() -> Votes {
        Votes {
            planes: [0; PLANES],
            batch: [0; BATCH],
            pending: 0,
            n: 0,
        }
    }

    /// One shingle's votes: a one for each of its set bits. The caller
    /// stops before `n` passes u32::MAX.
    #[inline]
    pub(super) fn add(&mut self, h: u64) {
        if let Some(slot) = self.batch.get_mut(self.pending) {
            *slot = h;
        }
        self.pending += 1;
        self.n += 1;
        if self.pending == BATCH {
            self.fold();
            self.pending = 0;
        }
    }

    /// A full batch into the planes: the tree keeps the value of planes
    /// 0 to 2 plus eight times what it hands on (Harley and Seal's
    /// scheme, for counts of each bit instead of one count).
    fn fold(&mut self) {
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.batch;
        let [ones, twos, fours, ..] = self.planes;
        let (twos_a, ones) = csa(ones, d0, d1);
        let (twos_b, ones) = csa(ones, d2, d3);
        let (fours_a, twos) = csa(twos, twos_a, twos_b);
        let (twos_a, ones) = csa(ones, d4, d5);
        let (twos_b, ones) = csa(ones, d6, d7);
        let (fours_b, twos) = csa(twos, twos_a, twos_b);
        let (eights, fours) = csa(fours, fours_a, fours_b);
        self.planes[0] = ones;
        self.planes[1] = twos;
        self.planes[2] = fours;
        self.carry(3, eights);
    }

    /// Adds one in plane `p` of each counter whose bit is set in `c`.
    #[inline]
    fn carry(&mut self, p: usize, mut c: u64) {
        // No count passes n, so the carry ends within the planes.
        for plane in self.planes.iter_mut().skip(p) {
            if c == 0 {
                break;
            }
            let t = *plane & c;
            *plane ^= c;
            c = t;
        }
    }

    /// The bits that won (set in more than half the hashes): ties go to 0.
    pub(super) fn bits(mut self) -> u64 {
        for k in 0..self.pending.min(BATCH) {
            let h = self.batch[k];
            self.carry(0, h);
        }
        // count > n / 2 exactly when count >= n / 2 + 1 (at most 2^31),
        // told for all 64 counters at once from the top plane down: `gt`
        // holds those already greater, `eq` those equal so far.
        let t = u64::from(self.n / 2) + 1;
        let mut gt = 0u64;
        let mut eq = u64::MAX;
        for (p, &plane) in self.planes.iter().enumerate().rev() {
            if (t >> p) & 1 == 1 {
                eq &= plane;
            } else {
                gt |= eq & plane;
                eq &= !plane;
            }
        }
        gt | eq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    /// Counts bit by bit, as the definition says.
    fn slowly(hashes: &[u64]) -> u64 {
        let mut ones = [0u64; 64];
        for h in hashes {
            for (i, o) in ones.iter_mut().enumerate() {
                *o += (h >> i) & 1;
            }
        }
        let n = hashes.len() as u64;
        let mut out = 0;
        for (i, o) in ones.iter().enumerate() {
            if 2 * o > n {
                out |= 1 << i;
            }
        }
        out
    }

    #[test]
    fn bit_sliced_votes_are_the_counted_ones() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x = xorshift(x);
            x
        };
        let mut differ = 0;
        for round in 0..3000usize {
            // Every remainder of a batch, past the carries of 255 and
            // 256 and 65,536, and hashes of few bits, of most bits and
            // of bits in a few places (where ties and near ties are
            // common).
            let n = match round % 6 {
                0 => round % 40,
                1 => 200 + round % 120,
                2 => 65_530 + round % 12,
                _ => next() as usize % 3000,
            };
            if round % 6 == 2 && round > 60 {
                continue;
            }
            let kind = next() % 4;
            let hashes: Vec<u64> = (0..n)
                .map(|_| match kind {
                    0 => next(),
                    1 => next() & next() & next(),
                    2 => next() | next(),
                    _ => next() & 0x8000_0000_0000_0301,
                })
                .collect();
            let mut v = Votes::new();
            for &h in &hashes {
                v.add(h);
            }
            assert_eq!(v.n as usize, n);
            let want = slowly(&hashes);
            differ += usize::from(want != 0 && want != u64::MAX);
            assert_eq!(v.bits(), want, "round {round}, {n} hashes");
        }
        assert!(differ > 1000, "{differ}");
        // Ties go to 0; one more vote wins.
        let mut v = Votes::new();
        v.add(1);
        v.add(2);
        assert_eq!(v.bits(), 0);
        let mut v = Votes::new();
        for h in [1, 2, 3] {
            v.add(h);
        }
        assert_eq!(v.bits(), 3);
        assert_eq!(Votes::new().bits(), 0);
    }
}

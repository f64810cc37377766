//! The first language witness's scorer: a naive Bayes model of bigrams
//! and trigrams of letters for each profiled language, read from a fixed
//! table of costs (build.rs makes it from data/lang/train). One pass over
//! a bounded sample adds up each language's cost and counts the letters
//! of each script; nothing is allocated, sorted or hashed into a map.

use super::features::{Script, Walk, BUCKETS, CODES, LANES, SCALE, SCRIPTS};

/// Each bucket's cost in each language, [`LANES`] bytes a bucket; the
/// type checks the file's size when the crate is built.
static TABLE: &[u8; BUCKETS * LANES] =
    include_bytes!(concat!(env!("OUT_DIR"), "/lang_profiles.bin"));

/// The most features one [`Scores`] adds up; the rest of a longer text
/// is not scored.
const MAX_FEATURES: u32 = 1 << 22;

/// Features whose rows [`Scores::of`] adds at once.
const BATCH: usize = 64;

/// Adds the table's row of each bucket of `buckets` (each below
/// [`BUCKETS`]) to `cost`, which a local copy keeps in registers.
#[inline(never)]
fn add_rows(cost: &mut [u32; LANES], buckets: &[u32]) {
    // Rows of a known length, so that adding one is a few vector
    // instructions.
    let (rows, _) = TABLE.as_chunks::<LANES>();
    let mut acc = *cost;
    for &b in buckets {
        if let Some(row) = rows.get(b as usize) {
            for (c, &r) in acc.iter_mut().zip(row) {
                *c += u32::from(r);
            }
        }
    }
    *cost = acc;
}

/// What one pass over a text found.
#[derive(Clone, Debug, Default)]
pub struct Scores {
    /// Each language's cost of the text, in 1/SCALE nat.
    cost: [u32; LANES],
    /// Features scored.
    pub features: u32,
    /// Letters of the Latin, Cyrillic and other scripts.
    pub latin: u32,
    pub cyrillic: u32,
    pub other: u32,
}

impl Scores {
    /// Scores `pieces` of a text, each cut at a word boundary (so at most
    /// the letters of the pieces are read).
    pub fn of<'a>(pieces: impl IntoIterator<Item = &'a str>) -> Scores {
        let mut walk = Walk::default();
        let mut cost = [0u32; LANES];
        let mut features = 0u32;
        let (mut latin, mut cyrillic, mut other) = (0u32, 0u32, 0u32);
        // The features' buckets are gathered and their rows added a batch
        // at a time: added one by one from inside the walk, the costs
        // stay in memory, and each row waits for the last one's store.
        let mut batch = [0u32; BATCH];
        let mut len = 0;
        let mut add = |b: usize| {
            // Costs of at most 255 add up in a u32 without overflow up to
            // this many features, far beyond any sample.
            if features >= MAX_FEATURES {
                return;
            }
            // `b` is below BUCKETS by construction; the mask keeps it so.
            if let Some(slot) = batch.get_mut(len) {
                *slot = (b & (BUCKETS - 1)) as u32;
                len += 1;
            }
            if len == BATCH {
                add_rows(&mut cost, &batch);
                len = 0;
            }
            features += 1;
        };
        for p in pieces {
            walk.text(p, &mut add, |script| match script {
                Script::Latin => latin += 1,
                Script::Cyrillic => cyrillic += 1,
                Script::Other => other += 1,
            });
            walk.boundary(&mut add);
        }
        add_rows(&mut cost, batch.get(..len).unwrap_or_default());
        Scores {
            cost,
            features,
            latin,
            cyrillic,
            other,
        }
    }

    /// Letters of every script.
    pub fn letters(&self) -> u32 {
        self.latin + self.cyrillic + self.other
    }

    /// Letters of `script`.
    pub fn of_script(&self, script: Script) -> u32 {
        match script {
            Script::Latin => self.latin,
            Script::Cyrillic => self.cyrillic,
            Script::Other => self.other,
        }
    }

    /// Each profiled language's mean cost of a feature, in nats.
    pub fn per_feature(&self) -> [f64; CODES.len()] {
        let n = f64::from(self.features.max(1)) * SCALE;
        let mut out = [0.0; CODES.len()];
        for (o, c) in out.iter_mut().zip(&self.cost) {
            *o = f64::from(*c) / n;
        }
        out
    }

    /// The cheapest language (its index in [`CODES`]), its mean cost of a
    /// feature and its margin to the next cheapest, both in nats a
    /// feature; None before any feature.
    pub fn best(&self) -> Option<(usize, f64, f64)> {
        if self.features == 0 {
            return None;
        }
        let per = self.per_feature();
        let mut best = 0;
        for (i, c) in per.iter().enumerate() {
            if *c < per[best] {
                best = i;
            }
        }
        let second = per
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != best)
            .map(|(_, c)| *c)
            .fold(f64::INFINITY, f64::min);
        Some((best, per[best], second - per[best]))
    }
}

/// The script a profiled language is written in.
pub fn script(i: usize) -> Script {
    SCRIPTS.get(i).copied().unwrap_or(Script::Other)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(i: usize) -> &'static str {
        super::super::witness::profiled(i).code()
    }

    #[test]
    fn every_profile_is_its_language_s() {
        for (i, c) in CODES.iter().enumerate() {
            assert_eq!(code(i), *c);
        }
        // Every profile is in the table: each language's costs vary.
        for l in 0..CODES.len() {
            let costs: Vec<u8> = (0..BUCKETS).map(|b| TABLE[b * LANES + l]).collect();
            let (min, max) = (costs.iter().min(), costs.iter().max());
            assert!(min < max, "{}", CODES[l]);
        }
    }

    /// The sums of [`Scores::of`], added a batch at a time, against the
    /// features' rows added one by one, for pieces that end anywhere in a
    /// batch: none, fewer than a batch, many.
    #[test]
    fn sums_are_exact() {
        let long = "Rīgas pilsētas dome šodien apstiprināja jauno plānu. ".repeat(40);
        let mixed = "Москва — столица; Ελλάδα ẞ İstanbul ǅ 語 ÜBER über a1b2 ".repeat(7);
        let mut cases: Vec<Vec<&str>> = vec![vec![long.as_str()], vec![mixed.as_str()], vec![]];
        for n in [0, 1, 2, 5, 13, 31, 32, 33, 64, 65, 127, 300] {
            let cut = long.char_indices().nth(n).map_or(long.len(), |(i, _)| i);
            cases.push(vec![&long[..cut]]);
            cases.push(vec![&long[..cut], &mixed[..], &long[cut..]]);
        }
        for pieces in cases {
            let s = Scores::of(pieces.iter().copied());
            let mut want = [0u64; LANES];
            let mut n = 0;
            let mut walk = Walk::default();
            let mut add = |b: usize| {
                for (w, &c) in want.iter_mut().zip(&TABLE[b * LANES..b * LANES + LANES]) {
                    *w += u64::from(c);
                }
                n += 1;
            };
            for p in &pieces {
                walk.text(p, &mut add, |_| ());
                walk.boundary(&mut add);
            }
            assert_eq!(s.features, n, "{pieces:?}");
            for (c, w) in s.cost.iter().zip(want) {
                assert_eq!(u64::from(*c), w, "{pieces:?}");
            }
        }
        let s = Scores::of([long.as_str()]);
        assert!(s.features > 4000, "{}", s.features);
    }

    #[test]
    fn a_text_scores_best_in_its_language() {
        let s = Scores::of(["Šodien Rīgā visu dienu līs lietus, bet rīt būs saulains un silts."]);
        assert_eq!(s.best().map(|b| code(b.0)), Some("lv"));
        assert_eq!((s.latin, s.cyrillic, s.other), (52, 0, 0));
        let s = Scores::of(["Сегодня весь день идёт дождь, а завтра будет солнечно."]);
        assert_eq!(s.best().map(|b| code(b.0)), Some("ru"));
        assert_eq!(Scores::of(["", " 12 "]).best(), None);
    }
}

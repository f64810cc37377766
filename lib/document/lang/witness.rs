//! The first language witness: our own scorer ([`super::scorer`]) on a
//! small sample, which settles the clear cases cheaply, and whose fit to
//! each profiled language is evidence in the others ([`super::judge`]).

use super::features::{Script, CODES};
use super::scorer::{script, Scores};
use super::{pieces, Language};

/// Bytes of text the witness scores, taken as [`super::sample`] takes
/// them (from the inside of a longer text).
pub const WITNESS_SAMPLE: usize = 512;

/// The fewest letters a sample must have for the witness alone to settle
/// its language: below this the trigrams of a sentence or two decide too
/// little, and whatlang is asked too.
pub const MIN_LETTERS: u32 = 100;

/// The least margin, in nats a feature, between the best language and
/// every other profiled language for the witness alone to settle it.
/// Chosen below the margins of windows of the training texts and checked
/// on the held-out texts (see data/lang/README): Latvian, Lithuanian and
/// Estonian prose with diacritics reaches 0.74 and more there, while
/// unaccented Latvian and languages without a profile stay at 0.5 or less.
pub const MIN_MARGIN: f64 = 0.7;

/// The least margin between two close kin ([`KIN`]) for the witness
/// alone to settle one of them: their texts share most letters and
/// trigrams, so the margin between them is smaller than to any other
/// language, but it does not vanish (Latvian prose leads Latgalian by 0.4
/// to 0.8 nats a feature, Latgalian leads Latvian by 0.6 to 1.1 on the
/// held-out texts).
pub const MIN_KIN_MARGIN: f64 = 0.3;

/// Pairs of profiled languages that are close kin.
pub const KIN: &[(&str, &str)] = &[("lv", "ltg")];

/// Whether the profiled languages at `a` and `b` are close kin.
fn kin(a: usize, b: usize) -> bool {
    let (Some(a), Some(b)) = (CODES.get(a), CODES.get(b)) else {
        return false;
    };
    KIN.iter()
        .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
}

/// The most a feature may cost on average in the best language, in nats,
/// for the witness alone to settle it: text of a language the scorer has
/// no profile for (Czech, Italian) fits none of the profiles well.
/// Latvian prose costs 6.5 to 7.5; on the language test set
/// (tests/data/langset) no text of another language is settled as
/// Latvian at any bound from 7.5 to 9.
pub const MAX_COST: f64 = 8.0;

/// The least share of the sample's letters in the best language's script.
const MIN_SCRIPT_SHARE: f64 = 0.9;

/// Features counted as one independent observation in the confidence:
/// each letter is in up to five overlapping features, and neighbouring
/// words are far from independent, so the evidence is discounted
/// heavily (100 features are about 50 letters, half a sentence).
pub const FEATURES_PER_OBSERVATION: f64 = 100.0;

/// What the scorer makes of a text's sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Each profiled language's mean cost of a feature, in nats, in the
    /// order of [`CODES`].
    pub costs: [f64; CODES.len()],
    /// The cheapest language's index in [`CODES`].
    pub best: usize,
    /// Its margin to the next cheapest, in nats a feature.
    pub margin: f64,
    /// Features and letters scored.
    pub features: u32,
    pub letters: u32,
    /// The share of the letters in the best language's script.
    pub script_share: f64,
}

impl Profile {
    /// The profile of `text`'s witness sample; None before any feature.
    pub fn of(text: &str) -> Option<Profile> {
        let s = Scores::of(pieces(text, WITNESS_SAMPLE));
        let (best, _, margin) = s.best()?;
        let letters = s.letters();
        let own = script(best);
        let script_share = if own == Script::Other || letters == 0 {
            0.0
        } else {
            f64::from(s.of_script(own)) / f64::from(letters)
        };
        Some(Profile {
            costs: s.per_feature(),
            best,
            margin,
            features: s.features,
            letters,
            script_share,
        })
    }

    /// The best language.
    pub fn language(&self) -> Language {
        profiled(self.best)
    }

    /// The best language's mean cost of a feature.
    pub fn cost(&self) -> f64 {
        self.costs.get(self.best).copied().unwrap_or(f64::INFINITY)
    }

    /// `lang`'s mean cost of a feature; None when it has no profile.
    pub fn cost_of(&self, lang: Language) -> Option<f64> {
        let i = CODES.iter().position(|c| *c == lang.code())?;
        self.costs.get(i).copied()
    }

    /// How far `lang` stands below every other profiled language, in nats
    /// a feature (negative when another is cheaper); None when it has no
    /// profile.
    pub fn lead_of(&self, lang: Language) -> Option<f64> {
        let i = CODES.iter().position(|c| *c == lang.code())?;
        let own = self.costs.get(i)?;
        let other = self
            .costs
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, c)| *c)
            .fold(f64::INFINITY, f64::min);
        Some(other - own)
    }

    /// The best language when the witness alone settles it: at least
    /// [`MIN_LETTERS`], [`MIN_MARGIN`] over every other profile
    /// ([`MIN_KIN_MARGIN`] over its close kin), at most
    /// [`MAX_COST`], in its script; with the confidence
    /// 1 - (L2 / L1)^(1 / [`FEATURES_PER_OBSERVATION`]), L1 and L2 the
    /// likelihoods of the sample in the best language and the runner-up:
    /// the share by which the runner-up falls short per observation (a
    /// sample of 100 letters at the least margin gets about 0.8; one of
    /// 500 bytes of clear prose, 1).
    pub fn settled(&self) -> Option<(Language, f64)> {
        if self.letters < MIN_LETTERS
            || self.cost() > MAX_COST
            || self.script_share < MIN_SCRIPT_SHARE
        {
            return None;
        }
        let best = self.cost();
        let clear = self.costs.iter().enumerate().all(|(j, c)| {
            let least = if kin(self.best, j) {
                MIN_KIN_MARGIN
            } else {
                MIN_MARGIN
            };
            j == self.best || c - best >= least
        });
        clear.then(|| (self.language(), self.confidence()))
    }

    /// The confidence of the best language, as [`Profile::settled`] gives it.
    pub fn confidence(&self) -> f64 {
        self.confidence_of(self.margin)
    }

    /// The confidence a language gets from leading the others by `lead`
    /// nats a feature over this sample (0 for no lead).
    pub fn confidence_of(&self, lead: f64) -> f64 {
        let evidence = lead.max(0.0) * f64::from(self.features) / FEATURES_PER_OBSERVATION;
        1.0 - (-evidence).exp()
    }
}

/// The table's entry of the profiled language at `i` in [`CODES`].
pub fn profiled(i: usize) -> Language {
    let code = CODES.get(i).copied().unwrap_or("");
    // Every code of CODES is in the table (a test checks).
    super::of_tag(code).unwrap_or(super::UNDETERMINED)
}

//! The first witness of a page's language under a language filter: our
//! own scorer ([`super::scorer`]) on a small sample, which settles the
//! clear cases, so that whatlang is asked only about the others.
//!
//! It only ever says yes: a text it finds clearly in a filter language is
//! in that language; of any other text it says nothing, and whatlang
//! judges it exactly as without this witness (so a rejected page gets
//! whatlang's name for its language, and a text in a language neither
//! knows well gets whatlang's view of it).

use whatlang::Lang;

use super::features::Script;
use super::scorer::{script, Scores, LANGS};
use super::{pieces, Guess};

/// Bytes of text the witness scores, taken as [`super::sample`] takes
/// them (from the inside of a longer text).
pub const WITNESS_SAMPLE: usize = 512;

/// The fewest letters the sample must have: below this the trigrams of a
/// sentence or two decide too little, and whatlang's judgement with the
/// dictionary as second witness is kept (a short sentence written
/// without diacritics, for one).
pub const MIN_LETTERS: u32 = 100;

/// The least margin, in nats a feature, between the best language and
/// every other profiled language. Chosen below the margins of windows of
/// the training texts and checked on the held-out texts (see
/// data/lang/README): Latvian, Lithuanian and Estonian prose with
/// diacritics reaches 0.74 and more there, while unaccented Latvian,
/// Latgalian and languages without a profile stay at 0.5 or less.
pub const MIN_MARGIN: f64 = 0.7;

/// The most a feature may cost on average in the best language, in nats:
/// text of a language the scorer has no profile for (Czech, Italian,
/// Latgalian) fits none of the profiles well, and is whatlang's to judge.
pub const MAX_COST: f64 = 8.0;

/// The least share of the sample's letters in the best language's script.
const MIN_SCRIPT_SHARE: f64 = 0.9;

/// Features counted as one independent observation in the confidence:
/// each letter is in up to five overlapping features, and neighbouring
/// words are far from independent, so the evidence is discounted
/// heavily (100 features are about 50 letters, half a sentence).
pub const FEATURES_PER_OBSERVATION: f64 = 100.0;

/// The language of `text` when it is clearly one of `langs`, the
/// languages a filter allows: the best-scoring profiled language, by at
/// least [`MIN_MARGIN`] over every other, fitting its profile (at most
/// [`MAX_COST`]), written in its script, over a sample of at least
/// [`MIN_LETTERS`]; with a confidence of at least `min_conf`. None leaves
/// the question to whatlang.
///
/// The confidence is 1 - (L2 / L1)^(1 / [`FEATURES_PER_OBSERVATION`]),
/// L1 and L2 the likelihoods of the sample in the best language and the
/// runner-up: the share by which the runner-up falls short per
/// observation. A sample of 100 letters at the least margin gets about
/// 0.8; a sample of 500 bytes of clear prose, 1.
pub fn first_witness(langs: &[Lang], text: &str, min_conf: f64) -> Option<Guess> {
    // No filter language is profiled: nothing to settle.
    if !LANGS.iter().any(|l| langs.contains(l)) {
        return None;
    }
    let s = Scores::of(pieces(text, WITNESS_SAMPLE));
    let letters = s.letters();
    if letters < MIN_LETTERS {
        return None;
    }
    let (best, cost, margin) = s.best()?;
    let lang = *LANGS.get(best)?;
    if !langs.contains(&lang) || cost > MAX_COST || margin < MIN_MARGIN {
        return None;
    }
    let own = script(best);
    if own == Script::Other || f64::from(s.of_script(own)) < f64::from(letters) * MIN_SCRIPT_SHARE {
        return None;
    }
    let evidence = margin * f64::from(s.features) / FEATURES_PER_OBSERVATION;
    let confidence = 1.0 - (-evidence).exp();
    (confidence >= min_conf).then_some(Guess {
        lang,
        confidence,
        reliable: true,
    })
}

/// What the scorer makes of `text`'s witness sample, for tests and
/// tuning: the best profiled language, its mean cost of a feature and
/// its margin (nats a feature), and the sample's letters.
pub fn witness_scores(text: &str) -> Option<(Lang, f64, f64, u32)> {
    let s = Scores::of(pieces(text, WITNESS_SAMPLE));
    let (best, cost, margin) = s.best()?;
    Some((*LANGS.get(best)?, cost, margin, s.letters()))
}

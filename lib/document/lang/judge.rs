//! The language of a text, and of a document from the languages of its
//! blocks: the rule nlpc-vrfy and nlpc-dump share (nlpc-vrfy(1) says it
//! in words).
//!
//! Two witnesses. The first, our own letter profiles ([`Profile`]), is
//! cheap and settles clear text alone. Otherwise whatlang is asked, over
//! every language it knows; when it names a language that has a profile,
//! the profiles must agree (that language fits its profile and no other
//! profile fits better), since whatlang knows no Latgalian, Livonian or
//! Võro and names the nearest of its languages for them. A text neither
//! witness can place has no language, and is in no filter's language.
//!
//! A document's language is the language of the largest share of its
//! main text's letters, each block judged by itself, so a Latvian article
//! between two English notices is Latvian.

use whatlang::Detector;

use super::witness::Profile;
use super::{detect_in_steps, Guess, Language};

/// The most a feature may cost on average in the language whatlang names,
/// when it has a profile, in nats: more, and the text is in a language
/// near it that neither witness knows (Livonian reads as Latvian to
/// whatlang). Chosen on the tuning half of the language test set
/// (tests/data/langset), midway between the costliest Latvian text there
/// that whatlang calls Latvian (7.2) and the cheapest text of another
/// language it calls Latvian (Livonian, 8.7).
pub const MAX_AGREEING_COST: f64 = 7.9;

/// The least lead of the language whatlang names over every other profile
/// (in nats a feature) when it has one: no other profile may fit better.
/// On the tuning half every Latvian text whatlang calls Latvian leads by
/// 0.3 or more, and every text of another language it calls Latvian
/// trails (Latgalian by 0.6 and more, Hawaiian by 0.2).
pub const MIN_AGREEING_LEAD: f64 = 0.0;

/// The least margin of the profiles' best language for it to stand
/// against whatlang: when whatlang names a language the profiles
/// contradict (Latgalian reads as Latvian to it), or is unsure; with at
/// least [`MIN_OVERRULING_LETTERS`] and at most [`MAX_AGREEING_COST`]. On
/// the tuning half a margin of 0.1 or more never makes another language
/// Latvian.
pub const MIN_OVERRULING_MARGIN: f64 = 0.3;

/// The fewest letters for the profiles to stand against whatlang.
pub const MIN_OVERRULING_LETTERS: u32 = 25;

/// The fewest letters a block needs to be judged by itself; shorter
/// blocks (a heading, a date, a button) have no language of their own.
pub const MIN_BLOCK_LETTERS: usize = 20;

/// The most blocks of one document judged one by one; the rest have no
/// language of their own (a page of thousands of list items).
pub const MAX_BLOCKS: usize = 256;

/// The language of `text`: the first witness's when it settles it, else
/// whatlang's (asked about a sample of about `cap` bytes, 0: all) where
/// the profiles do not contradict it; None when neither can place it.
pub fn judge(text: &str, cap: usize) -> Option<Guess> {
    let p = Profile::of(text);
    if let Some((lang, confidence)) = p.as_ref().and_then(Profile::settled) {
        return Some(Guess {
            lang,
            confidence,
            reliable: true,
        });
    }
    let w = detect_in_steps(&Detector::new(), text, cap, |g| g.reliable);
    reconcile(p.as_ref(), w)
}

/// whatlang's guess `w` weighed against the profiles `p`.
pub fn reconcile(p: Option<&Profile>, w: Option<Guess>) -> Option<Guess> {
    let Some(p) = p else {
        // No letter at all: whatlang's word, if any.
        return w;
    };
    if let Some(g) = w {
        if let (Some(cost), Some(lead)) = (p.cost_of(g.lang), p.lead_of(g.lang)) {
            // A language with a profile: the profiles must agree, and two
            // witnesses agreeing are surer than either.
            if cost <= MAX_AGREEING_COST && lead >= MIN_AGREEING_LEAD {
                let doubt = (1.0 - g.confidence) * (1.0 - p.confidence_of(lead));
                return Some(Guess {
                    lang: g.lang,
                    confidence: 1.0 - doubt,
                    reliable: true,
                });
            }
            // Contradicted: the profiles' own answer when they have one;
            // else a guess whatlang was unsure of stays, with no
            // confidence, for the dictionary to judge, and a sure one
            // leaves the text without a language.
            return overruling(p).or_else(|| {
                (!g.reliable).then_some(Guess {
                    confidence: 0.0,
                    ..g
                })
            });
        }
        if g.reliable {
            return Some(g);
        }
    }
    // whatlang unsure or silent: the profiles' best, when clear enough.
    overruling(p).or(w)
}

/// The profiles' best language when it may stand against whatlang: a
/// judgement of its own, so reliable (the dictionary does not overrule
/// it).
fn overruling(p: &Profile) -> Option<Guess> {
    (p.letters >= MIN_OVERRULING_LETTERS
        && p.margin >= MIN_OVERRULING_MARGIN
        && p.cost() <= MAX_AGREEING_COST)
        .then(|| Guess {
            lang: p.language(),
            confidence: p.confidence(),
            reliable: true,
        })
}

/// What [`of_blocks`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Blocks {
    /// Each block's language; None for a short block or one neither
    /// witness can place.
    pub blocks: Vec<Option<Language>>,
    /// Each language's share (0 to 1) of the letters of every block,
    /// largest first; None for the blocks of no language.
    pub shares: Vec<(Option<Language>, f64)>,
    /// The document's language: that of the largest share among the
    /// blocks with one, with the guess of its longest block; when every
    /// block is too short to be judged, the whole text judged as one
    /// (and that is then every block's language).
    pub lang: Option<Guess>,
}

/// Letters (alphabetic characters) of `s`.
fn letters(s: &str) -> usize {
    s.chars().filter(|c| c.is_alphabetic()).count()
}

/// The language of a document's text, its blocks one a line: the first
/// witness's when it settles the whole text, else [`of_blocks`]'s. whatlang
/// is asked about samples of about `cap` bytes (0: all).
pub fn of_text(text: &str, cap: usize) -> Option<Guess> {
    if let Some((lang, confidence)) = Profile::of(text).as_ref().and_then(Profile::settled) {
        return Some(Guess {
            lang,
            confidence,
            reliable: true,
        });
    }
    of_blocks(text.lines(), cap).lang
}

/// The language of each block of a document and of the document, whatlang
/// asked about samples of about `cap` bytes (0: all).
pub fn of_blocks<'a>(blocks: impl IntoIterator<Item = &'a str>, cap: usize) -> Blocks {
    let texts: Vec<&str> = blocks.into_iter().collect();
    let mut out = Blocks::default();
    let mut weight: Vec<(Option<Language>, usize, Option<Guess>, usize)> = Vec::new();
    let mut total = 0usize;
    let mut judged = false;
    for (i, t) in texts.iter().enumerate() {
        let n = letters(t);
        total += n;
        let asked = n >= MIN_BLOCK_LETTERS && i < MAX_BLOCKS;
        judged |= asked;
        let g = asked.then(|| judge(t, cap)).flatten();
        let l = g.map(|g| g.lang);
        out.blocks.push(l);
        match weight.iter_mut().find(|w| w.0 == l) {
            Some(w) => {
                w.1 += n;
                if n > w.3 {
                    w.2 = g;
                    w.3 = n;
                }
            }
            None => weight.push((l, n, g, n)),
        }
    }
    weight.sort_by_key(|w| std::cmp::Reverse(w.1));
    if total > 0 {
        out.shares = weight
            .iter()
            .filter(|w| w.1 > 0)
            .map(|w| (w.0, w.1 as f64 / total as f64))
            .collect();
    }
    out.lang = match weight.iter().find(|w| w.0.is_some()) {
        Some(w) => w.2,
        // Only short blocks: together they may say more.
        None if !judged && total > 0 => {
            let g = judge(&texts.join("\n"), cap);
            if let Some(g) = g {
                out.blocks.iter_mut().for_each(|b| *b = Some(g.lang));
                out.shares = vec![(Some(g.lang), 1.0)];
            }
            g
        }
        None => None,
    };
    out
}

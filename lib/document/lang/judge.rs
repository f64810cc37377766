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
//! between two English notices is Latvian; nlpc-vrfy first asks both
//! witnesses about the whole text, and judges blocks only when they are
//! unsure ([`of_text`]).

use whatlang::Detector;

use super::witness::Profile;
use super::{detect_in_steps, Guess, Language};
use crate::document::letters;

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

/// The most blocks of one document nlpc-dump judges one by one, the
/// longest first; the rest have no language of their own (a page of
/// thousands of list items).
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
    s.chars().filter(|&c| letters::alphabetic(c)).count()
}

/// The language of a document's text, its blocks one a line: the first
/// witness's when it settles the whole text; else the two witnesses' on
/// the whole text when they agree (or whatlang is sure of a language
/// without a profile); else, when they are unsure or the text mixes
/// languages, [`of_blocks`]'s, judging at most [`PAGE_BLOCKS`] blocks.
/// whatlang is asked about samples of about `cap` bytes (0: all).
pub fn of_text(text: &str, cap: usize) -> Option<Guess> {
    let p = Profile::of(text);
    if let Some((lang, confidence)) = p.as_ref().and_then(Profile::settled) {
        return Some(Guess {
            lang,
            confidence,
            reliable: true,
        });
    }
    let w = detect_in_steps(&Detector::new(), text, cap, |g| g.reliable);
    if let Some(g) = reconcile(p.as_ref(), w) {
        if g.reliable && w.is_some_and(|w| w.reliable) {
            return Some(g);
        }
    }
    of_blocks(text.lines(), cap, PAGE_BLOCKS).lang
}

/// The most blocks of a page nlpc-vrfy judges one by one, the longest
/// first, when the whole text is not clear: the language of the largest
/// share shows in the longest blocks, and each costs a whatlang call.
pub const PAGE_BLOCKS: usize = 16;

/// The language of each block of a document and of the document, whatlang
/// asked about samples of about `cap` bytes (0: all). At most `most`
/// blocks are judged, the longest first; the others have no language of
/// their own.
pub fn of_blocks<'a>(blocks: impl IntoIterator<Item = &'a str>, cap: usize, most: usize) -> Blocks {
    let texts: Vec<&str> = blocks.into_iter().collect();
    let counts: Vec<usize> = texts.iter().map(|t| letters(t)).collect();
    // The blocks judged: the longest `most` of those long enough.
    let mut order: Vec<usize> = (0..texts.len())
        .filter(|&i| counts[i] >= MIN_BLOCK_LETTERS)
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
    let mut asked = vec![false; texts.len()];
    for &i in order.iter().take(most) {
        asked[i] = true;
    }
    let mut out = Blocks::default();
    let mut weight: Vec<(Option<Language>, usize, Option<Guess>, usize)> = Vec::new();
    let mut total = 0usize;
    let mut judged = false;
    for (i, t) in texts.iter().enumerate() {
        let n = counts[i];
        total += n;
        judged |= n >= MIN_BLOCK_LETTERS;
        let g = asked[i].then(|| judge(t, cap)).flatten();
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

#[cfg(test)]
mod tests {
    use super::*;

    const EN: &str = "This website uses cookies and similar technologies to remember your \
        settings, to measure how visitors use our pages and to show advertising that may \
        interest you. You can change your choice at any time in the cookie settings at the \
        bottom of every page, and you can read more in our privacy policy.";
    const LV: &str = "Rīgā šonedēļ sāka atjaunot veco tiltu pār Daugavu, un darbi, kā sola \
        būvnieki, ilgs līdz rudenim, jo pēc ziemas ir jāpārbauda visi balsti. Kamēr tilts \
        būs slēgts, iedzīvotāji varēs izmantot prāmi, kas kursēs ik pēc pusstundas, bet \
        naktīs tas nekursēs, tāpēc braucieni jāplāno laikus.";

    fn codes(b: &Blocks) -> Vec<Option<&'static str>> {
        b.blocks.iter().map(|l| l.map(|l| l.code())).collect()
    }

    #[test]
    fn the_largest_share_of_letters_decides() {
        // English first and last, Latvian the most letters between.
        let blocks = [EN, LV, LV, LV, EN];
        let b = of_blocks(blocks, 1024, MAX_BLOCKS);
        assert_eq!(
            codes(&b),
            [Some("en"), Some("lv"), Some("lv"), Some("lv"), Some("en")]
        );
        assert_eq!(b.lang.map(|g| g.lang.code()), Some("lv"));
        let shares: Vec<(Option<&str>, f64)> = b
            .shares
            .iter()
            .map(|(l, s)| (l.map(|l| l.code()), *s))
            .collect();
        assert_eq!(shares.len(), 2);
        assert_eq!((shares[0].0, shares[1].0), (Some("lv"), Some("en")));
        assert!((shares[0].1 + shares[1].1 - 1.0).abs() < 1e-9);
        assert!(shares[0].1 > 0.5 && shares[0].1 < 0.7, "{shares:?}");
        // The whole text, its blocks a line, is Latvian too.
        let text = blocks.join("\n");
        assert_eq!(of_text(&text, 1024).map(|g| g.lang.code()), Some("lv"));
        // Mostly English, it is English.
        let text = [EN, EN, LV, EN].join("\n");
        assert_eq!(of_text(&text, 1024).map(|g| g.lang.code()), Some("en"));
    }

    #[test]
    fn short_blocks_are_judged_together_or_not_at_all() {
        let short = ["Sākums", "Par mums", "Ziņas šodien", "Kontakti un adrese"];
        assert!(short.iter().all(|w| letters(w) < MIN_BLOCK_LETTERS));
        let b = of_blocks(short.iter().copied().chain([LV]), 1024, MAX_BLOCKS);
        // Beside a long block, the short ones have no language.
        assert_eq!(codes(&b)[..4], [None, None, None, None]);
        assert_eq!(b.shares[0].0.map(|l| l.code()), Some("lv"));
        assert_eq!(b.shares[1].0, None);
        // Every block short: the text is judged as one, and that is every
        // block's language.
        let words: Vec<&str> = LV.split_whitespace().collect();
        let pairs: Vec<String> = words.chunks(2).map(|w| w.join(" ")).collect();
        assert!(pairs.iter().all(|w| letters(w) < MIN_BLOCK_LETTERS));
        let b = of_blocks(pairs.iter().map(String::as_str), 1024, MAX_BLOCKS);
        assert!(b.blocks.len() > 4);
        assert_eq!(b.lang.map(|g| g.lang.code()), Some("lv"), "{b:?}");
        assert!(codes(&b).iter().all(|c| *c == Some("lv")), "{b:?}");
        assert_eq!(b.shares.len(), 1);
        // At most `most` blocks are judged, the longest first.
        let lv2 = format!("{LV} {LV}");
        let b = of_blocks([EN, lv2.as_str(), EN], 1024, 1);
        assert_eq!(codes(&b), [None, Some("lv"), None]);
        assert_eq!(b.lang.map(|g| g.lang.code()), Some("lv"));
        // Nothing to judge.
        let b = of_blocks(["", " 12 "], 1024, MAX_BLOCKS);
        assert_eq!((b.lang, b.shares.len()), (None, 0));
    }

    #[test]
    fn a_language_neither_witness_knows_has_none() {
        // Livonian: whatlang calls it Latvian; it fits no profile.
        let liv = "Līvõ kēļ um ūoḑimeŗ sūomõ kēļ, mis kōlõb Kurāmō rāndas. Vanāst līvlizt \
                   eļīzt kalāmīed, ja jegāīž kilā vȯļ ne eņtš randā ja pūojõd.";
        let w = super::super::detect(&Detector::new(), liv, 0).map(|g| g.lang.code());
        assert_eq!(w, Some("lv"));
        assert_ne!(judge(liv, 1024).map(|g| g.lang.code()), Some("lv"));
    }
}

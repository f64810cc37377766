//! The features of the first language witness: letters folded to lower
//! case, their script, and the bigrams and trigrams of each word hashed
//! into a fixed number of buckets.
//!
//! This file uses nothing but `core`: build.rs includes it too, so the
//! profiles it makes from data/lang/train are counted exactly as pages
//! are scored.

/// The languages profiled, in the order of a table row: their codes
/// (ISO 639-1, else 639-3), which name the training files
/// (data/lang/train/CODE.txt).
pub const CODES: [&str; 14] = [
    "lv", "lt", "et", "de", "en", "ru", "uk", "be", "fi", "pl", "sv", "fr", "es", "ltg",
];

/// The scripts of the profiled languages, in the order of [`CODES`].
pub const SCRIPTS: [Script; 14] = {
    use Script::{Cyrillic as C, Latin as L};
    [L, L, L, L, L, C, C, C, L, L, L, L, L, L]
};

/// Bytes in a table row: one cost per language, padded so a row adds up
/// as one vector.
pub const LANES: usize = 16;

/// log2 of the number of buckets.
pub const BITS: u32 = 13;

/// Buckets features are hashed into.
pub const BUCKETS: usize = 1 << BITS;

/// Costs are negative natural logarithms of probabilities in units of
/// 1/SCALE nat, saturated at 255.
pub const SCALE: f64 = 16.0;

/// The code of a word boundary (a space) in a feature.
pub const SPACE: u32 = 0x20;

/// The script of a letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Latin,
    Cyrillic,
    Other,
}

/// A character folded for scoring: a letter in lower case with its script,
/// or None for anything that separates words (spaces, digits,
/// punctuation, symbols).
#[inline]
pub fn fold(c: char) -> Option<(u32, Script)> {
    let x = c as u32;
    let latin = |l: u32| Some((l, Script::Latin));
    let cyrillic = |l: u32| Some((l, Script::Cyrillic));
    match x {
        0x41..=0x5A => latin(x + 0x20),
        0x61..=0x7A => latin(x),
        0..=0xBF => None,
        0xD7 | 0xF7 => None,
        0xC0..=0xDE => latin(x + 0x20),
        0xDF..=0xFF => latin(x),
        // Latin Extended-A: upper and lower case alternate, upper first
        // except in 0x139..=0x148 and 0x179..=0x17E.
        0x100..=0x137 | 0x14A..=0x177 => latin(x | 1),
        0x139..=0x148 | 0x179..=0x17E => latin(x + (x & 1)),
        0x178 => latin(0xFF),
        0x138..=0x24F => latin(x),
        0x400..=0x40F => cyrillic(x + 0x50),
        0x410..=0x42F => cyrillic(x + 0x20),
        0x430..=0x45F => cyrillic(x),
        0x460..=0x4FF => cyrillic(x | 1),
        _ if c.is_alphabetic() => Some((x, Script::Other)),
        _ => None,
    }
}

/// The bucket of the trigram `a b c` (codes from [`fold`] or [`SPACE`]).
#[inline]
pub fn trigram(a: u32, b: u32, c: u32) -> usize {
    bucket(u64::from(a) << 42 | u64::from(b) << 21 | u64::from(c))
}

/// The bucket of the bigram `b c`: a trigram key no character has.
#[inline]
pub fn bigram(b: u32, c: u32) -> usize {
    bucket(0x1F_FFFF << 42 | u64::from(b) << 21 | u64::from(c))
}

#[inline]
fn bucket(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BITS)) as usize
}

/// A walk over the features of a text: for each letter the trigram and
/// bigram ending in it, and for each word the two ending in the boundary
/// after it; a word's first letter follows two boundaries. The walk keeps
/// the last two codes between pieces, so a text may come in pieces cut at
/// word boundaries; [`Walk::boundary`] closes the last word.
pub struct Walk {
    a: u32,
    b: u32,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk { a: SPACE, b: SPACE }
    }
}

impl Walk {
    /// Walks one piece of text, calling `feature` with the bucket of
    /// every feature and `letter` with the script of every letter.
    #[inline]
    pub fn text(
        &mut self,
        text: &str,
        mut feature: impl FnMut(usize),
        mut letter: impl FnMut(Script),
    ) {
        for ch in text.chars() {
            match fold(ch) {
                Some((c, script)) => {
                    letter(script);
                    feature(trigram(self.a, self.b, c));
                    feature(bigram(self.b, c));
                    self.a = self.b;
                    self.b = c;
                }
                None => self.boundary(&mut feature),
            }
        }
    }

    /// Ends the word in progress, if any.
    #[inline]
    pub fn boundary(&mut self, mut feature: impl FnMut(usize)) {
        if self.b != SPACE {
            feature(trigram(self.a, self.b, SPACE));
            feature(bigram(self.b, SPACE));
            self.a = SPACE;
            self.b = SPACE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_fold_to_lower_case_with_their_script() {
        let f = |c| fold(c).map(|(x, s)| (char::from_u32(x).unwrap(), s));
        let (l, c) = (Script::Latin, Script::Cyrillic);
        for (up, low) in [
            ('A', 'a'),
            ('Z', 'z'),
            ('Ā', 'ā'),
            ('Č', 'č'),
            ('Ģ', 'ģ'),
            ('Ķ', 'ķ'),
            ('Ļ', 'ļ'),
            ('Ņ', 'ņ'),
            ('Š', 'š'),
            ('Ž', 'ž'),
            ('Ū', 'ū'),
            ('Ė', 'ė'),
            ('Ų', 'ų'),
            ('Õ', 'õ'),
            ('Ä', 'ä'),
            ('Ł', 'ł'),
            ('Ź', 'ź'),
            ('Ÿ', 'ÿ'),
        ] {
            assert_eq!(f(up), Some((low, l)), "{up}");
            assert_eq!(f(low), Some((low, l)), "{low}");
        }
        for (up, low) in [
            ('Я', 'я'),
            ('Ё', 'ё'),
            ('І', 'і'),
            ('Ў', 'ў'),
            ('Ґ', 'ґ'),
            ('Є', 'є'),
        ] {
            assert_eq!(f(up), Some((low, c)), "{up}");
            assert_eq!(f(low), Some((low, c)), "{low}");
        }
        for sep in [
            ' ', '1', '.', '-', '\'', '’', '×', '÷', '«', '\u{a0}', '\u{0}', '€',
        ] {
            assert_eq!(f(sep), None, "{sep:?}");
        }
        assert_eq!(f('語'), Some(('語', Script::Other)));
        assert_eq!(f('α'), Some(('α', Script::Other)));
    }

    #[test]
    fn a_word_gives_two_features_a_letter_and_two_at_its_end() {
        let mut n = 0;
        let mut letters = 0;
        let mut w = Walk::default();
        w.text(
            "Ab, cde!",
            |b| {
                assert!(b < BUCKETS);
                n += 1;
            },
            |_| letters += 1,
        );
        w.boundary(|_| n += 1);
        assert_eq!((letters, n), (5, 2 * 5 + 2 * 2));
        // Pieces cut at word boundaries count as the whole.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut w = Walk::default();
        w.text("vārds un ", |x| a.push(x), |_| ());
        w.text("otrs", |x| a.push(x), |_| ());
        w.boundary(|x| a.push(x));
        let mut w = Walk::default();
        w.text("vārds un otrs", |x| b.push(x), |_| ());
        w.boundary(|x| b.push(x));
        assert_eq!(a, b);
        // Bigrams and trigrams of the same letters fall apart.
        assert_ne!(
            trigram(SPACE, 'a' as u32, 'b' as u32),
            bigram('a' as u32, 'b' as u32)
        );
    }
}

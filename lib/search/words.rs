//! Words as the index sees them: UAX #29 word boundaries
//! (`unicode-segmentation`), lower-cased by Unicode's rules (so Ā Č Ē Ģ Ī
//! Ķ Ļ Ņ Š Ū Ž become ā č ē ģ ī ķ ļ ņ š ū ž), and, for the folded field,
//! without diacritics. The same function splits text for the index, for
//! queries and for concordances, so a hit is found where it was indexed.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_segmentation::UnicodeSegmentation;

/// Longest word indexed, in bytes: longer "words" (base64, a minified
/// script) are noise, and tantivy refuses terms above 64 KiB.
pub const MAX_WORD: usize = 100;

/// The name the exact tokenizer is registered under.
pub const EXACT: &str = "nlpc_words";
/// The name the diacritics-folding tokenizer is registered under.
pub const FOLDED: &str = "nlpc_folded";

/// One word of a text: where it is and its normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Byte range in the text (on char boundaries).
    pub start: usize,
    pub end: usize,
    /// Lower-cased, and folded if asked.
    pub norm: String,
}

/// The letter without its diacritic, for the Latin letters of Latvian,
/// Lithuanian and the Western European languages; other characters stay.
fn fold_char(c: char) -> char {
    match c {
        'ā' | 'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ą' | 'ă' => 'a',
        'č' | 'ç' | 'ć' => 'c',
        'ď' => 'd',
        'ē' | 'è' | 'é' | 'ê' | 'ë' | 'ė' | 'ę' | 'ě' => 'e',
        'ģ' | 'ğ' => 'g',
        'ī' | 'ì' | 'í' | 'î' | 'ï' | 'į' | 'ı' => 'i',
        'ķ' => 'k',
        'ļ' | 'ł' | 'ľ' | 'ĺ' => 'l',
        'ņ' | 'ñ' | 'ń' | 'ň' => 'n',
        'ō' | 'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ő' => 'o',
        'ŗ' | 'ř' | 'ŕ' => 'r',
        'š' | 'ś' | 'ş' => 's',
        'ť' | 'ţ' => 't',
        'ū' | 'ù' | 'ú' | 'û' | 'ü' | 'ų' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ž' | 'ź' | 'ż' => 'z',
        c => c,
    }
}

/// The normal form of one word: lower-cased, folded when `fold`.
pub fn normalise(w: &str, fold: bool) -> String {
    let lower = w.to_lowercase();
    if fold {
        lower.chars().map(fold_char).collect()
    } else {
        lower
    }
}

/// Calls `f` with each word of `text` in order; words longer than
/// [`MAX_WORD`] are skipped but keep their position, so phrases never
/// join across them.
pub fn each(text: &str, fold: bool, mut f: impl FnMut(usize, Word)) {
    for (pos, (start, w)) in text.unicode_word_indices().enumerate() {
        if w.len() > MAX_WORD {
            continue;
        }
        f(
            pos,
            Word {
                start,
                end: start + w.len(),
                norm: normalise(w, fold),
            },
        );
    }
}

/// The words of `text` with their positions.
pub fn split(text: &str, fold: bool) -> Vec<(usize, Word)> {
    let mut out = Vec::new();
    each(text, fold, |p, w| out.push((p, w)));
    out
}

/// The tokenizer registered in tantivy.
#[derive(Clone, Copy, Debug)]
pub struct Words {
    pub fold: bool,
}

/// Its token stream: the words of one text, split up front (texts are
/// bounded by the fetcher's size limit).
pub struct Stream {
    words: std::vec::IntoIter<(usize, Word)>,
    token: Token,
}

impl Tokenizer for Words {
    type TokenStream<'a> = Stream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Stream {
        Stream {
            words: split(text, self.fold).into_iter(),
            token: Token::default(),
        }
    }
}

impl TokenStream for Stream {
    fn advance(&mut self) -> bool {
        let Some((pos, w)) = self.words.next() else {
            return false;
        };
        self.token.offset_from = w.start;
        self.token.offset_to = w.end;
        self.token.position = pos;
        self.token.text = w.norm;
        self.token.position_length = 1;
        true
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latvian_letters_lower_and_fold() {
        let w: Vec<String> = split("ĀBOLS Čūska ĢĪĶĻŅ ŠŪŽ, e-pasts.", false)
            .into_iter()
            .map(|(_, w)| w.norm)
            .collect();
        assert_eq!(w, ["ābols", "čūska", "ģīķļņ", "šūž", "e", "pasts"]);
        assert_eq!(normalise("Zāle", true), "zale");
        assert_eq!(normalise("Zāle", false), "zāle");
    }

    #[test]
    fn long_words_are_skipped_and_keep_their_place() {
        let long = "x".repeat(MAX_WORD + 1);
        let w = split(&format!("a {long} b"), false);
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].0, w[1].0), (0, 2));
    }
}

//! What the one pass over a page's words leaves for after extraction: the
//! words of the main text that the dictionary counts, at their places in
//! the main text, so that its ratio (over the whole text, or over the
//! sample of a long one) needs no second cut of the text into words, and
//! only the words that ratio is over are looked up.

use std::ops::Range;

use crate::document::dict::{Dict, Ratio};
use crate::document::lang;
use crate::document::words::Kinds;

/// A word with a letter, as the segmenter found it: its bytes in its
/// block's text, then in the main text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    start: u32,
    end: u32,
    kinds: Kinds,
}

/// Notes word `w` of `text` (a slice of it), when it has a letter (the
/// only words the dictionary counts). A text past 4 GiB is not noted; its
/// main text then has no tally ([`Tally::push_block`]).
#[inline]
pub(crate) fn note(spans: &mut Vec<Span>, text: &str, w: &str, kinds: Kinds) {
    if !kinds.letter {
        return;
    }
    let Some(start) = (w.as_ptr() as usize).checked_sub(text.as_ptr() as usize) else {
        return;
    };
    let end = start.saturating_add(w.len());
    if let (Ok(s), Ok(e)) = (u32::try_from(start), u32::try_from(end)) {
        spans.push(Span {
            start: s,
            end: e,
            kinds,
        });
    }
}

/// The dictionary's words of a main text (`MainText::text()`), in order.
#[derive(Debug, Default)]
pub struct Tally {
    words: Vec<Span>,
    /// Bytes of the main text so far: each block and its newline.
    len: usize,
}

impl Tally {
    /// An empty tally with room for `words` words.
    pub(crate) fn with_capacity(words: usize) -> Tally {
        Tally {
            words: Vec::with_capacity(words),
            len: 0,
        }
    }

    /// Appends a block of `len` bytes whose words are `spans`; None when
    /// the main text would pass 4 GiB, where offsets are not kept.
    pub(crate) fn push_block(&mut self, len: usize, spans: &[Span]) -> Option<()> {
        let base = u32::try_from(self.len).ok()?;
        self.len = self.len.checked_add(len)?.checked_add(1)?;
        u32::try_from(self.len).ok()?;
        for s in spans {
            self.words.push(Span {
                start: base.checked_add(s.start)?,
                end: base.checked_add(s.end)?,
                kinds: s.kinds,
            });
        }
        Some(())
    }

    /// `dict.ratio(&lang::sample(text, cap))`, where `text` is the main
    /// text these words are of, from the words noted: those of each slice
    /// of the sample. A slice cut inside a word (text without spaces)
    /// reads other words than the text's there, and then the sample is
    /// read again, as is a text that is not the one noted.
    pub fn ratio(&self, dict: &Dict, text: &str, cap: usize) -> Ratio {
        let b = text.as_bytes();
        let slices: Vec<Range<usize>> = lang::slices(text, cap).collect();
        // ASCII white space always parts words (`words::words`), so a
        // slice with it (or an end) on both sides holds whole words, the
        // same as in the whole text.
        let whole = |r: &Range<usize>| {
            (r.start == 0 || b.get(r.start - 1).is_some_and(u8::is_ascii_whitespace))
                && b.get(r.end).is_none_or(u8::is_ascii_whitespace)
        };
        if text.len() != self.len || !slices.iter().all(whole) {
            return dict.ratio(&lang::sample(text, cap));
        }
        let mut r = Ratio::default();
        let mut lower = String::new();
        for s in slices {
            let first = self.words.partition_point(|w| (w.start as usize) < s.start);
            for w in &self.words[first..] {
                if w.end as usize > s.end {
                    break;
                }
                if let Some(word) = text.get(w.start as usize..w.end as usize) {
                    dict.count(word, w.kinds, &mut lower, &mut r);
                }
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::charset::Kind;
    use crate::document::extract::main_text_tallied;

    /// Pages of articles in several scripts, with menus and footers, some
    /// with paragraphs without spaces (where a sample's slice is cut
    /// inside a word) and with white space of every kind.
    fn pages() -> Vec<String> {
        let sentences = [
            "Rīga ir Latvijas galvaspilsēta, un caur to tek upe Daugava; pilsētā dzīvo gandrīz trešdaļa valsts iedzīvotāju.",
            "ŪDENS LĪMENIS Daugavā šopavasar cēlās ātrāk nekā citus gadus, don't e.g. 3.14 1,000 cafe\u{301} a_b.",
            "Москва — столица России; «ёлка» и Ёж, Ελλάδα ΣΊΣΥΦΟΣ, İstanbul ẞ ǅ K ﬃ.",
            "The river\u{a0}town rebuilt its old wooden bridge\u{2003}after the spring flood of 1918.",
            "日本語のテキストと中文の文章が続きます日本語のテキストと中文の文章が続きます",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for n in [1usize, 3, 10, 40, 200, 600] {
            for variant in 0..4 {
                let mut p = String::from(
                    "<html><head><title>Ziņas</title></head><body><nav><a href=/>Sākums</a> \
                     <a href=/x>Home</a></nav><article><h1>Jaunākās ziņas</h1>",
                );
                for _ in 0..n {
                    p.push_str("<p>");
                    for _ in 0..1 + next() % 6 {
                        let k = next() as usize % sentences.len();
                        // Variant 0 has Latin-script prose only.
                        let k = if variant == 0 { k % 4 } else { k };
                        p.push_str(sentences[k]);
                        p.push_str(if variant == 3 { "\n\t " } else { " " });
                    }
                    p.push_str("</p>\n");
                }
                p.push_str(
                    "</article><footer>© Ziņas, visas tiesības aizsargātas</footer></body></html>",
                );
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn the_tally_gives_the_ratio_of_the_sample() {
        let d = Dict::from_bytes(
            "rīga\nir\nlatvijas\ngalvaspilsēta\nun\nupe\ndaugava\nthe\nriver\nūdens\nмосква\nёлка\nİstanbul\ndon't\n"
                .into(),
        )
        .unwrap();
        let mut slices_cut_in_words = 0;
        let mut sampled = 0;
        let mut with_main = 0;
        for p in pages() {
            let (main, tally) = main_text_tallied(&p, Kind::Html, &mut ());
            let tally = tally.unwrap();
            let text = main.text();
            if main.blocks.is_empty() {
                continue;
            }
            with_main += 1;
            for cap in [0usize, 64, 300, 1000, 4096, 16 * 1024] {
                let want = d.ratio(&lang::sample(&text, cap));
                assert_eq!(tally.ratio(&d, &text, cap), want, "cap {cap}");
                let b = text.as_bytes();
                let slices: Vec<_> = lang::slices(&text, cap).collect();
                sampled += usize::from(slices.len() > 1);
                slices_cut_in_words += usize::from(slices.iter().any(|r| {
                    r.start > 0 && !b[r.start - 1].is_ascii_whitespace()
                        || r.end < b.len() && !b[r.end].is_ascii_whitespace()
                }));
            }
            // A text that is not the main text noted is read itself.
            let other = "Rīga ir upe.";
            assert_eq!(tally.ratio(&d, other, 0), d.ratio(other));
        }
        assert!(with_main >= 12, "{with_main}");
        // Both ways of counting were taken.
        assert!(sampled > 20, "{sampled}");
        assert!(slices_cut_in_words > 0);
        // Plain text has no tally.
        assert!(main_text_tallied("Rīga ir.", Kind::Plain, &mut ())
            .1
            .is_none());
    }
}

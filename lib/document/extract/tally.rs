//! What the one pass over a page's words leaves for after extraction: the
//! words of the main text that the dictionary counts, at their places in
//! the main text, so that its ratio (over the whole text, or over the
//! sample of a long one) needs no second cut of the text into words, and
//! only the words that ratio is over are looked up; and the words of the
//! main text's shingles, so that its fingerprint needs no second pass
//! over its letters either.

use std::ops::Range;

use crate::document::dict::{Dict, Ratio};
use crate::document::fingerprint::Fingerprint;
use crate::document::lang;
use crate::document::words::Kinds;

/// The words of every block of a page, as the pass over them notes them.
#[derive(Debug, Default)]
pub(crate) struct Noted {
    /// Words with a letter ([`note`]).
    pub(crate) letters: Vec<Span>,
    /// The shingles' words (`words::words_hashed`).
    pub(crate) hashes: Vec<u64>,
}

thread_local! {
    /// The lists of the last page read on this thread, for the next: a
    /// large page's are megabytes, and allocated afresh for each page
    /// glibc hands them back to the kernel and faults them in again,
    /// which costs more than filling them.
    static SPARE: std::cell::Cell<Option<Noted>> = const { std::cell::Cell::new(None) };
}

/// Lists longer than this (those of a page of more than about 4 MB) are
/// not kept for the next page: a thread holds at most about 10 MB.
const KEEP: usize = 1 << 19;

impl Noted {
    /// Empty lists with room for `words` words each.
    pub(crate) fn with_capacity(words: usize) -> Noted {
        let mut n = SPARE.with(std::cell::Cell::take).unwrap_or_default();
        n.letters.clear();
        n.hashes.clear();
        n.letters.reserve(words);
        n.hashes.reserve(words);
        n
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        let n = std::mem::take(&mut self.noted);
        if n.letters.capacity() <= KEEP && n.hashes.capacity() <= KEEP {
            SPARE.with(|s| s.set(Some(n)));
        }
    }
}

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

/// The dictionary's words of a main text (`MainText::text()`), in order,
/// and its shingles'.
#[derive(Debug, Default)]
pub struct Tally {
    /// The words of every block of the page, at their places in their
    /// block: those of the main text's blocks are found from `blocks`,
    /// and only those a ratio reads are placed in the main text.
    noted: Noted,
    blocks: Vec<Block>,
    /// Bytes of the main text so far: each block and its newline.
    len: usize,
}

/// A block of the main text.
#[derive(Debug)]
struct Block {
    /// Where it starts in the main text, and its bytes.
    at: usize,
    len: usize,
    /// Its words in `Noted::letters`, and its shingles' words in
    /// `Noted::hashes`.
    letters: Range<usize>,
    hashes: Range<usize>,
    /// Whether it is normalised for the text hash.
    normal: bool,
}

impl Tally {
    /// An empty tally over the words `noted` of a page's blocks.
    pub(crate) fn new(noted: Noted) -> Tally {
        Tally {
            noted,
            blocks: Vec::new(),
            len: 0,
        }
    }

    /// Appends a block of `len` bytes, normalised for the text hash or
    /// not, whose words are `letters` and `hashes` of the words noted;
    /// None when the main text would pass 4 GiB, where offsets are not
    /// kept, or the ranges are not in what was noted.
    pub(crate) fn push_block(
        &mut self,
        len: usize,
        normal: bool,
        letters: &Range<usize>,
        hashes: &Range<usize>,
    ) -> Option<()> {
        let at = self.len;
        self.len = self.len.checked_add(len)?.checked_add(1)?;
        u32::try_from(self.len).ok()?;
        self.noted.hashes.get(hashes.clone())?;
        self.noted.letters.get(letters.clone())?;
        self.blocks.push(Block {
            at,
            len,
            letters: letters.clone(),
            hashes: hashes.clone(),
            normal,
        });
        Some(())
    }

    /// `Fingerprint::of(text)`, where `text` is the main text these words
    /// are of: its MinHash from the words noted, its text hash read from
    /// it. A text that is not the one noted is read itself.
    pub fn fingerprint(&self, text: &str) -> Fingerprint {
        let b = text.as_bytes();
        let mut blocks = Vec::with_capacity(self.blocks.len());
        let mut at = 0usize;
        for &Block { len, normal, .. } in &self.blocks {
            let end = at.saturating_add(len);
            match text.get(at..end) {
                Some(block) if b.get(end) == Some(&b'\n') => blocks.push((block, normal)),
                _ => return Fingerprint::of(text),
            }
            at = end + 1;
        }
        if at != text.len() {
            return Fingerprint::of(text);
        }
        let hashes = self.blocks.iter().flat_map(|b| {
            let h = self.noted.hashes.get(b.hashes.clone());
            h.unwrap_or_default().iter().copied()
        });
        Fingerprint::of_blocks(blocks, text.len(), hashes)
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
            // The words from the first that starts in the slice, in
            // order, to the first that ends past it. Blocks that end
            // before the slice hold none of them.
            let first = self.blocks.partition_point(|b| b.at + b.len < s.start);
            'slice: for b in self.blocks.get(first..).unwrap_or_default() {
                let spans = self
                    .noted
                    .letters
                    .get(b.letters.clone())
                    .unwrap_or_default();
                let skip = if b.at < s.start {
                    spans.partition_point(|w| b.at + (w.start as usize) < s.start)
                } else {
                    0
                };
                for w in spans.get(skip..).unwrap_or_default() {
                    let (start, end) = (b.at + w.start as usize, b.at + w.end as usize);
                    if end > s.end {
                        break 'slice;
                    }
                    if let Some(word) = text.get(start..end) {
                        dict.count(word, w.kinds, &mut lower, &mut r);
                    }
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
    use crate::document::xorshift::xorshift;

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
            x = xorshift(x);
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

    /// Pages whose paragraphs hold white space the text hash weighs
    /// (no-break spaces, line tabulations, ideographic spaces, and
    /// paragraphs of nothing else), NUL and other controls, replacement
    /// characters, marks and long runs, between sentences of prose.
    fn hostile_pages() -> Vec<String> {
        let bits = [
            "Rīga ir Latvijas galvaspilsēta, un caur to tek upe Daugava.",
            "don't e.g. 3.14 1,000 cafe\u{301} a_b «ūdens» – «līmenis» …",
            "&nbsp;",
            "a&nbsp;b",
            "\u{a0}",
            "\u{b}",
            "x\u{b}y",
            "\u{3000}",
            "\u{2003}z",
            "\u{85}",
            "\u{0}",
            "&#0;",
            "\u{fffd}",
            "\u{1}\u{1f}\u{7f}",
            "İSTANBUL Ǆ ẞ ﬃ",
            "1918 2024",
            "語日本語",
            "\u{345}\u{301}",
            "<br>",
            "<br><br>",
            "<a href=/x>saite</a>",
        ];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x = xorshift(x);
            x
        };
        let mut out = Vec::new();
        for round in 0..300 {
            let mut p = String::from("<html><body><article><h1>Ziņas</h1>");
            for _ in 0..1 + next() % 30 {
                p.push_str("<p>");
                for _ in 0..next() % 12 {
                    let r = next();
                    // Mostly prose, so that there is main text.
                    let bit = if r % 3 == 0 {
                        bits[0]
                    } else {
                        bits[(r >> 8) as usize % bits.len()]
                    };
                    p.push_str(bit);
                    p.push_str([" ", "", "\n", "  ", "\t"][(r >> 40) as usize % 5]);
                }
                if round % 10 == 0 {
                    p.push_str(&"ā".repeat(20_000));
                }
                p.push_str("</p>\n");
            }
            p.push_str("</article></body></html>");
            out.push(p);
        }
        out
    }

    #[test]
    fn the_tally_gives_the_fingerprint_of_the_main_text() {
        let mut with_main = 0;
        let mut not_normal = 0;
        for p in pages().into_iter().chain(hostile_pages()) {
            let (main, tally) = main_text_tallied(&p, Kind::Html, &mut ());
            let tally = tally.unwrap();
            if main.blocks.is_empty() {
                continue;
            }
            with_main += 1;
            let text = main.text();
            assert_eq!(tally.fingerprint(&text), Fingerprint::of(&text), "{text:?}");
            not_normal += usize::from(tally.blocks.iter().any(|b| !b.normal));
            // A text that is not the main text noted is read itself.
            let cut = text.strip_suffix('\n').unwrap_or_default();
            for other in ["Rīga ir upe.", cut, &format!("{text} ")] {
                assert_eq!(tally.fingerprint(other), Fingerprint::of(other));
            }
        }
        assert!(with_main > 250, "{with_main}");
        // Blocks not normalised were among them.
        assert!(not_normal > 50, "{not_normal}");
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

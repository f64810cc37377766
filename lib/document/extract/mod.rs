//! Main text: the title, headings, paragraphs and list items of a page's
//! article, without its menus, footers, banners and link lists.
//!
//! The method is the paragraph classifier of the corpus builders: cut the
//! page into blocks at block-level tags ([`blocks`]), judge each block by
//! itself (its length, the share of it that is link text, the share of
//! its words that are stop words of the page's language or whether it
//! reads as sentences, and what the markup says of its region), then
//! judge the short and the doubtful blocks by their neighbours, since a
//! short line between two paragraphs of an article belongs to it and one
//! amid a menu does not. Text in `<nav>`, `<footer>`, `<aside>`, a page's
//! `<header>`, a comments section or an element named a footer is never
//! main text; text in an element whose class or id names a menu or a
//! sidebar is not, unless most of that element is prose and the page has
//! no headline with its article elsewhere. Then the page as a whole
//! ([`region`]): a listing's teasers are not its text, the text under the
//! headline that repeats the `<title>` is, and the element holding most of
//! the good text is the article's, the rest of the page not.
//!
//! Measured against human-marked text (scripts/bench/extract, its report
//! half; figures in doc/BENCHMARKS.md) it extracts better than
//! trafilatura and jusText on each set.

pub mod blocks;
mod region;
pub mod stop;
pub mod tally;

use crate::document::charset::Kind as DocKind;
use crate::document::markup::{Mode, Sink};
use crate::document::words;
use blocks::{flag, Raw};
use rustc_hash::FxHashMap;
use tally::{Noted, Tally};

/// What a block of main text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Heading,
    Paragraph,
    ListItem,
}

/// A block of main text: white space collapsed, never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub text: String,
}

/// A page's main text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainText {
    /// The `<title>`, white space collapsed; empty when there is none.
    pub title: String,
    /// The article's blocks in document order; empty when the page has
    /// no main text (a menu, a gallery, a form).
    pub blocks: Vec<Block>,
}

impl MainText {
    /// The blocks, one a line.
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(self.blocks.iter().map(|b| b.text.len() + 1).sum());
        for b in &self.blocks {
            s.push_str(&b.text);
            s.push('\n');
        }
        s
    }
}

/// Blocks shorter than this (in characters) are short: too little text
/// to judge alone.
const LENGTH_LOW: usize = 70;
/// Blocks longer than this with prose's share of stop words are good.
const LENGTH_HIGH: usize = 200;
/// More link text than this share makes a block a link list.
const MAX_LINK: f64 = 0.3;
/// A run of at least this many near-good blocks, with at least this many
/// characters between them, is prose.
const RUN_BLOCKS: usize = 2;
const RUN_CHARS: usize = 300;
/// A region named as boilerplate whose good prose is at least this many
/// tenths of its text is not boilerplate.
const PROSE_TENTHS: usize = 4;
/// The least percentage of a page's words that must be on a stop-word
/// list for the list to be the page's.
const LANG_MIN_PERCENT: usize = 12;
/// The blocks reading as prose in a list's language must hold at least
/// one in this many of the asked text's characters for it to be the
/// page's list.
const VOTE_SHARE_DIV: usize = 4;
/// A heading is kept when a good block follows within this many
/// characters.
const HEADING_REACH: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Bad,
    Short,
    NearGood,
    Good,
}

/// A block with what the classifier measured.
struct Judged {
    raw: Raw,
    words: usize,
    /// Stop words per language of [`stop::LANGS`].
    stops: [u16; stop::LANGS.len()],
    class: Class,
    /// The class before neighbours were asked.
    alone: Class,
    /// Its words with a letter, and its shingles' words, in the page's
    /// lists of them, when they are kept.
    letters: std::ops::Range<usize>,
    hashes: std::ops::Range<usize>,
    /// Its text is normalised for the text hash (`words::words_hashed`);
    /// false when not known.
    normal: bool,
    /// A teaser of a listing ([`region::teasers`]): not the page's text.
    listed: bool,
}

fn measure(raw: Raw, noted: Option<&mut Noted>) -> Judged {
    let mut n = 0usize;
    let mut stops = [0u16; stop::LANGS.len()];
    let text = raw.text.as_str();
    let mut stop_words = |w: &str, kinds| {
        n += 1;
        let bits = stop::langs_of_in(text, w, kinds);
        if bits == 0 {
            return;
        }
        for (i, s) in stops.iter_mut().enumerate() {
            if bits & (1 << i) != 0 {
                *s = s.saturating_add(1);
            }
        }
    };
    let (letters, hashes, normal) = match noted {
        // The dictionary's words and the shingles', noted in the same
        // pass over the words for after the main text is known.
        Some(Noted { letters, hashes }) => {
            let from = (letters.len(), hashes.len());
            let normal = words::words_hashed(
                text,
                |w, kinds| {
                    tally::note(letters, text, w, kinds);
                    stop_words(w, kinds);
                },
                |h| hashes.push(h),
            );
            (from.0..letters.len(), from.1..hashes.len(), normal)
        }
        None => {
            words::words(text, stop_words);
            (0..0, 0..0, false)
        }
    };
    Judged {
        raw,
        words: n,
        stops,
        class: Class::Bad,
        alone: Class::Bad,
        letters,
        hashes,
        normal,
        listed: false,
    }
}

/// Judges a block by itself, with stop words of language `lang` (None:
/// no list fits the page, and length alone speaks).
fn alone(b: &Judged, lang: Option<usize>, named_is_boiler: bool) -> Class {
    let r = &b.raw;
    if r.link_chars as f64 > r.chars as f64 * MAX_LINK {
        return Class::Bad;
    }
    if r.text.contains('©') {
        return Class::Bad;
    }
    // The share of stop words, and the shares that make prose and near
    // prose (stop::SHARES); with no list for the page, length decides.
    let (stop, high, low) = match lang {
        Some(l) if b.words > 0 => (
            f64::from(b.stops[l]) / b.words as f64,
            stop::SHARES[l].0,
            stop::SHARES[l].1,
        ),
        Some(l) => (0.0, stop::SHARES[l].0, stop::SHARES[l].1),
        None => (1.0, 0.0, 0.0),
    };
    let boiler = flag::BOILER | if named_is_boiler { flag::NAMED } else { 0 };
    if r.flags & boiler != 0 {
        return Class::Bad;
    }
    if r.chars < LENGTH_LOW {
        return if r.link_chars > 0 {
            Class::Bad
        } else {
            Class::Short
        };
    }
    if stop >= high {
        if r.chars > LENGTH_HIGH {
            Class::Good
        } else {
            Class::NearGood
        }
    } else if stop >= low || (!foreign(b, lang) && sentences(&r.text, b.words, SENTENCE_WORDS)) {
        Class::NearGood
    } else {
        Class::Bad
    }
}

/// True when `b` reads as prose in the language of another list than the
/// page's: its sentences are not the page's text, however well formed (an
/// English cookie notice on a Latvian page).
fn foreign(b: &Judged, lang: Option<usize>) -> bool {
    let Some(l) = lang else {
        return false;
    };
    b.words > 0
        && (0..stop::LANGS.len())
            .any(|o| o != l && f64::from(b.stops[o]) >= b.words as f64 * stop::SHARES[o].1)
}

/// Words a block needs to read as sentences when its stop words do not
/// say it is prose.
const SENTENCE_WORDS: usize = 10;
/// Words a short block needs to read as a sentence under a headline.
const SHORT_SENTENCE_WORDS: usize = 4;
/// Words a short block needs to read as a sentence on a page with nothing
/// longer: "Zāle aug." is a page's text when it is all the page says.
const LONE_SENTENCE_WORDS: usize = 2;

/// Whether a block reads as written sentences: at least `min_words`
/// words, starting with a capital letter (or a digit or a quotation mark)
/// and ending with a full stop, a question or an exclamation mark after a
/// letter. Menus, link lists, bylines and captions do not; prose in a
/// language whose function words are few (an inflected one) or whose
/// list is not kept does.
fn sentences(text: &str, words: usize, min_words: usize) -> bool {
    if words < min_words {
        return false;
    }
    let Some(first) = text.chars().find(|c| !c.is_whitespace()) else {
        return false;
    };
    if !(first.is_uppercase() || first.is_ascii_digit() || matches!(first, '"' | '„' | '“' | '«'))
    {
        return false;
    }
    let mut end = text.trim_end().chars().rev();
    let mut last = end.next();
    while matches!(last, Some('"' | '”' | '»' | ')' | '\'' | '’')) {
        last = end.next();
    }
    matches!(last, Some('.' | '!' | '?' | '…')) && end.next().is_some_and(char::is_alphanumeric)
}

/// For each block, the class of the nearest block before it and after it
/// that is not short (nor near-good, when `skip_near`); the page's edges
/// are bad. One pass each way, so that a page of a great many short blocks
/// costs no more than their number.
struct Neighbours {
    before: Vec<Class>,
    after: Vec<Class>,
}

fn neighbours(js: &[Judged], skip_near: bool) -> Neighbours {
    let counts = |c: Class| !(c == Class::Short || (skip_near && c == Class::NearGood));
    let mut before = Vec::with_capacity(js.len());
    let mut last = Class::Bad;
    for j in js {
        before.push(last);
        if counts(j.class) {
            last = j.class;
        }
    }
    let mut after = vec![Class::Bad; js.len()];
    let mut last = Class::Bad;
    for (k, j) in js.iter().enumerate().rev() {
        after[k] = last;
        if counts(j.class) {
            last = j.class;
        }
    }
    Neighbours { before, after }
}

fn classify(js: &mut [Judged], lang: Option<usize>) {
    // A region named as boilerplate is, unless good prose is most of it.
    let mut regions: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
    for j in js.iter() {
        if j.raw.region != 0 {
            let e = regions.entry(j.raw.region).or_default();
            e.1 += j.raw.chars;
            if alone(j, lang, false) == Class::Good {
                e.0 += j.raw.chars;
            }
        }
    }
    for j in js.iter_mut() {
        let prose = regions
            .get(&j.raw.region)
            .is_some_and(|&(good, all)| good * 10 >= all * PROSE_TENTHS);
        j.alone = alone(j, lang, !prose);
        j.class = j.alone;
    }
    // Prose cut into short paragraphs (news agencies write a sentence a
    // paragraph) is a run of near-good blocks with nothing bad between:
    // such a run is good.
    let mut i = 0;
    while i < js.len() {
        let end = js[i..]
            .iter()
            .position(|j| j.class == Class::Bad)
            .map_or(js.len(), |k| i + k);
        let near: Vec<usize> = (i..end)
            .filter(|&k| js[k].class == Class::NearGood)
            .collect();
        let chars: usize = near.iter().map(|&k| js[k].raw.chars).sum();
        if near.len() >= RUN_BLOCKS && chars >= RUN_CHARS {
            for k in near {
                js[k].class = Class::Good;
            }
        }
        i = end + 1;
    }
    // A page with no good block but near-good ones: the longest of these
    // is its text. A page of short sentences alone (a notice, a one-line
    // post) has those for its text.
    if !js.iter().any(|j| j.class == Class::Good) {
        if let Some(best) = js
            .iter_mut()
            .filter(|j| j.class == Class::NearGood)
            .max_by_key(|j| j.raw.chars)
        {
            best.class = Class::Good;
        } else {
            for j in js.iter_mut() {
                if j.class == Class::Short
                    && j.raw.link_chars == 0
                    && sentences(&j.raw.text, j.words, LONE_SENTENCE_WORDS)
                {
                    j.class = Class::Good;
                }
            }
        }
    }
    // A short heading right before good text is near-good.
    for i in 0..js.len() {
        if js[i].raw.flags & flag::HEADING != 0
            && js[i].class == Class::Short
            && good_follows(js, i)
        {
            js[i].class = Class::NearGood;
        }
    }
    // Short blocks take the class of their neighbours; between good and
    // bad, near-good text on the bad side tips it to good.
    let before: Vec<Class> = js.iter().map(|j| j.class).collect();
    let far = neighbours(js, true);
    let near = neighbours(js, false);
    let mut new = before.clone();
    for i in 0..js.len() {
        if before[i] != Class::Short {
            continue;
        }
        let (p, n) = (far.before[i], far.after[i]);
        new[i] = match (p, n) {
            (Class::Good, Class::Good) => Class::Good,
            (Class::Bad, Class::Bad) => Class::Bad,
            _ => {
                if (p == Class::Bad && near.before[i] == Class::NearGood)
                    || (n == Class::Bad && near.after[i] == Class::NearGood)
                {
                    Class::Good
                } else {
                    Class::Bad
                }
            }
        };
    }
    for (j, c) in js.iter_mut().zip(&new) {
        j.class = *c;
    }
    // Near-good blocks are good unless bad text is on both sides.
    let mut new: Vec<Class> = js.iter().map(|j| j.class).collect();
    let far = neighbours(js, true);
    for i in 0..js.len() {
        if js[i].class != Class::NearGood {
            continue;
        }
        new[i] = if far.before[i] == Class::Bad && far.after[i] == Class::Bad {
            Class::Bad
        } else {
            Class::Good
        };
    }
    for (j, c) in js.iter_mut().zip(&new) {
        j.class = *c;
    }
    // A heading not judged bad for its own sake, before good text, is the
    // text's heading.
    for i in 0..js.len() {
        if js[i].raw.flags & flag::HEADING != 0
            && js[i].class == Class::Bad
            && js[i].alone != Class::Bad
            && good_follows(js, i)
        {
            js[i].class = Class::Good;
        }
    }
}

/// A good block follows block `i` within [`HEADING_REACH`] characters.
fn good_follows(js: &[Judged], i: usize) -> bool {
    let mut dist = 0;
    for j in &js[i + 1..] {
        if j.class == Class::Good {
            return true;
        }
        dist += j.raw.chars;
        if dist > HEADING_REACH {
            return false;
        }
    }
    false
}

/// The list of the page's language: each block votes with its characters
/// for the list whose stop words it holds most of, when they make it read
/// as prose in that language (the near-prose share of [`stop::SHARES`]),
/// and the list with the most characters wins if they are at least a
/// [`VOTE_SHARE_DIV`]th of the text, so the language of most of the text
/// decides, not the
/// one richest in stop words (English packs more into a cookie notice
/// than Latvian into an article twice its length). With no vote, the
/// list whose stop words the text holds most of, when they are at least
/// [`LANG_MIN_PERCENT`] of its words; None when no list fits (a Spanish
/// page holds some Hungarian "a" and "el", but far fewer than a Hungarian
/// page does). Text in boilerplate regions and link lists is not asked,
/// where there is other text: a Latvian article in an English cookie
/// banner and footer is Latvian.
fn language(js: &[Judged]) -> Option<usize> {
    let plain = |j: &&Judged| {
        j.raw.flags & flag::BOILER == 0 && j.raw.link_chars as f64 <= j.raw.chars as f64 * MAX_LINK
    };
    let asked: Vec<&Judged> = if js.iter().any(|j| plain(&j) && j.words > 0) {
        js.iter().filter(plain).collect()
    } else {
        js.iter().collect()
    };
    let mut votes = [0usize; stop::LANGS.len()];
    for j in &asked {
        let (l, n) = (0..stop::LANGS.len())
            .map(|l| (l, usize::from(j.stops[l])))
            .fold((0, 0), |a, b| if b.1 > a.1 { b } else { a });
        // A block votes for the list it reads as prose in, not for one
        // whose few common words it happens to share (a Spanish "a", a
        // Lithuanian "ir").
        if n > 0 && n as f64 >= j.words as f64 * stop::SHARES[l].1 {
            votes[l] += j.raw.chars;
        }
    }
    // The winner must hold a good part of the text: a menu's "About us"
    // does not make a Swedish page English.
    let asked_chars: usize = asked.iter().map(|j| j.raw.chars).sum();
    if let Some((l, _)) = votes
        .iter()
        .enumerate()
        .filter(|v| *v.1 > 0 && *v.1 * VOTE_SHARE_DIV >= asked_chars)
        .max_by_key(|v| *v.1)
    {
        return Some(l);
    }
    let total: usize = asked.iter().map(|j| j.words).sum();
    let mut best = None;
    let mut most = 0usize;
    for l in 0..stop::LANGS.len() {
        let n: usize = asked.iter().map(|j| usize::from(j.stops[l])).sum();
        if n > most {
            most = n;
            best = Some(l);
        }
    }
    best.filter(|_| most * 100 >= total * LANG_MIN_PERCENT)
}

/// The page's title and its blocks judged; with `noted`, the words of
/// every block the dictionary counts and the shingles' are noted there.
fn judge<S: Sink>(
    doc: &str,
    mode: Mode,
    also: &mut S,
    mut noted: Option<&mut Noted>,
) -> (String, Vec<Judged>) {
    let seg = blocks::segment_with(doc, mode, also);
    let mut js: Vec<Judged> = seg
        .blocks
        .into_iter()
        .filter(|r| r.flags & flag::HIDDEN == 0)
        .map(|r| measure(r, noted.as_deref_mut()))
        .collect();
    let lang = language(&js);
    classify(&mut js, lang);
    region::teasers(&mut js);
    let headline = region::headline(&mut js, &seg.title);
    region::focus(&mut js, &seg.elems, headline);
    (seg.title, js)
}

/// Every block of an HTML page with its classes alone and in context, its
/// flags, link characters and stop-word counts: for tuning (the bench's
/// --explain).
#[doc(hidden)]
pub fn explain(doc: &str) -> Vec<String> {
    let (_, js) = judge(doc, Mode::Html, &mut (), None);
    js.iter()
        .map(|j| {
            format!(
                "{:?}/{:?} f{:#x} c{} l{} w{} s{:?} | {}",
                j.class,
                j.alone,
                j.raw.flags,
                j.raw.chars,
                j.raw.link_chars,
                j.words,
                j.stops,
                j.raw.text
            )
        })
        .collect()
}

/// The main text of decoded document `doc` of kind `kind`.
pub fn main_text(doc: &str, kind: DocKind) -> MainText {
    main_text_with(doc, kind, &mut ())
}

/// [`main_text`], with `also` fed by the same tokenizer pass, so that a
/// caller who needs another reading of the page (nlpc-vrfy: its meta
/// robots) tokenizes it once; plain text, which is not tokenized, is
/// given to `also` as one text.
pub fn main_text_with<S: Sink>(doc: &str, kind: DocKind, also: &mut S) -> MainText {
    tallied(doc, kind, also, false).0
}

/// [`main_text_with`], and the words of the main text the dictionary
/// counts and the shingles', noted in the pass that reads the blocks'
/// words for their stop words: [`Tally::ratio`] gives the dictionary's
/// ratio over the main text, or over its sample, and [`Tally::fingerprint`]
/// its fingerprint, without a second pass. None for plain text, which is
/// not read that way.
pub fn main_text_tallied<S: Sink>(
    doc: &str,
    kind: DocKind,
    also: &mut S,
) -> (MainText, Option<Tally>) {
    tallied(doc, kind, also, true)
}

/// The main text; with `tally`, the dictionary's words of it.
fn tallied<S: Sink>(
    doc: &str,
    kind: DocKind,
    also: &mut S,
    tally: bool,
) -> (MainText, Option<Tally>) {
    let mode = match kind {
        DocKind::Html => Mode::Html,
        DocKind::Xhtml => Mode::Xhtml,
        DocKind::Xml => Mode::Xml,
        DocKind::Plain => {
            also.text(doc.as_bytes());
            return (plain(doc), None);
        }
    };
    // Room for a word in every eight bytes of the page, more than its
    // text holds: the lists are not grown (and copied) a dozen times.
    let mut noted = Noted::with_capacity(if tally { doc.len() / 8 } else { 0 });
    let (title, js) = judge(doc, mode, also, tally.then_some(&mut noted));
    let mut t = tally.then(|| Tally::new(noted));
    let blocks = js
        .into_iter()
        .filter(|j| j.class == Class::Good)
        .map(|j| {
            if let Some(tl) = t.as_mut() {
                if tl
                    .push_block(j.raw.text.len(), j.normal, &j.letters, &j.hashes)
                    .is_none()
                {
                    t = None;
                }
            }
            Block {
                kind: if j.raw.flags & flag::HEADING != 0 {
                    BlockKind::Heading
                } else if j.raw.flags & flag::LIST != 0 {
                    BlockKind::ListItem
                } else {
                    BlockKind::Paragraph
                },
                text: j.raw.text,
            }
        })
        .collect();
    (MainText { title, blocks }, t)
}

/// Plain text: its paragraphs, as blank lines part them.
fn plain(doc: &str) -> MainText {
    let mut blocks = Vec::new();
    for para in doc.split("\n\n").flat_map(|p| p.split("\r\n\r\n")) {
        let text = para.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            blocks.push(Block {
                kind: BlockKind::Paragraph,
                text,
            });
        }
    }
    MainText {
        title: String::new(),
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::dict::Dict;

    #[test]
    fn the_count_in_the_extraction_pass_is_the_ratio_of_the_main_text() {
        let d = Dict::from_bytes(
            "rīga\nir\nlatvijas\ngalvaspilsēta\nun\nupe\ndaugava\nthe\nriver\n".into(),
        )
        .unwrap();
        let mut pages = vec![
            "<html><head><title>Rīga</title></head><body><nav><a href=/>Home</a> \
             <a href=/x>Rīga</a></nav><article><h1>RĪGA IR LATVIJAS GALVASPILSĒTA</h1>\
             <p>Rīga ir Latvijas galvaspilsēta, un caur to tek upe Daugava; \
             pilsētā dzīvo gandrīz trešdaļa valsts iedzīvotāju, kopš 1201. gada.</p>\
             <p>Daugava (the river) ir 1005 km gara, don't 語 日本 cafe\u{301} \
             a.b 3.14 Ελλάδα ÜBER-straße, un tā ietek Rīgas jūras līcī pie Daugavgrīvas.</p>\
             <ul><li>Upe Daugava ir Latvijas lielākā upe, tās baseins aizņem lielu daļu \
             valsts, un pie tās atrodas daudzas pilsētas.</li></ul></article>\
             <footer>© Rīga</footer></body></html>"
                .to_string(),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy");
        for f in ["lv-daugava-utf8.html", "lv-riga-english-menu.html"] {
            pages.push(std::fs::read_to_string(dir.join(f)).unwrap());
        }
        for p in &pages {
            let (main, tally) = main_text_tallied(p, DocKind::Html, &mut ());
            assert_eq!(main, main_text(p, DocKind::Html));
            assert!(!main.blocks.is_empty());
            let r = tally.unwrap().ratio(&d, &main.text(), 0);
            assert_eq!(r, d.ratio(&main.text()));
            assert!(r.found > 0 && r.found < r.words, "{r:?}");
        }
        // Plain text is not read word by word.
        assert!(main_text_tallied("Rīga ir.", DocKind::Plain, &mut ())
            .1
            .is_none());
    }
}

//! Segmentation: one tokenizer pass cuts the page into blocks at
//! block-level tags (and at a double `<br>`), and notes for each what the
//! classifier weighs: its text, how much of it is link text, whether it is
//! a heading or a list item, and whether it sits in a region the markup
//! calls boilerplate (`<nav>`, `<footer>`, `<aside>`, a page `<header>`, or
//! a class or id such as "menu", "sidebar", "cookie").
//!
//! The tokenizer builds no tree, so open elements are kept on a small stack
//! the way a browser mostly would: an end tag closes everything opened
//! after its start tag; an end tag with no open start tag is ignored.

use crate::document::markup::{self, Mode, Sink};
use crate::document::swar::{collapsed, continuations, word_at};
use crate::document::text;

/// Deepest element stack kept; deeper elements are read as text of their
/// parent, which bounds memory on hostile markup.
const MAX_DEPTH: usize = 256;

/// What the markup around a block says about it.
pub mod flag {
    /// Inside a heading, `<h1>` to `<h6>`.
    pub const HEADING: u16 = 1;
    /// Inside a list item (or a definition list's term or description).
    pub const LIST: u16 = 1 << 1;
    /// Inside a navigation, footer, aside or page header, or an element
    /// whose class or id names boilerplate.
    pub const BOILER: u16 = 1 << 2;
    /// Inside `<article>` or `<main>`.
    pub const ARTICLE: u16 = 1 << 3;
    /// Never shown: script, style, `hidden`, `display:none`, and form
    /// controls, whose text is not prose.
    pub const HIDDEN: u16 = 1 << 4;
    /// Inside `<title>` in the head.
    pub const TITLE: u16 = 1 << 5;
    /// Inside a link.
    pub const LINK: u16 = 1 << 6;
    /// Inside `<head>`.
    pub const HEAD: u16 = 1 << 7;
    /// Inside an element whose class or id names a menu, a sidebar or the
    /// like: boilerplate, unless the region turns out to hold the prose
    /// (pages name wrappers "content-sidebar" or "menu-open").
    pub const NAMED: u16 = 1 << 8;
}

/// Most elements given an [`Elem`] of their own; the text of elements
/// past this is counted as their parent's, which bounds memory on a page
/// of millions of tags.
const MAX_ELEMS: usize = 1 << 20;

/// What a class, id or itemprop says of an element: that it holds a
/// page's article text ("article-body", "entry-content",
/// itemprop="articleBody"). Only a hint: the text in it is judged as
/// anywhere else.
pub const HINT_CONTENT: u8 = 1;
/// An `<article>` or `<main>` element.
pub const HINT_ARTICLE: u8 = 1 << 1;

/// An element of the page, as far as the choice of the region holding
/// the main text needs it. Element 0 is the document.
#[derive(Clone, Copy, Debug, Default)]
pub struct Elem {
    /// The enclosing element; 0 for the document's children (and for the
    /// document itself). Always less than the element's own number.
    pub parent: u32,
    /// [`HINT_CONTENT`], [`HINT_ARTICLE`].
    pub hint: u8,
}

/// A block as the segmenter leaves it.
#[derive(Debug, Default)]
pub struct Raw {
    pub text: String,
    /// Characters of text, and of link text.
    pub chars: usize,
    pub link_chars: usize,
    /// Flags of the context where its text began.
    pub flags: u16,
    /// The innermost [`flag::NAMED`] element around it (numbered from 1
    /// in document order), 0 for none.
    pub region: u32,
    /// The innermost element around it where its text began, an index
    /// into [`Segments::elems`].
    pub elem: u32,
}

struct Open {
    name: [u8; 12],
    len: u8,
    /// This element's and its ancestors' flags.
    flags: u16,
    region: u32,
    /// Its number in [`Segments::elems`].
    elem: u32,
}

impl Open {
    fn is(&self, name: &[u8]) -> bool {
        name.len() <= self.name.len() && &self.name[..self.len as usize] == name
    }
}

fn void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
            | b"keygen"
    )
}

/// Elements that sit inside a line of text (the visible text's own list,
/// and line breaks and images); every other tag ends a block.
fn inline(name: &[u8]) -> bool {
    text::inline(name) || matches!(name, b"br" | b"img")
}

/// The flags an element adds by its name.
fn tag_flags(name: &[u8], parent: u16) -> u16 {
    match name {
        b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" => flag::HEADING,
        b"li" | b"dt" | b"dd" => flag::LIST,
        b"nav" | b"footer" | b"aside" | b"menu" => flag::BOILER,
        // A page's header is its masthead; an article's, its headline.
        b"header" if parent & flag::ARTICLE == 0 => flag::BOILER,
        b"article" | b"main" => flag::ARTICLE,
        n if text::hidden(n) => flag::HIDDEN,
        b"select" | b"textarea" | b"button" | b"svg" | b"math" => flag::HIDDEN,
        _ => 0,
    }
}

/// Words of a class or id that always name boilerplate, whatever the
/// region holds: comments are prose, but not the page's.
fn hard_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"comment"
            | b"comments"
            | b"commentform"
            | b"respond"
            | b"footer"
            | b"cookie"
            | b"cookies"
            | b"consent"
    )
}

/// Words of a class or id that name boilerplate. Matched against the
/// value's parts between non-alphanumeric characters, whole, so "nav"
/// is not found in "canvas".
fn boiler_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"nav"
            | b"navbar"
            | b"navigation"
            | b"menu"
            | b"footer"
            | b"sidebar"
            | b"comment"
            | b"comments"
            | b"cookie"
            | b"cookies"
            | b"consent"
            | b"share"
            | b"sharing"
            | b"social"
            | b"related"
            | b"breadcrumb"
            | b"breadcrumbs"
            | b"banner"
            | b"ad"
            | b"ads"
            | b"advert"
            | b"advertisement"
            | b"widget"
            | b"promo"
            | b"newsletter"
            | b"subscribe"
            | b"masthead"
            | b"toolbar"
            | b"pagination"
            | b"skip"
            | b"popup"
            | b"modal"
    )
}

/// The flag a class or id value earns: BOILER, NAMED or none.
fn names_boiler(value: &[u8]) -> u16 {
    let mut f = 0;
    // Blogs class a post by its tags and categories ("tag-share",
    // "category-social"): the post's subject, not its region.
    let named = value
        .split(|b| b.is_ascii_whitespace())
        .filter(|c| {
            let c = c.to_ascii_lowercase();
            !(c.starts_with(b"tag-") || c.starts_with(b"category-") || c.starts_with(b"cat-"))
        })
        // A layout's wrapper of the content and its sidebar
        // ("content-sidebar-wrap") is no sidebar.
        .filter(|c| {
            let c = c.to_ascii_lowercase();
            !(c.starts_with(b"content-sidebar") || c.starts_with(b"content_sidebar"))
        })
        .flat_map(|c| c.split(|b| !b.is_ascii_alphanumeric()));
    for w in named {
        if w.len() < 2 || w.len() > 13 {
            continue;
        }
        let w = w.to_ascii_lowercase();
        if hard_word(&w) {
            return flag::BOILER;
        }
        if boiler_word(&w) {
            f = flag::NAMED;
        }
    }
    f
}

/// A class or id that names the element holding a page's article text:
/// "article-body", "entry-content", "c-entry-content", "post_content",
/// "storyText" and the like. Each class is cut into words at separators
/// and at a lower-case letter followed by an upper-case one; a word, or two
/// words in a row, joined, must be one of the names.
fn names_content(value: &[u8]) -> bool {
    const NAMES: &[&[u8]] = &[
        b"articlebody",
        b"articlecontent",
        b"articletext",
        b"entrycontent",
        b"entrybody",
        b"entrytext",
        b"postcontent",
        b"postbody",
        b"posttext",
        b"postentry",
        b"storybody",
        b"storycontent",
        b"storytext",
        b"contentbody",
        b"bodytext",
        b"maincontent",
        b"newsbody",
        b"newstext",
        b"newscontent",
        b"fulltext",
        b"blogpost",
        b"itemfulltext",
        b"articlebodytext",
    ];
    value.split(|b| b.is_ascii_whitespace()).any(|c| {
        if c.len() > 64 {
            return false;
        }
        // The words of the class, lower-cased, as ranges of `low`.
        let mut low = [0u8; 64];
        let mut words: [(usize, usize); 16] = [(0, 0); 16];
        let (mut n, mut w) = (0, 0);
        let mut start = 0;
        let mut prev_lower = false;
        for &b in c {
            let split = !b.is_ascii_alphanumeric() || (prev_lower && b.is_ascii_uppercase());
            if split && n > start {
                if w == words.len() {
                    return false;
                }
                words[w] = (start, n);
                w += 1;
                start = n;
            }
            prev_lower = b.is_ascii_lowercase() || b.is_ascii_digit();
            if b.is_ascii_alphanumeric() {
                low[n] = b.to_ascii_lowercase();
                n += 1;
            }
        }
        if n > start && w < words.len() {
            words[w] = (start, n);
            w += 1;
        }
        let words = &words[..w];
        // Words are adjacent in `low`, so one or two in a row, or the
        // whole class, are slices of it.
        let hit = |a: usize, b: usize| NAMES.contains(&&low[a..b]);
        hit(0, n)
            || words.iter().any(|&(a, b)| hit(a, b))
            || words.windows(2).any(|p| hit(p[0].0, p[1].1))
    })
}

fn hides(style: &[u8]) -> bool {
    let s: Vec<u8> = style
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .map(u8::to_ascii_lowercase)
        .collect();
    let has = |n: &[u8]| s.windows(n.len()).any(|w| w == n);
    has(b"display:none") || has(b"visibility:hidden")
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

struct Segmenter<'d> {
    /// The document being read.
    doc: &'d str,
    stack: Vec<Open>,
    /// Elements opened past [`MAX_DEPTH`], not on the stack.
    overflow: usize,
    /// Flags of the start tag being read, from its name and attributes.
    pending: u16,
    /// The start tag being read is an `<a>`, whose `href` makes a link.
    pending_a: bool,
    /// [`Elem::hint`] of the start tag being read, from its attributes.
    pending_hint: u8,
    elems: Vec<Elem>,
    html: bool,
    honour_self_closing: bool,
    cur: Raw,
    /// White space is owed before the next text.
    space: bool,
    /// A `<br>` ended the last line and no text came since.
    br: bool,
    blocks: Vec<Raw>,
    title: String,
    regions: u32,
}

impl<'d> Segmenter<'d> {
    fn flags(&self) -> u16 {
        self.stack.last().map_or(0, |o| o.flags)
    }

    fn cut(&mut self) {
        if self.cur.chars > 0 {
            // A copy of exactly the block's size; the buffer, grown to
            // the longest block so far, stays for the next.
            let c = &self.cur;
            self.blocks.push(Raw {
                text: c.text.as_str().to_owned(),
                chars: c.chars,
                link_chars: c.link_chars,
                flags: c.flags,
                region: c.region,
                elem: c.elem,
            });
        }
        self.cur.text.clear();
        self.cur.chars = 0;
        self.cur.link_chars = 0;
        self.cur.flags = 0;
        self.cur.region = 0;
        self.cur.elem = 0;
        self.space = false;
        self.br = false;
    }

    fn push_text(&mut self, s: &[u8]) {
        let flags = self.flags();
        if flags & flag::HIDDEN != 0 {
            return;
        }
        // Text is mostly a piece of the document itself, which is a str
        // already; only what the tokenizer made (a decoded character
        // reference) needs checking.
        let s = match self.piece_of_doc(s) {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => String::from_utf8_lossy(s),
        };
        if flags & flag::TITLE != 0 {
            if self.title.len() < 4096 {
                self.title.push_str(&s);
            }
            return;
        }
        // Stretches that are collapsed already (words with single spaces
        // between them) go over whole; white space is ASCII, so every cut
        // falls between characters.
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if is_space(b[i]) {
                self.space = true;
                i += 1;
                continue;
            }
            let mut end = i + 1;
            // Continuation bytes of UTF-8 in the run (the first byte, at a
            // character boundary, is none): its characters are the rest.
            let mut cont = 0;
            while end < b.len() {
                // Eight bytes at a time while they keep the stretch
                // collapsed (the byte before them is no space).
                if let Some(x) = word_at(b, end).filter(|&x| collapsed(x)) {
                    cont += continuations(x);
                    end += 8;
                    continue;
                }
                let c = b[end];
                if !is_space(c) || (c == b' ' && b.get(end + 1).is_some_and(|&n| !is_space(n))) {
                    cont += usize::from(c & 0xC0 == 0x80);
                    end += 1;
                } else {
                    break;
                }
            }
            let run = &s[i..end];
            i = end;
            if self.cur.chars == 0 {
                self.cur.flags = flags;
                self.cur.region = self.stack.last().map_or(0, |o| o.region);
                self.cur.elem = self.stack.last().map_or(0, |o| o.elem);
            } else if self.space {
                self.cur.text.push(' ');
                self.cur.chars += 1;
            }
            self.space = false;
            self.br = false;
            let n = run.len() - cont;
            self.cur.text.push_str(run);
            self.cur.chars += n;
            if flags & flag::LINK != 0 {
                // Link text counts its words, not the spaces between
                // them, as when each word came alone.
                self.cur.link_chars += n - run.bytes().filter(|&c| c == b' ').count();
            }
        }
    }

    /// `s` as the piece of the document it is, if it is one that starts
    /// and ends between characters.
    fn piece_of_doc(&self, s: &[u8]) -> Option<&'d str> {
        let at = (s.as_ptr() as usize).checked_sub(self.doc.as_ptr() as usize)?;
        self.doc.get(at..at.checked_add(s.len())?)
    }

    fn pop_to(&mut self, name: &[u8]) {
        if let Some(i) = self.stack.iter().rposition(|o| o.is(name)) {
            self.stack.truncate(i);
        } else if self.overflow > 0 {
            self.overflow -= 1;
        }
    }
}

impl Sink for Segmenter<'_> {
    fn open(&mut self, name: &[u8]) -> bool {
        self.pending_a = name == b"a";
        self.pending = 0;
        self.pending_hint = 0;
        true
    }

    fn attr(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"class" | b"id" => {
                self.pending |= names_boiler(value);
                if names_content(value) {
                    self.pending_hint |= HINT_CONTENT;
                }
            }
            b"itemprop" if value.eq_ignore_ascii_case(b"articlebody") => {
                self.pending_hint |= HINT_CONTENT;
            }
            b"hidden" => self.pending |= flag::HIDDEN,
            b"aria-hidden" if value.eq_ignore_ascii_case(b"true") => self.pending |= flag::HIDDEN,
            b"style" if hides(value) => self.pending |= flag::HIDDEN,
            b"href" if self.pending_a => self.pending |= flag::LINK,
            _ => {}
        }
    }

    fn close(&mut self, name: &[u8], self_closing: bool) {
        if !self.html {
            self.cut();
            return;
        }
        if name == b"br" {
            if self.br {
                self.cut();
            } else {
                self.space = true;
                self.br = true;
            }
            return;
        }
        if !inline(name) {
            self.cut();
        }
        if void(name) || (self_closing && self.honour_self_closing) {
            return;
        }
        // A new item, row or paragraph closes an open sibling.
        if matches!(
            name,
            b"li" | b"p" | b"dt" | b"dd" | b"tr" | b"td" | b"th" | b"option"
        ) && self.stack.last().is_some_and(|o| o.is(name))
        {
            self.stack.pop();
        }
        let parent = self.flags();
        let mut flags = parent | tag_flags(name, parent) | self.pending;
        if name == b"head" {
            flags |= flag::HEAD;
        }
        // <title> sits in <head>, which hides; its text is the title. The
        // title of an SVG (or any other hidden one) is no document title,
        // nor is a second one.
        if name == b"title" && (parent & flag::HIDDEN == 0 || parent & flag::HEAD != 0) {
            flags = (flags & !flag::HIDDEN) | flag::TITLE;
            if !self.title.is_empty() {
                flags |= flag::HIDDEN;
            }
        }
        // Page-wide wrappers named after a layout ("has-sidebar") do not
        // make the page boilerplate.
        if matches!(name, b"html" | b"body") {
            flags &= !(flag::BOILER | flag::NAMED);
        }
        let mut region = self.stack.last().map_or(0, |o| o.region);
        // An element named as the article's text is not the region around
        // it that some class names a sidebar or a menu.
        if self.pending_hint & HINT_CONTENT != 0 && self.pending & (flag::NAMED | flag::BOILER) == 0
        {
            flags &= !flag::NAMED;
            region = 0;
            // Its own tag (an <aside class="blogPost">) is misused; a
            // region around it that is boilerplate stays so.
            if parent & flag::BOILER == 0 {
                flags &= !flag::BOILER;
            }
        }
        if self.pending & flag::NAMED != 0 && flags & flag::NAMED != 0 {
            self.regions = self.regions.saturating_add(1);
            region = self.regions;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.overflow += 1;
            return;
        }
        let parent_elem = self.stack.last().map_or(0, |o| o.elem);
        let elem = if self.elems.len() < MAX_ELEMS {
            let hint = self.pending_hint
                | if matches!(name, b"article" | b"main") {
                    HINT_ARTICLE
                } else {
                    0
                };
            self.elems.push(Elem {
                parent: parent_elem,
                hint,
            });
            // MAX_ELEMS fits in a u32.
            (self.elems.len() - 1) as u32
        } else {
            parent_elem
        };
        let mut o = Open {
            name: [0; 12],
            len: 0,
            flags,
            region,
            elem,
        };
        if name.len() <= o.name.len() {
            o.name[..name.len()].copy_from_slice(name);
            o.len = name.len() as u8;
        } else {
            // Long (custom) names: matched by their first bytes.
            o.name.copy_from_slice(&name[..12]);
            o.len = 12;
        }
        self.stack.push(o);
    }

    fn end(&mut self, name: &[u8]) {
        if !self.html {
            self.cut();
            return;
        }
        if !inline(name) {
            self.cut();
        }
        let name = if name.len() > 12 { &name[..12] } else { name };
        self.pop_to(name);
    }

    fn text(&mut self, s: &[u8]) {
        self.push_text(s);
    }
}

/// What segmentation found: the blocks in document order, the elements
/// they are in, and the title.
pub struct Segments {
    pub blocks: Vec<Raw>,
    /// Every element opened (up to [`MAX_ELEMS`]), in document order,
    /// after the document itself at 0.
    pub elems: Vec<Elem>,
    pub title: String,
}

/// Cuts decoded document `doc` into blocks.
pub fn segment(doc: &str, mode: Mode) -> Segments {
    segment_with(doc, mode, &mut ())
}

/// [`segment`], with `also` fed by the same tokenizer pass.
pub fn segment_with<S: Sink>(doc: &str, mode: Mode, also: &mut S) -> Segments {
    let mut s = Segmenter {
        doc,
        stack: Vec::new(),
        overflow: 0,
        pending: 0,
        pending_a: false,
        pending_hint: 0,
        elems: vec![Elem::default()],
        html: mode != Mode::Xml,
        honour_self_closing: mode == Mode::Xhtml,
        cur: Raw::default(),
        space: false,
        br: false,
        blocks: Vec::new(),
        title: String::new(),
        regions: 0,
    };
    markup::tokenize(doc.as_bytes(), mode, &mut markup::Both::new(&mut s, also));
    s.cut();
    let title = s.title.split_whitespace().collect::<Vec<_>>().join(" ");
    Segments {
        blocks: s.blocks,
        elems: s.elems,
        title,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    #[test]
    fn classes_that_name_the_article_text() {
        for v in [
            "entry-content",
            "c-entry-content",
            "post_content clearfix",
            "storyText",
            "l-col article-body-text",
            "td-post-content",
            "articleBody",
        ] {
            assert!(names_content(v.as_bytes()), "{v}");
        }
        for v in [
            "content",
            "sidebar",
            "entry",
            "post-meta",
            "contentinfo",
            "entry-content-wrapper-but-much-longer-than-any-class-should-ever-be-x",
        ] {
            assert!(!names_content(v.as_bytes()), "{v}");
        }
    }

    /// A block's text is its words with one space between them, and its
    /// counts those of that text, however the white space came: the
    /// word-at-a-time scan of `push_text` against the definition.
    #[test]
    fn block_text_is_its_words_with_one_space() {
        let pieces = [
            "Rīga",
            "ir",
            "a",
            "galvaspilsēta,",
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\x0C",
            "\x0B",
            "\x01",
            "語",
            "ūdens",
            "abcdefghijklmnop",
            "x y z w v",
            "\u{a0}",
            "1918.",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for round in 0..3000 {
            let mut t = String::new();
            for _ in 0..x % 60 {
                x = xorshift(x);
                t.push_str(pieces[(x >> 8) as usize % pieces.len()]);
            }
            let words: Vec<&str> = t
                .split(|c: char| u8::try_from(c).is_ok_and(is_space))
                .filter(|w| !w.is_empty())
                .collect();
            let want = words.join(" ");
            let link = round % 2 == 1;
            let doc = if link {
                format!("<p><a href=/x>{t}</a></p>")
            } else {
                format!("<p>{t}</p>")
            };
            let segs = segment(&doc, Mode::Html);
            if want.is_empty() {
                assert!(segs.blocks.is_empty(), "{t:?}");
                continue;
            }
            assert_eq!(segs.blocks.len(), 1, "{t:?}");
            let b = &segs.blocks[0];
            assert_eq!(b.text, want, "{t:?}");
            assert_eq!(b.chars, want.chars().count(), "{t:?}");
            let link_chars = if link {
                want.chars().count() - (words.len() - 1)
            } else {
                0
            };
            assert_eq!(b.link_chars, link_chars, "{t:?}");
        }
    }
}

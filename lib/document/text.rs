//! The visible text of a decoded document: what a reader sees, without
//! markup, comments, scripts, styles and other content that is never shown,
//! with character references decoded and white space collapsed to single
//! spaces. The same pass notices `<meta name=robots content=noindex>`.
//!
//! HTML goes through the tokenizer pass of [`crate::document::markup`], which the link
//! extractor also uses, keeping only text and the few attributes of
//! `<meta>`.

use crate::document::charset::{Kind, Quality};
use crate::document::markup::{self, has_token, Mode, Sink};

/// What the text pass found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visible {
    /// The visible text, white space collapsed to single spaces.
    pub text: String,
    /// `<meta name=robots>` (or `name=nlpcrawl`) said NOINDEX or NONE.
    pub noindex: bool,
}

/// Elements whose content is never shown: their text is dropped.
pub(crate) fn hidden(name: &[u8]) -> bool {
    matches!(
        name,
        b"script" | b"style" | b"template" | b"noscript" | b"noembed" | b"noframes" | b"iframe"
    )
}

/// Elements that sit inside a line of text; every other tag separates
/// words, so "<li>Home</li><li>News</li>" reads "Home News".
pub(crate) fn inline(name: &[u8]) -> bool {
    matches!(
        name,
        b"a" | b"abbr"
            | b"acronym"
            | b"b"
            | b"bdi"
            | b"bdo"
            | b"big"
            | b"cite"
            | b"code"
            | b"data"
            | b"del"
            | b"dfn"
            | b"em"
            | b"font"
            | b"i"
            | b"ins"
            | b"kbd"
            | b"mark"
            | b"nobr"
            | b"q"
            | b"s"
            | b"samp"
            | b"small"
            | b"span"
            | b"strike"
            | b"strong"
            | b"sub"
            | b"sup"
            | b"time"
            | b"tt"
            | b"u"
            | b"var"
            | b"wbr"
    )
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// Text accumulated with white space collapsed.
#[derive(Default)]
struct Collapse {
    out: Vec<u8>,
    /// White space (or a word-separating tag) was seen since the last byte
    /// of text.
    space: bool,
}

impl Collapse {
    fn push(&mut self, s: &[u8]) {
        let mut rest = s;
        while !rest.is_empty() {
            let run = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
            if run > 0 {
                if self.space && !self.out.is_empty() {
                    self.out.push(b' ');
                }
                self.space = false;
                self.out.extend_from_slice(&rest[..run]);
            }
            let ws = rest[run..]
                .iter()
                .position(|&b| !is_space(b))
                .unwrap_or(rest.len() - run);
            if ws > 0 {
                self.space = true;
            }
            rest = &rest[run + ws..];
        }
    }

    fn into_string(self) -> String {
        // The tokenizer passes the UTF-8 input through in order and adds
        // only whole characters, so this is UTF-8; be lenient all the same.
        String::from_utf8(self.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }
}

/// What becomes of the visible text.
enum Out {
    /// Kept, white space collapsed.
    Keep(Collapse),
    /// Only measured.
    Measure(Quality),
    /// Neither: only meta robots is wanted.
    Drop,
}

impl Default for Out {
    fn default() -> Out {
        Out::Keep(Collapse::default())
    }
}

/// The text sink: text outside hidden elements, and the `name` and
/// `content` of `<meta>`.
#[derive(Default)]
struct TextSink {
    text: Out,
    noindex: bool,
    /// HTML: hidden elements hide their text. XML: all text counts.
    html: bool,
    /// XHTML: a self-closed `<script/>` is empty, as in XML.
    honour_self_closing: bool,
    /// How many hidden elements enclose the current position.
    hidden: u32,
    is_meta: bool,
    meta_name: Option<Vec<u8>>,
    meta_content: Option<Vec<u8>>,
}

impl TextSink {
    fn meta_done(&mut self) {
        let (Some(name), Some(content)) = (self.meta_name.take(), self.meta_content.take()) else {
            return;
        };
        let name = String::from_utf8_lossy(&name);
        let name = name.trim();
        if name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case("nlpcrawl") {
            self.noindex |= has_token(&content, b"noindex") || has_token(&content, b"none");
        }
    }

    fn separate(&mut self, name: &[u8]) {
        if let Out::Keep(c) = &mut self.text {
            if !inline(name) {
                c.space = true;
            }
        }
    }
}

impl Sink for TextSink {
    fn open(&mut self, name: &[u8]) -> bool {
        self.is_meta = self.html && name == b"meta";
        // Only a `<meta>` hears attributes, and its close takes both.
        if self.is_meta {
            self.meta_name = None;
            self.meta_content = None;
        }
        self.is_meta
    }

    fn attr(&mut self, name: &[u8], value: &[u8]) {
        // The first of duplicate attributes wins, as in a browser.
        let slot = match name {
            b"name" => &mut self.meta_name,
            b"content" => &mut self.meta_content,
            _ => return,
        };
        if slot.is_none() {
            *slot = Some(value.to_vec());
        }
    }

    fn close(&mut self, name: &[u8], self_closing: bool) {
        self.separate(name);
        if !self.html {
            return;
        }
        if self.is_meta {
            self.meta_done();
            self.is_meta = false;
        }
        if self_closing && self.honour_self_closing {
            return;
        }
        if hidden(name) {
            self.hidden += 1;
        }
    }

    fn end(&mut self, name: &[u8]) {
        self.separate(name);
        if self.html && hidden(name) {
            self.hidden = self.hidden.saturating_sub(1);
        }
    }

    fn text(&mut self, s: &[u8]) {
        if self.hidden == 0 {
            match &mut self.text {
                Out::Keep(c) => c.push(s),
                Out::Measure(q) => q.add(s),
                Out::Drop => {}
            }
        }
    }
}

fn mode_of(kind: Kind) -> Option<Mode> {
    match kind {
        Kind::Html => Some(Mode::Html),
        Kind::Xhtml => Some(Mode::Xhtml),
        Kind::Xml => Some(Mode::Xml),
        Kind::Plain => None,
    }
}

/// The visible-text pass without the text: meta robots and, if asked,
/// the [`Quality`] of the visible text (white space aside, the counts of
/// [`visible`]'s text). It is a [`Sink`] for a pass that reads the page
/// for something else too (the main text, through [`markup::Both`]), so
/// that a page is tokenized once; plain text is given to
/// [`Sink::text`] whole.
pub struct Scan {
    sink: TextSink,
}

impl Scan {
    /// A scan of a document of kind `kind`; `measure`: count the visible
    /// text's characters.
    pub fn new(kind: Kind, measure: bool) -> Scan {
        let mode = mode_of(kind).unwrap_or(Mode::Xml);
        Scan {
            sink: TextSink {
                text: if measure {
                    Out::Measure(Quality::default())
                } else {
                    Out::Drop
                },
                html: mode != Mode::Xml,
                honour_self_closing: mode == Mode::Xhtml,
                ..TextSink::default()
            },
        }
    }

    /// `<meta name=robots>` (or `name=nlpcrawl`) said NOINDEX or NONE.
    pub fn noindex(&self) -> bool {
        self.sink.noindex
    }

    /// The counts of the visible text (all zero unless measured).
    pub fn quality(&self) -> Quality {
        match &self.sink.text {
            Out::Measure(q) => *q,
            _ => Quality::default(),
        }
    }
}

impl Scan {
    /// The visible text is counted: only then do hidden elements and the
    /// text itself matter, and not only `<meta>`.
    fn measures(&self) -> bool {
        matches!(self.sink.text, Out::Measure(_))
    }
}

impl Sink for Scan {
    fn open(&mut self, name: &[u8]) -> bool {
        self.sink.open(name)
    }
    fn attr(&mut self, name: &[u8], value: &[u8]) {
        self.sink.attr(name, value);
    }
    fn close(&mut self, name: &[u8], self_closing: bool) {
        if self.measures() {
            self.sink.close(name, self_closing);
        } else if self.sink.is_meta {
            // All `close` does when nothing is counted.
            self.sink.meta_done();
            self.sink.is_meta = false;
        }
    }
    fn end(&mut self, name: &[u8]) {
        if self.measures() {
            self.sink.end(name);
        }
    }
    fn text(&mut self, s: &[u8]) {
        if self.measures() {
            self.sink.text(s);
        }
    }
}

fn tokenize(doc: &str, mode: Mode) -> Visible {
    let mut sink = TextSink {
        html: mode != Mode::Xml,
        honour_self_closing: mode == Mode::Xhtml,
        ..TextSink::default()
    };
    markup::tokenize(doc.as_bytes(), mode, &mut sink);
    Visible {
        noindex: sink.noindex,
        text: match sink.text {
            Out::Keep(c) => c.into_string(),
            _ => String::new(),
        },
    }
}

/// The visible text of decoded document `doc` of kind `kind`.
pub fn visible(doc: &str, kind: Kind) -> Visible {
    match mode_of(kind) {
        Some(mode) => tokenize(doc, mode),
        None => {
            let mut c = Collapse::default();
            c.push(doc.as_bytes());
            Visible {
                text: c.into_string(),
                noindex: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::xorshift::xorshift;

    fn html(s: &str) -> Visible {
        visible(s, Kind::Html)
    }

    #[test]
    fn text_without_markup() {
        let v = html(
            "<!DOCTYPE html><html><head><title>Ziņas</title>\
             <style>p{color:red}</style><script>var a='<p>nē</p>';</script></head>\
             <body><ul><li>Sākums</li><li>Ziņas</li></ul>\
             <p>Rīga &amp; Jūrmala&nbsp;&#x41;&lt;b&gt; <b>tre</b>knraksts<!-- komentārs --></p>\
             <noscript>Ieslēdziet JavaScript</noscript><template><p>paraugs</p></template>\
             <p>beigas</body></html>",
        );
        assert_eq!(
            v.text,
            "Ziņas Sākums Ziņas Rīga & Jūrmala\u{a0}A<b> treknraksts beigas"
        );
        assert!(!v.noindex);
    }

    /// A scan that counts nothing finds meta robots as the full pass
    /// does, on markup that opens and closes hidden elements around it.
    #[test]
    fn scan_without_counting_finds_noindex() {
        let pieces = [
            "<meta name=robots content=noindex>",
            "<meta content=none name=nlpcrawl>",
            "<meta name=robots content=index>",
            "<meta name=description content=noindex>",
            "<script>",
            "</script>",
            "<noscript>",
            "</noscript>",
            "<template>",
            "</template>",
            "<p>",
            "Rīga ",
            "<svg/>",
            "<meta/>",
            "<style>",
            "</style>",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut seen = [0usize; 2];
        for _ in 0..5000 {
            let mut doc = String::new();
            x = xorshift(x);
            for _ in 0..x % 8 {
                x = xorshift(x);
                doc.push_str(pieces[(x >> 8) as usize % pieces.len()]);
            }
            for kind in [Kind::Html, Kind::Xhtml, Kind::Xml] {
                let want = visible(&doc, kind).noindex;
                let mut scan = Scan::new(kind, false);
                markup::tokenize(doc.as_bytes(), mode_of(kind).unwrap(), &mut scan);
                assert_eq!(scan.noindex(), want, "{doc:?}");
                let mut counted = Scan::new(kind, true);
                markup::tokenize(doc.as_bytes(), mode_of(kind).unwrap(), &mut counted);
                assert_eq!(counted.noindex(), want, "{doc:?}");
                seen[usize::from(want)] += 1;
            }
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

    #[test]
    fn noindex_from_meta_robots() {
        for m in [
            "<meta name=robots content=noindex>",
            "<meta content='NOINDEX, follow' name='Robots'>",
            "<meta name=\"nlpcrawl\" content=\"none\">",
        ] {
            assert!(html(&format!("<head>{m}</head><p>x")).noindex, "{m}");
        }
        assert!(!html("<meta name=robots content='index, nofollow'><p>x").noindex);
        assert!(!html("<meta name=description content=noindex>").noindex);
    }

    #[test]
    fn xhtml_self_closed_script_is_empty() {
        let doc = "<html><head><script src='a.js'/></head><body><p>teksts</p></body></html>";
        assert_eq!(visible(doc, Kind::Xhtml).text, "teksts");
        // In HTML the same markup hides the rest, as in a browser.
        assert_eq!(html(doc).text, "");
    }

    #[test]
    fn xml_and_plain() {
        let v = visible(
            "<?xml version='1.0'?><rss><item><title>Virsraksts</title>\
             <description><![CDATA[Apraksts & vairāk]]></description></item></rss>",
            Kind::Xml,
        );
        assert_eq!(v.text, "Virsraksts Apraksts & vairāk");
        assert_eq!(visible("  a\n\n b\t<c>  ", Kind::Plain).text, "a b <c>");
    }
}

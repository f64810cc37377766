//! One pass of our own HTML tokenizer over a document, handing tags,
//! attributes and text to a [`Sink`]. Link extraction, visible text and main
//! text are all sinks; the tokenizer lives here once.
//!
//! It follows the tokenization section of the WHATWG HTML standard, so tag
//! soup, entities in attributes, uppercase names, unquoted values, odd
//! comment endings and `</script` inside script comments read as a browser
//! reads them. It is ours (it replaced html5gum) for speed: whole runs of
//! text are found with memchr and handed over as one slice, comments,
//! doctypes and the values of attributes nobody asked for are skipped
//! without being looked at byte by byte, and nothing is allocated per tag.
//! Parse errors are not reported; tokens are not kept. Input is bytes: any
//! bytes are read (invalid UTF-8 passes through), and the callers decode.
//! tests/markup.rs holds it equal to html5gum's reading of the same input.
//!
//! Here are the sink's side (the [`Sink`] trait, [`Both`] to feed two
//! sinks in one pass) and the entry point, [`tokenize`]; the standard's
//! states are in `tokenizer`, its character references (named, from
//! `document::entities`, and numeric) in `refs`.

mod refs;
mod tokenizer;

/// What a pass over the markup wants to hear.
pub trait Sink {
    /// A start tag's name is complete (lowercase); true asks for its
    /// attributes.
    fn open(&mut self, name: &[u8]) -> bool;
    /// An attribute of the open tag, entities decoded, in document order;
    /// duplicates are passed too (browsers keep the first).
    fn attr(&mut self, name: &[u8], value: &[u8]);
    /// The start tag is over.
    fn close(&mut self, name: &[u8], self_closing: bool);
    /// An end tag.
    fn end(&mut self, name: &[u8]);
    /// Character data, entities decoded.
    fn text(&mut self, s: &[u8]);
}

/// A sink that wants nothing: for a pass with no second listener.
impl Sink for () {
    fn open(&mut self, _: &[u8]) -> bool {
        false
    }
    fn attr(&mut self, _: &[u8], _: &[u8]) {}
    fn close(&mut self, _: &[u8], _: bool) {}
    fn end(&mut self, _: &[u8]) {}
    fn text(&mut self, _: &[u8]) {}
}

/// Two sinks fed by one pass, so that two readings of a page (its main
/// text and its meta robots, say) cost one tokenizer pass; each hears the
/// attributes it asked for.
pub struct Both<'a, A, B> {
    pub a: &'a mut A,
    pub b: &'a mut B,
    a_wants: bool,
    b_wants: bool,
}

impl<'a, A: Sink, B: Sink> Both<'a, A, B> {
    pub fn new(a: &'a mut A, b: &'a mut B) -> Self {
        Both {
            a,
            b,
            a_wants: false,
            b_wants: false,
        }
    }
}

impl<A: Sink, B: Sink> Sink for Both<'_, A, B> {
    fn open(&mut self, name: &[u8]) -> bool {
        self.a_wants = self.a.open(name);
        self.b_wants = self.b.open(name);
        self.a_wants || self.b_wants
    }

    fn attr(&mut self, name: &[u8], value: &[u8]) {
        if self.a_wants {
            self.a.attr(name, value);
        }
        if self.b_wants {
            self.b.attr(name, value);
        }
    }

    fn close(&mut self, name: &[u8], self_closing: bool) {
        self.a.close(name, self_closing);
        self.b.close(name, self_closing);
    }

    fn end(&mut self, name: &[u8]) {
        self.a.end(name);
        self.b.end(name);
    }

    fn text(&mut self, s: &[u8]) {
        self.a.text(s);
        self.b.text(s);
    }
}

/// How to read the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// HTML: script, style and the like hold raw text.
    Html,
    /// XHTML: as HTML, but a self-closed `<script/>` is empty, as in XML.
    Xhtml,
    /// XML: no raw-text elements; CDATA sections are text.
    Xml,
}

/// Tokenizes `doc` (UTF-8, or close to it: any bytes are read) and feeds
/// `sink`.
pub fn tokenize<S: Sink>(doc: &[u8], mode: Mode, sink: &mut S) {
    tokenizer::run(doc, mode, sink);
}

/// True when a comma- or space-separated list (a `rel`, a robots
/// `content`) holds `token`, in any case.
pub fn has_token(list: &[u8], token: &[u8]) -> bool {
    list.split(|c| c.is_ascii_whitespace() || *c == b',')
        .any(|t| t.eq_ignore_ascii_case(token))
}

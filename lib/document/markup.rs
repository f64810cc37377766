//! One pass of the html5gum tokenizer over a document, handing tags,
//! attributes and text to a [`Sink`]. Link extraction and visible-text
//! extraction are both sinks; the tokenizer bookkeeping lives here once.
//!
//! html5gum is a WHATWG tokenizer, so tag soup, entities in attributes,
//! uppercase names and unquoted values read as a browser reads them. The
//! emitter asks for no parse errors and keeps no tokens, which is what makes
//! it fast.

use html5gum::{Emitter, State, Tokenizer};

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

struct TagEmitter<'s, S> {
    sink: &'s mut S,
    mode: Mode,
    name: Vec<u8>,
    end_tag: bool,
    self_closing: bool,
    last_start_tag: Vec<u8>,
    /// The sink has been told the tag's name.
    opened: bool,
    /// The sink wants this tag's attributes.
    wants: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    in_attr: bool,
}

impl<S: Sink> TagEmitter<'_, S> {
    /// Hands the tag name over once it is complete: at its first attribute
    /// or at the end of the tag.
    fn ensure_open(&mut self) {
        if !self.opened && !self.end_tag {
            self.wants = self.sink.open(&self.name);
            self.opened = true;
        }
    }

    fn flush_attr(&mut self) {
        if self.in_attr {
            if self.wants {
                self.sink.attr(&self.attr_name, &self.attr_value);
            }
            self.attr_name.clear();
            self.attr_value.clear();
            self.in_attr = false;
        }
    }
}

impl<S: Sink> Emitter for TagEmitter<'_, S> {
    type Token = std::convert::Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {}

    fn emit_error(&mut self, _: html5gum::Error) {}

    #[inline]
    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Self::Token> {
        None
    }

    fn emit_string(&mut self, s: &[u8]) {
        self.sink.text(s);
    }

    fn init_start_tag(&mut self) {
        self.name.clear();
        self.end_tag = false;
        self.self_closing = false;
        self.in_attr = false;
        self.opened = false;
        self.wants = false;
    }

    fn init_end_tag(&mut self) {
        self.name.clear();
        self.end_tag = true;
        self.self_closing = false;
        self.in_attr = false;
        self.wants = false;
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<State> {
        if self.end_tag {
            self.in_attr = false;
            self.attr_name.clear();
            self.attr_value.clear();
            self.last_start_tag.clear();
            self.sink.end(&self.name);
            return None;
        }
        self.ensure_open();
        self.flush_attr();
        self.sink.close(&self.name, self.self_closing);
        self.last_start_tag.clear();
        self.last_start_tag.extend_from_slice(&self.name);
        match self.mode {
            Mode::Xml => None,
            Mode::Xhtml if self.self_closing => None,
            Mode::Html | Mode::Xhtml => html5gum::naive_next_state(&self.name),
        }
    }

    fn emit_current_comment(&mut self) {}

    fn emit_current_doctype(&mut self) {}

    fn set_self_closing(&mut self) {
        self.self_closing = true;
    }

    fn set_force_quirks(&mut self) {}

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _: &[u8]) {}

    fn push_doctype_name(&mut self, _: &[u8]) {}

    fn init_doctype(&mut self) {}

    fn init_attribute(&mut self) {
        self.ensure_open();
        self.flush_attr();
        self.in_attr = true;
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        if self.wants {
            self.attr_name.extend_from_slice(s);
        }
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        if self.wants {
            self.attr_value.extend_from_slice(s);
        }
    }

    fn set_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.end_tag && !self.last_start_tag.is_empty() && self.last_start_tag == self.name
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        // In XML, CDATA sections are text; in HTML, bogus comments.
        self.mode == Mode::Xml
    }
}

/// Tokenizes `doc` (UTF-8, or close to it) and feeds `sink`.
pub fn tokenize<S: Sink>(doc: &[u8], mode: Mode, sink: &mut S) {
    let emitter = TagEmitter {
        sink,
        mode,
        name: Vec::new(),
        end_tag: false,
        self_closing: false,
        last_start_tag: Vec::new(),
        opened: false,
        wants: false,
        attr_name: Vec::new(),
        attr_value: Vec::new(),
        in_attr: false,
    };
    for _ in Tokenizer::new_with_emitter(doc, emitter) {}
}

/// True when a comma- or space-separated list (a `rel`, a robots
/// `content`) holds `token`, in any case.
pub fn has_token(list: &[u8], token: &[u8]) -> bool {
    list.split(|c| c.is_ascii_whitespace() || *c == b',')
        .any(|t| t.eq_ignore_ascii_case(token))
}

// The tokenizer as it was (html5gum driving a Sink, as lib/document/markup/
// did before it had its own), an event recorder, and the comparison of the
// two readings of one document. Shared by tests/markup.rs and the fuzz
// target "markup" (through fuzz/targets.rs), which include!() this file;
// html5gum is a dev-dependency only.

use html5gum::{Emitter, State, Tokenizer};
use nlpcrawl::document::markup::{self, Mode, Sink};

/// One call a tokenizer made on its sink. Adjacent text is merged: where a
/// run of text is cut into calls is nobody's business.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Event {
    Open(Vec<u8>),
    Attr(Vec<u8>, Vec<u8>),
    Close(Vec<u8>, bool),
    End(Vec<u8>),
    Text(Vec<u8>),
}

/// Records every call; which tags' attributes it asks for is `wants`:
/// 0 none, 1 all, 2 those with a name of even length.
pub struct Recorder {
    pub events: Vec<Event>,
    pub wants: u8,
}

impl Sink for Recorder {
    fn open(&mut self, name: &[u8]) -> bool {
        self.events.push(Event::Open(name.to_vec()));
        match self.wants {
            0 => false,
            1 => true,
            _ => name.len().is_multiple_of(2),
        }
    }
    fn attr(&mut self, name: &[u8], value: &[u8]) {
        self.events.push(Event::Attr(name.to_vec(), value.to_vec()));
    }
    fn close(&mut self, name: &[u8], self_closing: bool) {
        self.events.push(Event::Close(name.to_vec(), self_closing));
    }
    fn end(&mut self, name: &[u8]) {
        self.events.push(Event::End(name.to_vec()));
    }
    fn text(&mut self, s: &[u8]) {
        if let Some(Event::Text(t)) = self.events.last_mut() {
            t.extend_from_slice(s);
        } else if !s.is_empty() {
            self.events.push(Event::Text(s.to_vec()));
        }
    }
}

struct TagEmitter<'s, S> {
    sink: &'s mut S,
    mode: Mode,
    name: Vec<u8>,
    end_tag: bool,
    self_closing: bool,
    last_start_tag: Vec<u8>,
    opened: bool,
    wants: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    in_attr: bool,
}

impl<S: Sink> TagEmitter<'_, S> {
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

/// html5gum's naive_next_state with "noframes" where it has "noframe": the
/// standard's tree builder reads `<noframes>` as raw text; there is no
/// `noframe` element. Our tokenizer does as the standard says.
fn next_state(name: &[u8]) -> Option<State> {
    match name {
        b"noframes" => Some(State::RawText),
        b"noframe" => None,
        n => html5gum::naive_next_state(n),
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
            Mode::Html | Mode::Xhtml => next_state(&self.name),
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
        self.mode == Mode::Xml
    }
}

/// The old path: html5gum's tokenizer driving `sink`.
pub fn html5gum_tokenize<S: Sink>(doc: &[u8], mode: Mode, sink: &mut S) {
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

/// The calls each tokenizer makes for `doc`: (ours, html5gum's).
pub fn both(doc: &[u8], mode: Mode, wants: u8) -> (Vec<Event>, Vec<Event>) {
    let mut ours = Recorder {
        events: Vec::new(),
        wants,
    };
    markup::tokenize(doc, mode, &mut ours);
    let mut theirs = Recorder {
        events: Vec::new(),
        wants,
    };
    html5gum_tokenize(doc, mode, &mut theirs);
    (ours.events, theirs.events)
}

/// Panics, naming the document and the first difference, unless both
/// tokenizers make the same calls for `doc` in every mode and with every
/// choice of wanted attributes.
pub fn assert_same(doc: &[u8]) {
    for mode in [Mode::Html, Mode::Xhtml, Mode::Xml] {
        for wants in 0..3 {
            let (ours, theirs) = both(doc, mode, wants);
            if ours != theirs {
                let at = ours
                    .iter()
                    .zip(&theirs)
                    .position(|(a, b)| a != b)
                    .unwrap_or(ours.len().min(theirs.len()));
                panic!(
                    "{mode:?}, wants {wants}: the tokenizers differ at call {at} for {:?}\n ours:     {:?}\n html5gum: {:?}",
                    String::from_utf8_lossy(doc),
                    ours.get(at..(at + 3).min(ours.len())).map(show),
                    theirs.get(at..(at + 3).min(theirs.len())).map(show),
                );
            }
        }
    }
}

fn show(e: &[Event]) -> Vec<String> {
    e.iter()
        .map(|e| match e {
            Event::Open(n) => format!("open {}", String::from_utf8_lossy(n)),
            Event::Attr(n, v) => format!(
                "attr {}={:?}",
                String::from_utf8_lossy(n),
                String::from_utf8_lossy(v)
            ),
            Event::Close(n, s) => format!("close {} {s}", String::from_utf8_lossy(n)),
            Event::End(n) => format!("end {}", String::from_utf8_lossy(n)),
            Event::Text(t) => format!("text {:?}", String::from_utf8_lossy(t)),
        })
        .collect()
}

//! The visible text of a decoded document: what a reader sees, without
//! markup, comments, scripts, styles and other content that is never shown,
//! with character references decoded and white space collapsed to single
//! spaces. The same pass notices `<meta name=robots content=noindex>`.
//!
//! HTML goes through html5gum, the WHATWG tokenizer the link extractor also
//! uses, with an emitter that keeps only text and the few attributes of
//! `<meta>`, and asks for no parse errors.

use html5gum::{Emitter, State, Tokenizer};

use crate::charset::Kind;

/// What the text pass found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visible {
    /// The visible text, white space collapsed to single spaces.
    pub text: String,
    /// `<meta name=robots>` (or `name=nlpcrawl`) said NOINDEX or NONE.
    pub noindex: bool,
}

/// Elements whose content is never shown: their text is dropped.
fn hidden(name: &[u8]) -> bool {
    matches!(
        name,
        b"script" | b"style" | b"template" | b"noscript" | b"noembed" | b"noframes" | b"iframe"
    )
}

/// Elements that sit inside a line of text; every other tag separates
/// words, so "<li>Home</li><li>News</li>" reads "Home News".
fn inline(name: &[u8]) -> bool {
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

fn has_token(list: &[u8], token: &[u8]) -> bool {
    list.split(|c| c.is_ascii_whitespace() || *c == b',')
        .any(|t| t.eq_ignore_ascii_case(token))
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

/// What the emitter hands back.
#[derive(Default)]
struct Found {
    text: Collapse,
    noindex: bool,
}

/// The tokenizer emitter: text outside hidden elements, and the `name` and
/// `content` of `<meta>`.
struct TextEmitter<'f> {
    found: &'f mut Found,
    /// HTML: raw-text elements switch the tokenizer state and hidden
    /// elements hide their text. XML: every element's text counts.
    html: bool,
    /// XHTML: a self-closed `<script/>` is empty, as in XML.
    honour_self_closing: bool,
    /// How many hidden elements enclose the current position.
    hidden: u32,
    name: Vec<u8>,
    end_tag: bool,
    self_closing: bool,
    last_start_tag: Vec<u8>,
    is_meta: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    in_attr: bool,
    meta_name: Option<Vec<u8>>,
    meta_content: Option<Vec<u8>>,
}

impl TextEmitter<'_> {
    fn new(found: &mut Found, html: bool, honour_self_closing: bool) -> TextEmitter<'_> {
        TextEmitter {
            found,
            html,
            honour_self_closing,
            hidden: 0,
            name: Vec::new(),
            end_tag: false,
            self_closing: false,
            last_start_tag: Vec::new(),
            is_meta: false,
            attr_name: Vec::new(),
            attr_value: Vec::new(),
            in_attr: false,
            meta_name: None,
            meta_content: None,
        }
    }

    fn flush_attr(&mut self) {
        if self.in_attr {
            if self.is_meta {
                // The first of duplicate attributes wins, as in a browser.
                let slot = match self.attr_name.as_slice() {
                    b"name" => &mut self.meta_name,
                    b"content" => &mut self.meta_content,
                    _ => &mut None,
                };
                if slot.is_none() {
                    *slot = Some(std::mem::take(&mut self.attr_value));
                }
            }
            self.attr_name.clear();
            self.attr_value.clear();
            self.in_attr = false;
        }
    }

    fn meta_done(&mut self) {
        let (Some(name), Some(content)) = (self.meta_name.take(), self.meta_content.take()) else {
            return;
        };
        let name = String::from_utf8_lossy(&name);
        let name = name.trim();
        if name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case("nlpcrawl") {
            self.found.noindex |= has_token(&content, b"noindex") || has_token(&content, b"none");
        }
    }
}

impl Emitter for TextEmitter<'_> {
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
        if self.hidden == 0 {
            self.found.text.push(s);
        }
    }

    fn init_start_tag(&mut self) {
        self.name.clear();
        self.end_tag = false;
        self.self_closing = false;
        self.in_attr = false;
        self.is_meta = false;
    }

    fn init_end_tag(&mut self) {
        self.name.clear();
        self.end_tag = true;
        self.self_closing = false;
        self.in_attr = false;
        self.is_meta = false;
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_attr();
        if !inline(&self.name) {
            self.found.text.space = true;
        }
        if !self.html {
            return None;
        }
        let hides = hidden(&self.name);
        if self.end_tag {
            if hides {
                self.hidden = self.hidden.saturating_sub(1);
            }
            self.last_start_tag.clear();
            return None;
        }
        if self.is_meta {
            self.meta_done();
        }
        self.last_start_tag.clear();
        self.last_start_tag.extend_from_slice(&self.name);
        if self.self_closing && self.honour_self_closing {
            return None;
        }
        if hides {
            self.hidden += 1;
        }
        html5gum::naive_next_state(&self.name)
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
        self.flush_attr();
        // The name is complete once the first attribute starts.
        self.is_meta = !self.end_tag && self.name == b"meta";
        self.in_attr = true;
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        if self.is_meta {
            self.attr_name.extend_from_slice(s);
        }
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        if self.is_meta {
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
        !self.html
    }
}

fn tokenize(doc: &str, html: bool, honour_self_closing: bool) -> Visible {
    let mut found = Found::default();
    let emitter = TextEmitter::new(&mut found, html, honour_self_closing);
    for _ in Tokenizer::new_with_emitter(doc, emitter) {}
    Visible {
        noindex: found.noindex,
        text: found.text.into_string(),
    }
}

/// The visible text of decoded document `doc` of kind `kind`.
pub fn visible(doc: &str, kind: Kind) -> Visible {
    match kind {
        Kind::Html => tokenize(doc, true, false),
        Kind::Xhtml => tokenize(doc, true, true),
        Kind::Xml => tokenize(doc, false, false),
        Kind::Plain => {
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

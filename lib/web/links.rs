//! Link extraction from stored documents.
//!
//! HTML goes through our WHATWG tokenizer (document::markup), so tag soup,
//! entities in attributes, uppercase tags and unquoted values read as a
//! browser reads them; script and style contents are raw text and yield no
//! links.

use encoding_rs::{Encoding, UTF_8};

use crate::document::markup::{self, has_token, Mode, Sink};

/// What a document says about its links.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Links {
    /// The first `<base href>`, as written.
    pub base: Option<String>,
    /// References in document order, as written (entities decoded); links
    /// marked `rel=nofollow` are left out.
    pub refs: Vec<String>,
    /// meta robots said NOFOLLOW (or NONE): none of the links may be followed.
    pub nofollow: bool,
    /// meta robots said NOINDEX (or NONE).
    pub noindex: bool,
}

/// `rel` values of `<link>` that name resources, not pages worth crawling.
const RESOURCE_RELS: &[&str] = &[
    "stylesheet",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "apple-touch-icon-precomposed",
    "mask-icon",
    "preload",
    "prefetch",
    "dns-prefetch",
    "preconnect",
    "modulepreload",
    "prerender",
    "manifest",
    "pingback",
    "webmention",
    "edituri",
    "wlwmanifest",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Other,
    A,
    Area,
    Frame,
    Link,
    Base,
    Meta,
    /// XML elements whose text is a URL (sitemap `<loc>`, RSS `<link>`).
    UrlText,
}

#[derive(Default)]
struct Attrs {
    href: Option<Vec<u8>>,
    src: Option<Vec<u8>>,
    rel: Option<Vec<u8>>,
    name: Option<Vec<u8>>,
    http_equiv: Option<Vec<u8>>,
    content: Option<Vec<u8>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Attr {
    None,
    Href,
    Src,
    Rel,
    Name,
    HttpEquiv,
    Content,
}

struct Collector {
    xml: bool,
    tag: Tag,
    attr: Attr,
    attrs: Attrs,
    in_url_text: bool,
    text: Vec<u8>,
    out: Links,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The URL of a `<meta http-equiv=refresh content="5; url=...">`.
fn refresh_target(content: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(content);
    let (_, rest) = s.split_once([';', ','])?;
    let rest = rest.trim_start();
    // get(): the third byte may fall inside a character.
    let rest = if let Some(after) = rest
        .get(..3)
        .filter(|k| k.eq_ignore_ascii_case("url"))
        .and_then(|_| rest.get(3..))
    {
        after.trim_start().strip_prefix('=')?.trim_start()
    } else {
        rest
    };
    let url = match rest.chars().next() {
        Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
        _ => rest,
    };
    let url = url.trim();
    (!url.is_empty()).then(|| url.to_string())
}

impl Collector {
    fn new(xml: bool) -> Collector {
        Collector {
            xml,
            tag: Tag::Other,
            attr: Attr::None,
            attrs: Attrs::default(),
            in_url_text: false,
            text: Vec::new(),
            out: Links::default(),
        }
    }

    fn start_tag(&mut self, name: &[u8]) {
        self.attrs = Attrs::default();
        self.attr = Attr::None;
        self.tag = match name {
            b"a" => Tag::A,
            b"area" => Tag::Area,
            b"frame" | b"iframe" => Tag::Frame,
            b"link" if !self.xml => Tag::Link,
            b"base" => Tag::Base,
            b"meta" => Tag::Meta,
            b"loc" | b"link" if self.xml => Tag::UrlText,
            _ if self.xml => Tag::A,
            _ => Tag::Other,
        };
    }

    fn attr_name(&mut self, name: &[u8]) {
        self.attr = match name {
            b"href" => Attr::Href,
            b"src" => Attr::Src,
            b"rel" => Attr::Rel,
            b"name" => Attr::Name,
            b"http-equiv" => Attr::HttpEquiv,
            b"content" => Attr::Content,
            _ => Attr::None,
        };
    }

    fn attr_value(&mut self, value: &[u8]) {
        let slot = match self.attr {
            Attr::None => return,
            Attr::Href => &mut self.attrs.href,
            Attr::Src => &mut self.attrs.src,
            Attr::Rel => &mut self.attrs.rel,
            Attr::Name => &mut self.attrs.name,
            Attr::HttpEquiv => &mut self.attrs.http_equiv,
            Attr::Content => &mut self.attrs.content,
        };
        // The first of duplicate attributes wins, as in a browser.
        if slot.is_none() {
            *slot = Some(value.to_vec());
        }
    }

    fn finish_tag(&mut self) {
        let a = std::mem::take(&mut self.attrs);
        let nofollow = a.rel.as_deref().is_some_and(|r| has_token(r, b"nofollow"));
        match self.tag {
            Tag::Other => {}
            Tag::A | Tag::Area => {
                if let Some(h) = a.href {
                    if !nofollow {
                        self.out.refs.push(lossy(&h));
                    }
                }
            }
            Tag::Frame => {
                if let Some(s) = a.src {
                    self.out.refs.push(lossy(&s));
                }
            }
            Tag::Link => {
                let resource = a
                    .rel
                    .as_deref()
                    .is_some_and(|r| RESOURCE_RELS.iter().any(|t| has_token(r, t.as_bytes())));
                if let Some(h) = a.href {
                    if !nofollow && !resource {
                        self.out.refs.push(lossy(&h));
                    }
                }
            }
            Tag::Base => {
                if self.out.base.is_none() {
                    self.out.base = a.href.map(|h| lossy(&h));
                }
            }
            Tag::Meta => self.meta(a),
            Tag::UrlText => {
                self.in_url_text = true;
                self.text.clear();
                if let Some(h) = a.href {
                    self.out.refs.push(lossy(&h));
                }
            }
        }
        self.tag = Tag::Other;
    }

    fn meta(&mut self, a: Attrs) {
        let Some(content) = a.content else {
            return;
        };
        if let Some(name) = a.name {
            if name.eq_ignore_ascii_case(b"robots") || name.eq_ignore_ascii_case(b"nlpcrawl") {
                let none = has_token(&content, b"none");
                self.out.nofollow |= none || has_token(&content, b"nofollow");
                self.out.noindex |= none || has_token(&content, b"noindex");
            }
        }
        if a.http_equiv
            .is_some_and(|h| h.eq_ignore_ascii_case(b"refresh"))
        {
            if let Some(u) = refresh_target(&content) {
                self.out.refs.push(u);
            }
        }
    }

    fn end_tag(&mut self) {
        if self.in_url_text {
            let t = String::from_utf8_lossy(&self.text);
            let t = t.trim();
            if !t.is_empty() {
                self.out.refs.push(t.to_string());
            }
            self.in_url_text = false;
        }
    }
}

impl Sink for Collector {
    fn open(&mut self, name: &[u8]) -> bool {
        self.start_tag(name);
        self.tag != Tag::Other
    }

    fn attr(&mut self, name: &[u8], value: &[u8]) {
        self.attr_name(name);
        self.attr_value(value);
    }

    fn close(&mut self, _: &[u8], _: bool) {
        self.finish_tag();
    }

    fn end(&mut self, _: &[u8]) {
        self.end_tag();
    }

    fn text(&mut self, s: &[u8]) {
        if self.in_url_text {
            self.text.extend_from_slice(s);
        }
    }
}

fn run(doc: &[u8], xml: bool) -> Links {
    let mut c = Collector::new(xml);
    let mode = if xml { Mode::Xml } else { Mode::Html };
    markup::tokenize(doc, mode, &mut c);
    c.out
}

/// Decodes a document to UTF-8 when it is in another encoding, so attribute
/// bytes and decoded entities share one encoding.
fn as_utf8<'a>(doc: &'a [u8], enc: &'static Encoding) -> std::borrow::Cow<'a, [u8]> {
    if enc == UTF_8 {
        return std::borrow::Cow::Borrowed(doc);
    }
    let (text, _, _) = enc.decode(doc);
    match text {
        std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
    }
}

/// The links of an HTML (or XHTML) document in encoding `enc`.
pub fn extract_html(doc: &[u8], enc: &'static Encoding) -> Links {
    run(&as_utf8(doc, enc), false)
}

/// The links of an XML document: sitemap `<loc>`, feed `<link>` text and
/// `href` attributes.
pub fn extract_xml(doc: &[u8], enc: &'static Encoding) -> Links {
    run(&as_utf8(doc, enc), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_forms() {
        assert_eq!(refresh_target(b"5; url=/a").as_deref(), Some("/a"));
        assert_eq!(refresh_target(b"0;URL='b c'").as_deref(), Some("b c"));
        assert_eq!(
            refresh_target(b"0, http://x/").as_deref(),
            Some("http://x/")
        );
        assert_eq!(refresh_target(b"5"), None);
    }

    #[test]
    fn refresh_with_a_character_across_the_third_byte() {
        // "ūū" is four bytes: byte 3 falls inside the second "ū".
        assert_eq!(
            refresh_target("0; ūūrl=/x".as_bytes()).as_deref(),
            Some("ūūrl=/x")
        );
        let l = extract_html(
            "<meta http-equiv=refresh content=\"0; ūūrl=/x\">".as_bytes(),
            UTF_8,
        );
        assert_eq!(l.refs, ["ūūrl=/x"]);
    }

    #[test]
    fn basic_html() {
        let l = extract_html(
            br#"<A HREF="/a">x</A><a href=b rel="external nofollow">n</a>
            <link rel=stylesheet href=s.css><link rel=alternate href=alt>
            <script>document.write('<a href="/no">')</script>
            <iframe src="f"></iframe><base href="http://b/"><base href="http://c/">"#,
            UTF_8,
        );
        assert_eq!(l.refs, ["/a", "alt", "f"]);
        assert_eq!(l.base.as_deref(), Some("http://b/"));
        assert!(!l.nofollow);
    }

    #[test]
    fn sitemap_locs() {
        let l = extract_xml(
            b"<?xml version='1.0'?><urlset><url><loc> http://h/a </loc></url><url><loc>http://h/b</loc></url></urlset>",
            UTF_8,
        );
        assert_eq!(l.refs, ["http://h/a", "http://h/b"]);
    }
}

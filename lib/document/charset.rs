//! Which charset a fetched document is in, decoding it, and telling whether
//! the result is text at all.
//!
//! The charset is found as the WHATWG encoding sniffing algorithm finds it,
//! in this order: a byte order mark; the charset the server sent, recorded
//! at fetch time; then, for HTML, the `<meta>` prescan of the first 1024
//! bytes and the XML declaration; for XML, the declaration first. When
//! nothing names a charset, HTML and plain text fall back to the configured
//! default (ISO-8859-1, which WHATWG reads as windows-1252), and XML to
//! UTF-8, as the XML specification says. Every label goes through WHATWG
//! label resolution, so "latin1", "iso-8859-1" and "windows-1252" are one
//! charset.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How many leading bytes the `<meta>` prescan and the XML declaration
/// search look at, as WHATWG says for the prescan.
pub const PRESCAN_LEN: usize = 1024;

/// How a document is read, from its content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// text/html, and an empty content type.
    Html,
    /// application/xhtml+xml: XML rules for the charset, HTML for the text.
    Xhtml,
    /// text/xml, application/xml and other `+xml` types.
    Xml,
    /// text/plain.
    Plain,
}

impl Kind {
    /// The kind of a document of this MIME type (parameters allowed), or
    /// None for a type that is not a text document.
    pub fn of(content_type: &str) -> Option<Kind> {
        let mime = content_type.split(';').next().unwrap_or("").trim();
        let mime = mime.to_ascii_lowercase();
        match mime.as_str() {
            "" | "text/html" => Some(Kind::Html),
            "application/xhtml+xml" => Some(Kind::Xhtml),
            "text/xml" | "application/xml" => Some(Kind::Xml),
            "text/plain" => Some(Kind::Plain),
            m if m.ends_with("+xml") => Some(Kind::Xml),
            _ => None,
        }
    }
}

/// Where the charset came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Bom,
    Http,
    XmlDeclaration,
    Meta,
    Default,
}

impl Source {
    /// As the logs say it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Bom => "byte order mark",
            Source::Http => "HTTP header",
            Source::XmlDeclaration => "XML declaration",
            Source::Meta => "meta",
            Source::Default => "default",
        }
    }
}

/// The charset found for a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub encoding: &'static Encoding,
    pub source: Source,
    /// Length of the byte order mark, which is not part of the text.
    pub bom_len: usize,
}

/// Resolves a label as WHATWG does (case and surrounding white space
/// ignored); None for a label WHATWG does not know. This is the one place
/// a charset label read from a user or a server becomes a charset:
/// `--filter-charset`, `--use-charset`, the Content-Type check and the
/// record's charset field all go through it.
pub fn resolve(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// A charset label no WHATWG encoding has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown charset {0:?}")]
pub struct UnknownCharset(pub String);

/// The charset a user's label names, or why it names none.
pub fn parse(label: &str) -> Result<&'static Encoding, UnknownCharset> {
    resolve(label).ok_or_else(|| UnknownCharset(label.to_string()))
}

/// A charset's WHATWG canonical name, lowercase: as records store it and
/// messages print it.
pub fn name(e: &'static Encoding) -> String {
    e.name().to_ascii_lowercase()
}

/// The canonical name (see [`name`]) of a label; None for an unknown one.
pub fn canonical(label: &str) -> Option<String> {
    resolve(label).map(name)
}

/// The `charset` parameter of a Content-Type value, if any.
pub fn content_type_charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']))
    })
}

/// Finds the charset of `body`: `http` is the label the server sent (may be
/// empty), `default` is used for HTML and plain text when nothing says.
pub fn detect(body: &[u8], http: &str, kind: Kind, default: &'static Encoding) -> Detected {
    let found = |encoding, source| Detected {
        encoding,
        source,
        bom_len: 0,
    };
    if let Some((encoding, bom_len)) = Encoding::for_bom(body) {
        return Detected {
            encoding,
            source: Source::Bom,
            bom_len,
        };
    }
    if let Some(e) = resolve(http) {
        return found(e, Source::Http);
    }
    let head = &body[..body.len().min(PRESCAN_LEN)];
    match kind {
        Kind::Html => {
            if let Some(e) = prescan(head) {
                return found(e, Source::Meta);
            }
            if let Some(e) = xml_declaration(head) {
                return found(e, Source::XmlDeclaration);
            }
            found(default, Source::Default)
        }
        Kind::Xhtml | Kind::Xml => {
            if let Some(e) = xml_declaration(head) {
                return found(e, Source::XmlDeclaration);
            }
            // XHTML is often served from HTML templates whose only
            // declaration is a meta element; honouring it costs nothing.
            if kind == Kind::Xhtml {
                if let Some(e) = prescan(head) {
                    return found(e, Source::Meta);
                }
            }
            found(UTF_8, Source::Default)
        }
        Kind::Plain => found(default, Source::Default),
    }
}

/// A label found inside the document itself: a document whose declaration
/// can be read as ASCII is not UTF-16, whatever it claims, so WHATWG reads
/// it as UTF-8; x-user-defined means windows-1252 there.
fn in_document(e: &'static Encoding) -> &'static Encoding {
    if e == UTF_16BE || e == UTF_16LE {
        UTF_8
    } else if e == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        e
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The encoding an `<?xml ... encoding="..."?>` declaration at the very
/// start of `head` names.
pub fn xml_declaration(head: &[u8]) -> Option<&'static Encoding> {
    let rest = head.strip_prefix(b"<?xml")?;
    if !rest.first().copied().is_some_and(is_space) {
        return None;
    }
    let end = find(rest, b"?>")?;
    let decl = &rest[..end];
    let at = find(decl, b"encoding")?;
    let mut v = &decl[at + b"encoding".len()..];
    v = trim_start(v).strip_prefix(b"=")?;
    v = trim_start(v);
    let quote = *v.first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let v = &v[1..];
    let close = v.iter().position(|&b| b == quote)?;
    Encoding::for_label(&v[..close]).map(in_document)
}

fn trim_start(mut b: &[u8]) -> &[u8] {
    while let Some((&c, rest)) = b.split_first() {
        if !is_space(c) {
            break;
        }
        b = rest;
    }
    b
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn starts_with_ci(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && hay[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The WHATWG "prescan a byte stream to determine its encoding" over
/// `head` (the caller passes the first 1024 bytes). Simplified where it
/// changes nothing: the scan simply ends where `head` ends, so an element
/// cut off there counts as absent.
pub fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let b = head;
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            // The "-->" may share its dashes with the "<!--".
            i += 2 + find(&rest[2..], b"-->")? + 3;
            continue;
        }
        if starts_with_ci(rest, b"<meta") && rest.get(5).is_some_and(|&c| is_space(c) || c == b'/')
        {
            i += 6;
            if let Some(e) = meta(b, &mut i)? {
                return Some(e);
            }
            i += 1;
            continue;
        }
        let letter_at = |k: usize| rest.get(k).is_some_and(u8::is_ascii_alphabetic);
        if rest[0] == b'<' && (letter_at(1) || (rest.get(1) == Some(&b'/') && letter_at(2))) {
            // Some other tag: skip its name and attributes, so a "<meta"
            // inside an attribute value is not taken for an element.
            i += 1;
            while i < b.len() && !is_space(b[i]) && b[i] != b'>' {
                i += 1;
            }
            while attribute(b, &mut i).is_some() {}
            i += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += rest.iter().position(|&c| c == b'>')? + 1;
            continue;
        }
        i += 1;
    }
    None
}

/// The attributes of a `<meta>` element whose name the prescan has just
/// passed. Outer None: the input ended; inner None: this meta names no
/// usable charset.
fn meta(b: &[u8], i: &mut usize) -> Option<Option<&'static Encoding>> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    // None: no charset attribute or content charset; Some(true): the
    // charset came from content, which counts only with http-equiv.
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    while let Some((name, value)) = attribute(b, i) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if charset.is_none() => {
                if let Some(e) = charset_from_content(&value) {
                    charset = Some(e);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    if *i >= b.len() {
        return None;
    }
    Some(match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        Some(_) => charset.map(in_document),
    })
}

/// The WHATWG "get an attribute" step of the prescan: the next attribute's
/// name and value, both ASCII-lowercased, or None at `>` or the end.
fn attribute(b: &[u8], i: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while *i < b.len() && (is_space(b[*i]) || b[*i] == b'/') {
        *i += 1;
    }
    if *i >= b.len() || b[*i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    // The name runs to '=', white space, '/' or '>'; a leading '=' is part
    // of it.
    loop {
        let c = *b.get(*i)?;
        if c == b'=' && !name.is_empty() {
            *i += 1;
            break;
        }
        if is_space(c) {
            while *i < b.len() && is_space(b[*i]) {
                *i += 1;
            }
            if b.get(*i) != Some(&b'=') {
                return Some((name, value));
            }
            *i += 1;
            break;
        }
        if c == b'/' || c == b'>' {
            return Some((name, value));
        }
        name.push(c.to_ascii_lowercase());
        *i += 1;
    }
    while *i < b.len() && is_space(b[*i]) {
        *i += 1;
    }
    let c = *b.get(*i)?;
    if c == b'"' || c == b'\'' {
        *i += 1;
        loop {
            let d = *b.get(*i)?;
            *i += 1;
            if d == c {
                return Some((name, value));
            }
            value.push(d.to_ascii_lowercase());
        }
    }
    if c == b'>' {
        return Some((name, value));
    }
    while let Some(&d) = b.get(*i) {
        if is_space(d) || d == b'>' {
            break;
        }
        value.push(d.to_ascii_lowercase());
        *i += 1;
    }
    Some((name, value))
}

/// The WHATWG "extract a character encoding from a meta element" for a
/// `content` value such as `text/html; charset=windows-1257`.
pub fn charset_from_content(s: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    loop {
        let found = s[at..]
            .windows(7)
            .position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        at += found + 7;
        let rest = trim_start(&s[at..]);
        if let Some(after) = rest.strip_prefix(b"=") {
            let v = trim_start(after);
            let (&q, tail) = v.split_first()?;
            if q == b'"' || q == b'\'' {
                let close = tail.iter().position(|&c| c == q)?;
                return Encoding::for_label(&tail[..close]);
            }
            let end = v
                .iter()
                .position(|&c| is_space(c) || c == b';')
                .unwrap_or(v.len());
            return Encoding::for_label(&v[..end]);
        }
        // "charset" not followed by '=': look for a later one.
    }
}

/// Decodes `body` (without its byte order mark) with replacement.
pub fn decode<'a>(body: &'a [u8], d: &Detected) -> Cow<'a, str> {
    let bytes = body.get(d.bom_len..).unwrap_or_default();
    d.encoding.decode_without_bom_handling(bytes).0
}

/// Counts that tell text from garbage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quality {
    /// Characters in all.
    pub chars: usize,
    /// Characters other than white space.
    pub solid: usize,
    /// U+FFFD, which the decoder puts for bytes the charset cannot map, and
    /// C1 controls, which only a wrong single-byte charset produces.
    pub replaced: usize,
    /// NUL and the other C0 controls but tab, line feed, form feed and
    /// carriage return: in a text they mean binary data.
    pub controls: usize,
}

impl Quality {
    /// Measures decoded text in one pass over its bytes.
    pub fn of(s: &str) -> Quality {
        let b = s.as_bytes();
        let mut q = Quality::default();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if c < 0x80 {
                q.chars += 1;
                if c < b' ' && !is_space(c) {
                    q.controls += 1;
                } else if c != b' ' && !is_space(c) {
                    q.solid += 1;
                }
                continue;
            }
            if c < 0xC0 {
                continue; // a continuation byte of a counted character
            }
            q.chars += 1;
            q.solid += 1;
            match c {
                // U+0080..U+009F: C2 80..C2 9F.
                0xC2 if b.get(i).is_some_and(|&n| n < 0xA0) => q.replaced += 1,
                // U+FFFD: EF BF BD.
                0xEF if b.get(i..i + 2) == Some(&[0xBF, 0xBD]) => q.replaced += 1,
                _ => {}
            }
        }
        q
    }

    /// The share of replaced characters among the characters other than
    /// white space, 0 for an empty text.
    pub fn replaced_share(&self) -> f64 {
        if self.solid == 0 {
            0.0
        } else {
            self.replaced as f64 / self.solid as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{ISO_8859_13, ISO_8859_4, KOI8_R, WINDOWS_1251, WINDOWS_1257};

    fn html(body: &[u8], http: &str) -> Detected {
        detect(body, http, Kind::Html, WINDOWS_1252)
    }

    #[test]
    fn kinds() {
        assert_eq!(Kind::of(""), Some(Kind::Html));
        assert_eq!(Kind::of("Text/HTML; charset=utf-8"), Some(Kind::Html));
        assert_eq!(Kind::of("application/xhtml+xml"), Some(Kind::Xhtml));
        assert_eq!(Kind::of("application/rss+xml"), Some(Kind::Xml));
        assert_eq!(Kind::of("text/plain"), Some(Kind::Plain));
        assert_eq!(Kind::of("image/png"), None);
        assert_eq!(
            content_type_charset("text/html; charset=\"koi8-r\""),
            Some("koi8-r")
        );
        assert_eq!(content_type_charset("text/html"), None);
    }

    #[test]
    fn labels() {
        // Every spelling of one encoding is one canonical name.
        for l in [
            "latin1",
            "ISO-8859-1",
            " windows-1252 ",
            "cp1252",
            "US-ASCII",
        ] {
            assert_eq!(canonical(l).as_deref(), Some("windows-1252"), "{l}");
        }
        assert_eq!(canonical("cp1257").as_deref(), Some("windows-1257"));
        assert_eq!(canonical("UTF8").as_deref(), Some("utf-8"));
        assert_eq!(canonical("sjis").as_deref(), Some("shift_jis"));
        assert_eq!(canonical("nonsense"), None);
        assert_eq!(parse("koi8-r"), Ok(KOI8_R));
        let e = parse("latin-99").unwrap_err();
        assert_eq!(e.to_string(), "unknown charset \"latin-99\"");
        assert_eq!(name(WINDOWS_1257), "windows-1257");
    }

    #[test]
    fn order_bom_http_meta_default() {
        let meta = b"<html><head><meta charset=windows-1257></head>";
        let d = html(meta, "");
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Meta));
        let d = html(meta, "koi8-r");
        assert_eq!((d.encoding, d.source), (KOI8_R, Source::Http));
        // An unknown HTTP label is ignored.
        let d = html(meta, "x-no-such-charset");
        assert_eq!(d.encoding, WINDOWS_1257);
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(meta);
        let d = html(&bom, "koi8-r");
        assert_eq!((d.encoding, d.source, d.bom_len), (UTF_8, Source::Bom, 3));
        let d = html(b"\xFF\xFE<\0h\0", "");
        assert_eq!((d.encoding, d.bom_len), (UTF_16LE, 2));
        let d = html(b"<p>nothing", "");
        assert_eq!((d.encoding, d.source), (WINDOWS_1252, Source::Default));
        // ISO-8859-1 is windows-1252 to WHATWG.
        assert_eq!(html(b"", "ISO-8859-1").encoding, WINDOWS_1252);
    }

    #[test]
    fn meta_forms() {
        let p = |s: &str| prescan(s.as_bytes());
        assert_eq!(p("<META CHARSET='ISO-8859-13'>"), Some(ISO_8859_13));
        assert_eq!(
            p("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-4\">"),
            Some(ISO_8859_4)
        );
        assert_eq!(
            p("<meta content='text/html;charset=windows-1251' http-equiv=content-type>"),
            Some(WINDOWS_1251)
        );
        // content without http-equiv content-type does not count.
        assert_eq!(p("<meta content=\"text/html; charset=koi8-r\">"), None);
        // Comments, other tags' attribute values and bogus markup hide it.
        assert_eq!(p("<!-- <meta charset=koi8-r> --><p>"), None);
        assert_eq!(p("<a title='<meta charset=koi8-r>'>"), None);
        assert_eq!(
            p("<!--><meta charset=koi8-r>"),
            Some(KOI8_R),
            "<!--> is a whole comment"
        );
        // In-document UTF-16 means UTF-8.
        assert_eq!(p("<meta charset=utf-16le>"), Some(UTF_8));
        // A bad label, then nothing: no charset.
        assert_eq!(p("<meta charset=bogus>"), None);
        // Past the first 1024 bytes it is not seen.
        let late = format!("<p>{}</p><meta charset=koi8-r>", "x".repeat(1100));
        assert_eq!(html(late.as_bytes(), "").source, Source::Default);
        assert_eq!(
            charset_from_content(b"text/html; charset =\"utf-8\""),
            Some(UTF_8)
        );
        assert_eq!(
            charset_from_content(b"charsetx; charset=koi8-r;"),
            Some(KOI8_R)
        );
        assert_eq!(charset_from_content(b"charset="), None);
    }

    #[test]
    fn xml_declarations() {
        let x = b"<?xml version=\"1.0\" encoding='ISO-8859-13'?><a/>";
        assert_eq!(xml_declaration(x), Some(ISO_8859_13));
        let d = detect(x, "", Kind::Xml, WINDOWS_1252);
        assert_eq!(
            (d.encoding, d.source),
            (ISO_8859_13, Source::XmlDeclaration)
        );
        // XML without a declaration is UTF-8, whatever the default.
        let d = detect(b"<rss/>", "", Kind::Xml, WINDOWS_1252);
        assert_eq!((d.encoding, d.source), (UTF_8, Source::Default));
        // In HTML the meta wins over the declaration.
        let both = b"<?xml version='1.0' encoding='iso-8859-4'?><html><meta charset=windows-1257>";
        assert_eq!(html(both, "").encoding, WINDOWS_1257);
        assert_eq!(
            detect(both, "", Kind::Xhtml, WINDOWS_1252).encoding,
            ISO_8859_4
        );
        assert_eq!(xml_declaration(b"<?xmlfoo encoding='koi8-r'?>"), None);
        assert_eq!(xml_declaration(b"<?xml version='1.0'?>"), None);
    }

    #[test]
    fn quality_counts() {
        let q = Quality::of("ab c\u{FFFD}\u{85}\0\x01\té");
        assert_eq!(q.chars, 10);
        assert_eq!(q.replaced, 2);
        assert_eq!(q.controls, 2);
        assert_eq!(q.solid, 6);
        let q = Quality::of("");
        assert_eq!(q.replaced_share(), 0.0);
    }
}

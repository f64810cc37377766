//! Which charset a fetched document is in, decoding it, and telling whether
//! the result is text at all.
//!
//! The charset is found as the HTML standard's encoding sniffing algorithm
//! finds it, in this order:
//!
//! 1. a byte order mark;
//! 2. the charset the server sent, recorded at fetch time;
//! 3. for HTML, the `<meta>` prescan of the first 1024 bytes, then the XML
//!    declaration; for XML, the declaration first;
//!
//! and, when none of these names a charset (the encoding is then only
//! tentative, as the standard says):
//!
//! 4. a body that is valid UTF-8 and not all ASCII is UTF-8: no legacy
//!    text is valid UTF-8 by chance, so this guess is taken as certain;
//! 5. for HTML, a `<meta>` past the first 1024 bytes, as the parser's
//!    "change the encoding" step would find it;
//! 6. `--use-charset`, the user's choice for pages that name none;
//! 7. chardetng's guess, with the host's top-level domain as its hint (so
//!    a `.lv` page leans to the Baltic charsets); for a body that is all
//!    ASCII this is the domain's usual legacy charset, a fallback.
//!
//! XML that names nothing is UTF-8, as the XML specification says. Every
//! label goes through WHATWG label resolution, so "latin1", "iso-8859-1"
//! and "windows-1252" are one charset.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
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

/// How the charset was decided. The numbers are stored in records; never
/// renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Source {
    /// A byte order mark.
    Bom = 1,
    /// The Content-Type header's charset parameter.
    Http = 2,
    /// A `<meta>` in the first 1024 bytes.
    Meta = 3,
    /// An `<?xml ... encoding=...?>` declaration.
    XmlDeclaration = 4,
    /// A `<meta>` past the first 1024 bytes, which changed the tentative
    /// charset.
    MetaLate = 5,
    /// Nothing declared; the body is valid UTF-8 with non-ASCII bytes.
    ValidUtf8 = 6,
    /// Nothing declared; `--use-charset`.
    Override = 7,
    /// Nothing declared; chardetng's guess from the bytes.
    Detected = 8,
    /// Nothing declared and the body all ASCII: the charset usual under
    /// the host's top-level domain.
    Fallback = 9,
    /// XML that declares nothing: UTF-8, as XML says.
    XmlDefault = 10,
}

impl Source {
    /// Every source, in the order they are tried.
    pub const ALL: [Source; 10] = [
        Source::Bom,
        Source::Http,
        Source::Meta,
        Source::XmlDeclaration,
        Source::MetaLate,
        Source::ValidUtf8,
        Source::Override,
        Source::Detected,
        Source::Fallback,
        Source::XmlDefault,
    ];

    /// As logs, nlpc-list and nlpc-dump print it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Bom => "bom",
            Source::Http => "header",
            Source::Meta => "meta",
            Source::XmlDeclaration => "xml-declaration",
            Source::MetaLate => "meta-late",
            Source::ValidUtf8 => "valid-utf-8",
            Source::Override => "override",
            Source::Detected => "detected",
            Source::Fallback => "fallback",
            Source::XmlDefault => "xml-default",
        }
    }

    /// The source stored as this byte; None for 0 (not decided) and
    /// unknown bytes.
    pub fn from_u8(b: u8) -> Option<Source> {
        Source::ALL.iter().copied().find(|s| *s as u8 == b)
    }

    /// Whether the document itself or its server named the charset (the
    /// sniffing algorithm's "certain" and the prescan), rather than a guess.
    pub fn declared(self) -> bool {
        matches!(
            self,
            Source::Bom | Source::Http | Source::Meta | Source::XmlDeclaration | Source::MetaLate
        )
    }
}

/// What sniffing may use beyond the bytes: the user's charset for pages
/// that name none, and the host's top-level domain for the detector.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hints<'a> {
    /// `--use-charset`.
    pub user: Option<&'static Encoding>,
    /// The rightmost label of the host name, as found in the URL.
    pub tld: Option<&'a str>,
}

/// The top-level domain of `host` as chardetng takes it: lowercase ASCII
/// letters, digits and hyphens (an IDN in its Punycode form); None for
/// anything else, which chardetng treats as a generic domain.
pub fn tld_of(host: &str) -> Option<String> {
    let label = host.trim_end_matches('.').rsplit('.').next()?;
    let ok = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| label.to_ascii_lowercase())
}

/// How many bytes chardetng reads: enough for its statistics, bounded so
/// that a huge page costs no more than this.
pub const DETECT_LEN: usize = 64 * 1024;

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
/// empty); `hints` serve pages that name no charset. The order is the
/// module's.
pub fn detect(body: &[u8], http: &str, kind: Kind, hints: &Hints<'_>) -> Detected {
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
            return found(UTF_8, Source::XmlDefault);
        }
        Kind::Plain => {}
    }
    undeclared(body, kind, hints)
}

/// The charset of HTML or plain text that declares none (steps 4 to 7 of
/// the module's order).
fn undeclared(body: &[u8], kind: Kind, hints: &Hints<'_>) -> Detected {
    let found = |encoding, source| Detected {
        encoding,
        source,
        bom_len: 0,
    };
    let ascii_len = Encoding::ascii_valid_up_to(body);
    let ascii = ascii_len == body.len();
    if !ascii && std::str::from_utf8(&body[ascii_len..]).is_ok() {
        return found(UTF_8, Source::ValidUtf8);
    }
    // The parser meeting a <meta> past the prescan changes the tentative
    // charset (to the same one, it makes it certain): either way the meta
    // decided it, and nothing need be guessed.
    if kind == Kind::Html {
        if let Some(e) = late_meta(body) {
            return found(e, Source::MetaLate);
        }
    }
    if let Some(e) = hints.user {
        found(e, Source::Override)
    } else {
        let mut det = EncodingDetector::new(Iso2022JpDetection::Deny);
        let sample = &body[..body.len().min(DETECT_LEN)];
        det.feed(sample, sample.len() == body.len());
        let tld = hints.tld.and_then(tld_of);
        // UTF-8 was ruled out above; chardetng is not to guess it from a
        // prefix of a body that is not valid UTF-8 as a whole.
        let e = det.guess(tld.as_deref().map(str::as_bytes), Utf8Detection::Deny);
        found(
            e,
            if ascii {
                Source::Fallback
            } else {
                Source::Detected
            },
        )
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
    scan(head, false)
}

/// The charset of the first `<meta>` that names one anywhere in `body`,
/// as the tree builder would meet it: like the prescan, but the content
/// of script, style and the other raw-text elements is skipped, since the
/// tokenizer reads no tags there. For a page whose prescan found nothing.
pub fn late_meta(body: &[u8]) -> Option<&'static Encoding> {
    // No "<meta" at all is the common case, and memchr-fast to rule out.
    if memchr::memmem::find(body, b"<m").is_none() && memchr::memmem::find(body, b"<M").is_none() {
        return None;
    }
    scan(body, true)
}

/// Elements whose content the tokenizer reads as text, not tags.
const RAW_TEXT: &[&[u8]] = &[
    b"script",
    b"style",
    b"textarea",
    b"title",
    b"xmp",
    b"iframe",
    b"noembed",
    b"noframes",
    b"plaintext",
];

/// The prescan's loop; `raw` skips the content of [`RAW_TEXT`] elements.
fn scan(b: &[u8], raw: bool) -> Option<&'static Encoding> {
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
            let name_at = i;
            while i < b.len() && !is_space(b[i]) && b[i] != b'>' {
                i += 1;
            }
            let name = &b[name_at..i];
            while attribute(b, &mut i).is_some() {}
            i += 1;
            if raw {
                if let Some(r) = RAW_TEXT.iter().find(|r| name.eq_ignore_ascii_case(r)) {
                    if r == b"plaintext" {
                        return None; // text to the end
                    }
                    i += end_tag(b.get(i..)?, r)?;
                }
            }
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

/// Where `</name` (any case) starts in `b`.
fn end_tag(b: &[u8], name: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(b, b"</").find(|&at| starts_with_ci(&b[at + 2..], name))
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
        detect(body, http, Kind::Html, &Hints::default())
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
        // All ASCII, nothing declared, no domain: the generic fallback.
        let d = html(b"<p>nothing", "");
        assert_eq!((d.encoding, d.source), (WINDOWS_1252, Source::Fallback));
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
        // Past the first 1024 bytes the prescan does not see it; the
        // parser's later change of encoding does.
        let late = format!("<p>{}</p><meta charset=koi8-r>", "x".repeat(1100));
        assert_eq!(prescan(&late.as_bytes()[..PRESCAN_LEN]), None);
        let d = html(late.as_bytes(), "");
        assert_eq!((d.encoding, d.source), (KOI8_R, Source::MetaLate));
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
        let d = detect(x, "", Kind::Xml, &Hints::default());
        assert_eq!(
            (d.encoding, d.source),
            (ISO_8859_13, Source::XmlDeclaration)
        );
        // XML without a declaration is UTF-8, whatever the default.
        let hints = Hints {
            user: Some(WINDOWS_1252),
            tld: Some("lv"),
        };
        let d = detect(b"<rss/>", "", Kind::Xml, &hints);
        assert_eq!((d.encoding, d.source), (UTF_8, Source::XmlDefault));
        // In HTML the meta wins over the declaration.
        let both = b"<?xml version='1.0' encoding='iso-8859-4'?><html><meta charset=windows-1257>";
        assert_eq!(html(both, "").encoding, WINDOWS_1257);
        assert_eq!(
            detect(both, "", Kind::Xhtml, &Hints::default()).encoding,
            ISO_8859_4
        );
        assert_eq!(xml_declaration(b"<?xmlfoo encoding='koi8-r'?>"), None);
        assert_eq!(xml_declaration(b"<?xml version='1.0'?>"), None);
    }

    /// A sample of the WHATWG Encoding Standard's labels for each of its
    /// encodings, with the encoding's name: every one resolves, whatever
    /// its case and surrounding white space.
    const LABELS: &[(&str, &[&str])] = &[
        (
            "UTF-8",
            &[
                "unicode-1-1-utf-8",
                "unicode11utf8",
                "utf8",
                "x-unicode20utf8",
            ],
        ),
        ("IBM866", &["866", "cp866", "csibm866", "ibm866"]),
        (
            "ISO-8859-2",
            &[
                "csisolatin2",
                "iso-ir-101",
                "iso_8859-2:1987",
                "l2",
                "latin2",
            ],
        ),
        ("ISO-8859-3", &["csisolatin3", "iso-ir-109", "l3", "latin3"]),
        (
            "ISO-8859-4",
            &[
                "csisolatin4",
                "iso-ir-110",
                "iso_8859-4:1988",
                "l4",
                "latin4",
            ],
        ),
        (
            "ISO-8859-5",
            &["csisolatincyrillic", "cyrillic", "iso-ir-144", "iso8859-5"],
        ),
        (
            "ISO-8859-6",
            &[
                "arabic",
                "asmo-708",
                "ecma-114",
                "iso-8859-6-i",
                "iso-ir-127",
            ],
        ),
        (
            "ISO-8859-7",
            &["ecma-118", "elot_928", "greek", "greek8", "sun_eu_greek"],
        ),
        (
            "ISO-8859-8",
            &["csisolatinhebrew", "hebrew", "iso-8859-8-e", "visual"],
        ),
        ("ISO-8859-8-I", &["csiso88598i", "iso-8859-8-i", "logical"]),
        (
            "ISO-8859-10",
            &["csisolatin6", "iso-ir-157", "l6", "latin6"],
        ),
        ("ISO-8859-13", &["iso-8859-13", "iso8859-13", "iso885913"]),
        ("ISO-8859-14", &["iso-8859-14", "iso8859-14", "iso885914"]),
        ("ISO-8859-15", &["csisolatin9", "iso_8859-15", "l9"]),
        ("ISO-8859-16", &["iso-8859-16"]),
        ("KOI8-R", &["cskoi8r", "koi", "koi8", "koi8_r"]),
        ("KOI8-U", &["koi8-ru", "koi8-u"]),
        ("macintosh", &["csmacintosh", "mac", "x-mac-roman"]),
        ("windows-874", &["dos-874", "iso-8859-11", "tis-620"]),
        ("windows-1250", &["cp1250", "x-cp1250"]),
        ("windows-1251", &["cp1251", "x-cp1251"]),
        (
            "windows-1252",
            &[
                "ansi_x3.4-1968",
                "ascii",
                "cp819",
                "ibm819",
                "iso-ir-100",
                "l1",
                "us-ascii",
            ],
        ),
        ("windows-1253", &["cp1253", "x-cp1253"]),
        (
            "windows-1254",
            &["cp1254", "csisolatin5", "iso-8859-9", "l5", "latin5"],
        ),
        ("windows-1255", &["cp1255", "x-cp1255"]),
        ("windows-1256", &["cp1256", "x-cp1256"]),
        ("windows-1257", &["cp1257", "windows-1257", "x-cp1257"]),
        ("windows-1258", &["cp1258", "x-cp1258"]),
        ("x-mac-cyrillic", &["x-mac-cyrillic", "x-mac-ukrainian"]),
        (
            "GBK",
            &[
                "chinese",
                "csgb2312",
                "gb2312",
                "gb_2312-80",
                "iso-ir-58",
                "x-gbk",
            ],
        ),
        ("gb18030", &["gb18030"]),
        ("Big5", &["big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
        ("EUC-JP", &["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]),
        ("ISO-2022-JP", &["csiso2022jp", "iso-2022-jp"]),
        (
            "Shift_JIS",
            &["csshiftjis", "ms932", "ms_kanji", "sjis", "windows-31j"],
        ),
        (
            "EUC-KR",
            &[
                "cseuckr",
                "korean",
                "ks_c_5601-1987",
                "ksc5601",
                "windows-949",
            ],
        ),
        (
            "replacement",
            &["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-kr"],
        ),
        ("UTF-16BE", &["unicodefffe", "utf-16be"]),
        (
            "UTF-16LE",
            &["csunicode", "ucs-2", "unicode", "unicodefeff", "utf-16"],
        ),
        ("x-user-defined", &["x-user-defined"]),
    ];

    #[test]
    fn every_whatwg_encoding_by_a_sample_of_its_labels() {
        assert_eq!(LABELS.len(), 40, "the standard has 40 encodings");
        for (want, labels) in LABELS {
            for l in *labels {
                for spelled in [l.to_string(), l.to_uppercase(), format!(" \t{l}\n")] {
                    let e = parse(&spelled).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(e.name(), *want, "{spelled:?}");
                    assert_eq!(Some(e), Encoding::for_label(l.as_bytes()));
                    assert_eq!(canonical(&spelled), Some(want.to_ascii_lowercase()));
                }
            }
        }
    }

    fn undeclared_hints<'a>(user: Option<&'static Encoding>, tld: Option<&'a str>) -> Hints<'a> {
        Hints { user, tld }
    }

    #[test]
    fn pages_that_name_nothing() {
        let lv = "<p>Rīgā šodien līst, bet rīt būs saulaina diena ar vēju no jūras.</p>";
        let utf8 = lv.as_bytes();
        let (w1257, _, _) = WINDOWS_1257.encode(lv);
        let none = undeclared_hints(None, None);
        // Valid UTF-8 is UTF-8, whatever the user or the domain says.
        for h in [none, undeclared_hints(Some(WINDOWS_1257), Some("lv"))] {
            let d = detect(utf8, "", Kind::Html, &h);
            assert_eq!((d.encoding, d.source), (UTF_8, Source::ValidUtf8));
            let d = detect(utf8, "", Kind::Plain, &h);
            assert_eq!((d.encoding, d.source), (UTF_8, Source::ValidUtf8));
        }
        // Legacy bytes: the user's charset, else chardetng's guess.
        let d = detect(
            &w1257,
            "",
            Kind::Html,
            &undeclared_hints(Some(ISO_8859_4), None),
        );
        assert_eq!((d.encoding, d.source), (ISO_8859_4, Source::Override));
        let d = detect(&w1257, "", Kind::Html, &undeclared_hints(None, Some("lv")));
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Detected));
        // All ASCII: the domain's usual charset.
        let ascii = b"<p>Riga sodien list</p>";
        let d = detect(ascii, "", Kind::Html, &undeclared_hints(None, Some("lv")));
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Fallback));
        let d = detect(ascii, "", Kind::Html, &undeclared_hints(None, Some("com")));
        assert_eq!((d.encoding, d.source), (WINDOWS_1252, Source::Fallback));
        // A declaration wins over all of it.
        let d = detect(utf8, "windows-1257", Kind::Html, &none);
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Http));
    }

    #[test]
    fn late_meta_changes_a_tentative_charset() {
        let pad = "<p>".to_string() + &"teksts ".repeat(200) + "</p>";
        let page = |meta: &str| format!("<html><head><title>x</title>{pad}{meta}<p>\u{e9}");
        let h = undeclared_hints(Some(WINDOWS_1252), Some("lv"));
        let late = page("<meta charset=windows-1257>");
        // The \u{e9} written as UTF-8 would make it valid UTF-8: use the
        // legacy byte.
        let bytes = late.replace('\u{e9}', "").into_bytes();
        let mut legacy = bytes.clone();
        legacy.push(0xE9);
        let d = detect(&legacy, "", Kind::Html, &h);
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::MetaLate));
        // All ASCII too.
        let d = detect(&bytes, "", Kind::Html, &h);
        assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::MetaLate));
        // Not for plain text, nor over a declaration, nor over valid UTF-8.
        assert_eq!(
            detect(&legacy, "", Kind::Plain, &h).source,
            Source::Override
        );
        assert_eq!(
            detect(&legacy, "koi8-r", Kind::Html, &h).source,
            Source::Http
        );
        let d = detect(late.as_bytes(), "", Kind::Html, &h);
        assert_eq!(d.source, Source::ValidUtf8);
        // Inside a script, a comment or an attribute value it is no element.
        for hidden in [
            "<script>var m = '<meta charset=koi8-r>';</script>",
            "<SCRIPT type=x>document.write(\"<meta charset=koi8-r>\")</Script>",
            "<!-- <meta charset=koi8-r> -->",
            "<a title='<meta charset=koi8-r>'>x</a>",
            "<textarea><meta charset=koi8-r></textarea>",
        ] {
            let mut b = page(hidden).replace('\u{e9}', "").into_bytes();
            b.push(0xE9);
            let d = detect(&b, "", Kind::Html, &h);
            assert_eq!(d.source, Source::Override, "{hidden}");
        }
        // After the script, a real one counts; UTF-16 in a document means
        // UTF-8.
        assert_eq!(
            late_meta(b"<script>'<meta charset=koi8-r>'</script><meta charset=iso-8859-13>"),
            Some(ISO_8859_13)
        );
        assert_eq!(late_meta(b"<meta charset=utf-16le>"), Some(UTF_8));
        assert_eq!(late_meta(b"<plaintext><meta charset=koi8-r>"), None);
        assert_eq!(late_meta(b"<script><meta charset=koi8-r>"), None);
    }

    #[test]
    fn sources_and_domains() {
        for s in Source::ALL {
            assert_eq!(Source::from_u8(s as u8), Some(s));
        }
        assert_eq!(Source::from_u8(0), None);
        let names: std::collections::HashSet<_> = Source::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Source::ALL.len());
        assert_eq!(tld_of("www.example.LV").as_deref(), Some("lv"));
        assert_eq!(tld_of("example.lv.").as_deref(), Some("lv"));
        assert_eq!(tld_of("xn--p1ai").as_deref(), Some("xn--p1ai"));
        assert_eq!(tld_of("127.0.0.1").as_deref(), Some("1"));
        assert_eq!(tld_of("[::1]"), None);
        assert_eq!(tld_of(""), None);
        assert_eq!(tld_of("bad_label.l v"), None);
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

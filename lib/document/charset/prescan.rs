//! Declarations inside the document: the XML declaration, the HTML
//! standard's `<meta>` prescan of the first 1024 bytes, and the later
//! `<meta>` that makes the parser change a tentative encoding.

use super::*;

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

pub(super) fn trim_start(mut b: &[u8]) -> &[u8] {
    while let Some((&c, rest)) = b.split_first() {
        if !is_space(c) {
            break;
        }
        b = rest;
    }
    b
}

pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

pub(super) fn starts_with_ci(hay: &[u8], prefix: &[u8]) -> bool {
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
    // No "<meta" at all is the common case, and fast to rule out: one
    // memchr jump a tag, where the scan below reads every byte.
    if !memchr::memchr_iter(b'<', body).any(|at| starts_with_ci(&body[at..], b"<meta")) {
        return None;
    }
    scan(body, true)
}

/// Elements whose content the tokenizer reads as text, not tags.
pub(super) const RAW_TEXT: &[&[u8]] = &[
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
pub(super) fn scan(b: &[u8], raw: bool) -> Option<&'static Encoding> {
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
pub(super) fn end_tag(b: &[u8], name: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(b, b"</").find(|&at| starts_with_ci(&b[at + 2..], name))
}

/// The attributes of a `<meta>` element whose name the prescan has just
/// passed. Outer None: the input ended; inner None: this meta names no
/// usable charset.
pub(super) fn meta(b: &[u8], i: &mut usize) -> Option<Option<&'static Encoding>> {
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
pub(super) fn attribute(b: &[u8], i: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
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

//! URLs: reference resolution, the URL a request is sent to, the key form
//! that decides which URLs are one record, and the small questions the
//! daemons ask of a URL (host, depth, parents).
//!
//! Parsing and resolution are the `url` crate's (the WHATWG URL Standard,
//! which resolves references as RFC 3986 section 5 does for http and https).
//! Its serialisation, without the fragment, is the *request form*: what a
//! browser sends for the link, so the server sees the URL its page meant.
//! It already has the scheme and host in lowercase, no default port and no
//! dot segments; we take out the userinfo (`user:password@`), which a
//! crawler must never send (curl would send it as Basic authorization),
//! log, store or index. The *key form* ([`key_form`]) adds RFC 3986 section 6.2.2
//! on top: percent-encodings of unreserved characters are decoded, the
//! others get uppercase hex, a stray `%` is `%25`. Two spellings of one
//! resource therefore give one record, but the key form is only ever
//! compared and hashed, never sent.

use std::borrow::Cow;
use std::fmt;

/// Why a URL was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlError {
    pub url: String,
    pub why: String,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.url, self.why)
    }
}

impl std::error::Error for UrlError {}

fn err(url: &str, why: impl Into<String>) -> UrlError {
    UrlError {
        url: url.to_string(),
        why: why.into(),
    }
}

/// A parsed base URL to resolve references against.
#[derive(Clone, Debug)]
pub struct Base {
    url: ::url::Url,
    /// Ends of the origin (scheme://authority) and of the directory (up to
    /// the last '/' of the path), in the serialised base; set only for http
    /// and https, where the fast path applies.
    fast: Option<(usize, usize, usize)>,
}

/// True when `r` is a relative reference whose resolution is plain string
/// concatenation: only characters the URL parser leaves as they are, no
/// scheme, no authority, no fragment, no dot segments.
fn plain_reference(r: &str) -> bool {
    if r.is_empty() || r.starts_with("//") {
        return false;
    }
    let safe = r.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b'?' | b'=' | b'&')
    });
    let path = r.split('?').next().unwrap_or("");
    safe && !path.split('/').any(|seg| seg == "." || seg == "..")
}

/// True when `s` would parse as a file: URL. The url crate trips its own
/// debug assertions on some file: paths (servo/rust-url issue 1114), and a
/// crawler has no use for file: URLs, so they are refused before parsing.
/// Like the parser, this skips leading controls and spaces and ignores tabs
/// and newlines anywhere.
fn names_file(s: &str) -> bool {
    let mut head = s
        .bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\r'))
        .skip_while(|&b| b <= b' ');
    let mut got = [0u8; 5];
    for g in &mut got {
        match head.next() {
            Some(b) => *g = b,
            None => return false,
        }
    }
    got.eq_ignore_ascii_case(b"file:")
}

fn refuse_file(s: &str) -> Result<(), UrlError> {
    if names_file(s) {
        return Err(err(s, "file: URLs are not crawled"));
    }
    Ok(())
}

impl Base {
    /// Parses an absolute URL to serve as a base, without its userinfo, so
    /// no reference resolved against it (by the fast path either) has any.
    pub fn parse(s: &str) -> Result<Base, UrlError> {
        refuse_file(s)?;
        let mut url = ::url::Url::parse(s.trim()).map_err(|e| err(s, e.to_string()))?;
        drop_userinfo(&mut url);
        // The fast path copies the base as the parser serialised it, which
        // is what the parser's own join keeps too (the request form).
        let fast = if matches!(url.scheme(), "http" | "https") && url.fragment().is_none() {
            let ser = url.as_str();
            let origin = origin_of(ser).len();
            let query = ser.find('?').unwrap_or(ser.len());
            let dir = ser[..query].rfind('/').map(|i| i + 1).unwrap_or(query);
            (dir >= origin).then_some((origin, dir, query))
        } else {
            None
        };
        Ok(Base { url, fast })
    }

    /// Resolves `reference` against this base: the request form of the result.
    pub fn join(&self, reference: &str) -> Result<String, UrlError> {
        let r = reference.trim();
        // Most links of a page are plain relative paths; resolving those is
        // concatenation, and the full parser is the slow part of a scan.
        if let Some((origin, dir, query)) = self.fast {
            if plain_reference(r) {
                let base = self.url.as_str();
                let head = match r.as_bytes()[0] {
                    b'/' => &base[..origin],
                    b'?' => &base[..query],
                    _ => &base[..dir],
                };
                return Ok(format!("{head}{r}"));
            }
        }
        refuse_file(r)?;
        let u = self
            .url
            .join(r)
            .map_err(|e| err(reference, e.to_string()))?;
        Ok(finish(u))
    }

    /// The base as a string.
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// Resolves through the URL parser only, for comparison with the fast path.
    #[doc(hidden)]
    pub fn join_parsed(&self, reference: &str) -> Result<String, UrlError> {
        refuse_file(reference.trim())?;
        let u = self
            .url
            .join(reference.trim())
            .map_err(|e| err(reference, e.to_string()))?;
        Ok(finish(u))
    }
}

/// The request form of an absolute URL (see the module's comment); a
/// relative reference is an error.
pub fn request_form(s: &str) -> Result<String, UrlError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(err(s, "empty URL"));
    }
    refuse_file(s)?;
    let u = ::url::Url::parse(s).map_err(|e| err(s, e.to_string()))?;
    Ok(finish(u))
}

/// The key form of an absolute URL: its request form, normalised as
/// [`key_form`] does. A relative reference is an error.
pub fn normalise(s: &str) -> Result<String, UrlError> {
    request_form(s).map(|u| key_form(&u).into_owned())
}

fn finish(mut u: ::url::Url) -> String {
    // The fragment is the browser's own; it is never sent.
    u.set_fragment(None);
    drop_userinfo(&mut u);
    u.into()
}

/// Takes the userinfo out of a parsed URL. The setters refuse only URLs
/// that cannot have one (no host), which then have none to take out.
fn drop_userinfo(u: &mut ::url::Url) {
    if !u.username().is_empty() || u.password().is_some() {
        let _ = u.set_password(None);
        let _ = u.set_username("");
    }
}

/// `url` without the userinfo of its authority (`http://u:p@h/` gives
/// `http://h/`); borrowed when it has none. Every URL admitted today has
/// none; this keeps a record made before userinfo was taken out of URLs
/// from sending or showing it.
pub fn without_userinfo(url: &str) -> Cow<'_, str> {
    let (s, e) = authority_span(url);
    match url[s..e].rfind('@') {
        Some(at) => Cow::Owned(format!("{}{}", &url[..s], &url[s + at + 1..])),
        None => Cow::Borrowed(url),
    }
}

/// The host and port of a URL's authority, without its userinfo: what a
/// request's Host header names.
pub fn host_port_of(url: &str) -> &str {
    let auth = authority_of(url);
    auth.rsplit_once('@').map_or(auth, |(_, h)| h)
}

/// The key form of a URL in request form: the percent-encodings of its path
/// and query normalised as RFC 3986 6.2.2 says ([`normalise_percent`]).
/// The scheme, host and port are left as the URL parser wrote them, which
/// is already normal (and an admitted URL has no userinfo). Borrowed when nothing changes.
pub fn key_form(url: &str) -> Cow<'_, str> {
    if !url.contains('%') {
        return Cow::Borrowed(url);
    }
    let from = match authority_span(url) {
        (0, 0) => url.find(':').map_or(0, |i| i + 1),
        (_, e) => e,
    };
    let (head, tail) = url.split_at(from);
    match normalise_percent(tail) {
        Cow::Borrowed(_) => Cow::Borrowed(url),
        Cow::Owned(t) => Cow::Owned(format!("{head}{t}")),
    }
}

/// True when two URLs in request form are one resource: their key forms
/// are equal.
pub fn same_resource(a: &str, b: &str) -> bool {
    a == b || key_form(a) == key_form(b)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Decodes percent-encoded unreserved characters, uppercases the hex of the
/// others, and encodes a stray `%` as `%25`. Borrowed when nothing changes.
pub fn normalise_percent(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !needs_percent_work(b) {
        return Cow::Borrowed(s);
    }
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            match (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            ) {
                (Some(h), Some(l)) => {
                    let v = (h * 16 + l) as u8;
                    if is_unreserved(v) {
                        out.push(v as char);
                    } else {
                        out.push('%');
                        out.push((b[i + 1] as char).to_ascii_uppercase());
                        out.push((b[i + 2] as char).to_ascii_uppercase());
                    }
                    i += 3;
                }
                _ => {
                    out.push_str("%25");
                    i += 1;
                }
            }
        } else {
            // Safe to copy byte-wise: the input is valid UTF-8 and '%' is ASCII.
            let start = i;
            while i < b.len() && b[i] != b'%' {
                i += 1;
            }
            out.push_str(&s[start..i]);
        }
    }
    Cow::Owned(out)
}

/// True when [`normalise_percent`] would change `b`: some `%` is not
/// followed by two hex digits, or by two that are lowercase or encode an
/// unreserved character.
fn needs_percent_work(b: &[u8]) -> bool {
    let mut i = 0;
    while let Some(j) = b[i..].iter().position(|&c| c == b'%') {
        let at = i + j;
        match (b.get(at + 1), b.get(at + 2)) {
            (Some(&h), Some(&l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                let v = ((h as char).to_digit(16).unwrap_or(0) * 16
                    + (l as char).to_digit(16).unwrap_or(0)) as u8;
                if h.is_ascii_lowercase() || l.is_ascii_lowercase() || is_unreserved(v) {
                    return true;
                }
                i = at + 3;
            }
            _ => return true,
        }
    }
    false
}

/// The scheme of a normalised URL ("http").
pub fn scheme_of(url: &str) -> &str {
    url.split_once(':').map(|(s, _)| s).unwrap_or("")
}

/// Byte offsets of a URL's authority: (start, end); (0, 0) without one.
fn authority_span(url: &str) -> (usize, usize) {
    let b = url.as_bytes();
    let Some(colon) = b.iter().position(|&c| c == b':') else {
        return (0, 0);
    };
    if !b[colon + 1..].starts_with(b"//") {
        return (0, 0);
    }
    let start = colon + 3;
    let end = b[start..]
        .iter()
        .position(|&c| c == b'/' || c == b'?' || c == b'#')
        .map_or(b.len(), |i| start + i);
    (start, end)
}

/// The host of a normalised URL, without userinfo or port; IPv6 literals keep
/// their brackets. "" when the URL has no authority.
pub fn host_of(url: &str) -> &str {
    let auth = authority_of(url);
    let auth = auth.rsplit_once('@').map(|(_, h)| h).unwrap_or(auth);
    if auth.starts_with('[') {
        return auth.find(']').map(|e| &auth[..=e]).unwrap_or(auth);
    }
    auth.split_once(':').map(|(h, _)| h).unwrap_or(auth)
}

/// The authority (userinfo, host, port) of a URL, "" without one.
pub fn authority_of(url: &str) -> &str {
    let (s, e) = authority_span(url);
    &url[s..e]
}

/// The origin (scheme://authority) of a URL: the unit robots.txt applies to.
pub fn origin_of(url: &str) -> &str {
    match authority_span(url) {
        (0, 0) => url,
        (_, e) => &url[..e],
    }
}

/// The path of a URL, "" without an authority.
pub fn path_of(url: &str) -> &str {
    let (s, e) = authority_span(url);
    if s == 0 {
        return "";
    }
    let rest = &url[e..];
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// What a URL with a query is a variant of: its host and its path in key
/// form, as one string (`http://h:8080/cal/?d=1` gives `h/cal/`); None
/// for a URL without a query. The scheme and port are left out: one
/// script on one host is one path, however it is reached.
pub fn variant_of(url: &str) -> Option<String> {
    let (s, e) = authority_span(url);
    if s == 0 {
        return None;
    }
    let rest = &url[e..];
    let q = rest
        .find(['?', '#'])
        .filter(|&i| rest.as_bytes()[i] == b'?')?;
    let path = match &rest[..q] {
        "" => Cow::Borrowed("/"),
        p => normalise_percent(p),
    };
    Some(format!("{}{path}", host_of(url)))
}

/// The number of non-empty path segments.
pub fn path_depth(url: &str) -> usize {
    path_of(url).split('/').filter(|s| !s.is_empty()).count()
}

/// The largest number of times one path segment occurs in the path: a
/// calendar or a relative-link loop repeats its segments.
pub fn max_repeated_segment(url: &str) -> usize {
    let path = path_of(url);
    let mut best = 0;
    for (i, s) in path.split('/').enumerate().filter(|(_, s)| !s.is_empty()) {
        let n = path.split('/').skip(i).filter(|t| t == &s).count();
        best = best.max(n);
    }
    best
}

/// The parent directories of a URL, nearest first, ending with the root:
/// `http://h/a/b/c.html` gives `http://h/a/b/`, `http://h/a/`, `http://h/`.
pub fn parents(url: &str) -> Vec<String> {
    let origin = origin_of(url);
    if origin.len() == url.len() && !url.contains("://") {
        return Vec::new();
    }
    let path = path_of(url);
    let mut out = Vec::new();
    // The directory of the URL itself: up to and including the last slash.
    let mut dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => return out,
    };
    if dir.len() < path.len() || url.len() > origin.len() + path.len() {
        // The URL names a file or has a query: its own directory is a parent.
        out.push(format!("{origin}{dir}"));
    }
    while dir.len() > 1 {
        let trimmed = &dir[..dir.len() - 1];
        dir = match trimmed.rfind('/') {
            Some(i) => &trimmed[..=i],
            None => break,
        };
        out.push(format!("{origin}{dir}"));
    }
    out
}

/// Query parameter names that carry session ids: every visit mints a new URL
/// for the same page, which is a trap.
const SESSION_PARAMS: &[&str] = &[
    "phpsessid",
    "jsessionid",
    "sid",
    "sessionid",
    "session_id",
    "aspsessionid",
    "cfid",
    "cftoken",
];

/// Removes session ids from a normalised URL: `;jsessionid=...` path
/// parameters and the query parameters in [`SESSION_PARAMS`].
pub fn strip_session_ids(url: String) -> String {
    let q_at = url.find('?');
    let head_end = q_at.unwrap_or(url.len());
    let jsession = url.as_bytes()[..head_end]
        .windows(12)
        .position(|w| w.eq_ignore_ascii_case(b";jsessionid="));
    let is_session = |p: &str| {
        let name = p.split('=').next().unwrap_or("");
        SESSION_PARAMS.iter().any(|s| name.eq_ignore_ascii_case(s))
            || name
                .get(..12)
                .is_some_and(|n| n.eq_ignore_ascii_case("aspsessionid"))
    };
    let query = q_at.map(|i| &url[i + 1..]);
    let query_has_session = query.is_some_and(|q| q.split('&').any(is_session));
    if jsession.is_none() && !query_has_session {
        return url;
    }
    let mut out = url[..jsession.unwrap_or(head_end)].to_string();
    if let Some(q) = query {
        let kept: Vec<&str> = q.split('&').filter(|p| !is_session(p)).collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_join_agrees_with_the_parser() {
        let bases = [
            "http://h/",
            "http://h/a/b.html",
            "https://h:8443/dir/sub/?q=1",
            "http://user@h/a/b/c",
            "http://h",
            "http://h/a?x",
        ];
        let alphabet = [
            "a", "b", ".", "/", "?", "=", "&", "-", "~", "_", "..", "x.html",
        ];
        let mut seed: u64 = 7;
        let mut checked = 0;
        for b in bases {
            let base = Base::parse(b).unwrap();
            for _ in 0..3000 {
                let mut r = String::new();
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = (seed >> 60) as usize;
                for i in 0..len {
                    r.push_str(alphabet[((seed >> (i * 4)) % alphabet.len() as u64) as usize]);
                }
                let fast = base.join(&r);
                let slow = base.join_parsed(&r);
                assert_eq!(fast, slow, "base {b} reference {r:?}");
                if plain_reference(r.trim()) {
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 1000,
            "only {checked} references took the fast path"
        );
    }

    #[test]
    fn key_form_changes_only_what_it_must() {
        // Nothing to do: borrowed, untouched.
        for u in ["http://h/a/b?c=d", "http://h/%C3%A4?q=%2F", "mailto:a@b"] {
            assert!(matches!(key_form(u), Cow::Borrowed(x) if x == u), "{u}");
        }
        assert_eq!(key_form("http://h/%7Euser?a=%2f"), "http://h/~user?a=%2F");
        assert_eq!(key_form("http://h/a%zz/b"), "http://h/a%25zz/b");
        // The userinfo and host are not the key form's business.
        assert_eq!(key_form("http://u%41@h/%41"), "http://u%41@h/A");
        assert!(same_resource("http://h/%7Euser", "http://h/~user"));
        assert!(!same_resource("http://h/a%2Fb", "http://h/a/b"));
    }

    #[test]
    fn a_base_that_is_not_normalised_joins_as_the_parser_does() {
        // Found by the url fuzz target: a stray "%" and "%ee" in the base.
        for (b, r) in [
            ("http://h/%7\u{1}%eer/a", "x?q=1"),
            ("http://h/%7euser/a", "b"),
            ("http://h/a?%7e", "?b"),
            ("http://h/a?%zz", "/c"),
        ] {
            let base = Base::parse(b).unwrap();
            assert_eq!(
                base.join(r),
                base.join_parsed(r),
                "base {b:?} reference {r:?}"
            );
        }
        // The base's "%7e" stays as written in the request form; the key
        // form decodes it.
        let joined = Base::parse("http://h/%7euser/a")
            .unwrap()
            .join("b")
            .unwrap();
        assert_eq!(joined, "http://h/%7euser/b");
        assert_eq!(key_form(&joined), "http://h/~user/b");
    }

    #[test]
    fn file_urls_are_refused_before_the_parser_sees_them() {
        // Found by the url fuzz target: these trip a debug assertion in the
        // url crate's path parser.
        assert!(Base::parse("file://p:/0://p:").is_err());
        assert!(Base::parse("file:///w:/a:").is_err());
        assert!(normalise("file:///w:/a:/..").is_err());
        assert!(normalise(" \u{1}FI\tLE:///w:/a:/..").is_err());
        let b = Base::parse("http://h/a/").unwrap();
        assert!(b.join("file:..").is_err());
        assert!(b.join_parsed("fIle:..").is_err());
        // Other schemes, and "file" elsewhere, are not touched.
        assert_eq!(b.join("files:x").unwrap(), "files:x");
        assert_eq!(b.join("file").unwrap(), "http://h/a/file");
        assert_eq!(normalise("http://h/file:").unwrap(), "http://h/file:");
    }

    #[test]
    fn percent_normalisation() {
        assert_eq!(normalise_percent("/%7euser/%2fa%2Fb"), "/~user/%2Fa%2Fb");
        assert_eq!(normalise_percent("/100%"), "/100%25");
        assert_eq!(normalise_percent("/a%4A%zz"), "/aJ%25zz");
        assert_eq!(normalise_percent("/žūksts"), "/žūksts");
    }

    #[test]
    fn parts_of_a_url() {
        let u = "http://user:pw@Example.lv:8080/a/b?c=d#e";
        assert_eq!(host_of(u), "Example.lv");
        assert_eq!(authority_of(u), "user:pw@Example.lv:8080");
        assert_eq!(origin_of(u), "http://user:pw@Example.lv:8080");
        assert_eq!(path_of(u), "/a/b");
        assert_eq!(host_of("http://[::1]:80/"), "[::1]");
        assert_eq!(host_of("mailto:a@b"), "");
        assert_eq!(scheme_of(u), "http");
    }

    #[test]
    fn userinfo_is_taken_out_of_every_url_made_here() {
        for u in [
            "http://user:pass@example.lv/a",
            "http://user@example.lv/a",
            "http://:pass@example.lv/a",
            "HTTP://u%40x:p%3A@Example.LV:80/a",
        ] {
            assert_eq!(request_form(u).unwrap(), "http://example.lv/a", "{u}");
        }
        assert_eq!(
            normalise("https://u:p@example.lv:8443/%7Ea?q#f").unwrap(),
            "https://example.lv:8443/~a?q"
        );
        // Resolved against a base with userinfo, by the fast path and the
        // parser alike, and a reference with its own.
        let b = Base::parse("http://u:p@h/dir/page").unwrap();
        assert_eq!(b.as_str(), "http://h/dir/page");
        for (r, want) in [
            ("x.html", "http://h/dir/x.html"),
            ("/y?z=1", "http://h/y?z=1"),
            ("../a b", "http://h/a%20b"),
            ("//v:w@g/k", "http://g/k"),
            ("https://v:w@g:8443/k", "https://g:8443/k"),
        ] {
            assert_eq!(b.join(r).unwrap(), want, "{r}");
            assert_eq!(b.join_parsed(r).unwrap(), want, "{r}");
        }
        // Strings made before: taken out as text.
        assert_eq!(without_userinfo("http://u:p@h:81/a@b"), "http://h:81/a@b");
        assert!(matches!(
            without_userinfo("http://h/a@b"),
            Cow::Borrowed("http://h/a@b")
        ));
        assert_eq!(host_port_of("http://u:p@h:81/a"), "h:81");
        assert_eq!(host_port_of("http://[::1]:81/"), "[::1]:81");
    }

    #[test]
    fn a_query_makes_a_variant_of_its_host_and_path() {
        assert_eq!(
            variant_of("http://h:8080/cal/?d=1").as_deref(),
            Some("h/cal/")
        );
        assert_eq!(variant_of("https://h?x").as_deref(), Some("h/"));
        assert_eq!(variant_of("http://h/?").as_deref(), Some("h/"));
        // One path however its percent-encodings are written.
        assert_eq!(variant_of("http://h/%7ea?x"), variant_of("http://h/~a?y"));
        assert_eq!(variant_of("http://h/cal"), None);
        assert_eq!(variant_of("http://h/cal#a?b"), None);
        assert_eq!(variant_of("mailto:a@b?subject=x"), None);
    }

    #[test]
    fn depth_and_repetition() {
        assert_eq!(path_depth("http://h/"), 0);
        assert_eq!(path_depth("http://h/a/b/c.html?x=/y/z"), 3);
        assert_eq!(max_repeated_segment("http://h/a/b/a/b/a"), 3);
        assert_eq!(max_repeated_segment("http://h/"), 0);
    }

    #[test]
    fn parent_directories() {
        assert_eq!(
            parents("http://h/a/b/c.html"),
            vec!["http://h/a/b/", "http://h/a/", "http://h/"]
        );
        assert_eq!(parents("http://h/a/b/"), vec!["http://h/a/", "http://h/"]);
        assert_eq!(parents("http://h/"), Vec::<String>::new());
        assert_eq!(parents("http://h/?q=1"), vec!["http://h/"]);
    }

    #[test]
    fn session_ids_are_stripped() {
        assert_eq!(
            strip_session_ids("http://h/a;jsessionid=ABC?x=1".into()),
            "http://h/a?x=1"
        );
        assert_eq!(
            strip_session_ids("http://h/a?PHPSESSID=1&x=2&sid=3".into()),
            "http://h/a?x=2"
        );
        assert_eq!(strip_session_ids("http://h/a?sid=3".into()), "http://h/a");
        // Byte 12 falls inside "ū": no panic, and not a session id.
        assert_eq!(
            strip_session_ids("http://h/a?aspsessioniūd=1".into()),
            "http://h/a?aspsessioniūd=1"
        );
        assert_eq!(
            strip_session_ids("http://h/a?side=3".into()),
            "http://h/a?side=3"
        );
    }
}

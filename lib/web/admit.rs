//! Admission: which URLs may become records. Every URL that could become a
//! record (a seed, a link, a meta refresh, a redirect target, a robots.txt
//! Sitemap line, a parent directory added by path ascendancy, a link
//! relayed from another node) goes through [`Filter::admit`], once: it is
//! resolved, normalised (which takes out any userinfo, see [`url`]) and
//! stripped of session ids, then the scheme and host filters (`--filter-scheme`,
//! `--filter-auth`), the private-address rule for IP-literal hosts
//! (`--allow-private`), the length limit and the trap guards (path depth,
//! repeated segments) apply, then the scope options: `--filter-deny`,
//! `--filter-include` and `--filter-exclude` (see [`crate::web::scope`]).
//! Some rules need more than the URL, and are asked here too by the code
//! that has what they need: [`Filter::admit_link`] adds the link depth
//! from the seeds (`--filter-depth`); [`Filter::over_quota`] the per-host
//! page quota (`--filter-quota`) and [`Filter::over_variants`] the cap on
//! query-string variants of one path (`--filter-query-variants`), both
//! counted by the store as it creates records; and [`Filter::page_link_cap`]
//! the most links taken from one page (`--filter-page-links`), which
//! nlpc-scan counts as it reads the page.
//!
//! Links that name resources rather than pages (`<link rel=stylesheet>`
//! and the like) are dropped where the element is read, in `web::links`,
//! since the `rel` is not part of the URL.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;

use crate::web::address::is_private;
use crate::web::scope::Pattern;
use crate::web::url::{self, Base};

/// One item of `--filter-deny`: a host (with its subdomains) when it has
/// neither `/` nor `*`, else a URL pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deny {
    Host(String),
    Url(Pattern),
}

impl Deny {
    pub fn parse(s: &str) -> std::result::Result<Deny, String> {
        let s = s.trim();
        if s.contains('/') || s.contains('*') {
            Pattern::parse(s)
                .map(Deny::Url)
                .map_err(|e| format!("{}: {e}", cut(s, SHOWN)))
        } else {
            normalise_host(s).map(Deny::Host)
        }
    }
}

/// Which URLs may become records.
#[derive(Clone, Debug)]
pub struct Filter {
    /// `--filter-scheme`: allowed schemes, lowercase.
    pub schemes: Vec<String>,
    /// `--filter-auth`: allowed hosts (each with its subdomains); empty
    /// allows every host.
    pub auth: Vec<String>,
    /// `--max-url-length`.
    pub max_len: usize,
    /// `--max-path-depth`.
    pub max_depth: usize,
    /// `--max-repeat`: the most times one path segment may recur.
    pub max_repeat: usize,
    /// `--allow-private`: admit IP-literal hosts in private, loopback,
    /// link-local and other non-public ranges.
    pub allow_private: bool,
    /// `--filter-deny`: hosts (with their subdomains) and URL patterns
    /// never admitted.
    pub deny: Vec<Deny>,
    /// `--filter-include`: when not empty, only URLs matching one of these.
    pub include: Vec<Pattern>,
    /// `--filter-exclude`: URLs matching one of these are not admitted.
    pub exclude: Vec<Pattern>,
    /// `--filter-depth`: the most links from a seed (seeds are depth 0);
    /// None for no limit.
    pub link_depth: Option<u16>,
    /// `--filter-quota`: the most records created per host; 0 for none.
    pub quota: u64,
    /// `--filter-query-variants`: the most records created with a query
    /// string per host and path; 0 for none.
    pub query_variants: u64,
    /// `--filter-page-links`: the most links taken from one page; 0 for
    /// none.
    pub page_links: usize,
}

/// `--filter-page-links` by default: the sitemaps protocol's own limit
/// for one file, which no HTML page comes near.
pub const DEFAULT_PAGE_LINKS: usize = 50_000;

/// `--filter-query-variants` by default: more than a listing's sort
/// orders and pages or a year of a calendar, fewer than an endless one.
pub const DEFAULT_QUERY_VARIANTS: u64 = 10_000;

impl Default for Filter {
    fn default() -> Filter {
        Filter {
            schemes: vec!["http".into(), "https".into()],
            auth: Vec::new(),
            max_len: 1024,
            max_depth: 16,
            max_repeat: 3,
            allow_private: false,
            deny: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            link_depth: None,
            quota: 0,
            query_variants: DEFAULT_QUERY_VARIANTS,
            page_links: DEFAULT_PAGE_LINKS,
        }
    }
}

/// Why a URL was not admitted. The Display is the reason, one short line:
/// it never holds a whole URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Longer than `--max-url-length`, as written or once resolved.
    TooLong { len: usize, limit: usize },
    /// Not a URL, or not one that resolves against its base.
    NotAUrl(String),
    /// The scheme (cut short) is not in `--filter-scheme`.
    Scheme(String),
    /// The host (cut short) is not in `--filter-auth`.
    Host(String),
    /// An IP-literal host in a range a public page must not steer us to.
    Private(IpAddr),
    /// More path segments than `--max-path-depth`.
    TooDeep { depth: usize, limit: usize },
    /// One path segment recurs more than `--max-repeat` times.
    Repeats { times: usize, limit: usize },
    /// The host (cut short) is in `--filter-deny`.
    DeniedHost(String),
    /// The URL matches this `--filter-deny` pattern (cut short).
    DeniedUrl(String),
    /// The URL matches this `--filter-exclude` pattern (cut short).
    Excluded(String),
    /// The URL matches no `--filter-include` pattern.
    NotIncluded,
    /// More links from a seed than `--filter-depth`.
    LinkDepth { depth: u32, limit: u16 },
    /// The host (cut short) has `--filter-quota` records already.
    Quota { host: String, limit: u64 },
    /// The host and path (cut short) have `--filter-query-variants`
    /// records with a query already.
    QueryVariants { path: String, limit: u64 },
}

impl Refusal {
    /// The kind of refusal, without figures: what a counter is named by.
    pub fn kind(&self) -> &'static str {
        match self {
            Refusal::TooLong { .. } => "URL too long",
            Refusal::NotAUrl(_) => "not a URL",
            Refusal::Scheme(_) => "scheme not allowed",
            Refusal::Host(_) => "host not allowed",
            Refusal::Private(_) => "private address not allowed",
            Refusal::TooDeep { .. } => "path too deep",
            Refusal::Repeats { .. } => "path segment repeats",
            Refusal::DeniedHost(_) => "host denied",
            Refusal::DeniedUrl(_) => "URL denied",
            Refusal::Excluded(_) => "URL excluded",
            Refusal::NotIncluded => "URL not included",
            Refusal::LinkDepth { .. } => "too many links from the seeds",
            Refusal::Quota { .. } => "host quota reached",
            Refusal::QueryVariants { .. } => "too many query variants",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind();
        match self {
            Refusal::TooLong { len, limit } => write!(f, "{kind} ({len} bytes, limit {limit})"),
            Refusal::NotAUrl(why) => write!(f, "{kind}: {why}"),
            Refusal::Scheme(s) => write!(f, "{kind} ({s})"),
            Refusal::Host(h) => write!(f, "{kind} ({h})"),
            Refusal::Private(a) => write!(f, "{kind} ({a})"),
            Refusal::TooDeep { depth, limit } => {
                write!(f, "{kind} ({depth} segments, limit {limit})")
            }
            Refusal::Repeats { times, limit } => write!(f, "{kind} ({times} times, limit {limit})"),
            Refusal::DeniedHost(h) => write!(f, "{kind} ({h})"),
            Refusal::DeniedUrl(p) => write!(f, "{kind} (pattern {p})"),
            Refusal::Excluded(p) => write!(f, "{kind} (pattern {p})"),
            Refusal::NotIncluded => write!(f, "{kind} (no --filter-include pattern matches)"),
            Refusal::LinkDepth { depth, limit } => {
                write!(f, "{kind} ({depth} links, limit {limit})")
            }
            Refusal::Quota { host, limit } => write!(f, "{kind} ({host}: {limit} pages)"),
            Refusal::QueryVariants { path, limit } => {
                write!(f, "{kind} ({path}: limit {limit})")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The most bytes of a URL (or of a part of one) a message shows.
pub const SHOWN: usize = 120;

/// `s` cut to at most `max` bytes on a char boundary, with its full length
/// said when cut: a hostile URL may be 100 KB and must not fill the log.
pub fn cut(s: &str, max: usize) -> Cow<'_, str> {
    if s.len() <= max {
        return Cow::Borrowed(s);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}... ({} bytes)", &s[..end], s.len()))
}

/// [`cut`] to [`SHOWN`] bytes: how a URL is named in a log line or reason.
pub fn shown(s: &str) -> Cow<'_, str> {
    cut(s, SHOWN)
}

/// Normalises a host pattern as URLs' hosts are normalised (lowercase, IDNA).
pub fn normalise_host(pattern: &str) -> std::result::Result<String, String> {
    let p = pattern.trim().trim_start_matches('.');
    url::normalise(&format!("http://{p}/"))
        .map(|u| url::host_of(&u).to_string())
        .map_err(|e| format!("{:?} is not a host name: {}", cut(pattern, SHOWN), e.why))
}

/// True when `host` is `pattern` or one of its subdomains.
pub fn host_matches(host: &str, pattern: &str) -> bool {
    host == pattern
        || (host.len() > pattern.len()
            && host.ends_with(pattern)
            && host.as_bytes()[host.len() - pattern.len() - 1] == b'.')
}

/// The scheme a reference is written with, if it has one (RFC 3986 3.1:
/// a letter, then letters, digits, "+", "-", "."; then ":").
fn scheme_written(r: &str) -> Option<&str> {
    let (s, _) = r.split_once(':')?;
    let mut b = s.bytes();
    let first = b.next()?;
    (first.is_ascii_alphabetic()
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
    .then_some(s)
}

/// The address of an IP-literal host ("10.0.0.1", "[::1]"), None for a name.
fn ip_literal(host: &str) -> Option<IpAddr> {
    let h = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    h.parse().ok()
}

impl Filter {
    /// Admits `reference` (resolved against `base` when given, else it must
    /// be absolute): the URL in request form (as a browser would send it;
    /// see [`url`]), without session ids, that may become a record; or why
    /// it may not.
    pub fn admit(&self, reference: &str, base: Option<&Base>) -> Result<String, Refusal> {
        let r = reference.trim();
        // Refused before any parsing, so a 100 KB reference costs little.
        if r.len() > self.max_len {
            return Err(Refusal::TooLong {
                len: r.len(),
                limit: self.max_len,
            });
        }
        if let Some(s) = scheme_written(r) {
            if !self.schemes.iter().any(|a| a.eq_ignore_ascii_case(s)) {
                return Err(Refusal::Scheme(cut(&s.to_ascii_lowercase(), 32).into()));
            }
        }
        if base.is_none() {
            // Said plainly here: the URL parser's words for these ("relative
            // URL without a base") do not tell a seed's author much.
            if r.is_empty() {
                return Err(Refusal::NotAUrl("empty".into()));
            }
            if r.starts_with('#') {
                return Err(Refusal::NotAUrl("only a fragment".into()));
            }
        }
        let u = match base {
            Some(b) => b.join(r),
            None => url::request_form(r),
        }
        .map_err(|e| Refusal::NotAUrl(cut(&e.why, SHOWN).into()))?;
        let u = url::strip_session_ids(u);
        match self.refuse(&u) {
            Some(why) => Err(why),
            None => Ok(u),
        }
    }

    /// [`Filter::admit`] for a link of a page at `parent_depth` links from
    /// a seed: the link is one more, and `--filter-depth` bounds that.
    pub fn admit_link(
        &self,
        reference: &str,
        base: Option<&Base>,
        parent_depth: u16,
    ) -> Result<String, Refusal> {
        if let Some(limit) = self.link_depth {
            let depth = u32::from(parent_depth) + 1;
            if depth > u32::from(limit) {
                return Err(Refusal::LinkDepth { depth, limit });
            }
        }
        self.admit(reference, base)
    }

    /// Why a new record of `host` may not be created when the host has
    /// `count` records already (`--filter-quota`), or None when it may.
    pub fn over_quota(&self, host: &str, count: u64) -> Option<Refusal> {
        (self.quota > 0 && count >= self.quota).then(|| Refusal::Quota {
            host: cut(host, SHOWN).into(),
            limit: self.quota,
        })
    }

    /// Why a new record with a query string may not be created when its
    /// host and path (`variant`, as [`url::variant_of`] gives them) have
    /// `count` such records already (`--filter-query-variants`), or None
    /// when it may.
    pub fn over_variants(&self, variant: &str, count: u64) -> Option<Refusal> {
        (self.query_variants > 0 && count >= self.query_variants).then(|| Refusal::QueryVariants {
            path: cut(variant, SHOWN).into(),
            limit: self.query_variants,
        })
    }

    /// How many links of one page may be taken (`--filter-page-links`);
    /// the rest are not read.
    pub fn page_link_cap(&self) -> usize {
        match self.page_links {
            0 => usize::MAX,
            n => n,
        }
    }

    /// Why a normalised URL may not become a record, or None when it may.
    fn refuse(&self, u: &str) -> Option<Refusal> {
        if u.len() > self.max_len {
            return Some(Refusal::TooLong {
                len: u.len(),
                limit: self.max_len,
            });
        }
        let scheme = url::scheme_of(u);
        if !self.schemes.iter().any(|s| s == scheme) {
            return Some(Refusal::Scheme(cut(scheme, 32).into()));
        }
        let host = url::host_of(u);
        if !self.auth.is_empty() && !self.auth.iter().any(|p| host_matches(host, p)) {
            return Some(Refusal::Host(cut(host, SHOWN).into()));
        }
        if !self.allow_private {
            if let Some(a) = ip_literal(host).filter(|a| is_private(*a)) {
                return Some(Refusal::Private(a));
            }
        }
        // Depth first: it bounds the segments the repeat count compares.
        let depth = url::path_depth(u);
        if depth > self.max_depth {
            return Some(Refusal::TooDeep {
                depth,
                limit: self.max_depth,
            });
        }
        let times = url::max_repeated_segment(u);
        if times > self.max_repeat {
            return Some(Refusal::Repeats {
                times,
                limit: self.max_repeat,
            });
        }
        self.out_of_scope(host, u)
    }

    /// The scope options: deny, then exclude, then include.
    fn out_of_scope(&self, host: &str, u: &str) -> Option<Refusal> {
        for d in &self.deny {
            match d {
                Deny::Host(p) if host_matches(host, p) => {
                    return Some(Refusal::DeniedHost(cut(host, SHOWN).into()))
                }
                Deny::Url(p) if p.matches(u) => {
                    return Some(Refusal::DeniedUrl(cut(p.as_str(), SHOWN).into()))
                }
                _ => {}
            }
        }
        if let Some(p) = self.exclude.iter().find(|p| p.matches(u)) {
            return Some(Refusal::Excluded(cut(p.as_str(), SHOWN).into()));
        }
        if !self.include.is_empty() && !self.include.iter().any(|p| p.matches(u)) {
            return Some(Refusal::NotIncluded);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_patterns() {
        assert!(host_matches("example.lv", "example.lv"));
        assert!(host_matches("www.example.lv", "example.lv"));
        assert!(host_matches("www.example.lv", "lv"));
        assert!(!host_matches("badexample.lv", "example.lv"));
        assert!(!host_matches("example.lt", "lv"));
        assert_eq!(normalise_host("Ēka.LV").unwrap(), "xn--ka-vma.lv");
        assert_eq!(normalise_host(".lv").unwrap(), "lv");
    }

    fn kind(f: &Filter, u: &str) -> Option<&'static str> {
        f.admit(u, None).err().map(|e| e.kind())
    }

    #[test]
    fn a_seed_that_is_no_url_says_why() {
        let f = Filter::default();
        let why = |u: &str| f.admit(u, None).unwrap_err().to_string();
        assert_eq!(why(""), "not a URL: empty");
        assert_eq!(why("  "), "not a URL: empty");
        assert_eq!(why("#top"), "not a URL: only a fragment");
        assert_eq!(why("no url here"), "not a URL: relative URL without a base");
        assert_eq!(why("/a/b"), "not a URL: relative URL without a base");
        // With a base, "#top" is the page itself: resolved, not refused.
        let base = Base::parse("http://example.lv/p?q#f").unwrap();
        assert_eq!(
            f.admit("#top", Some(&base)).as_deref(),
            Ok("http://example.lv/p?q")
        );
    }

    #[test]
    fn filter_reasons() {
        let f = Filter {
            auth: vec!["example.lv".into()],
            max_depth: 3,
            max_repeat: 2,
            max_len: 60,
            ..Filter::default()
        };
        assert_eq!(kind(&f, "http://example.lv/a"), None);
        assert_eq!(kind(&f, "ftp://example.lv/a"), Some("scheme not allowed"));
        assert_eq!(kind(&f, "http://example.lt/a"), Some("host not allowed"));
        assert_eq!(kind(&f, "http://example.lv/a/b/c/d"), Some("path too deep"));
        assert_eq!(
            kind(&f, "http://example.lv/a/a/a"),
            Some("path segment repeats")
        );
        assert_eq!(
            kind(
                &f,
                "http://example.lv/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            ),
            Some("URL too long")
        );
    }

    #[test]
    fn every_reason_says_what_and_by_how_much() {
        let f = Filter {
            auth: vec!["example.lv".into()],
            max_depth: 3,
            max_repeat: 2,
            max_len: 60,
            ..Filter::default()
        };
        let why = |u: &str| f.admit(u, None).unwrap_err().to_string();
        assert_eq!(
            why(&format!("http://example.lv/{}", "a".repeat(50))),
            "URL too long (68 bytes, limit 60)"
        );
        assert_eq!(why("ftp://example.lv/a"), "scheme not allowed (ftp)");
        assert_eq!(why("MailTo:x@example.lv"), "scheme not allowed (mailto)");
        assert_eq!(why("http://Example.LT/a"), "host not allowed (example.lt)");
        assert_eq!(
            why("http://example.lv/a/b/c/d"),
            "path too deep (4 segments, limit 3)"
        );
        assert_eq!(
            why("http://example.lv/a/x/a/y/a"),
            "path too deep (5 segments, limit 3)"
        );
        assert_eq!(
            why("http://example.lv/a/a/a"),
            "path segment repeats (3 times, limit 2)"
        );
        assert_eq!(why("/relative"), "not a URL: relative URL without a base");
        assert_eq!(
            why("http://exa mple.lv/"),
            "not a URL: invalid international domain name"
        );
    }

    #[test]
    fn private_ip_literals_are_refused_unless_allowed() {
        let f = Filter::default();
        for (u, a) in [
            ("http://10.0.0.1/", "10.0.0.1"),
            ("http://127.0.0.1:8080/x", "127.0.0.1"),
            ("http://[::1]/", "::1"),
            ("http://[fe80::1]/", "fe80::1"),
            ("http://169.254.169.254/latest/", "169.254.169.254"),
            // Other spellings of an address are normalised before the check.
            ("http://0x7f.1/", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://[::ffff:10.0.0.1]/", "::ffff:10.0.0.1"),
        ] {
            assert_eq!(
                f.admit(u, None).unwrap_err().to_string(),
                format!("private address not allowed ({a})"),
                "{u}"
            );
        }
        for u in [
            "http://100.128.2.1/",
            "http://[2a01:db8::1]/",
            "http://ten.lv/",
        ] {
            assert!(f.admit(u, None).is_ok(), "{u}");
        }
        // The documentation ranges are special-purpose too.
        assert!(f.admit("http://192.0.2.1/", None).is_err());
        assert!(f.admit("http://[2001:db8::1]/", None).is_err());
        let open = Filter {
            allow_private: true,
            ..Filter::default()
        };
        assert_eq!(
            open.admit("http://127.0.0.1:8080/x", None).as_deref(),
            Ok("http://127.0.0.1:8080/x")
        );
    }

    #[test]
    fn references_are_resolved_normalised_and_stripped() {
        let f = Filter::default();
        let base = Base::parse("http://example.lv/dir/page.html").unwrap();
        // The request form keeps %7E as the page wrote it; the key form,
        // which decides what is one record, decodes it.
        let got = f.admit(" ../a/%7Eb.html#x ", Some(&base)).unwrap();
        assert_eq!(got, "http://example.lv/a/%7Eb.html");
        assert_eq!(url::key_form(&got), "http://example.lv/a/~b.html");
        assert_eq!(
            f.admit("HTTP://Example.LV:80/./a", None).as_deref(),
            Ok("http://example.lv/a")
        );
        assert_eq!(
            f.admit("/a%zz/b", Some(&base)).as_deref(),
            Ok("http://example.lv/a%zz/b")
        );
        assert_eq!(
            f.admit("s.php?PHPSESSID=1&id=7", Some(&base)).as_deref(),
            Ok("http://example.lv/dir/s.php?id=7")
        );
        assert_eq!(
            f.admit("javascript:void(0)", Some(&base))
                .unwrap_err()
                .kind(),
            "scheme not allowed"
        );
        // Resolution can make a short reference too long.
        let short = Filter {
            max_len: 30,
            ..Filter::default()
        };
        assert_eq!(
            short.admit("abcdefghij", Some(&base)).unwrap_err(),
            Refusal::TooLong { len: 32, limit: 30 }
        );
    }

    #[test]
    fn a_huge_reference_is_refused_cheaply_and_named_briefly() {
        let f = Filter::default();
        let huge = format!("http://example.lv/{}", "ž".repeat(51_200));
        let e = f.admit(&huge, None).unwrap_err();
        // The length as written: parsing would have percent-encoded each
        // "ž" into six bytes, so it was refused before any parsing.
        assert_eq!(
            e.to_string(),
            format!("URL too long ({} bytes, limit 1024)", huge.len())
        );
        // A bad host 100 KB long is named, cut on a char boundary.
        let wide = Filter {
            max_len: 1 << 20,
            auth: vec!["example.lv".into()],
            ..Filter::default()
        };
        let e = wide
            .admit(&format!("http://{}.lt/", "ab.".repeat(30_000)), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("host not allowed (ab.ab."),
            "{}",
            cut(&e, 200)
        );
        assert!(e.len() < 200, "{} bytes", e.len());
        assert_eq!(cut("žžž", 3), "ž... (6 bytes)");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn deny_items_are_hosts_or_patterns() {
        assert_eq!(
            Deny::parse("Ads.Example.LV"),
            Ok(Deny::Host("ads.example.lv".into()))
        );
        assert!(matches!(Deny::parse("http://a.lv/x/*"), Ok(Deny::Url(_))));
        assert!(matches!(Deny::parse("*login*"), Ok(Deny::Url(_))));
        assert!(Deny::parse("exa mple.lv").is_err());
    }

    fn scoped() -> Filter {
        Filter {
            deny: ["ads.example.lv", "*/login*", "http://example.lv/private/*"]
                .iter()
                .map(|d| Deny::parse(d).unwrap())
                .collect(),
            exclude: vec![Pattern::parse("*.pdf").unwrap()],
            ..Filter::default()
        }
    }

    #[test]
    fn denied_hosts_and_patterns_are_refused_with_their_reason() {
        let f = scoped();
        let why = |u: &str| f.admit(u, None).map_err(|e| e.to_string());
        assert_eq!(
            why("http://ads.example.lv/x"),
            Err("host denied (ads.example.lv)".into())
        );
        assert_eq!(
            why("http://www.ADS.example.lv/"),
            Err("host denied (www.ads.example.lv)".into())
        );
        assert_eq!(
            why("http://example.lv/a/login?next=/"),
            Err("URL denied (pattern */login*)".into())
        );
        assert_eq!(
            why("http://example.lv/private/a"),
            Err("URL denied (pattern http://example.lv/private/*)".into())
        );
        // A denied pattern is matched against the normalised URL.
        assert!(why("HTTP://Example.LV:80/private/a").is_err());
        assert_eq!(
            why("http://example.lv/privatex").as_deref(),
            Ok("http://example.lv/privatex")
        );
        assert!(why("http://notads.example.lv/").is_ok());
    }

    #[test]
    fn include_and_exclude_patterns() {
        let mut f = scoped();
        let why = |f: &Filter, u: &str| f.admit(u, None).map_err(|e| e.to_string());
        assert_eq!(
            why(&f, "http://example.lv/a.pdf"),
            Err("URL excluded (pattern *.pdf)".into())
        );
        assert!(why(&f, "http://example.lv/a.html").is_ok());
        f.include = vec![
            Pattern::parse("http://example.lv/news/*").unwrap(),
            Pattern::parse("http://example.lv/").unwrap(),
        ];
        assert!(why(&f, "http://example.lv/news/1").is_ok());
        assert!(why(&f, "http://example.lv/").is_ok());
        assert_eq!(
            why(&f, "http://example.lv/sport/1"),
            Err("URL not included (no --filter-include pattern matches)".into())
        );
        // Exclude wins over include.
        assert_eq!(
            why(&f, "http://example.lv/news/a.pdf"),
            Err("URL excluded (pattern *.pdf)".into())
        );
        // Deny wins over both.
        f.include.push(Pattern::parse("*").unwrap());
        assert_eq!(
            why(&f, "http://ads.example.lv/news/1"),
            Err("host denied (ads.example.lv)".into())
        );
    }

    #[test]
    fn link_depth_counts_links_from_the_seeds() {
        let base = Base::parse("http://example.lv/").unwrap();
        let open = Filter::default();
        assert!(open.admit_link("/a", Some(&base), u16::MAX).is_ok());
        let f = Filter {
            link_depth: Some(2),
            ..Filter::default()
        };
        assert!(f.admit_link("/a", Some(&base), 0).is_ok());
        assert!(f.admit_link("/a", Some(&base), 1).is_ok());
        assert_eq!(
            f.admit_link("/a", Some(&base), 2).unwrap_err().to_string(),
            "too many links from the seeds (3 links, limit 2)"
        );
        let seeds_only = Filter {
            link_depth: Some(0),
            ..Filter::default()
        };
        assert_eq!(
            seeds_only
                .admit_link("/a", Some(&base), 0)
                .unwrap_err()
                .kind(),
            "too many links from the seeds"
        );
        // The other filters still apply to a link within depth.
        assert_eq!(
            f.admit_link("ftp://x/", Some(&base), 0).unwrap_err().kind(),
            "scheme not allowed"
        );
    }

    #[test]
    fn query_variants_are_capped_per_host_and_path() {
        let f = Filter {
            query_variants: 3,
            ..Filter::default()
        };
        assert_eq!(f.over_variants("a.lv/cal", 2), None);
        assert_eq!(
            f.over_variants("a.lv/cal", 3).map(|r| r.to_string()),
            Some("too many query variants (a.lv/cal: limit 3)".into())
        );
        assert_eq!(
            f.over_variants("a.lv/cal", 3).map(|r| r.kind()),
            Some("too many query variants")
        );
        let open = Filter {
            query_variants: 0,
            ..Filter::default()
        };
        assert_eq!(open.over_variants("a.lv/cal", u64::MAX), None);
        assert_eq!(
            Filter::default().query_variants,
            DEFAULT_QUERY_VARIANTS,
            "on by default"
        );
        // A long path is named cut short.
        let long = format!("a.lv/{}", "x".repeat(5000));
        let why = f.over_variants(&long, 9).unwrap().to_string();
        assert!(why.len() < 250, "{why}");
    }

    #[test]
    fn page_links_are_capped_by_default() {
        assert_eq!(Filter::default().page_link_cap(), DEFAULT_PAGE_LINKS);
        let open = Filter {
            page_links: 0,
            ..Filter::default()
        };
        assert_eq!(open.page_link_cap(), usize::MAX);
    }

    #[test]
    fn userinfo_never_passes_admission() {
        let f = Filter::default();
        let base = Base::parse("http://example.lv/dir/").unwrap();
        for (r, b) in [
            ("http://user:pass@example.lv/a", None),
            ("http://user@example.lv/a", None),
            ("//user:pass@example.lv/a", Some(&base)),
            ("http://user:pass@example.lv/a", Some(&base)),
        ] {
            assert_eq!(f.admit(r, b).as_deref(), Ok("http://example.lv/a"), "{r}");
        }
        let b = Base::parse("http://u:p@example.lv/dir/").unwrap();
        assert_eq!(
            f.admit_link("a?x=1", Some(&b), 0).as_deref(),
            Ok("http://example.lv/dir/a?x=1")
        );
    }

    #[test]
    fn quota_counts_records_per_host() {
        assert_eq!(Filter::default().over_quota("a.lv", u64::MAX), None);
        let f = Filter {
            quota: 3,
            ..Filter::default()
        };
        assert_eq!(f.over_quota("a.lv", 0), None);
        assert_eq!(f.over_quota("a.lv", 2), None);
        assert_eq!(
            f.over_quota("a.lv", 3).map(|r| r.to_string()),
            Some("host quota reached (a.lv: 3 pages)".into())
        );
        assert!(f.over_quota("a.lv", 4).is_some());
    }
}

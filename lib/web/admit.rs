//! Admission: which URLs may become records. The scheme and host filters
//! (`--filter-scheme`, `--filter-auth`), the length limit and the trap
//! guards (path depth, repeated segments) live here, once.

use crate::web::url;

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
}

impl Default for Filter {
    fn default() -> Filter {
        Filter {
            schemes: vec!["http".into(), "https".into()],
            auth: Vec::new(),
            max_len: 1024,
            max_depth: 16,
            max_repeat: 3,
        }
    }
}

/// Normalises a host pattern as URLs' hosts are normalised (lowercase, IDNA).
pub fn normalise_host(pattern: &str) -> std::result::Result<String, String> {
    let p = pattern.trim().trim_start_matches('.');
    url::normalise(&format!("http://{p}/"))
        .map(|u| url::host_of(&u).to_string())
        .map_err(|e| format!("{pattern:?} is not a host name: {}", e.why))
}

/// Host patterns as given to --filter-auth or --auth (white space or
/// commas between them), normalised.
pub fn host_patterns<S: AsRef<str>>(given: &[S]) -> std::result::Result<Vec<String>, String> {
    given
        .iter()
        .flat_map(|s| s.as_ref().split([' ', '\t', ',']))
        .filter(|s| !s.is_empty())
        .map(normalise_host)
        .collect()
}

/// True when `host` is `pattern` or one of its subdomains.
pub fn host_matches(host: &str, pattern: &str) -> bool {
    host == pattern
        || (host.len() > pattern.len()
            && host.ends_with(pattern)
            && host.as_bytes()[host.len() - pattern.len() - 1] == b'.')
}

impl Filter {
    /// Why a normalised URL may not become a record, or None when it may.
    pub fn refuse(&self, u: &str) -> Option<&'static str> {
        if u.len() > self.max_len {
            return Some("URL too long");
        }
        let scheme = url::scheme_of(u);
        if !self.schemes.iter().any(|s| s == scheme) {
            return Some("scheme not allowed");
        }
        if !self.auth.is_empty() {
            let host = url::host_of(u);
            if !self.auth.iter().any(|p| host_matches(host, p)) {
                return Some("host not allowed");
            }
        }
        if url::path_depth(u) > self.max_depth {
            return Some("path too deep");
        }
        if url::max_repeated_segment(u) > self.max_repeat {
            return Some("path segment repeats");
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

    #[test]
    fn filter_reasons() {
        let f = Filter {
            auth: vec!["example.lv".into()],
            max_depth: 3,
            max_repeat: 2,
            max_len: 60,
            ..Filter::default()
        };
        assert_eq!(f.refuse("http://example.lv/a"), None);
        assert_eq!(f.refuse("ftp://example.lv/a"), Some("scheme not allowed"));
        assert_eq!(f.refuse("http://example.lt/a"), Some("host not allowed"));
        assert_eq!(f.refuse("http://example.lv/a/b/c/d"), Some("path too deep"));
        assert_eq!(
            f.refuse("http://example.lv/a/a/a"),
            Some("path segment repeats")
        );
        assert_eq!(
            f.refuse(
                "http://example.lv/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            ),
            Some("URL too long")
        );
    }
}

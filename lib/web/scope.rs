//! The URL patterns of the scope options (`--filter-deny`,
//! `--filter-include`, `--filter-exclude`): globs in which `*` stands for
//! any run of characters (`/` included) and every other character for
//! itself. A pattern matches a URL whole, as the URL is requested (scheme
//! and host lowercase, no default port, no fragment, no session ids), so
//! `http://example.lv/news/*` matches every page under /news/ and
//! `*/tag/*` a `/tag/` anywhere.
//!
//! Globs rather than regular expressions: an operator writes them without
//! quoting rules, and matching one costs at most the product of the
//! pattern's and the URL's lengths, both bounded, so no pattern can make
//! admission slow.

/// The longest pattern accepted, in bytes: a URL is at most
/// `--max-url-length`, and a pattern longer than any URL matches nothing.
pub const MAX_PATTERN: usize = 4096;

/// One glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    /// The literal pieces between the stars.
    parts: Vec<String>,
}

impl Pattern {
    /// Parses a glob; refuses an empty or overlong one.
    pub fn parse(s: &str) -> Result<Pattern, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty pattern".into());
        }
        if s.len() > MAX_PATTERN {
            return Err(format!(
                "pattern too long ({} bytes, limit {MAX_PATTERN})",
                s.len()
            ));
        }
        Ok(Pattern {
            text: s.to_string(),
            parts: s.split('*').map(str::to_string).collect(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True when the pattern matches all of `url`.
    pub fn matches(&self, url: &str) -> bool {
        let (first, rest) = match self.parts.split_first() {
            Some(x) => x,
            None => return false,
        };
        let Some((last, middle)) = rest.split_last() else {
            // No star: the pattern is the URL.
            return url == first;
        };
        if url.len() < first.len() + last.len() || !url.starts_with(first.as_str()) {
            return false;
        }
        if !url.ends_with(last.as_str()) {
            return false;
        }
        // The middle pieces in order between the two ends; taking each at
        // its first occurrence is never worse for the pieces after it.
        let end = url.len() - last.len();
        let mut at = first.len();
        for p in middle {
            match url.get(at..end).and_then(|s| s.find(p.as_str())) {
                Some(i) => at += i + p.len(),
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, u: &str) -> bool {
        Pattern::parse(p).unwrap().matches(u)
    }

    #[test]
    fn globs_match_whole_urls() {
        assert!(m("http://a.lv/x", "http://a.lv/x"));
        assert!(!m("http://a.lv/x", "http://a.lv/xy"));
        assert!(m("http://a.lv/news/*", "http://a.lv/news/1/2?p=3"));
        assert!(!m("http://a.lv/news/*", "http://a.lv/new/1"));
        assert!(m("*/tag/*", "http://a.lv/b/tag/c"));
        assert!(!m("*/tag/*", "http://a.lv/b/tags"));
        assert!(m("*.pdf", "http://a.lv/f.pdf"));
        assert!(!m("*.pdf", "http://a.lv/f.pdf?x"));
        assert!(m("*", ""));
        assert!(m("*?*replytocom=*", "http://a.lv/p?x=1&replytocom=5"));
        // The two ends may not overlap.
        assert!(!m("ab*ba", "aba"));
        assert!(m("ab*ba", "abba"));
        // Pieces in order.
        assert!(m("*a*b*", "xaxbx"));
        assert!(!m("*b*a", "xaxbx"));
        // Multi-byte text is matched on character boundaries.
        assert!(m("*ž*", "http://a.lv/žž"));
        assert!(!m("*žx*", "http://a.lv/žž"));
    }

    #[test]
    fn empty_and_overlong_patterns_are_refused() {
        assert_eq!(Pattern::parse(" "), Err("empty pattern".into()));
        assert!(Pattern::parse(&"*".repeat(MAX_PATTERN + 1)).is_err());
    }
}

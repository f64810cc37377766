//! Selecting records: by state, by host and by URL pattern, walked through
//! the state indexes when states are given. nlpc-list, nlpc-up and nlpc-dump
//! select with it.

use crate::error::Result;
use crate::store::record::{Record, State};
use crate::store::{Key, Read};
use crate::web::admit::host_matches;

/// Which records to show. Every given selector must match.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    /// `-s`: any of these states; empty means every state.
    pub states: Vec<State>,
    /// `--auth`: the URL's host is one of these or a subdomain of one.
    pub auth: Vec<String>,
    /// A URL substring, or a glob when it holds `*` or `?`.
    pub pattern: Option<String>,
}

/// Matches `text` against a glob of `*` (any run) and `?` (any character).
pub fn glob_match(glob: &str, text: &str) -> bool {
    let g: Vec<char> = glob.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut gi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if gi < g.len() && (g[gi] == '?' || g[gi] == t[ti]) {
            gi += 1;
            ti += 1;
        } else if gi < g.len() && g[gi] == '*' {
            star = Some((gi, ti));
            gi += 1;
        } else if let Some((sg, st)) = star {
            gi = sg + 1;
            ti = st + 1;
            star = Some((sg, st + 1));
        } else {
            return false;
        }
    }
    g[gi..].iter().all(|c| *c == '*')
}

impl Selector {
    /// True when the record is selected.
    pub fn matches(&self, r: &Record) -> bool {
        if !self.states.is_empty() && !self.states.contains(&r.state) {
            return false;
        }
        if !self.auth.is_empty() {
            let host = r.host();
            if !self.auth.iter().any(|a| host_matches(host, a)) {
                return false;
            }
        }
        match &self.pattern {
            None => true,
            Some(p) if p.contains(['*', '?']) => glob_match(p, &r.url),
            Some(p) => r.url.contains(p.as_str()),
        }
    }

    /// Walks the selected records in key order: through the state indexes
    /// when states are given, else through every record.
    pub fn walk(
        &self,
        rd: &Read<'_>,
        mut f: impl FnMut(Key, Record) -> Result<bool>,
    ) -> Result<()> {
        let mut each = |k: Key, r: Record| {
            if self.matches(&r) {
                f(k, r)
            } else {
                Ok(true)
            }
        };
        if self.states.is_empty() {
            return rd.walk_all(&mut each);
        }
        let mut go = true;
        for s in &self.states {
            for leased in [false, true] {
                if go {
                    rd.walk_state(*s, leased, |k, r| {
                        go = each(k, r)?;
                        Ok(go)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// True when nothing but states is selected, so counters answer counts.
    pub fn states_only(&self) -> bool {
        self.auth.is_empty() && self.pattern.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("http://*.lv/*", "http://a.lv/x"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*a*b*", "xxaxxbxx"));
        assert!(!glob_match("*a*b", "xxaxxbxxc"));
    }

    #[test]
    fn selection() {
        let mut r = Record::new("http://www.example.lv/a/b", 0);
        r.state = State::Ready;
        let sel = Selector {
            states: vec![State::Ready],
            auth: vec!["example.lv".into()],
            pattern: Some("/a/".into()),
        };
        assert!(sel.matches(&r));
        let other = Selector {
            states: vec![State::New],
            ..sel.clone()
        };
        assert!(!other.matches(&r));
        let glob = Selector {
            pattern: Some("*/b".into()),
            ..Selector::default()
        };
        assert!(glob.matches(&r));
    }
}

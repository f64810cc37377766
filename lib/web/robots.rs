//! robots.txt: the Robots Exclusion Protocol of RFC 9309, with the 1996
//! draft's extensions (Crawl-delay, Request-rate, Visit-time) and Sitemap
//! lines. The cache of fetched files is `store::rep`.

use std::time::Duration;

use crate::web::url::normalise_percent;

/// The product token nlpcrawl answers to in User-agent lines.
pub const PRODUCT: &str = "nlpcrawl";

/// RFC 9309 2.5: crawlers must parse at least 500 KiB.
pub const MAX_SIZE: usize = 500 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    allow: bool,
    /// The pattern, percent-normalised as our URLs are.
    pattern: String,
}

#[derive(Clone, Debug, Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
    request_interval: Option<Duration>,
    visit_time: Option<(u32, u32)>,
}

/// What one origin's robots.txt says to us.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Robots {
    rules: Vec<Rule>,
    /// Everything is disallowed (robots.txt unreachable or 5xx).
    deny_all: bool,
    /// Crawl-delay of our group.
    pub crawl_delay: Option<Duration>,
    /// Request-rate of our group, as the interval between requests.
    pub request_interval: Option<Duration>,
    /// Visit-time of our group: minutes after midnight UTC, from and to.
    pub visit_time: Option<(u32, u32)>,
    /// Sitemap URLs, as written (they apply to every crawler).
    pub sitemaps: Vec<String>,
}

/// Percent-normalises a pattern or path the way our URLs are normalised,
/// encoding any non-ASCII byte, so both sides compare octet by octet.
fn normalise_pattern(p: &str) -> String {
    let mut enc = String::with_capacity(p.len());
    for &b in p.as_bytes() {
        if b.is_ascii() && b > b' ' {
            enc.push(b as char);
        } else {
            enc.push_str(&format!("%{b:02X}"));
        }
    }
    normalise_percent(&enc)
}

/// True when `path` matches `pattern` (with `*` any run, and a final `$`
/// anchoring the end); the pattern matches a prefix otherwise.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pat, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let pieces: Vec<&str> = pat.split('*').collect();
    let mut at = 0;
    for (i, piece) in pieces.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(piece) {
                return false;
            }
            at = piece.len();
            continue;
        }
        if i == pieces.len() - 1 && anchored {
            // The last piece must end the path, and not overlap what came before.
            return path.len() >= at + piece.len() && path.ends_with(piece);
        }
        match path[at..].find(piece) {
            Some(j) => at += j + piece.len(),
            None => return false,
        }
    }
    !anchored || at == path.len() || pat.ends_with('*')
}

fn parse_delay(v: &str) -> Option<Duration> {
    let secs: f64 = v.trim().parse().ok()?;
    (0.0..1e7)
        .contains(&secs)
        .then(|| Duration::from_secs_f64(secs))
}

/// "1/5" (one page every 5 s), "1/10m", "3/1h": the interval between requests.
fn parse_rate(v: &str) -> Option<Duration> {
    let (n, rest) = v.trim().split_once('/')?;
    let n: f64 = n.trim().parse().ok()?;
    let rest = rest.trim();
    let split = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (m, unit) = rest.split_at(split);
    let m: f64 = m.parse().ok()?;
    let mult = match unit.trim() {
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    let secs = m * mult / n;
    (n > 0.0 && (0.0..1e7).contains(&secs)).then(|| Duration::from_secs_f64(secs))
}

/// "0100-0600" (UTC): minutes after midnight, from and to.
fn parse_visit_time(v: &str) -> Option<(u32, u32)> {
    let (a, b) = v.trim().split_once('-')?;
    let hm = |s: &str| -> Option<u32> {
        let s = s.trim().replace(':', "");
        // Four ASCII digits, so the byte slices below cut between characters
        // (and no sign slips through parse).
        if s.len() != 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let h: u32 = s[..2].parse().ok()?;
        let m: u32 = s[2..].parse().ok()?;
        (h < 24 && m < 60).then_some(h * 60 + m)
    };
    Some((hm(a)?, hm(b)?))
}

/// True when a User-agent value names our product token.
fn names_us(agent: &str) -> bool {
    let token = agent
        .split(|c: char| c == '/' || c.is_whitespace())
        .next()
        .unwrap_or("");
    token.eq_ignore_ascii_case(PRODUCT)
}

impl Robots {
    /// Allows everything: robots.txt is absent (4xx) or unusable.
    pub fn allow_all() -> Robots {
        Robots::default()
    }

    /// Disallows everything: robots.txt could not be fetched (5xx or
    /// unreachable).
    pub fn deny_all() -> Robots {
        Robots {
            deny_all: true,
            ..Robots::default()
        }
    }

    /// True when everything is disallowed for now.
    pub fn denies_all(&self) -> bool {
        self.deny_all
    }

    /// Parses a robots.txt body (only its first [`MAX_SIZE`] bytes) for the
    /// product token [`PRODUCT`].
    pub fn parse(body: &[u8]) -> Robots {
        let body = &body[..body.len().min(MAX_SIZE)];
        let text = String::from_utf8_lossy(body);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut groups: Vec<Group> = Vec::new();
        let mut sitemaps = Vec::new();
        // True while consecutive User-agent lines are still opening a group.
        let mut in_agents = false;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if !in_agents {
                        groups.push(Group::default());
                        in_agents = true;
                    }
                    if let Some(g) = groups.last_mut() {
                        g.agents.push(value.to_string());
                    }
                }
                "sitemap" => {
                    if !value.is_empty() {
                        sitemaps.push(value.to_string());
                    }
                }
                _ => {
                    in_agents = false;
                    // Rules before the first User-agent line belong to no group.
                    let Some(g) = groups.last_mut() else {
                        continue;
                    };
                    match key.as_str() {
                        "allow" | "disallow" if !value.is_empty() => g.rules.push(Rule {
                            allow: key == "allow",
                            pattern: normalise_pattern(value),
                        }),
                        "crawl-delay" => g.crawl_delay = g.crawl_delay.or(parse_delay(value)),
                        "request-rate" => {
                            g.request_interval = g.request_interval.or(parse_rate(value))
                        }
                        "visit-time" => g.visit_time = g.visit_time.or(parse_visit_time(value)),
                        _ => {}
                    }
                }
            }
        }
        // Our groups, merged; else the "*" groups, merged; else nothing.
        let ours: Vec<&Group> = groups
            .iter()
            .filter(|g| g.agents.iter().any(|a| names_us(a)))
            .collect();
        let chosen = if ours.is_empty() {
            groups
                .iter()
                .filter(|g| g.agents.iter().any(|a| a == "*"))
                .collect()
        } else {
            ours
        };
        let mut r = Robots {
            sitemaps,
            ..Robots::default()
        };
        for g in chosen {
            r.rules.extend(g.rules.iter().cloned());
            r.crawl_delay = r.crawl_delay.max(g.crawl_delay);
            r.request_interval = r.request_interval.max(g.request_interval);
            r.visit_time = r.visit_time.or(g.visit_time);
        }
        r
    }

    /// True when the URL path (with its query) may be fetched: the longest
    /// matching rule decides, Allow winning a tie; no match allows.
    pub fn allowed(&self, path_and_query: &str) -> bool {
        if self.deny_all {
            return false;
        }
        if path_and_query == "/robots.txt" {
            return true;
        }
        let path = normalise_pattern(path_and_query);
        let mut best: Option<(usize, bool)> = None;
        for r in &self.rules {
            if pattern_matches(&r.pattern, &path) {
                let len = r.pattern.len();
                best = match best {
                    Some((l, a)) if l > len || (l == len && a) => Some((l, a)),
                    _ => Some((len, r.allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }

    /// The least time between two requests to this origin that the file
    /// asks for (Crawl-delay or Request-rate, whichever is longer).
    pub fn delay(&self) -> Option<Duration> {
        self.crawl_delay.max(self.request_interval)
    }

    /// True when `minute` (after midnight UTC) lies in the Visit-time
    /// window, or there is none.
    pub fn visit_allowed(&self, minute: u32) -> bool {
        match self.visit_time {
            None => true,
            Some((from, to)) if from <= to => (from..=to).contains(&minute),
            Some((from, to)) => minute >= from || minute <= to,
        }
    }
}

/// A cached robots.txt: what the server answered, and until when it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub origin: String,
    pub fetched: u64,
    pub expires: u64,
    /// The HTTP status, or 0 when the server could not be reached.
    pub status: u16,
    pub body: Vec<u8>,
}

impl Entry {
    /// The rules this answer means, per RFC 9309 2.3.1: 2xx is parsed, 4xx
    /// allows everything, 5xx or no answer disallows everything.
    pub fn robots(&self) -> Robots {
        match self.status {
            200..=299 => Robots::parse(&self.body),
            400..=499 => Robots::allow_all(),
            // Too many redirects, or a redirect we would not follow: RFC
            // 9309 lets us treat the file as unavailable.
            300..=399 => Robots::allow_all(),
            _ => Robots::deny_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(pattern_matches("/a", "/a/b"));
        assert!(!pattern_matches("/a", "/b"));
        assert!(pattern_matches("/*.php$", "/x/y.php"));
        assert!(!pattern_matches("/*.php$", "/x/y.php?q"));
        assert!(pattern_matches("/*.php", "/x/y.php?q"));
        assert!(pattern_matches("/a$", "/a"));
        assert!(!pattern_matches("/a$", "/ab"));
        assert!(pattern_matches("/a*b*c", "/aXbYc/z"));
        assert!(!pattern_matches("/a*b*c", "/aXcYb"));
        assert!(pattern_matches("*", "/anything"));
        assert!(pattern_matches("/ab*$", "/abc"));
    }

    #[test]
    fn rates_and_windows() {
        assert_eq!(parse_rate("1/5"), Some(Duration::from_secs(5)));
        assert_eq!(parse_rate("2/1m"), Some(Duration::from_secs(30)));
        assert_eq!(parse_rate("0/5"), None);
        assert_eq!(parse_visit_time("0100-0600"), Some((60, 360)));
        assert_eq!(parse_visit_time("01:00-06:00"), Some((60, 360)));
        assert_eq!(parse_visit_time("2500-0600"), None);
    }

    #[test]
    fn visit_time_with_a_character_across_the_second_byte() {
        // "0ā0" is four bytes, and byte 2 falls inside "ā".
        assert_eq!(parse_visit_time("0ā0-0200"), None);
        assert_eq!(parse_visit_time("+100-0200"), None);
        let r = Robots::parse("User-agent: *\nVisit-time: 0ā0-0200\nDisallow: /x\n".as_bytes());
        assert_eq!(r.visit_time, None);
        assert!(!r.allowed("/x"));
    }
}

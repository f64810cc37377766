//! The fetcher's figures: running totals, failures grouped by kind, the
//! busiest and slowest hosts of the last minute, the last failures, and
//! the statistics history written once a minute (see
//! [`crate::store::series`]); `stats` shows and publishes them.

use std::collections::BTreeMap;

use super::*;
use crate::store::series;

/// Hosts timed per minute at most, so a crawl of many hosts cannot grow
/// the map without bound; later hosts of the minute go untimed.
const TIMED_HOSTS: usize = 10_000;

/// Counters for the log and the monitor.
#[derive(Default, Clone, Copy)]
pub(super) struct Stats {
    pub pages: u64,
    pub bytes: u64,
    pub errors: u64,
    pub robots: u64,
    pub connections: u64,
    /// Pages asked again after their address's distress answer.
    pub deferred: u64,
    /// Pauses begun (see `health`).
    pub pauses: u64,
}

/// What [`Fetcher`] counts for the log, the monitors and the history: its
/// part for figures.
pub(super) struct Figures {
    pub stats: Stats,
    /// When `-m` last printed, and the counters then.
    pub shown: (Instant, Stats),
    /// Pages per host since the last minute began, for the monitors.
    pub top: HashMap<String, u64>,
    pub top_since: Instant,
    /// The last few failures, for the monitors.
    pub recent: VecDeque<String>,
    /// When the figures were last published for nlpcd's monitor.
    pub published: Instant,
    /// UNREACH records by [`error_kind`], since the process started.
    pub kinds: BTreeMap<&'static str, u64>,
    /// Per host since the minute began: answers and their total time in ms.
    timed: HashMap<String, (u64, u64)>,
    timed_since: Instant,
    series_at: Instant,
}

impl Figures {
    pub fn new() -> Figures {
        let now = Instant::now();
        Figures {
            stats: Stats::default(),
            shown: (now, Stats::default()),
            top: HashMap::new(),
            top_since: now,
            recent: VecDeque::new(),
            published: now,
            kinds: BTreeMap::new(),
            timed: HashMap::new(),
            timed_since: now,
            series_at: now,
        }
    }

    /// A record of `url` set UNREACH for `reason`: counted, by kind, and
    /// kept among the last few failures.
    pub fn unreach(&mut self, url: &str, reason: &str, status: u16) {
        self.stats.errors += 1;
        *self.kinds.entry(error_kind(reason, status)).or_insert(0) += 1;
        if self.recent.len() == 5 {
            self.recent.pop_front();
        }
        self.recent.push_back(format!("{url}: {reason}"));
    }

    /// A page of `host` fetched.
    pub fn fetched(&mut self, host: &str) {
        self.stats.pages += 1;
        *self.top.entry(host.to_string()).or_insert(0) += 1;
    }

    /// One answer (or failure) from `host` that took `took`.
    pub fn timed(&mut self, host: &str, took: Duration) {
        if self.timed_since.elapsed() >= Duration::from_secs(60) {
            self.timed.clear();
            self.timed_since = Instant::now();
        }
        let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        if let Some(e) = self.timed.get_mut(host) {
            e.0 += 1;
            e.1 = e.1.saturating_add(ms);
        } else if self.timed.len() < TIMED_HOSTS {
            self.timed.insert(host.to_string(), (1, ms));
        }
    }

    /// The counters the history keeps for nlpc-fetch.
    fn series_counters(&self) -> Vec<(String, u64)> {
        let s = self.stats;
        let mut v = vec![
            ("pages".to_string(), s.pages),
            ("bytes".to_string(), s.bytes),
            ("errors".to_string(), s.errors),
            ("robots".to_string(), s.robots),
            ("connections".to_string(), s.connections),
        ];
        v.extend(self.kinds.iter().map(|(k, n)| (format!("unreach.{k}"), *n)));
        v
    }

    /// The `n` hosts of the last minute with the longest mean answer time:
    /// host, mean ms, answers.
    pub fn slowest(&self, n: usize) -> Vec<(String, u64, u64)> {
        let mut v: Vec<(String, u64, u64)> = self
            .timed
            .iter()
            .map(|(h, (k, ms))| (h.clone(), ms / k.max(&1), *k))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

/// The kind of an UNREACH reason, for the monitor and the history:
/// `connect`, `timeout`, `tls`, `http4xx`, `http5xx`, `robots`, `redirect`,
/// `size`, `address`, `transfer`, `decode`, or `other`.
pub fn error_kind(reason: &str, status: u16) -> &'static str {
    let low = reason.to_ascii_lowercase();
    if low.contains("ssl") || low.contains("tls") || low.contains("certificate") {
        "tls"
    } else if low.starts_with("cannot connect") {
        "connect"
    } else if low == "timeout" || low == "too slow" || low.contains("timed out") {
        "timeout"
    } else if (400..500).contains(&status) {
        "http4xx"
    } else if (500..600).contains(&status) {
        "http5xx"
    } else if low.contains("robots") || low.contains("visit-time") {
        "robots"
    } else if low.contains("redirect") {
        "redirect"
    } else if low == "too large" {
        "size"
    } else if low == "no address" {
        "address"
    } else if low.starts_with("transfer failed") {
        "transfer"
    } else if low.starts_with("cannot decode") {
        "decode"
    } else {
        "other"
    }
}

impl Fetcher<'_> {
    /// Writes the counters into the history when a minute has passed, or
    /// (`now`) at once.
    pub(super) fn write_series(&mut self, now: bool) -> Result<()> {
        if !now && self.figures.series_at.elapsed() < self.cfg.stat_every {
            return Ok(());
        }
        series::record(
            &self.d.store,
            clock::real_now(),
            STATS_KEY_NAME,
            &self.figures.series_counters(),
        )?;
        self.figures.series_at = Instant::now();
        Ok(())
    }
}

/// nlpc-fetch's name in the history.
const STATS_KEY_NAME: &str = "nlpc-fetch";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_group_into_kinds() {
        assert_eq!(
            error_kind("cannot connect: Connection refused", 0),
            "connect"
        );
        assert_eq!(error_kind("timeout", 0), "timeout");
        assert_eq!(error_kind("too slow", 0), "timeout");
        assert_eq!(
            error_kind("transfer failed: SSL certificate problem", 0),
            "tls"
        );
        assert_eq!(error_kind("HTTP 404", 404), "http4xx");
        assert_eq!(error_kind("HTTP 503", 503), "http5xx");
        assert_eq!(error_kind("robots.txt denies all", 0), "robots");
        assert_eq!(error_kind("too many redirects", 301), "redirect");
        assert_eq!(error_kind("no address", 0), "address");
        assert_eq!(error_kind("transfer failed: reset", 0), "transfer");
        assert_eq!(error_kind("something new", 0), "other");
    }
}

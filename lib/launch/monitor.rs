//! nlpcd's monitor: records per state, fetch rates over the last minute,
//! addresses resting, top hosts, recent errors and each daemon's state, on
//! one 80x24 screen, or one line a second when not on a terminal.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::document::escape::controls;
use crate::error::Result;
use crate::launch::child::Daemon;
use crate::stage::fetch::STATS_KEY;
use crate::store::record::State;
use crate::store::{Store, Table};

/// Samples of the fetcher's running totals, to make rates from.
pub struct Monitor {
    samples: VecDeque<(Instant, u64, u64)>,
    /// Totals carried over from fetcher processes that have restarted.
    base: (u64, u64),
    last: (u64, u64),
    pub tty: bool,
    started: Instant,
}

const WIDTH: usize = 80;

/// A line cut to the screen's width, its control characters escaped: host
/// names, errors and exit reasons come from outside.
fn fit(s: &str) -> String {
    controls(s).chars().take(WIDTH).collect()
}

fn human(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.1}G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.1}")
    }
}

impl Monitor {
    pub fn new(tty: bool) -> Monitor {
        Monitor {
            samples: VecDeque::new(),
            base: (0, 0),
            last: (0, 0),
            tty,
            started: Instant::now(),
        }
    }

    /// Takes a sample and renders the screen (or the line).
    pub fn render(&mut self, store: &Store, daemons: &[Daemon]) -> Result<String> {
        let rd = store.read()?;
        let mut counts = Vec::new();
        for s in State::ALL {
            counts.push((s, rd.count(s, false)? + rd.count(s, true)?));
        }
        let fetch: serde_json::Value = rd
            .table_get(Table::Stats, STATS_KEY)?
            .and_then(|v| serde_json::from_slice(&v).ok())
            .unwrap_or(serde_json::Value::Null);
        drop(rd);
        let num = |k: &str| fetch.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let (pages, bytes) = (num("pages"), num("bytes"));
        // A restarted fetcher counts from zero again.
        if pages < self.last.0 || bytes < self.last.1 {
            self.base.0 += self.last.0;
            self.base.1 += self.last.1;
        }
        self.last = (pages, bytes);
        let now = Instant::now();
        let total = (self.base.0 + pages, self.base.1 + bytes);
        self.samples.push_back((now, total.0, total.1));
        while self
            .samples
            .front()
            .is_some_and(|(t, _, _)| now.duration_since(*t) > Duration::from_secs(60))
        {
            self.samples.pop_front();
        }
        let (rate_p, rate_b) = match self.samples.front() {
            Some((t, p, b)) if now.duration_since(*t).as_secs_f64() > 0.5 => {
                let secs = now.duration_since(*t).as_secs_f64();
                ((total.0 - p) as f64 / secs, (total.1 - b) as f64 / secs)
            }
            _ => (0.0, 0.0),
        };
        let restarts: u32 = daemons.iter().map(|d| d.restarts).sum();
        if !self.tty {
            let states: Vec<String> = counts
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| format!("{s}={n}"))
                .collect();
            return Ok(format!(
                "nlpcd: {} pages/s={:.1} bytes/s={:.0} restarts={restarts}\n",
                states.join(" "),
                rate_p,
                rate_b
            ));
        }
        let mut lines = Vec::new();
        let up = self.started.elapsed().as_secs();
        lines.push(format!(
            "nlpcd  {}  up {:02}:{:02}:{:02}",
            store.path().display(),
            up / 3600,
            up / 60 % 60,
            up % 60
        ));
        lines.push(String::new());
        for row in counts.chunks(6) {
            lines.push(
                row.iter()
                    .map(|(s, n)| format!("{:<9}{:>4}", s.name(), n))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        lines.push(String::new());
        lines.push(format!(
            "last minute: {} pages/s  {}B/s    in flight {}  queued {}",
            human(rate_p),
            human(rate_b),
            num("in_flight"),
            num("queued")
        ));
        lines.push(format!(
            "addresses: {} served, {} resting    errors {}  robots.txt {}",
            num("addresses"),
            num("resting"),
            num("errors"),
            num("robots")
        ));
        lines.push(String::new());
        lines.push("daemons:".into());
        for d in daemons {
            let pid = d.pid().map(|p| p.to_string()).unwrap_or_else(|| "-".into());
            lines.push(format!(
                "  {:<13} {:<18} pid {:<8} restarts {:<4} {}",
                d.name,
                d.status(),
                pid,
                d.restarts,
                d.last_exit
            ));
        }
        lines.push("top hosts (last minute):".into());
        let top = fetch
            .get("top")
            .and_then(|t| t.as_array())
            .cloned()
            .unwrap_or_default();
        let hosts: Vec<String> = top
            .iter()
            .filter_map(|e| Some(format!("{} {}", e.get(0)?.as_str()?, e.get(1)?.as_u64()?)))
            .collect();
        lines.push(format!("  {}", hosts.join("  ")));
        lines.push("recent errors:".into());
        for e in fetch
            .get("recent")
            .and_then(|r| r.as_array())
            .cloned()
            .unwrap_or_default()
            .iter()
            .rev()
            .take(3)
        {
            lines.push(format!("  {}", e.as_str().unwrap_or("")));
        }
        let mut out = String::from("\x1b[H\x1b[2J");
        for l in lines.iter().take(23) {
            out.push_str(&fit(l));
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_line_shows_controls_as_escapes_and_fits() {
        assert_eq!(fit("host\x1b[2J \u{9b}x"), "host\\x1b[2J \\u{9b}x");
        let long = format!("{}\x1b", "é".repeat(WIDTH));
        assert_eq!(fit(&long).chars().count(), WIDTH);
    }
}

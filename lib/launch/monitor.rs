//! nlpcd's monitor: records per state, rates over the last minute and since
//! the start, the harvest rate, failures by kind, the slowest and busiest
//! hosts, the crawl's overall harvest and yield by the harvest table, each
//! daemon's state and the last errors, on one 80x24 screen, or
//! one line a second when not on a terminal.
//!
//! [`Monitor::snapshot`] gathers the figures; [`screen`] and [`line`] are
//! pure functions of a [`Snapshot`], so the layout is tested without a
//! crawl. A new section is one more function called from [`screen`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::document::escape::controls;
use crate::error::Result;
use crate::launch::child::Daemon;
use crate::run::human;
use crate::stage::fetch::published::Published;
use crate::stage::fetch::STATS_KEY;
use crate::stage::resolve::figures::{Published as Resolved, STATS_KEY as RESOLVE_KEY};
use crate::store::harvest::{report as harvest_report, HostYield};
use crate::store::record::State;
use crate::store::series::harvest;
use crate::store::{Store, Table};

const WIDTH: usize = 80;
/// Lines of a screen: one short of 24, so the cursor's line after the last
/// newline does not scroll the first away.
pub const LINES: usize = 23;

/// A figure over the last minute and since the monitor started.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rate {
    pub minute: f64,
    pub start: f64,
}

/// A host of low harvest: host, pages accepted, pages judged.
pub type LowYield = (String, u64, u64);

/// One daemon's line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DaemonLine {
    pub name: String,
    pub status: String,
    pub pid: Option<u32>,
    pub restarts: u32,
    pub last_exit: String,
}

/// Everything one screen shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub db: String,
    /// Seconds since the monitor started.
    pub up: u64,
    /// Records per state, leased ones included, in [`State::ALL`] order.
    pub counts: Vec<(State, u64)>,
    /// In a cluster: links waiting in the outbox for nlpc-relay.
    pub outbox: Option<u64>,
    /// Pages fetched per second (nlpc-fetch's count, across its restarts).
    pub fetched: Rate,
    pub fetched_total: u64,
    /// Net growth of VERIFIED + SCANNED per second.
    pub verified: Rate,
    pub bytes: Rate,
    pub bytes_total: u64,
    pub in_flight: u64,
    pub queued: u64,
    pub addresses: u64,
    pub resting: u64,
    /// Addresses paused for their distress (429, 503, timeouts, failed
    /// connections), and the first few: address, why, till when (Unix s).
    pub paused: u64,
    pub paused_list: Vec<(String, String, u64)>,
    pub robots: u64,
    /// UNREACH records from the fetcher and the resolver since they
    /// started, in all and by kind (`dns` for the resolver's).
    pub errors: u64,
    pub kinds: Vec<(String, u64)>,
    /// Hosts with the longest mean answer time in the last minute, in ms.
    pub slowest: Vec<(String, u64)>,
    /// Hosts with the most pages in the last minute.
    pub top: Vec<(String, u64)>,
    /// Hosts of lowest harvest among those with a few pages judged: host,
    /// pages accepted, pages judged (`store::harvest`).
    pub low_yield: Vec<LowYield>,
    /// The sum of every host's figures (`store::harvest`): pages judged
    /// and accepted, bytes judged and bytes of accepted text.
    pub judged: HostYield,
    pub daemons: Vec<DaemonLine>,
    /// The last failures, newest last.
    pub recent: Vec<String>,
}

impl Snapshot {
    fn count(&self, s: State) -> u64 {
        self.counts
            .iter()
            .find(|(t, _)| *t == s)
            .map_or(0, |(_, n)| *n)
    }

    /// The harvest rate: of the pages nlpc-vrfy and the header checks have
    /// judged, the share accepted, (VERIFIED + SCANNED) / (VERIFIED +
    /// SCANNED + REJECTED); None before any was judged.
    pub fn harvest(&self) -> Option<f64> {
        harvest(
            self.count(State::Verified)
                .saturating_add(self.count(State::Scanned)),
            self.count(State::Rejected),
        )
    }

    /// Bytes of accepted text per byte judged, over the whole crawl; None
    /// before any byte was judged.
    pub fn yield_ratio(&self) -> Option<f64> {
        (self.judged.bytes > 0).then(|| self.judged.yield_ratio())
    }
}

/// A line cut to the screen's width, its control characters escaped: host
/// names, errors and exit reasons come from outside.
fn fit(s: &str) -> String {
    controls(s).chars().take(WIDTH).collect()
}

/// `head` followed by as many of `items` as fit whole in the width.
fn fill(head: &str, items: impl IntoIterator<Item = String>) -> String {
    fill_n(head, items).0
}

/// [`fill`], and how many items it took.
fn fill_n(head: &str, items: impl IntoIterator<Item = String>) -> (String, usize) {
    let mut out = head.to_string();
    let mut n = 0;
    for it in items {
        let it = controls(&it);
        if out.chars().count() + 2 + it.chars().count() > WIDTH {
            break;
        }
        out.push_str("  ");
        out.push_str(&it);
        n += 1;
    }
    (out, n)
}

/// The name of a failure kind on the screen.
pub fn kind_name(kind: &str) -> String {
    match kind {
        "http4xx" => "HTTP 4xx".into(),
        "http5xx" => "HTTP 5xx".into(),
        "tls" => "TLS".into(),
        "dns" => "DNS".into(),
        k => k.to_string(),
    }
}

fn states(s: &Snapshot) -> Vec<String> {
    // 4 cells of 18 a row: QUARANTINED (11) and the widest count (6)
    // always fit.
    // In a cluster the outbox is one more cell: links found here that
    // wait to be sent are work as much as NEW records are.
    let cells: Vec<String> = s
        .counts
        .iter()
        .map(|(st, n)| (st.name(), *n))
        .chain(s.outbox.map(|n| ("OUTBOX", n)))
        .map(|(name, n)| format!("{:<11} {:>6}", name, human::count(n)))
        .collect();
    cells.chunks(4).map(|row| row.join("  ")).collect()
}

fn rates(s: &Snapshot) -> Vec<String> {
    vec![
        format!(
            "fetched  {:>6}/s last min {:>6}/s since start   {} pages  {}",
            human::rate(s.fetched.minute),
            human::rate(s.fetched.start),
            human::count(s.fetched_total),
            human::bytes(s.bytes_total),
        ),
        format!(
            "verified {:>6}/s last min {:>6}/s since start   harvest {} of judged",
            human::rate(s.verified.minute),
            human::rate(s.verified.start),
            human::percent(s.harvest()),
        ),
        format!(
            "{}/s fetched  in flight {}  queued {}  addr {} served, {} resting",
            human::bytes(s.bytes.minute as u64),
            human::count(s.in_flight),
            human::count(s.queued),
            human::count(s.addresses),
            human::count(s.resting),
        ),
    ]
}

fn errors(s: &Snapshot) -> Vec<String> {
    let mut kinds = s.kinds.clone();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let items: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{} {}", kind_name(k), human::count(*n)))
        .collect();
    let (first, shown) = fill_n(
        &format!(
            "errors {}  robots.txt {}  by kind:",
            human::count(s.errors),
            human::count(s.robots)
        ),
        items.iter().cloned(),
    );
    // The kinds that did not fit go on a second line.
    let mut v = vec![first];
    if shown < items.len() {
        v.push(fill(" ", items[shown..].iter().cloned()));
    }
    v
}

/// A host name of at most 32 characters: a longer one keeps its end,
/// which names the site.
fn short_host(h: &str) -> String {
    let n = h.chars().count();
    if n <= 32 {
        return h.to_string();
    }
    let tail: String = h.chars().skip(n - 31).collect();
    format!("…{tail}")
}

/// The crawl's harvest and yield by nlpc-vrfy's verdicts: pages fetched
/// again count again, unlike in the harvest from the states.
fn judged(s: &Snapshot) -> Vec<String> {
    let j = &s.judged;
    vec![format!(
        "judged {} pages: harvest {}, yield {} ({} text of {})",
        human::count(j.fetched),
        human::percent((j.fetched > 0).then(|| j.harvest())),
        human::percent(s.yield_ratio()),
        human::bytes(j.text),
        human::bytes(j.bytes),
    )]
}

fn hosts(s: &Snapshot) -> Vec<String> {
    vec![
        fill(
            "slowest (last min):",
            s.slowest
                .iter()
                .map(|(h, ms)| format!("{} {}", short_host(h), human::millis(*ms))),
        ),
        fill(
            "busiest (last min):",
            s.top
                .iter()
                .map(|(h, n)| format!("{} {}", short_host(h), human::count(*n))),
        ),
        fill(
            "lowest harvest:",
            s.low_yield.iter().map(|(h, a, j)| {
                format!(
                    "{} {}/{}",
                    short_host(h),
                    human::count(*a),
                    human::count(*j)
                )
            }),
        ),
    ]
}

/// The paused addresses, when there are any: why, and till when (UTC).
fn paused(s: &Snapshot) -> Vec<String> {
    if s.paused == 0 {
        return Vec::new();
    }
    vec![fill(
        &format!("paused {}:", human::count(s.paused)),
        s.paused_list.iter().map(|(a, why, until)| {
            let t = crate::run::clock::iso8601(*until);
            format!("{a} {why} till {}", t.get(11..19).unwrap_or(&t))
        }),
    )]
}

fn daemons(s: &Snapshot) -> Vec<String> {
    s.daemons
        .iter()
        .map(|d| {
            let pid = d.pid.map_or_else(|| "-".into(), |p| p.to_string());
            format!(
                "{:<13} {:<20} pid {:<8} restarts {:<4} {}",
                d.name, d.status, pid, d.restarts, d.last_exit
            )
        })
        .collect()
}

fn recent(s: &Snapshot) -> Vec<String> {
    let mut v = vec!["recent errors:".to_string()];
    v.extend(s.recent.iter().rev().take(3).map(|e| format!("  {e}")));
    v
}

/// The screen: at most [`LINES`] lines of at most 80 characters; state
/// names and counts are never cut.
pub fn screen(s: &Snapshot) -> Vec<String> {
    // The path last: a long one is cut, the uptime is not.
    let mut lines = vec![format!("nlpcd  up {}  {}", human::duration(s.up), s.db)];
    lines.extend(states(s));
    lines.extend(rates(s));
    lines.extend(errors(s));
    lines.extend(hosts(s));
    lines.extend(judged(s));
    lines.extend(paused(s));
    // Sections so far take all 23 lines with five daemons (the last
    // errors are cut first); a new one is a function of the snapshot
    // added here, and a field of `Snapshot` filled in `snapshot`.
    lines.extend(daemons(s));
    lines.extend(recent(s));
    lines.iter().take(LINES).map(|l| fit(l)).collect()
}

/// One line for a log or a pipe: exact numbers, `NAME=value` pairs.
pub fn line(s: &Snapshot) -> String {
    let states: Vec<String> = s
        .counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(st, n)| format!("{st}={n}"))
        .collect();
    let restarts: u32 = s.daemons.iter().map(|d| d.restarts).sum();
    let harvest = s
        .harvest()
        .map_or_else(|| "-".into(), |h| format!("{:.3}", h));
    let yields = s
        .yield_ratio()
        .map_or_else(|| "-".into(), |y| format!("{:.3}", y));
    let outbox = s.outbox.map(|n| format!(" outbox={n}")).unwrap_or_default();
    // Paused addresses: how many, then each as ADDRESS:WHY:UNTIL.
    let paused = if s.paused == 0 {
        String::new()
    } else {
        let each: Vec<String> = s
            .paused_list
            .iter()
            .map(|(a, why, until)| format!("{a}:{}:{until}", why.replace(' ', "_")))
            .collect();
        format!(" paused={} {}", s.paused, each.join(" "))
    };
    format!(
        "nlpcd: {}{outbox} pages/s={:.1} verified/s={:.1} bytes/s={:.0} harvest={harvest} yield={yields} errors={} restarts={restarts}{paused}",
        states.join(" "),
        s.fetched.minute,
        s.verified.minute,
        s.bytes.minute,
        s.errors,
    )
}

/// One sample of the running totals: pages, bytes, VERIFIED + SCANNED.
#[derive(Clone, Copy)]
struct Sample {
    at: Instant,
    pages: u64,
    bytes: u64,
    verified: u64,
}

/// Samples of the running totals, to make rates from.
pub struct Monitor {
    samples: VecDeque<Sample>,
    first: Option<Sample>,
    /// Totals carried over from fetcher processes that have restarted.
    base: (u64, u64),
    last: (u64, u64),
    pub tty: bool,
    started: Instant,
    /// The lowest-harvest hosts, the sum over all hosts and when they
    /// were read: the yield table has a row per host, so it is read every
    /// [`YIELD_EVERY`], not every second.
    low_yield: Option<(Instant, Vec<LowYield>, HostYield)>,
}

/// How often the monitor reads the per-host yield table.
const YIELD_EVERY: Duration = Duration::from_secs(10);
/// Pages judged before a host's harvest is shown among the lowest.
const YIELD_SHOWN_AFTER: u64 = 5;

impl Monitor {
    pub fn new(tty: bool) -> Monitor {
        Monitor {
            samples: VecDeque::new(),
            first: None,
            base: (0, 0),
            last: (0, 0),
            tty,
            started: Instant::now(),
            low_yield: None,
        }
    }

    /// Takes a sample and gathers what the screen shows.
    pub fn snapshot(&mut self, store: &Store, daemons: &[Daemon]) -> Result<Snapshot> {
        let rd = store.read()?;
        let mut counts = Vec::new();
        for s in State::ALL {
            counts.push((s, rd.count(s, false)? + rd.count(s, true)?));
        }
        let outbox = match crate::store::outbox::map(&rd)? {
            Some(_) => Some(crate::store::outbox::len(&rd)?),
            None => None,
        };
        let fetch: Published = rd
            .table_get(Table::Stats, STATS_KEY)?
            .and_then(|v| Published::from_json(&v))
            .unwrap_or_default();
        let resolve: Resolved = rd
            .table_get(Table::Stats, RESOLVE_KEY.as_bytes())?
            .and_then(|v| Resolved::from_json(&v))
            .unwrap_or_default();
        let stale = self
            .low_yield
            .as_ref()
            .is_none_or(|(at, _, _)| at.elapsed() >= YIELD_EVERY);
        if stale {
            let report = harvest_report(&rd)?;
            let total = report.total;
            let mut hosts: Vec<LowYield> = report
                .hosts
                .into_iter()
                .filter(|(_, y)| y.fetched >= YIELD_SHOWN_AFTER)
                .map(|(h, y)| (h, y.accepted, y.fetched))
                .collect();
            // Lowest share accepted first (cross-multiplied: no division),
            // the host with more pages judged first among equals.
            hosts.sort_by(|a, b| {
                (u128::from(a.1) * u128::from(b.2))
                    .cmp(&(u128::from(b.1) * u128::from(a.2)))
                    .then(b.2.cmp(&a.2))
            });
            hosts.truncate(5);
            self.low_yield = Some((Instant::now(), hosts, total));
        }
        drop(rd);
        let (pages, bytes) = (fetch.pages, fetch.bytes);
        // A restarted fetcher counts from zero again.
        if pages < self.last.0 || bytes < self.last.1 {
            self.base.0 = self.base.0.saturating_add(self.last.0);
            self.base.1 = self.base.1.saturating_add(self.last.1);
        }
        self.last = (pages, bytes);
        let now = Instant::now();
        let mut snap = Snapshot {
            db: store.path().display().to_string(),
            up: self.started.elapsed().as_secs(),
            counts,
            outbox,
            ..Snapshot::default()
        };
        let sample = Sample {
            at: now,
            pages: self.base.0.saturating_add(pages),
            bytes: self.base.1.saturating_add(bytes),
            verified: snap
                .count(State::Verified)
                .saturating_add(snap.count(State::Scanned)),
        };
        let first = *self.first.get_or_insert(sample);
        self.samples.push_back(sample);
        while self
            .samples
            .front()
            .is_some_and(|s| now.duration_since(s.at) > Duration::from_secs(60))
        {
            self.samples.pop_front();
        }
        let per_sec = |from: Sample| {
            let secs = now.duration_since(from.at).as_secs_f64();
            if secs < 0.5 {
                return (0.0, 0.0, 0.0);
            }
            let d = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
            (
                d(sample.pages, from.pages),
                d(sample.bytes, from.bytes),
                d(sample.verified, from.verified),
            )
        };
        let minute = self
            .samples
            .front()
            .map_or((0.0, 0.0, 0.0), |s| per_sec(*s));
        let start = per_sec(first);
        snap.fetched = Rate {
            minute: minute.0,
            start: start.0,
        };
        snap.bytes = Rate {
            minute: minute.1,
            start: start.1,
        };
        snap.verified = Rate {
            minute: minute.2,
            start: start.2,
        };
        snap.fetched_total = sample.pages;
        snap.bytes_total = sample.bytes;
        snap.in_flight = fetch.in_flight;
        snap.queued = fetch.queued;
        snap.addresses = fetch.addresses;
        snap.resting = fetch.resting;
        snap.paused = fetch.paused;
        snap.paused_list = fetch.paused_list;
        snap.robots = fetch.robots;
        snap.errors = fetch.errors;
        snap.kinds = fetch.kinds.into_iter().collect();
        // Hosts that did not resolve: nlpc-resolve's UNREACH records.
        let dns = resolve.unreach;
        if dns > 0 {
            snap.errors = snap.errors.saturating_add(dns);
            snap.kinds.push(("dns".into(), dns));
        }
        snap.top = fetch.top;
        snap.slowest = fetch
            .slowest
            .into_iter()
            .map(|(h, ms, _)| (h, ms))
            .collect();
        if let Some((_, hosts, total)) = &self.low_yield {
            snap.low_yield = hosts.clone();
            snap.judged = *total;
        }
        snap.recent = fetch.recent;
        snap.daemons = daemons
            .iter()
            .map(|d| DaemonLine {
                name: d.name.to_string(),
                status: d.status(),
                pid: d.pid(),
                restarts: d.restarts,
                last_exit: d.last_exit.clone(),
            })
            .collect();
        Ok(snap)
    }

    /// Takes a sample and renders the screen (cleared first) or the line.
    pub fn render(&mut self, store: &Store, daemons: &[Daemon]) -> Result<String> {
        let snap = self.snapshot(store, daemons)?;
        if !self.tty {
            return Ok(line(&snap) + "\n");
        }
        let mut out = String::from("\x1b[H\x1b[2J");
        // In a cluster, one row a node, below this node's screen.
        let nodes = crate::cluster::relay::rows(store)?;
        for l in screen(&snap)
            .into_iter()
            .chain(nodes.iter().map(|l| fit(l)))
        {
            out.push_str(&l);
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

    /// Every state non-zero and large, every list full and long.
    fn crowded() -> Snapshot {
        let long = format!("{}.example", "h".repeat(120));
        Snapshot {
            db: format!("/var/lib/{}/db", "n".repeat(100)),
            up: 3 * 86_400 + 5 * 3600,
            counts: State::ALL
                .iter()
                .enumerate()
                .map(|(i, s)| (*s, 987_654_321 * (i as u64 + 1)))
                .collect(),
            outbox: Some(123_456_789),
            fetched: Rate {
                minute: 1234.5,
                start: 987.6,
            },
            fetched_total: u64::MAX,
            verified: Rate {
                minute: 55.5,
                start: 44.4,
            },
            bytes: Rate {
                minute: 12e9,
                start: 1e9,
            },
            bytes_total: u64::MAX,
            in_flight: 123_456,
            queued: 9_876_543,
            addresses: 65_000,
            resting: 64_000,
            paused: 0,
            paused_list: Vec::new(),
            robots: 1_000_000,
            errors: 5_000_000,
            kinds: [
                "timeout", "connect", "tls", "http4xx", "http5xx", "robots", "dns",
            ]
            .iter()
            .map(|k| (k.to_string(), 123_456_789))
            .collect(),
            slowest: (0..5).map(|i| (format!("{i}{long}"), 95_000)).collect(),
            top: (0..5).map(|i| (format!("{i}{long}"), 99_999)).collect(),
            low_yield: (0..5)
                .map(|i| (format!("{i}{long}"), 0, 1_234_567))
                .collect(),
            judged: HostYield {
                fetched: u64::MAX,
                accepted: u64::MAX / 2,
                bytes: u64::MAX,
                text: u64::MAX / 4,
            },
            daemons: [
                "nlpc-scan",
                "nlpc-resolve",
                "nlpc-fetch",
                "nlpc-vrfy",
                "nlpc-up",
            ]
            .iter()
            .map(|n| DaemonLine {
                name: n.to_string(),
                status: "restart in 1234.5s".into(),
                pid: Some(4_194_304),
                restarts: 99_999,
                last_exit: format!("killed by SIGSEGV {long}"),
            })
            .collect(),
            recent: (0..5)
                .map(|i| format!("http://{i}{long}/: timeout"))
                .collect(),
        }
    }

    #[test]
    fn a_crowded_screen_fits_80_by_24_with_every_state_whole() {
        let s = crowded();
        let lines = screen(&s);
        assert!(lines.len() <= LINES, "{} lines", lines.len());
        for l in &lines {
            assert!(l.chars().count() <= WIDTH, "too wide: {l}");
        }
        // The lines of figures are never cut: they fit before fitting.
        for l in states(&s).iter().chain(&rates(&s)).chain(&errors(&s)) {
            assert!(l.chars().count() <= WIDTH, "cut: {l}");
        }
        let text = lines.join("\n");
        for (st, n) in &s.counts {
            let cell = format!("{:<11} {:>6}", st.name(), human::count(*n));
            assert!(
                lines.iter().any(|l| l.contains(&cell)),
                "{cell} missing or cut in\n{text}"
            );
        }
        // In a cluster, the outbox is counted beside the states.
        let cell = format!("{:<11} {:>6}", "OUTBOX", human::count(123_456_789));
        assert!(states(&s).iter().any(|l| l.contains(&cell)), "{text}");
        assert!(line(&s).contains(" outbox=123456789 "), "{}", line(&s));
        for want in [
            "up 3 d 5 h",
            "1.2k/s last min",
            "987.6/s since start",
            "55.5/s last min",
            "harvest ",
            "12 GB/s fetched",
            "in flight 123.5k",
            "queued 9.9M",
            "timeout 123.5M",
            "HTTP 4xx 123.5M",
            "nlpc-up",
            "slowest (last min):  …hhhhhhhhhhhhhhhhhhhhhhh.example 95 s",
            "lowest harvest:  …hhhhhhhhhhhhhhhhhhhhhhh.example 0/1.2M",
            "judged 18.4E pages: harvest 50.0%, yield 25.0%",
            "recent errors:",
        ] {
            assert!(text.contains(want), "{want} missing from\n{text}");
        }
    }

    #[test]
    fn paused_addresses_are_shown_with_why_and_till_when() {
        let mut s = crowded();
        assert!(!screen(&s).iter().any(|l| l.starts_with("paused")));
        assert!(!line(&s).contains("paused="));
        s.paused = 12;
        s.paused_list = vec![
            ("192.0.2.7".into(), "HTTP 503".into(), 1_795_880_520),
            ("2001:db8::1".into(), "cannot connect".into(), 1_795_880_600),
        ];
        let scr = screen(&s);
        let p = scr
            .iter()
            .find(|l| l.starts_with("paused 12:"))
            .expect("a paused line");
        assert!(p.contains("192.0.2.7 HTTP 503 till 15:42:00"), "{p}");
        assert!(scr.len() <= LINES && scr.iter().all(|l| l.chars().count() <= WIDTH));
        assert!(line(&s).ends_with(
            " paused=12 192.0.2.7:HTTP_503:1795880520 2001:db8::1:cannot_connect:1795880600"
        ));
    }

    #[test]
    fn harvest_is_accepted_over_judged() {
        let mut s = crowded();
        s.counts = vec![
            (State::Verified, 30),
            (State::Scanned, 50),
            (State::Rejected, 20),
        ];
        assert_eq!(s.harvest(), Some(0.8));
        assert!(screen(&s).join("\n").contains("harvest 80.0% of judged"));
        assert!(line(&s).contains("harvest=0.800"), "{}", line(&s));
        assert_eq!(harvest(0, 0), None);
    }

    #[test]
    fn the_crawls_yield_is_text_over_bytes_judged() {
        let mut s = crowded();
        s.judged = HostYield {
            fetched: 200,
            accepted: 50,
            bytes: 4_000_000,
            text: 120_000,
        };
        assert_eq!(s.yield_ratio(), Some(0.03));
        let text = screen(&s).join("\n");
        assert!(
            text.contains("judged 200 pages: harvest 25.0%, yield 3.0% (120 kB text of 4.0 MB)"),
            "{text}"
        );
        assert!(line(&s).contains(" yield=0.030 "), "{}", line(&s));
        s.judged = HostYield::default();
        assert_eq!(s.yield_ratio(), None);
        assert!(screen(&s)
            .join("\n")
            .contains("judged 0 pages: harvest -, yield - (0 B text of 0 B)"));
        assert!(line(&s).contains(" yield=- "), "{}", line(&s));
    }
}

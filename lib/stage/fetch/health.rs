//! Hearing a server in distress, per physical address: what nlpc-fetch
//! makes of 429, 503, timeouts and refused connections, and of a server
//! that answers slowly. The rules, kept apart from the I/O:
//! - a distress answer (429, 503, a timeout, a failed connection) does
//!   not fail its record: the record is asked again later and the address
//!   pauses, for the Retry-After it was given (capped by
//!   `--fetch-max-retry-after`), else for `--fetch-pause` doubled at each
//!   distress answer in a row up to `--fetch-pause-max`, within ±10%;
//! - [`RESET_RUN`] answers in a row that are not distress forgive the
//!   strikes: the next pause starts from `--fetch-pause` again;
//! - past [`STRIKES`] distress answers in a row the address is taken as
//!   down: its requests fail their records as before (a refused
//!   connection so sends its host back to the resolver), pausing only for
//!   a Retry-After, till a run of answers forgives it;
//! - the rest between bursts is at least `--fetch-slow-factor` times the
//!   address's smoothed response time, when that is over [`SLOW_FLOOR`],
//!   and at most `--fetch-max-delay` (or `--fetch-polite`, if longer).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::web::http::Failure;

/// Distress answers in a row after which an address is taken as down.
pub const STRIKES: u32 = 5;

/// Answers in a row, none of them distress, that forgive the strikes.
pub const RESET_RUN: u32 = 3;

/// Response times under this are quick: they stretch no rest.
pub const SLOW_FLOOR: Duration = Duration::from_millis(100);

/// The most `--fetch-pause`, `--fetch-pause-max` and
/// `--fetch-max-retry-after` may be.
pub const PAUSE_LIMIT: Duration = Duration::from_secs(86_400);

/// The weight of the newest response time in the smoothed one.
const SMOOTHING: f64 = 0.25;

/// The jitter on a pause of our own choosing: ±10%.
const JITTER: f64 = 0.1;

/// Addresses whose health is remembered at most; past it, the healthy
/// and the long-resumed go first.
pub const HEALTH_CAP: usize = 100_000;

/// How nlpc-fetch hears distress (from its options).
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The first pause (`--fetch-pause`); zero turns pausing off.
    pub pause: Duration,
    /// The longest pause of our own choosing (`--fetch-pause-max`).
    pub pause_max: Duration,
    /// The longest Retry-After obeyed (`--fetch-max-retry-after`).
    pub max_retry_after: Duration,
    /// Rest at least this many times the smoothed response time
    /// (`--fetch-slow-factor`); 0 turns it off.
    pub slow_factor: u32,
    /// The longest rest a slow server may cause (`--fetch-max-delay`).
    pub max_delay: Duration,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            pause: Duration::from_secs(60),
            pause_max: Duration::from_secs(3600),
            max_retry_after: Duration::from_secs(3600),
            slow_factor: 2,
            max_delay: Duration::from_secs(60),
        }
    }
}

/// Why an address pauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// 429 Too Many Requests.
    TooMany,
    /// 503 Service Unavailable.
    Unavailable,
    Timeout,
    /// The connection failed (refused, unreachable).
    Connect,
}

impl Why {
    /// Its code in `Table::Addrs` (0 is "not paused").
    pub fn code(self) -> u8 {
        match self {
            Why::TooMany => 1,
            Why::Unavailable => 2,
            Why::Timeout => 3,
            Why::Connect => 4,
        }
    }

    pub fn from_code(c: u8) -> Option<Why> {
        match c {
            1 => Some(Why::TooMany),
            2 => Some(Why::Unavailable),
            3 => Some(Why::Timeout),
            4 => Some(Why::Connect),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Why::TooMany => "HTTP 429",
            Why::Unavailable => "HTTP 503",
            Why::Timeout => "timeout",
            Why::Connect => "cannot connect",
        }
    }
}

/// The distress an answer shows, if any.
pub fn distress(status: u16, failure: Option<&Failure>) -> Option<Why> {
    match failure {
        Some(Failure::Timeout) => Some(Why::Timeout),
        Some(Failure::Connect(_)) => Some(Why::Connect),
        Some(_) => None,
        None => match status {
            429 => Some(Why::TooMany),
            503 => Some(Why::Unavailable),
            _ => None,
        },
    }
}

/// A Retry-After value (delay-seconds or an HTTP date) as a wait from
/// `now` (Unix seconds); None when it is neither. A date past is no wait.
pub fn retry_after(value: &str, now: u64) -> Option<Duration> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        // Too many digits still means "long": the cap applies.
        return Some(Duration::from_secs(v.parse::<u64>().unwrap_or(u64::MAX)));
    }
    crate::run::clock::parse_http_date(v).map(|t| Duration::from_secs(t.saturating_sub(now)))
}

/// An address's pause under way.
#[derive(Clone, Copy, Debug)]
pub struct Pause {
    pub why: Why,
    pub until: Instant,
    /// The same end, Unix ms, for the store and the monitor.
    pub until_ms: u64,
    /// The server asked for it (Retry-After).
    pub asked: bool,
}

/// What a distress answer means for its record and address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The record is asked again; the address pauses this long.
    Pause(Duration),
    /// The address is down: the record fails as before; the address
    /// pauses this long (a Retry-After), if at all.
    Down(Duration),
}

/// What nlpc-fetch remembers of one address's health.
#[derive(Clone, Debug, Default)]
pub struct Health {
    /// Distress answers in a row (not forgiven yet).
    pub strikes: u32,
    /// Answers in a row since the last distress.
    run: u32,
    /// The smoothed response time.
    srtt: Option<Duration>,
    pub paused: Option<Pause>,
}

/// `d` within ±[`JITTER`], from `noise`.
fn jitter(d: Duration, noise: u64) -> Duration {
    let unit = (noise % 10_001) as f64 / 10_000.0; // 0..=1
    d.mul_f64(1.0 - JITTER + 2.0 * JITTER * unit)
}

/// Random bits for a jitter (a fresh SipHash key each time).
pub fn noise(addr: IpAddr) -> u64 {
    RandomState::new().hash_one(addr)
}

impl Health {
    /// A distress answer, with the Retry-After it carried.
    pub fn strike(&mut self, asked: Option<Duration>, r: &Rules, noise: u64) -> Verdict {
        self.strikes = self.strikes.saturating_add(1);
        self.run = 0;
        let asked = asked.map(|d| d.min(r.max_retry_after));
        if self.strikes > STRIKES || r.pause.is_zero() {
            return Verdict::Down(asked.unwrap_or(Duration::ZERO));
        }
        if let Some(d) = asked {
            return Verdict::Pause(d);
        }
        let doubled = 2u32.saturating_pow(self.strikes - 1);
        let d = r
            .pause
            .saturating_mul(doubled)
            .min(r.pause_max.max(r.pause));
        Verdict::Pause(jitter(d, noise))
    }

    /// An answer that is not distress, which took `took`.
    pub fn answered(&mut self, took: Duration) {
        self.run = self.run.saturating_add(1);
        if self.run >= RESET_RUN {
            self.strikes = 0;
        }
        self.srtt = Some(match self.srtt {
            None => took,
            Some(s) => s.mul_f64(1.0 - SMOOTHING) + took.mul_f64(SMOOTHING),
        });
    }

    /// The rest between bursts for an address whose ordinary rest is
    /// `polite`: longer for a slow server.
    pub fn rest(&self, polite: Duration, r: &Rules) -> Duration {
        let Some(s) = self.srtt.filter(|s| *s >= SLOW_FLOOR) else {
            return polite;
        };
        let slow = s.saturating_mul(r.slow_factor).min(r.max_delay);
        polite.max(slow)
    }

    /// Nothing worth remembering: no strikes, no pause, quick answers.
    pub fn healthy(&self, now: Instant) -> bool {
        self.strikes == 0
            && self.paused.is_none_or(|p| p.until <= now)
            && self.srtt.is_none_or(|s| s < SLOW_FLOOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            pause: Duration::from_secs(60),
            pause_max: Duration::from_secs(600),
            max_retry_after: Duration::from_secs(3600),
            slow_factor: 2,
            max_delay: Duration::from_secs(60),
        }
    }

    fn within(d: Duration, nominal: u64) -> bool {
        let n = Duration::from_secs(nominal);
        d >= n.mul_f64(0.9) && d <= n.mul_f64(1.1)
    }

    #[test]
    fn pauses_double_to_the_cap_and_a_run_of_answers_forgives() {
        let r = rules();
        let mut h = Health::default();
        let mut got = Vec::new();
        for i in 0..STRIKES {
            match h.strike(None, &r, u64::from(i) * 7919) {
                Verdict::Pause(d) => got.push(d),
                v => panic!("strike {i}: {v:?}"),
            }
        }
        for (d, n) in got.iter().zip([60, 120, 240, 480, 600]) {
            assert!(within(*d, n), "{d:?} for {n}s");
        }
        // Down: the record fails, no pause unless asked.
        assert_eq!(h.strike(None, &r, 1), Verdict::Down(Duration::ZERO));
        assert_eq!(
            h.strike(Some(Duration::from_secs(5)), &r, 1),
            Verdict::Down(Duration::from_secs(5))
        );
        // A run shorter than RESET_RUN forgives nothing.
        for _ in 0..RESET_RUN - 1 {
            h.answered(Duration::from_millis(5));
        }
        assert!(matches!(h.strike(None, &r, 1), Verdict::Down(_)));
        for _ in 0..RESET_RUN {
            h.answered(Duration::from_millis(5));
        }
        match h.strike(None, &r, 0) {
            Verdict::Pause(d) => assert!(within(d, 60), "{d:?}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn retry_after_is_obeyed_exactly_within_its_cap() {
        let r = rules();
        let mut h = Health::default();
        assert_eq!(
            h.strike(Some(Duration::from_secs(120)), &r, 99),
            Verdict::Pause(Duration::from_secs(120))
        );
        assert_eq!(
            h.strike(Some(Duration::from_secs(86_400 * 30)), &r, 99),
            Verdict::Pause(Duration::from_secs(3600))
        );
        assert_eq!(retry_after(" 120 ", 0), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("99999999999999999999999", 0),
            Some(Duration::from_secs(u64::MAX))
        );
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(
            retry_after(date, 784_111_777 - 30),
            Some(Duration::from_secs(30))
        );
        assert_eq!(retry_after(date, 784_111_777 + 30), Some(Duration::ZERO));
        assert_eq!(retry_after("soon", 0), None);
        assert_eq!(retry_after("-5", 0), None);
        assert_eq!(retry_after("", 0), None);
    }

    #[test]
    fn a_zero_pause_turns_pausing_off() {
        let r = Rules {
            pause: Duration::ZERO,
            ..rules()
        };
        let mut h = Health::default();
        assert_eq!(h.strike(None, &r, 0), Verdict::Down(Duration::ZERO));
    }

    #[test]
    fn the_rest_follows_a_slow_server_and_returns_as_it_recovers() {
        let r = rules();
        let polite = Duration::from_secs(1);
        let mut h = Health::default();
        h.answered(Duration::from_millis(40));
        assert_eq!(h.rest(polite, &r), polite);
        for _ in 0..20 {
            h.answered(Duration::from_millis(2500));
        }
        let slow = h.rest(polite, &r);
        assert!(slow > Duration::from_millis(4900) && slow <= Duration::from_secs(5));
        // Capped by --fetch-max-delay.
        for _ in 0..20 {
            h.answered(Duration::from_secs(100));
        }
        assert_eq!(h.rest(polite, &r), r.max_delay);
        for _ in 0..40 {
            h.answered(Duration::from_millis(10));
        }
        assert_eq!(h.rest(polite, &r), polite);
        assert!(h.healthy(Instant::now()));
    }

    #[test]
    fn distress_is_429_503_timeouts_and_connections() {
        assert_eq!(distress(429, None), Some(Why::TooMany));
        assert_eq!(distress(503, None), Some(Why::Unavailable));
        assert_eq!(distress(500, None), None);
        assert_eq!(distress(0, Some(&Failure::Timeout)), Some(Why::Timeout));
        assert_eq!(
            distress(0, Some(&Failure::Connect("refused".into()))),
            Some(Why::Connect)
        );
        assert_eq!(distress(200, Some(&Failure::TooLarge)), None);
        for w in [Why::TooMany, Why::Unavailable, Why::Timeout, Why::Connect] {
            assert_eq!(Why::from_code(w.code()), Some(w));
        }
        assert_eq!(Why::from_code(0), None);
    }
}

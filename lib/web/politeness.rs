//! Page-fetch politeness, per physical address: a burst of a few requests,
//! then the address is left alone for a while before its next burst.
//!
//! The rules are kept here, apart from the I/O, so they can be read and
//! tested on their own:
//! - a burst is at most `burst` requests, at most `pipeline` at a time;
//! - when the last request of a burst finishes, the address rests for the
//!   politeness gap, `polite`;
//! - a virtual host whose robots.txt asks for a delay (Crawl-delay,
//!   Request-rate) gets its next request only that long after its last one
//!   finished, while the other hosts on its address go on (nlpc-fetch keeps
//!   those per-host times; see `lib/fetch.rs`);
//! - the gap is never under one second for an address that is not
//!   loopback, whatever the options say.

use std::net::IpAddr;
use std::time::{Duration, Instant};

/// The least gap between bursts to a non-loopback address.
pub const FLOOR: Duration = Duration::from_secs(1);

/// The politeness settings.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Requests per burst (`--fetch-burst`).
    pub burst: usize,
    /// Rest between bursts (`--fetch-polite`).
    pub polite: Duration,
    /// Requests in flight at once on one address (`--fetch-pipeline`).
    pub pipeline: usize,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            burst: 2,
            polite: Duration::from_secs(10),
            pipeline: 6,
        }
    }
}

/// True for addresses of this machine, where sub-second politeness is
/// allowed (127.0.0.0/8, ::1, and IPv4-mapped loopback).
pub fn is_loopback(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => a.is_loopback(),
        IpAddr::V6(a) => a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    }
}

/// The rest an address gets after a burst.
pub fn gap(addr: IpAddr, polite: Duration) -> Duration {
    if is_loopback(addr) {
        polite
    } else {
        polite.max(FLOOR)
    }
}

/// The politeness state of one address.
#[derive(Clone, Debug)]
pub struct Gate {
    addr: IpAddr,
    /// No burst may start before this.
    next_start: Instant,
    in_burst: bool,
    sent: usize,
    in_flight: usize,
}

impl Gate {
    /// A gate for `addr` whose first burst may start at `not_before`.
    pub fn new(addr: IpAddr, not_before: Instant) -> Gate {
        Gate {
            addr,
            next_start: not_before,
            in_burst: false,
            sent: 0,
            in_flight: 0,
        }
    }

    /// True when a request may be sent now.
    pub fn may_send(&self, p: &Policy, now: Instant) -> bool {
        if self.in_flight >= p.pipeline.max(1) {
            return false;
        }
        if self.in_burst {
            self.sent < p.burst.max(1)
        } else {
            now >= self.next_start
        }
    }

    /// A request was sent.
    pub fn sent(&mut self) {
        if !self.in_burst {
            self.in_burst = true;
            self.sent = 0;
        }
        self.sent += 1;
        self.in_flight += 1;
    }

    /// A request finished. `more` says whether the address has more work
    /// queued; without it the burst ends now.
    pub fn finished(&mut self, p: &Policy, now: Instant, more: bool) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight > 0 {
            return;
        }
        if self.sent >= p.burst.max(1) || !more {
            self.end_burst(p, now);
        }
    }

    /// Ends the burst now: the address rests from `now`.
    pub fn end_burst(&mut self, p: &Policy, now: Instant) {
        if self.in_burst {
            self.in_burst = false;
            self.next_start = now + gap(self.addr, p.polite);
        }
    }

    /// When the next burst may start (meaningful between bursts).
    pub fn next_start(&self) -> Instant {
        self.next_start
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// True while a burst is under way.
    pub fn in_burst(&self) -> bool {
        self.in_burst
    }

    /// Pushes the next burst back to at least `t` (a Visit-time window).
    pub fn not_before(&mut self, t: Instant) {
        self.next_start = self.next_start.max(t);
    }
}

/// One server's politeness state: the current burst, its rest, and the
/// queries in flight. Times are passed in so that tests can drive it.
#[derive(Debug)]
pub struct Pacer {
    burst: u32,
    pause: Duration,
    concurrency: usize,
    /// Queries sent in the current burst.
    sent: u32,
    inflight: usize,
    /// While resting, when the rest ends.
    rest_until: Option<Instant>,
    /// When the last query in flight finished.
    idle_since: Instant,
}

impl Pacer {
    pub fn new(burst: u32, pause: Duration, concurrency: usize, now: Instant) -> Pacer {
        Pacer {
            burst: burst.max(1),
            pause,
            concurrency: concurrency.max(1),
            sent: 0,
            inflight: 0,
            rest_until: None,
            idle_since: now,
        }
    }

    /// True when a query may be sent now.
    pub fn ready(&mut self, now: Instant) -> bool {
        if let Some(t) = self.rest_until {
            if now < t {
                return false;
            }
            self.rest_until = None;
            self.sent = 0;
        }
        // A server left idle for a whole pause has rested as much as a pause
        // would rest it: a new burst begins.
        if self.inflight == 0 && self.sent > 0 && now >= self.idle_since + self.pause {
            self.sent = 0;
        }
        self.inflight < self.concurrency && self.sent < self.burst
    }

    /// A query was sent.
    pub fn sent(&mut self) {
        self.sent += 1;
        self.inflight += 1;
    }

    /// A query finished (answered, failed or abandoned). The rest after a
    /// full burst starts when its last query is done, so the server sees at
    /// least a pause between the bursts.
    pub fn done(&mut self, now: Instant) {
        self.inflight = self.inflight.saturating_sub(1);
        if self.inflight == 0 {
            self.idle_since = now;
            if self.sent >= self.burst {
                self.rest_until = Some(now + self.pause);
            }
        }
    }

    /// When a resting server may be asked again.
    pub fn wake(&self) -> Option<Instant> {
        self.rest_until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lo() -> IpAddr {
        "127.0.0.2".parse().unwrap()
    }

    #[test]
    fn floor_applies_off_loopback_only() {
        let public: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!(gap(public, Duration::ZERO), FLOOR);
        assert_eq!(gap(public, Duration::from_millis(10)), FLOOR);
        assert_eq!(
            gap(public, Duration::from_secs(10)),
            Duration::from_secs(10)
        );
        assert_eq!(
            gap(lo(), Duration::from_millis(10)),
            Duration::from_millis(10)
        );
        assert_eq!(gap(lo(), Duration::ZERO), Duration::ZERO);
        assert!(is_loopback("::1".parse().unwrap()));
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!is_loopback("::ffff:10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn bursts_then_rest() {
        let p = Policy {
            burst: 2,
            polite: Duration::from_secs(10),
            pipeline: 6,
        };
        let t0 = Instant::now();
        let mut g = Gate::new(lo(), t0);
        assert!(g.may_send(&p, t0));
        g.sent();
        assert!(g.may_send(&p, t0));
        g.sent();
        assert!(!g.may_send(&p, t0), "a third request in a burst of 2");
        g.finished(&p, t0, true);
        assert!(!g.may_send(&p, t0));
        let t1 = t0 + Duration::from_secs(1);
        g.finished(&p, t1, true);
        assert!(!g.in_burst());
        assert_eq!(g.next_start(), t1 + Duration::from_secs(10));
        assert!(!g.may_send(&p, t1 + Duration::from_secs(9)));
        assert!(g.may_send(&p, t1 + Duration::from_secs(10)));
    }

    #[test]
    fn pipeline_limits_requests_in_flight() {
        let p = Policy {
            burst: 5,
            polite: Duration::ZERO,
            pipeline: 2,
        };
        let t0 = Instant::now();
        let mut g = Gate::new(lo(), t0);
        g.sent();
        g.sent();
        assert!(!g.may_send(&p, t0));
        g.finished(&p, t0, true);
        assert!(g.may_send(&p, t0));
    }

    #[test]
    fn an_empty_queue_ends_the_burst_early() {
        let p = Policy::default();
        let t0 = Instant::now();
        let mut g = Gate::new(lo(), t0);
        g.sent();
        g.finished(&p, t0, false);
        assert!(!g.in_burst());
        assert!(!g.may_send(&p, t0 + Duration::from_secs(9)));
    }

    #[test]
    fn pacer_bursts_rests_and_limits_concurrency() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut p = Pacer::new(3, Duration::from_millis(500), 2, t0);
        assert!(p.ready(t0));
        p.sent();
        assert!(p.ready(t0));
        p.sent();
        // Two in flight: the concurrency limit.
        assert!(!p.ready(t0));
        p.done(ms(10));
        assert!(p.ready(ms(10)));
        p.sent();
        // The burst is full; no rest until the last query is done.
        assert!(!p.ready(ms(20)));
        assert_eq!(p.wake(), None);
        p.done(ms(30));
        assert!(!p.ready(ms(40)));
        p.done(ms(50));
        assert_eq!(p.wake(), Some(ms(550)));
        assert!(!p.ready(ms(549)));
        assert!(p.ready(ms(550)));
        p.sent();
        p.done(ms(560));
        // Idle for a whole pause: a fresh burst of three.
        assert!(p.ready(ms(1100)));
        for _ in 0..3 {
            assert!(p.ready(ms(1100)));
            p.sent();
            p.done(ms(1100));
        }
        assert!(!p.ready(ms(1100)));
        assert_eq!(p.wake(), Some(ms(1600)));
    }
}

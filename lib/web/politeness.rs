//! Politeness, per physical address and per DNS server: a burst of a few
//! requests, then the server is left alone for a while before its next
//! burst. nlpc-fetch keeps one [`Gate`] per address, nlpc-resolve one per
//! name server.
//!
//! The rules are kept here, apart from the I/O, so they can be read and
//! tested on their own:
//! - a burst is at most `burst` requests, at most `pipeline` at a time;
//! - when the last request of a burst finishes, the address rests for the
//!   politeness gap, `polite`;
//! - a virtual host whose robots.txt asks for a delay (Crawl-delay,
//!   Request-rate) gets its next request only that long after its last one
//!   finished, while the other hosts on its address go on (nlpc-fetch keeps
//!   those per-host times; see `stage::fetch`);
//! - a server left idle for a whole gap in the middle of a burst has rested
//!   as much as the gap would rest it: its next request begins a new burst;
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
    /// When the last request in flight finished.
    idle_since: Instant,
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
            idle_since: not_before,
        }
    }

    /// True when a burst under way has sat idle for a whole gap, so the
    /// next request may begin a new one.
    fn rested(&self, p: &Policy, now: Instant) -> bool {
        self.in_burst
            && self.in_flight == 0
            && self.sent > 0
            && now >= self.idle_since + gap(self.addr, p.polite)
    }

    /// True when a request may be sent now.
    pub fn may_send(&self, p: &Policy, now: Instant) -> bool {
        if self.in_flight >= p.pipeline.max(1) {
            return false;
        }
        if self.in_burst {
            self.sent < p.burst.max(1) || self.rested(p, now)
        } else {
            now >= self.next_start
        }
    }

    /// True when a request sent now would begin a new burst.
    pub fn begins(&self, p: &Policy, now: Instant) -> bool {
        !self.in_burst || self.rested(p, now)
    }

    /// A request was sent; true when it began a new burst.
    pub fn sent(&mut self, p: &Policy, now: Instant) -> bool {
        let begins = self.begins(p, now);
        if begins {
            self.in_burst = true;
            self.sent = 0;
        }
        self.sent += 1;
        self.in_flight += 1;
        begins
    }

    /// A request finished. `more` says whether the address has more work
    /// queued; without it the burst ends now.
    pub fn finished(&mut self, p: &Policy, now: Instant, more: bool) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight > 0 {
            return;
        }
        self.idle_since = now;
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

    /// While the server rests after a burst: when the rest ends.
    pub fn rest_until(&self, now: Instant) -> Option<Instant> {
        (!self.in_burst && self.next_start > now).then_some(self.next_start)
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

    /// Ends any burst under way and holds the address till at least `t`
    /// (a server in distress): no request starts before it, whatever is
    /// still in flight.
    pub fn pause(&mut self, t: Instant) {
        self.in_burst = false;
        self.next_start = self.next_start.max(t);
    }

    /// Pushes the next burst back to at least `t` (a Visit-time window).
    pub fn not_before(&mut self, t: Instant) {
        self.next_start = self.next_start.max(t);
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
        g.sent(&p, t0);
        assert!(g.may_send(&p, t0));
        g.sent(&p, t0);
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
    fn a_pause_holds_the_address_whatever_is_in_flight() {
        let p = Policy {
            burst: 4,
            polite: Duration::from_millis(100),
            pipeline: 2,
        };
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut g = Gate::new(lo(), t0);
        g.sent(&p, t0);
        g.sent(&p, t0);
        g.finished(&p, ms(10), true);
        g.pause(ms(5000));
        assert!(!g.may_send(&p, ms(20)), "a request inside the pause");
        // The other request ends: the pause is not shortened to a rest.
        g.finished(&p, ms(30), true);
        assert_eq!(g.rest_until(ms(30)), Some(ms(5000)));
        assert!(!g.may_send(&p, ms(4999)));
        assert!(g.may_send(&p, ms(5000)));
        assert!(
            g.sent(&p, ms(5000)),
            "the first request after a pause begins a burst"
        );
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
        g.sent(&p, t0);
        g.sent(&p, t0);
        assert!(!g.may_send(&p, t0));
        g.finished(&p, t0, true);
        assert!(g.may_send(&p, t0));
    }

    #[test]
    fn an_empty_queue_ends_the_burst_early() {
        let p = Policy::default();
        let t0 = Instant::now();
        let mut g = Gate::new(lo(), t0);
        g.sent(&p, t0);
        g.finished(&p, t0, false);
        assert!(!g.in_burst());
        assert!(!g.may_send(&p, t0 + Duration::from_secs(9)));
    }

    #[test]
    fn dns_pacing_bursts_rests_and_limits_concurrency() {
        // nlpc-resolve's use: bursts of 3, a 500 ms pause, 2 in flight, and
        // a burst that ends only when it is full.
        let p = Policy {
            burst: 3,
            polite: Duration::from_millis(500),
            pipeline: 2,
        };
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut g = Gate::new(lo(), t0);
        assert!(g.may_send(&p, t0));
        assert!(g.sent(&p, t0), "the first request begins a burst");
        assert!(g.may_send(&p, t0));
        assert!(!g.sent(&p, t0));
        // Two in flight: the concurrency limit.
        assert!(!g.may_send(&p, t0));
        g.finished(&p, ms(10), true);
        assert!(g.may_send(&p, ms(10)));
        g.sent(&p, ms(10));
        // The burst is full; no rest until the last query is done.
        assert!(!g.may_send(&p, ms(20)));
        assert_eq!(g.rest_until(ms(20)), None);
        g.finished(&p, ms(30), true);
        assert!(!g.may_send(&p, ms(40)));
        g.finished(&p, ms(50), true);
        assert_eq!(g.rest_until(ms(50)), Some(ms(550)));
        assert!(!g.may_send(&p, ms(549)));
        assert!(g.may_send(&p, ms(550)));
        assert!(g.sent(&p, ms(550)));
        g.finished(&p, ms(560), true);
        // Idle for a whole pause: a fresh burst of three.
        assert!(g.may_send(&p, ms(1100)));
        for i in 0..3 {
            assert!(g.may_send(&p, ms(1100)));
            assert_eq!(g.sent(&p, ms(1100)), i == 0);
            g.finished(&p, ms(1100), true);
        }
        assert!(!g.may_send(&p, ms(1100)));
        assert_eq!(g.rest_until(ms(1100)), Some(ms(1600)));
    }
}

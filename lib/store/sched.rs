//! The re-fetch schedule: when a record waiting in a state nlpc-up acts on
//! is due, and how a page's re-fetch interval adapts to how often it
//! changed. Pure arithmetic; `due` keeps the index these times order.
//!
//! Every record that waits for nlpc-up (SCANNED, REJECTED, EXCLUDED,
//! REDIRECT, UNREACH, DEAD) or for a re-fetch (DIRTY) has a due time,
//! computed here from the record, its [`Entry`] and the crawl's [`Policy`]
//! (nlpc-up's `--tt*` options, stored in the database so every daemon that
//! moves a record computes the same time).
//!
//! The adaptive interval of a page starts at `--ttexp`; a re-fetch that
//! found the body changed halves it, one that found it unchanged (an
//! answer 304, or the same body) lengthens it by half; it stays within
//! `--ttmin` and `--ttexp`. A page rejected again and again is fetched
//! again after `--ttrej`, then twice that, four times, … up to
//! [`REJECT_CAP`] times `--ttrej`.

use crate::store::record::{Flags, Record, State};

const DAY: u64 = 86_400;

/// A rejected page's re-fetch interval grows up to this many times `--ttrej`.
pub const REJECT_CAP: u64 = 16;

/// The crawl's timing, as nlpc-up's options give it. Seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// `--ttexp`: the longest re-fetch interval of a page (and the first).
    pub ttexp: u64,
    /// `--ttmin`: the shortest, whatever the server or the page's changes say.
    pub ttmin: u64,
    /// `--ttrej`: EXCLUDED and REDIRECT records, and the first re-fetch of a
    /// REJECTED one.
    pub ttrej: u64,
    /// `--ttrev`: an UNREACH record is revived this long after it failed.
    pub ttrev: u64,
    /// `--ttdel`: a DEAD record is pruned this long after it died.
    pub ttdel: u64,
    /// `--rtdead`: failed revivals after which an UNREACH record dies.
    pub rtdead: u16,
}

impl Default for Policy {
    /// The option table's defaults.
    fn default() -> Policy {
        Policy {
            ttexp: 10 * DAY,
            ttmin: DAY,
            ttrej: 10 * DAY,
            ttrev: 5 * DAY,
            ttdel: 5 * DAY,
            rtdead: 5,
        }
    }
}

/// The length of an encoded [`Policy`].
const POLICY_LEN: usize = 5 * 8 + 2;

impl Policy {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(POLICY_LEN);
        for t in [self.ttexp, self.ttmin, self.ttrej, self.ttrev, self.ttdel] {
            v.extend_from_slice(&t.to_le_bytes());
        }
        v.extend_from_slice(&self.rtdead.to_le_bytes());
        v
    }

    /// None for bytes that are not an encoded policy.
    pub fn decode(b: &[u8]) -> Option<Policy> {
        if b.len() != POLICY_LEN {
            return None;
        }
        let t = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        Some(Policy {
            ttexp: t(0),
            ttmin: t(1),
            ttrej: t(2),
            ttrev: t(3),
            ttdel: t(4),
            rtdead: u16::from_le_bytes([b[40], b[41]]),
        })
    }

    /// A page's interval within `--ttmin`..`--ttexp`; 0 (never adapted)
    /// is `--ttexp`.
    pub fn page_interval(&self, e: &Entry) -> u64 {
        if e.interval == 0 {
            self.ttexp
        } else {
            e.interval.clamp(self.ttmin.min(self.ttexp), self.ttexp)
        }
    }

    /// The interval after the `rejects`-th rejection in a row: `--ttrej`
    /// doubled for each one before it, at most [`REJECT_CAP`] times.
    pub fn reject_interval(&self, rejects: u8) -> u64 {
        let doublings = u32::from(rejects.saturating_sub(1)).min(REJECT_CAP.ilog2());
        let cap = self.ttrej.saturating_mul(REJECT_CAP);
        self.ttrej.saturating_mul(1 << doublings).min(cap)
    }

    /// When `r` is due for nlpc-up, or None in a state it does not act on.
    /// DIRTY records keep the due time that sent them (see `due`).
    pub fn due_time(&self, r: &Record, e: &Entry) -> Option<u64> {
        let after = |t: u64| r.changed.saturating_add(t);
        Some(match r.state {
            State::Scanned => {
                let base = if r.fetched != 0 { r.fetched } else { r.changed };
                let mut due = base.saturating_add(self.page_interval(e));
                // The server's Expires may bring it sooner, never before
                // --ttmin: a server-given time is trusted no further.
                if r.expires != 0 {
                    due = due.min(r.expires.max(base.saturating_add(self.ttmin)));
                }
                due
            }
            State::Rejected => after(self.reject_interval(e.rejects.max(1))),
            State::Excluded | State::Redirect => after(self.ttrej),
            // Its rtdead-th failed revival in a row: it dies at once.
            State::Unreach if r.revivals >= self.rtdead => r.changed,
            State::Unreach => after(self.ttrev),
            State::Dead => after(self.ttdel),
            _ => return None,
        })
    }

    /// Updates `e` for the move of a record from `old` (as stored) to
    /// `new`: a re-fetch's verdict waiting in `old` adapts the page's
    /// interval when the record enters the due index (see
    /// [`verdict_after`]); a rejection is counted.
    pub fn adapt(&self, old: &Record, new: &Record, e: &mut Entry) {
        if placed(new) {
            let verdict = match old.flags & Flags::REFETCH {
                Flags::REFETCH_SAME => Some(grow(self.page_interval(e))),
                Flags::REFETCH_CHANGED => Some(shrink(self.page_interval(e))),
                _ => None,
            };
            if let Some(i) = verdict {
                e.interval = i.clamp(self.ttmin.min(self.ttexp), self.ttexp);
            }
        }
        if new.state == State::Rejected && old.state != State::Rejected {
            e.rejects = e.rejects.saturating_add(1);
        }
        if new.state == State::Verified {
            e.rejects = 0;
        }
    }
}

/// True when a record in `r`'s state and lease waits in the due index.
pub fn placed(r: &Record) -> bool {
    r.state == State::Dirty
        || (r.lease.is_none() && Policy::default().due_time(r, &Entry::default()).is_some())
}

/// The re-fetch verdict bits ([`Flags::REFETCH`]) a record moved from
/// `old` (as stored) to `new` is stored with. A DIRTY page answered, 304
/// or a body compared with the one it had, gets its verdict; a record
/// never stored before has nothing to compare with. A record entering
/// the due index has its verdict applied ([`Policy::adapt`]) and loses
/// it. Any other move keeps what the stored record had, whatever `new`
/// says. So the fetcher's result writes no schedule entry: the verdict
/// rides in the record to the move into SCANNED (or REJECTED, …), which
/// writes the entry anyway.
pub fn verdict_after(old: &Record, new: &Record) -> u32 {
    if old.state == State::Dirty && new.state == State::Fresh && old.hash != [0; 32] {
        if new.status == 304 || new.hash == old.hash {
            Flags::REFETCH_SAME
        } else {
            Flags::REFETCH_CHANGED
        }
    } else if placed(new) {
        0
    } else {
        old.flags & Flags::REFETCH
    }
}

/// Forgets what a REJECTED record knew of its body, which the file cache
/// does not keep: its next fetch asks for the whole page again (no
/// validators) and stores it (no hash to match).
pub fn forget_body(r: &mut Record) {
    r.hash = [0; 32];
    r.etag.clear();
    r.last_modified.clear();
}

/// An unchanged page waits half as long again.
pub fn grow(interval: u64) -> u64 {
    interval.saturating_add(interval / 2)
}

/// A changed page waits half as long.
pub fn shrink(interval: u64) -> u64 {
    interval / 2
}

/// What the schedule keeps per record (the `sched` table): where the record
/// is in the due index, and what adapts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The state byte it is indexed under in the due index; 0: not indexed.
    pub indexed: u8,
    /// Its due time while indexed (a DIRTY record's, leased or not, so one
    /// given back keeps its place). Out of the index, `indexed` and `due`
    /// may be left as they were and mean nothing: leaving the index writes
    /// the entry only when what adapts changed.
    pub due: u64,
    /// The page's adapted re-fetch interval; 0: never adapted (`--ttexp`).
    pub interval: u64,
    /// Rejections in a row.
    pub rejects: u8,
}

const ENTRY_LEN: usize = 1 + 8 + 8 + 1;

impl Entry {
    pub fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut v = [0; ENTRY_LEN];
        v[0] = self.indexed;
        v[1..9].copy_from_slice(&self.due.to_le_bytes());
        v[9..17].copy_from_slice(&self.interval.to_le_bytes());
        v[17] = self.rejects;
        v
    }

    pub fn decode(b: &[u8]) -> Option<Entry> {
        if b.len() != ENTRY_LEN {
            return None;
        }
        Some(Entry {
            indexed: b[0],
            due: u64::from_le_bytes(b[1..9].try_into().ok()?),
            interval: u64::from_le_bytes(b[9..17].try_into().ok()?),
            rejects: b[17],
        })
    }

    /// True when nothing in it needs keeping.
    pub fn is_empty(&self) -> bool {
        self.indexed == 0 && self.interval == 0 && self.rejects == 0
    }
}

/// Where `r` belongs in the due index after a move: its state and due
/// time, or None (leased outside DIRTY, or in no state the index orders).
/// `e` is the entry before the move, already adapted.
pub fn placement(p: &Policy, r: &Record, e: &Entry) -> Option<(State, u64)> {
    if r.state == State::Dirty {
        // Ordered by the time it fell due; one sent by hand or before this
        // index existed, by when it became DIRTY. Leased or not: a lease
        // then writes neither the due index nor the schedule (in a large
        // database each write a leaf and branch pages of its own), and a
        // lease given back or reclaimed finds the record in its place.
        // The fetcher's walk passes over the leased ones.
        let due = if e.due != 0 { e.due } else { r.changed };
        return Some((State::Dirty, due));
    }
    if r.lease.is_some() {
        return None;
    }
    p.due_time(r, e).map(|t| (r.state, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(state: State) -> Record {
        let mut r = Record::new("http://a.test/", 1);
        r.state = state;
        r.changed = 1000;
        r.fetched = 1000;
        r.hash = [7; 32];
        r
    }

    /// A re-fetch answered `new` after `old` (DIRTY), then the page moved
    /// on to SCANNED: the verdict rides in the FRESH record and adapts the
    /// interval there.
    fn refetch(p: &Policy, old: &Record, new: &Record, e: &mut Entry) {
        let mut fresh = new.clone();
        fresh.flags = verdict_after(old, new);
        let before = *e;
        p.adapt(old, &fresh, e);
        assert_eq!(*e, before, "adapted before the record enters the index");
        let mut verified = fresh.clone();
        verified.state = State::Verified;
        assert_eq!(verdict_after(&fresh, &verified), fresh.flags, "kept");
        p.adapt(&fresh, &verified, e);
        assert_eq!(*e, before, "adapted out of the index");
        verified.flags = verdict_after(&fresh, &verified);
        let scanned = page(State::Scanned);
        assert_eq!(verdict_after(&verified, &scanned), 0, "cleared");
        p.adapt(&verified, &scanned, e);
    }

    #[test]
    fn a_changed_page_halves_down_to_ttmin_and_an_unchanged_one_grows_to_ttexp() {
        let p = Policy::default();
        let mut e = Entry::default();
        assert_eq!(p.page_interval(&e), 10 * DAY);
        let old = page(State::Dirty);
        let mut new = page(State::Fresh);
        new.hash = [8; 32];
        assert_eq!(verdict_after(&old, &new), Flags::REFETCH_CHANGED);
        let mut seen = Vec::new();
        for _ in 0..6 {
            refetch(&p, &old, &new, &mut e);
            seen.push(p.page_interval(&e));
        }
        assert_eq!(
            seen,
            [5 * DAY, 5 * DAY / 2, 5 * DAY / 4, DAY, DAY, DAY],
            "halved, then held at --ttmin"
        );
        // A 304 lengthens it by half each time, up to --ttexp.
        new.status = 304;
        new.hash = old.hash;
        assert_eq!(verdict_after(&old, &new), Flags::REFETCH_SAME);
        let mut up = Vec::new();
        for _ in 0..7 {
            refetch(&p, &old, &new, &mut e);
            up.push(p.page_interval(&e));
        }
        assert_eq!(up[0], DAY * 3 / 2);
        assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
        assert_eq!(*up.last().unwrap(), 10 * DAY);
        // The same body without a 304 counts as unchanged too.
        let mut same = page(State::Fresh);
        same.status = 200;
        let mut e2 = Entry {
            interval: 2 * DAY,
            ..Entry::default()
        };
        refetch(&p, &old, &same, &mut e2);
        assert_eq!(e2.interval, 3 * DAY);
        // Rejected after the re-fetch: the verdict adapts it there.
        let mut fresh = same.clone();
        fresh.flags = verdict_after(&old, &same);
        let mut e3 = e2;
        p.adapt(&fresh, &page(State::Rejected), &mut e3);
        assert_eq!(e3.interval, e2.interval * 3 / 2);
        assert_eq!(e3.rejects, 1);
    }

    #[test]
    fn only_a_refetch_of_a_stored_page_adapts() {
        let p = Policy::default();
        let mut e = Entry::default();
        let mut first = page(State::Dirty);
        first.hash = [0; 32];
        assert_eq!(verdict_after(&first, &page(State::Fresh)), 0);
        refetch(&p, &first, &page(State::Fresh), &mut e);
        assert_eq!(e, Entry::default());
        assert_eq!(verdict_after(&page(State::Ready), &page(State::Fresh)), 0);
        refetch(&p, &page(State::Ready), &page(State::Fresh), &mut e);
        assert_eq!(e, Entry::default());
        // A verdict the caller's copy claims is not taken: the stored
        // record's is.
        let mut claims = page(State::Verified);
        claims.flags = Flags::REFETCH_CHANGED;
        assert_eq!(verdict_after(&page(State::Fresh), &claims), 0);
        p.adapt(&page(State::Verified), &page(State::Scanned), &mut e);
        assert_eq!(e, Entry::default());
    }

    #[test]
    fn bounds_hold_when_ttmin_equals_or_exceeds_ttexp_and_times_saturate() {
        let p = Policy {
            ttexp: 100,
            ttmin: 100,
            ..Policy::default()
        };
        let e = Entry {
            interval: 1,
            ..Entry::default()
        };
        assert_eq!(p.page_interval(&e), 100);
        // Server-given and stored times near the end of time saturate.
        let mut r = page(State::Scanned);
        r.fetched = u64::MAX - 5;
        r.expires = u64::MAX;
        assert_eq!(p.due_time(&r, &e), Some(u64::MAX));
        assert_eq!(grow(u64::MAX), u64::MAX);
        let wide = Policy {
            ttrej: u64::MAX / 3,
            ..Policy::default()
        };
        assert_eq!(wide.reject_interval(200), u64::MAX);
        let mut rej = page(State::Rejected);
        rej.changed = u64::MAX - 1;
        assert_eq!(wide.due_time(&rej, &e), Some(u64::MAX));
    }

    #[test]
    fn expires_brings_a_page_sooner_but_never_before_ttmin() {
        let p = Policy::default();
        let e = Entry::default();
        let mut r = page(State::Scanned);
        r.expires = 1000 + 3 * DAY;
        assert_eq!(p.due_time(&r, &e), Some(1000 + 3 * DAY));
        r.expires = 1000 + 60;
        assert_eq!(p.due_time(&r, &e), Some(1000 + DAY));
        r.expires = 1000 + 30 * DAY;
        assert_eq!(p.due_time(&r, &e), Some(1000 + 10 * DAY));
    }

    #[test]
    fn a_rejected_page_waits_twice_as_long_each_time_up_to_the_cap() {
        let p = Policy::default();
        let got: Vec<u64> = (1..=7).map(|n| p.reject_interval(n)).collect();
        let t = p.ttrej;
        assert_eq!(got, [t, 2 * t, 4 * t, 8 * t, 16 * t, 16 * t, 16 * t]);
        assert_eq!(p.reject_interval(255), REJECT_CAP * t);
        // Counted on entering REJECTED, cleared on a verified page.
        let mut e = Entry::default();
        for n in 1..=3u8 {
            p.adapt(&page(State::Fresh), &page(State::Rejected), &mut e);
            assert_eq!(e.rejects, n);
        }
        p.adapt(&page(State::Rejected), &page(State::Rejected), &mut e);
        assert_eq!(e.rejects, 3, "a move within REJECTED is no new rejection");
        let r = page(State::Rejected);
        assert_eq!(p.due_time(&r, &e), Some(1000 + 4 * t));
        p.adapt(&page(State::Fresh), &page(State::Verified), &mut e);
        assert_eq!(e.rejects, 0);
    }

    #[test]
    fn encodings_round_trip_and_refuse_other_lengths() {
        let p = Policy {
            ttexp: 1,
            ttmin: 2,
            ttrej: 3,
            ttrev: 4,
            ttdel: 5,
            rtdead: 6,
        };
        assert_eq!(Policy::decode(&p.encode()), Some(p));
        assert_eq!(Policy::decode(&[1, 2, 3]), None);
        let e = Entry {
            indexed: 5,
            due: 77,
            interval: 99,
            rejects: 3,
        };
        assert_eq!(Entry::decode(&e.encode()), Some(e));
        assert_eq!(Entry::decode(&[0; 3]), None);
    }

    #[test]
    fn dirty_records_keep_the_time_they_fell_due_leased_or_not() {
        let p = Policy::default();
        let mut r = page(State::Dirty);
        r.changed = 5000;
        let e = Entry {
            due: 4000,
            ..Entry::default()
        };
        assert_eq!(placement(&p, &r, &e), Some((State::Dirty, 4000)));
        assert_eq!(
            placement(&p, &r, &Entry::default()),
            Some((State::Dirty, 5000))
        );
        // Leased, it keeps its place (the fetcher's walk passes over it);
        // a leased record of a state nlpc-up acts on leaves the index.
        let lease = Some(crate::store::record::Lease { pid: 1, time: 1 });
        r.lease = lease;
        assert_eq!(placement(&p, &r, &e), Some((State::Dirty, 4000)));
        let mut s = page(State::Scanned);
        assert!(placement(&p, &s, &e).is_some());
        s.lease = lease;
        assert_eq!(placement(&p, &s, &e), None);
        assert_eq!(placement(&p, &page(State::Fresh), &e), None);
    }
}

//! Focus: the order in which a fill leases READY records, so that the
//! requests politeness allows go first where the language is.
//!
//! A record's class ([`class`]) starts from its host's standing
//! ([`crate::store::harvest::Rule::rank`]): 0 for a good host, whatever
//! led to the page; 1 for a host not judged yet; 3 for one with nothing
//! accepted at a first look; 4 for a poor one. To a host not shown good,
//! the rejected pages in a row that led to the record are added
//! ([`crate::store::tunnel`]), up to [`CLASSES`] − 1. So a page of a host
//! nobody has judged, even one found through a rejected page, comes before
//! more pages of a host whose first pages were all rejected: the first may
//! open a new host in the language, the second seldom does. A fill gives a
//! host not judged yet one record of its class, its others a class as if
//! judged without success: one look decides its standing before more of
//! its pages are asked for. A fill leases class by class, best first.
//!
//! Classes from [`EXPLORE`] on are exploration: pages of hosts with
//! nothing accepted, and pages found only through rejected ones. They are
//! how a language's hosts that its own pages do not link to are found, so
//! they are never left out; but while better records wait, they get at
//! most `--fetch-explore` of the leases ([`Share`]), measured over the
//! last few hundred. When nothing better waits they get all the room.
//! Politeness is untouched: the order chooses among the requests allowed,
//! never lets one go that is not.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;

use crate::error::Result;
use crate::store::harvest::{host_yield, Rule};
use crate::store::record::Record;
use crate::store::{tunnel, Key, Read};
use crate::web::url;

/// Classes in all: 0 to `CLASSES - 1`.
pub(super) const CLASSES: usize = 7;

/// The first class that is exploration.
pub(super) const EXPLORE: u8 = 2;

/// Each standing's first class: good, not judged, nothing accepted at a
/// first look, poor.
const BASE: [u8; 4] = [0, 1, 3, 4];

/// The weight of one lease in [`Share`]'s running share: about the last
/// 1/ALPHA leases count.
const ALPHA: f64 = 1.0 / 256.0;

/// What a fill pass knows of each host: its standing, and for a host not
/// judged yet whether one of its records was given its class already.
#[derive(Default)]
pub(super) struct Hosts(HashMap<String, (u8, bool)>);

/// The class of standing `standing` for a record `hops` rejected pages
/// away.
fn class_of(standing: u8, hops: u8) -> u8 {
    let base = BASE.get(usize::from(standing)).copied().unwrap_or(BASE[3]);
    // A host already shown good keeps its class however the page was
    // found: its pages are worth more than the link that led to them.
    if base == 0 {
        return 0;
    }
    base.saturating_add(hops).min(CLASSES as u8 - 1)
}

/// The class of READY record `k` in the focus order, first leased first
/// (see the module comment); `hosts` holds what the pass has read. With
/// it, the host when the record is the first look at a host not judged
/// yet.
pub(super) fn class(
    rd: &Read,
    k: &Key,
    rule: Rule,
    hosts: &mut Hosts,
) -> Result<(u8, Option<String>)> {
    let host = rd.peek(k, |b| {
        Record::decode_url(b)
            .map(|u| url::host_of(u).to_owned())
            .ok()
    })?;
    let (standing, first) = match host.flatten() {
        Some(h) => {
            let (standing, looked) = match hosts.0.get_mut(&h) {
                Some(e) => e,
                None => {
                    let rank = rule.rank(&host_yield(rd, &h)?);
                    hosts.0.entry(h.clone()).or_insert((rank, false))
                }
            };
            match (*standing, std::mem::replace(looked, true)) {
                (1, true) => (2, None),
                (1, false) => (1, Some(h)),
                (s, _) => (s, None),
            }
        }
        None => (1, None),
    };
    if standing == 0 {
        return Ok((0, None));
    }
    Ok((class_of(standing, tunnel::hops(rd, k)?), first))
}

/// The most hosts [`Looks`] remembers.
const LOOKS_CAP: usize = 1024;

/// Hosts not judged yet and one READY record of each, remembered from one
/// fill to the next (at most [`LOOKS_CAP`]): a fill walks only part of the
/// index, and without them a new host's first look would wait for the
/// walk to come round to it while poorer records it saw took the room.
#[derive(Default)]
pub(super) struct Looks(HashMap<String, (Key, IpAddr)>);

impl Looks {
    /// Remembers `k` (at `a`) as the first look at `host`, unless one is
    /// remembered already or the cap is reached.
    pub fn remember(&mut self, host: String, k: Key, a: IpAddr) {
        if self.0.len() < LOOKS_CAP {
            self.0.entry(host).or_insert((k, a));
        }
    }

    /// The remembered records of hosts the pass did not see, with their
    /// class, for hosts still not judged; hosts judged since are forgotten.
    pub fn unseen(
        &mut self,
        rd: &Read,
        rule: Rule,
        hosts: &mut Hosts,
    ) -> Result<Vec<(u8, Key, IpAddr)>> {
        let mut out = Vec::new();
        let mut judged = Vec::new();
        for (h, (k, a)) in &self.0 {
            let standing = match hosts.0.get(h) {
                // Seen in the walk, which gave it its look if it needs one.
                Some((s, _)) => {
                    if *s != 1 {
                        judged.push(h.clone());
                    }
                    continue;
                }
                None => rule.rank(&host_yield(rd, h)?),
            };
            hosts.0.insert(h.clone(), (standing, true));
            if standing != 1 {
                judged.push(h.clone());
                continue;
            }
            out.push((class_of(1, tunnel::hops(rd, k)?), *k, *a));
        }
        for h in judged {
            self.0.remove(&h);
        }
        Ok(out)
    }

    /// Forgets the records a fill asked to lease, taken or not: one not
    /// taken has left READY, or the walk will find it again.
    pub fn asked(&mut self, keys: &HashSet<Key>) {
        self.0.retain(|_, (k, _)| !keys.contains(k));
    }
}

/// The share of recent leases that went to exploration, held to
/// `--fetch-explore` while better records wait.
#[derive(Clone, Copy, Debug)]
pub(super) struct Share {
    /// `--fetch-explore`.
    pub most: f64,
    /// The running sum of exploring leases, each weighed [`ALPHA`] and
    /// fading by 1 − ALPHA a lease.
    recent: f64,
    /// The same sum with every lease counted as exploring: the share is
    /// `recent / weight`, right from the first lease.
    weight: f64,
}

impl Share {
    pub fn new(most: f64) -> Share {
        Share {
            most,
            recent: 0.0,
            weight: 0.0,
        }
    }

    /// Whether an exploring record may be leased now: always when nothing
    /// better waits, else while the recent share is under the most.
    pub fn may_explore(&self, better_waiting: bool) -> bool {
        !better_waiting
            || self.weight == 0.0 && self.most > 0.0
            || self.recent < self.most * self.weight
    }

    /// One lease taken, exploring or not.
    pub fn leased(&mut self, exploring: bool) {
        let x = if exploring { 1.0 } else { 0.0 };
        self.recent += ALPHA * (x - self.recent);
        self.weight += ALPHA * (1.0 - self.weight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::State;
    use crate::store::{Inserted, Options, Store};

    fn ready(st: &Store, url: &str) -> Key {
        let mut r = Record::new(url, 1);
        r.state = State::Ready;
        let mut w = st.write().unwrap();
        let Inserted::New(k) = w.insert(&r).unwrap() else {
            panic!("{url} not new");
        };
        w.commit().unwrap();
        k
    }

    #[test]
    fn a_new_host_gets_one_look_and_is_remembered_until_judged() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let a = ready(&st, "http://new.test/a");
        let b = ready(&st, "http://new.test/b");
        let far = ready(&st, "http://far.test/");
        {
            let mut w = st.write().unwrap();
            tunnel::reached(&mut w, &far, 1).unwrap();
            w.commit().unwrap();
        }
        let rule = Rule::default();
        let rd = st.read().unwrap();
        let mut hosts = Hosts::default();
        assert_eq!(
            class(&rd, &a, rule, &mut hosts).unwrap(),
            (1, Some("new.test".into()))
        );
        // Its second page waits for the first look's verdict.
        assert_eq!(class(&rd, &b, rule, &mut hosts).unwrap(), (3, None));
        // Found through a rejected page: exploring, but before the above.
        assert_eq!(
            class(&rd, &far, rule, &mut hosts).unwrap(),
            (2, Some("far.test".into()))
        );
        // A later pass that does not walk to it still offers the look.
        let addr: IpAddr = "127.0.0.9".parse().unwrap();
        let mut looks = Looks::default();
        looks.remember("new.test".into(), a, addr);
        let got = looks.unseen(&rd, rule, &mut Hosts::default()).unwrap();
        assert_eq!(got, vec![(1, a, addr)]);
        drop(rd);
        // Once its page is judged (rejected), the host is forgotten.
        let mut w = st.write().unwrap();
        let mut judged = Record::new("http://new.test/a", 1);
        judged.state = State::Rejected;
        crate::store::harvest::judged(&mut w, &a, &judged, 0).unwrap();
        w.commit().unwrap();
        let rd = st.read().unwrap();
        assert!(looks
            .unseen(&rd, rule, &mut Hosts::default())
            .unwrap()
            .is_empty());
        assert!(looks.0.is_empty());
        // A fill that asked for a remembered record forgets it too.
        looks.remember("far.test".into(), far, addr);
        looks.asked(&HashSet::from([far]));
        assert!(looks.0.is_empty());
    }

    #[test]
    fn exploration_is_held_to_its_share_only_while_better_records_wait() {
        let mut s = Share::new(0.25);
        assert!(s.may_explore(true), "nothing leased yet");
        s.leased(true);
        assert!(!s.may_explore(true), "one lease of one explored");
        assert!(s.may_explore(false), "nothing better waits");
        for _ in 0..2 {
            s.leased(false);
        }
        assert!(!s.may_explore(true), "one of three");
        for _ in 0..2 {
            s.leased(false);
        }
        assert!(s.may_explore(true), "one of five");
        // Over a long run with better records always waiting, exploring
        // leases are the share.
        let mut s = Share::new(0.25);
        let (mut explored, mut all) = (0, 0);
        for _ in 0..10_000 {
            let exploring = s.may_explore(true);
            s.leased(exploring);
            explored += usize::from(exploring);
            all += 1;
        }
        let share = explored as f64 / all as f64;
        assert!((0.24..=0.26).contains(&share), "share {share}");
        // A long while of nothing but exploring fades: a few hundred
        // better leases later the share is open again.
        for _ in 0..10_000 {
            s.leased(true);
        }
        let mut better = 0;
        while !s.may_explore(true) {
            s.leased(false);
            better += 1;
            assert!(better < 1000, "still closed after {better} better leases");
        }
        // 0 explores only when nothing better waits.
        let s = Share::new(0.0);
        assert!(!s.may_explore(true));
        assert!(s.may_explore(false));
    }
}

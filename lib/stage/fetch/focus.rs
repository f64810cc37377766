//! Focus: the order in which a fill leases READY records, so that the
//! requests politeness allows go first where the language is.
//!
//! A record's class ([`class`]) starts from its host's standing
//! ([`crate::store::harvest::Rule::rank`]): 0 for a good host, whatever
//! led to the page; 1 for a host not judged yet; 2 for a mixed one (most
//! of its pages rejected); 3 for one with nothing accepted at a first
//! look; 4 for a poor one. To a host not shown good, the rejected pages
//! in a row that led to the record are added ([`crate::store::tunnel`]),
//! up to [`CLASSES`] − 1. So a page of a host nobody has judged, even one
//! found through a rejected page, comes before more pages of a host whose
//! first pages were all rejected: the first may open a new host in the
//! language, the second seldom does. A fill leases class by class, best
//! first, and within a class first looks first; it gives a host not
//! judged yet one look, its best record; its others take a class as if
//! judged without success ([`Look`]), in that fill and in later ones
//! until the look is judged ([`Looks`]): one look decides its standing
//! before more of its pages are asked for. First looks go to the hosts
//! with more records in the part of the index the fill walked that no
//! rejected page led to, then with more in all: more links lead to them,
//! and from pages in the language ([`Seen`]).
//!
//! A mixed host's pages are exploration with the first looks found
//! through one rejected page, and after them: a host that serves a tenth
//! of its pages in the language, kept with the good ones, held its
//! address's room for as long as it had pages, while the first look at a
//! host in the language on the same address waited (on
//! `scripts/bench/focus`'s web, 20 s and more).
//!
//! Classes from [`EXPLORE`] on are exploration: pages of hosts with
//! nothing accepted or mostly rejected, and pages found only through
//! rejected ones. They are how a language's hosts that its own pages do
//! not link to are found, so they are never left out; but while better
//! records wait, they get at most `--fetch-explore` of the leases
//! ([`Share`]), measured over the last few hundred. When nothing better
//! waits they get all the room.
//! A fill walks only part of the index; the best records of the later
//! classes it could not lease, and first looks it found behind a full
//! queue, are kept for the next ([`Kept`]). What is leased waits in its
//! address's queue, on a polite address for a rest or two: there the
//! records of hosts shown good since go first ([`good_first`]).
//! Politeness is untouched: the order chooses among the requests allowed,
//! never lets one go that is not.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use super::Job;

use crate::error::Result;
use crate::store::harvest::{host_yield, Rule};
use crate::store::record::{Record, State};
use crate::store::{tunnel, Key, Read};
use crate::web::url;

/// Classes in all: 0 to `CLASSES - 1`.
pub(super) const CLASSES: usize = 7;

/// The first class that is exploration.
pub(super) const EXPLORE: u8 = 2;

/// The class of a first look: a page of a host not judged yet, found
/// through an accepted page.
pub(super) const FIRST_LOOK: u8 = 1;

/// Each standing's first class: good, not judged, nothing accepted at a
/// first look, poor, mixed.
const BASE: [u8; 5] = [0, FIRST_LOOK, 3, 4, 2];

/// The weight of one lease in [`Share`]'s running share: about the last
/// 1/ALPHA leases count.
const ALPHA: f64 = 1.0 / 256.0;

/// What a fill pass knows of each host: its standing, and a number for
/// it in the pass; and, by that number, how many of its READY records the
/// pass classed.
#[derive(Default)]
pub(super) struct Hosts(HashMap<String, (u8, u32)>, Vec<Seen>);

/// How many READY records of a host a fill pass classed: for a host not
/// judged yet, a measure of how many links lead to it. Those an accepted
/// page links to count first: pages link mostly to pages in their own
/// language, so a new host that the language's pages link to more is
/// more likely in it than one that as many links lead to from pages
/// rejected (on `scripts/bench/focus`'s web, Latvian pages link to two
/// Latvian hosts of about 60 and two foreign pages of about 240 hosts,
/// and foreign pages to foreign hosts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Seen {
    /// Records no rejected page led to (see [`tunnel::hops`]).
    pub accepted: u32,
    /// All its records the pass classed.
    pub all: u32,
}

impl Hosts {
    /// The standing of `host` ([`Rule::rank`]) and its number in the pass;
    /// its figures are read once a pass.
    fn standing(&mut self, rd: &Read, host: &str, rule: Rule) -> Result<(u8, u32)> {
        if let Some(e) = self.0.get(host) {
            return Ok(*e);
        }
        let rank = rule.rank(&host_yield(rd, host)?);
        let id = u32::try_from(self.0.len()).unwrap_or(u32::MAX);
        self.0.insert(host.to_owned(), (rank, id));
        self.1.push(Seen::default());
        Ok((rank, id))
    }

    /// What the pass saw of the host numbered `id`.
    pub fn seen(&self, id: u32) -> Seen {
        self.1.get(id as usize).copied().unwrap_or_default()
    }
}

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

/// A record of a host not judged yet: the host's number in the pass and
/// the record's hops. A fill gives such a host one look, its best record;
/// the others take [`Look::second`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Look {
    pub host: u32,
    hops: u8,
}

impl Look {
    /// The class of the host's other records once one is leased: as if
    /// judged with nothing accepted yet.
    pub fn second(&self) -> u8 {
        class_of(2, self.hops)
    }
}

/// The class of READY record `k` in the focus order, first leased first
/// (see the module comment), and its [`Look`] if its host is not judged
/// yet and has no look out (`looks`); `hosts` holds what the pass has
/// read.
pub(super) fn class(
    rd: &Read,
    k: &Key,
    rule: Rule,
    hosts: &mut Hosts,
    looks: &Looks,
) -> Result<(u8, Option<Look>)> {
    let host = rd.peek(k, host_in)?.flatten();
    class_with_host(rd, k, host, rule, hosts, looks)
}

/// The host of an encoded record's URL, if it has one.
pub(super) fn host_in(b: &[u8]) -> Option<String> {
    Record::decode_url(b)
        .map(|u| url::host_of(u).to_owned())
        .ok()
}

/// [`class`] of record `k` whose URL's host is `host`.
fn class_with_host(
    rd: &Read,
    k: &Key,
    host: Option<String>,
    rule: Rule,
    hosts: &mut Hosts,
    looks: &Looks,
) -> Result<(u8, Option<Look>)> {
    let (standing, id) = match &host {
        Some(h) => hosts.standing(rd, h, rule)?,
        None => (1, u32::MAX),
    };
    let seen = hosts.1.get_mut(id as usize);
    if standing == 0 {
        if let Some(n) = seen {
            n.all = n.all.saturating_add(1);
        }
        return Ok((0, None));
    }
    let hops = tunnel::hops(rd, k)?;
    if let Some(n) = seen {
        n.all = n.all.saturating_add(1);
        n.accepted = n.accepted.saturating_add(u32::from(hops == 0));
    }
    let class = class_of(standing, hops);
    if standing != 1 {
        return Ok((class, None));
    }
    let look = Look { host: id, hops };
    // While a look at another of its records is out, its
    // [`Look::second`]; the look itself, back in READY when its lease was
    // given up, is a look again.
    if let Some(h) = &host {
        if looks.out_besides(rd, h, k)? {
            return Ok((look.second(), None));
        }
    }
    Ok((class, Some(look)))
}

/// Moves the queued records of hosts now good (shown so since they were
/// leased) ahead of the others in `jobs`, each part in the order it had,
/// with the standings of the fill's pass (`hosts`). A polite address's queue
/// holds two bursts, leased a rest or two before they go: a first look
/// leased while a host's first page awaited its verdict went before that
/// host's pages once they were good (on seed 2 of `scripts/bench/focus`,
/// 20 of the 139 first looks at foreign hosts in the first 500 requests
/// went while a page of a Latvian host first asked 60 requests or more
/// before, on the same address and linked two seconds before, waited).
pub(super) fn good_first(
    jobs: &mut VecDeque<Job>,
    rd: &Read,
    rule: Rule,
    hosts: &mut Hosts,
) -> Result<()> {
    // Every standing is read before anything moves: a failed read
    // leaves the queue as it was.
    for job in jobs.iter_mut() {
        job.good = hosts.standing(rd, url::host_of(&job.rec.url), rule)?.0 == 0;
    }
    let (ahead, rest): (VecDeque<Job>, VecDeque<Job>) = jobs.drain(..).partition(|j| j.good);
    *jobs = ahead;
    jobs.extend(rest);
    Ok(())
}

/// The most records [`Kept`] holds.
const KEPT_CAP: usize = 512;

/// The best READY records of the later classes fills saw but did not
/// lease, kept from one fill to the next (at most [`KEPT_CAP`], the best
/// classes first): a fill walks only part of the index, and without them a
/// record of a better class (a new host's first look, say) would wait for
/// the walk to come round to it again while poorer ones the walk saw took
/// the room. A walk also keeps the first looks it finds behind a full
/// queue: a busy address's queue is full but for a moment after each
/// burst, and a new host's first page there waited for the walk to come
/// round to its key at such a moment, a few hundred keys a burst (at the
/// default rest of 10 s, minutes on an address with thousands of
/// records). They are classed again at each fill. Records of good hosts
/// are not kept: they are most of the index, and the walk finds them.
#[derive(Default)]
pub(super) struct Kept(BTreeSet<(u8, Key, IpAddr)>);

impl Kept {
    /// Keeps `k` (at `a`, of class `class`), dropping the worst kept record
    /// past the cap.
    pub fn keep(&mut self, class: u8, k: Key, a: IpAddr) {
        self.0.insert((class, k, a));
        if self.0.len() > KEPT_CAP {
            self.0.pop_last();
        }
    }

    /// Takes the kept records out, for a fill to class again
    /// ([`classed_again`]) once its walk is done.
    pub fn drain(&mut self) -> Vec<(Key, IpAddr)> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|(_, k, a)| (k, a))
            .collect()
    }
}

/// How long a first look holds its host's other records back at most:
/// past it, the host gets another look (its verdict may never come, if
/// nlpc-vrfy is not running).
const LOOK_WAIT: Duration = Duration::from_secs(60);

/// The most first looks [`Looks`] remembers; past it they are forgotten,
/// and their hosts' other records may each have one more look.
const LOOKS_CAP: usize = 16_384;

/// First looks leased by earlier fills whose hosts are not judged yet: by
/// host, the look's key and when it was leased. A fill gives a host not
/// judged one look; without these, the next fill gave it another while
/// the first was queued, in flight or at nlpc-vrfy (a polite address's
/// queue holds two bursts), and a foreign host's second page went before
/// its first was judged (on seed 3 of `scripts/bench/focus`, the first
/// 500 requests held 42 to foreign hosts asked before; with the looks
/// remembered, 23, to the large and mixed hosts exploration asks). Only
/// on polite addresses: on a fast one (`queue::fast`) a request costs a
/// millisecond, less than the wait for a verdict.
#[derive(Default)]
pub(super) struct Looks(HashMap<String, (Key, Instant)>);

impl Looks {
    /// A first look at `host`, record `k`, was leased at `now`.
    pub fn leased(&mut self, host: &str, k: Key, now: Instant) {
        if self.0.len() >= LOOKS_CAP && !self.0.contains_key(host) {
            self.0.clear();
        }
        self.0.insert(host.to_owned(), (k, now));
    }

    /// Forgets the looks leased [`LOOK_WAIT`] ago or more (`now`); and,
    /// once [`LOOKS_CAP`] are remembered, those that are over (see
    /// [`Looks::out_besides`]), so that only looks still out are lost to
    /// the cap. Below it, a look that is over stays till its time is up:
    /// reading every look's record at every fill cost as many reads as
    /// looks were out, where a fill needs those of the hosts it meets.
    pub fn prune(&mut self, rd: &Read, now: Instant) -> Result<()> {
        self.0
            .retain(|_, (_, at)| now.saturating_duration_since(*at) < LOOK_WAIT);
        if self.0.len() < LOOKS_CAP {
            return Ok(());
        }
        let mut over = Vec::new();
        for (host, (k, _)) in &self.0 {
            if !out(rd, k)? {
                over.push(host.clone());
            }
        }
        for h in over {
            self.0.remove(&h);
        }
        Ok(())
    }

    /// Whether a look at `host` other than record `k` is out: remembered
    /// (see [`Looks::prune`]), and its record still READY or FRESH, not
    /// judged nor ended without a verdict (a redirect, an error). The
    /// record is read here, for the hosts a fill meets, not for every
    /// look remembered at every fill.
    fn out_besides(&self, rd: &Read, host: &str, k: &Key) -> Result<bool> {
        match self.0.get(host) {
            Some((look, _)) if look != k => out(rd, look),
            _ => Ok(false),
        }
    }
}

/// Whether look `k` is still out: READY (queued, in flight, or given
/// back) or FRESH (at nlpc-vrfy); not judged, nor ended without a verdict.
fn out(rd: &Read, k: &Key) -> Result<bool> {
    Ok(matches!(
        rd.peek(k, Record::decode_state)?.flatten(),
        Some(State::Ready | State::Fresh)
    ))
}

/// A kept record classed again: its class, look, key and address.
pub(super) type Again = (u8, Option<Look>, Key, IpAddr);

/// Records an earlier fill kept ([`Kept::drain`]), classed now: those
/// still in `unwalked` (the pass's walk did not class them itself) and
/// still READY.
pub(super) fn classed_again(
    earlier: Vec<(Key, IpAddr)>,
    rd: &Read,
    rule: Rule,
    hosts: &mut Hosts,
    looks: &Looks,
    unwalked: &HashSet<Key>,
) -> Result<Vec<Again>> {
    let mut out = Vec::new();
    for (k, a) in earlier {
        if !unwalked.contains(&k) {
            continue;
        }
        // One read of the record: its state, and its host if READY.
        let ready = rd.peek(&k, |b| {
            (Record::decode_state(b) == Some(State::Ready)).then(|| host_in(b))
        })?;
        let Some(host) = ready.flatten() else {
            continue;
        };
        let (class, look) = class_with_host(rd, &k, host, rule, hosts, looks)?;
        out.push((class, look, k, a));
    }
    Ok(out)
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
        let new = Look { host: 0, hops: 0 };
        assert_eq!(
            class(&rd, &a, rule, &mut hosts, &Looks::default()).unwrap(),
            (1, Some(new))
        );
        assert_eq!(
            class(&rd, &b, rule, &mut hosts, &Looks::default()).unwrap(),
            (1, Some(new))
        );
        // Once the host has had its look, its other pages wait for the
        // verdict as exploring ones.
        assert_eq!(new.second(), 3);
        // Found through a rejected page: exploring, but before the above.
        let far_look = Look { host: 1, hops: 1 };
        assert_eq!(
            class(&rd, &far, rule, &mut hosts, &Looks::default()).unwrap(),
            (2, Some(far_look))
        );
        assert_eq!(far_look.second(), 4);
        // The pass counts each host's records: new.test has two, which
        // no rejected page led to, far.test one, which one did.
        let seen = |accepted, all| Seen { accepted, all };
        assert_eq!(
            (hosts.seen(0), hosts.seen(1), hosts.seen(7)),
            (seen(2, 2), seen(0, 1), seen(0, 0))
        );
        // A later fill that does not walk to them still offers them, best
        // first, classed again.
        let addr: IpAddr = "127.0.0.9".parse().unwrap();
        let mut kept = Kept::default();
        kept.keep(3, b, addr);
        kept.keep(1, a, addr);
        kept.keep(2, far, addr);
        let earlier = kept.drain();
        assert_eq!(earlier, vec![(a, addr), (far, addr), (b, addr)]);
        let all: HashSet<Key> = earlier.iter().map(|(k, _)| *k).collect();
        let again = classed_again(
            earlier,
            &rd,
            rule,
            &mut Hosts::default(),
            &Looks::default(),
            &all,
        );
        let (new, far_look) = (Look { host: 0, hops: 0 }, Look { host: 1, hops: 1 });
        assert_eq!(
            again.unwrap(),
            vec![
                (1, Some(new), a, addr),
                (2, Some(far_look), far, addr),
                (1, Some(new), b, addr)
            ]
        );
        // Those the walk saw itself are not offered twice.
        let unwalked = HashSet::from([far]);
        let again = classed_again(
            vec![(a, addr), (far, addr)],
            &rd,
            rule,
            &mut Hosts::default(),
            &Looks::default(),
            &unwalked,
        );
        let far_look = Look { host: 0, hops: 1 };
        assert_eq!(again.unwrap(), vec![(2, Some(far_look), far, addr)]);
        drop(rd);
        // Once its page is judged (rejected), the host's other page is an
        // exploring one; a record no longer READY is dropped.
        let mut w = st.write().unwrap();
        let mut judged = Record::new("http://new.test/a", 1);
        judged.state = State::Rejected;
        crate::store::harvest::judged(&mut w, &a, &judged, 0).unwrap();
        w.update(&a, &judged).unwrap();
        w.commit().unwrap();
        let rd = st.read().unwrap();
        let again = classed_again(
            vec![(a, addr), (b, addr)],
            &rd,
            rule,
            &mut Hosts::default(),
            &Looks::default(),
            &HashSet::from([a, b]),
        );
        assert_eq!(
            again.unwrap(),
            vec![(3, None, b, addr)],
            "none accepted at a first look"
        );
        // Past the cap, the worst class goes.
        let mut kept = Kept::default();
        for i in 0..KEPT_CAP as u16 {
            let mut k = [0xff; crate::store::KEY_LEN];
            k[..2].copy_from_slice(&i.to_be_bytes());
            kept.keep(5, Key(k), addr);
        }
        kept.keep(1, a, addr);
        let all = kept.drain();
        assert_eq!(all.len(), KEPT_CAP);
        assert_eq!(all[0], (a, addr));
    }

    #[test]
    fn a_look_out_holds_its_hosts_other_records_until_it_ends() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let a = ready(&st, "http://new.test/a");
        let b = ready(&st, "http://new.test/b");
        let other = ready(&st, "http://other.test/");
        let rule = Rule::default();
        let t0 = Instant::now();
        let mut looks = Looks::default();
        let classes = |looks: &Looks| {
            let rd = st.read().unwrap();
            let mut hosts = Hosts::default();
            [a, b, other].map(|k| class(&rd, &k, rule, &mut hosts, looks).unwrap())
        };
        let look = |host| Some(Look { host, hops: 0 });
        assert_eq!(classes(&looks), [(1, look(0)), (1, look(0)), (1, look(1))]);
        // A look at a is out: b waits as a host's second record; a itself
        // (its lease given up) is still the look; other.test is untouched.
        looks.leased("new.test", a, t0);
        assert_eq!(classes(&looks), [(1, look(0)), (3, None), (1, look(1))]);
        // Still READY (leased) or FRESH (at nlpc-vrfy): still out.
        for state in [State::Ready, State::Fresh] {
            let mut r = Record::new("http://new.test/a", 1);
            r.state = state;
            let mut w = st.write().unwrap();
            w.update(&a, &r).unwrap();
            w.commit().unwrap();
            looks.prune(&st.read().unwrap(), t0).unwrap();
            assert_eq!(classes(&looks)[1], (3, None), "{state}");
        }
        // A minute on, it is over whatever became of it.
        looks.prune(&st.read().unwrap(), t0 + LOOK_WAIT).unwrap();
        assert_eq!(classes(&looks)[1], (1, look(0)));
        // Ended without a verdict (an error): over at once.
        looks.leased("new.test", a, t0);
        let mut r = Record::new("http://new.test/a", 1);
        r.state = State::Unreach;
        let mut w = st.write().unwrap();
        w.update(&a, &r).unwrap();
        w.commit().unwrap();
        looks.prune(&st.read().unwrap(), t0).unwrap();
        assert_eq!(classes(&looks)[1], (1, look(0)));
        // At the cap, the looks that are over go, and those out stay.
        let mut looks = Looks::default();
        looks.leased("other.test", other, t0);
        for i in 1..LOOKS_CAP {
            looks.leased(
                &format!("h{i}.test"),
                Key([0xee; crate::store::KEY_LEN]),
                t0,
            );
        }
        looks.prune(&st.read().unwrap(), t0).unwrap();
        assert_eq!(looks.0.len(), 1);
        assert!(looks.0.contains_key("other.test"));
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

//! Fills: the walks of READY (address by address, in the READY table)
//! and DIRTY (by due time) that lease records into the queues of
//! `queue::Pacing`, class by class with focus, and the writer's part that
//! claims addresses and takes the leases.

use super::addr::rest_wait;
use super::queue::{armed_until, fast, queue_cap, ARM_SLACK, FILL_GAP, FILL_GAP_RESTING};
use super::*;
use crate::store::Step;

/// Keys looked at past the last useful one before a fill gives up: with
/// few addresses, most of the due index belongs to addresses whose queues
/// are full. Keys of addresses resting past the horizon do not count; in
/// the READY table, where a full address is passed whole, the count
/// starts again at each address (counted across addresses, a few whose
/// records all went to later classes ended every fill there, and the
/// addresses after them waited: `scripts/bench/focus` seed 1 reached 90%
/// of the Latvian pages after 2,828 requests instead of about 2,200).
const FILL_FUTILE: usize = 512;

/// Keys looked at per fill pass.
const FILL_SCAN: usize = 4096;

/// Keys of addresses resting past the horizon a fill's walk of the due
/// index passes at most, beside [`FILL_SCAN`], while the index holds
/// others: each costs a cursor step and a look in a map (the index entry
/// holds the address). Counted in `FILL_SCAN`, a frontier whose resting
/// records outnumber the rest fifty to one hid the rest for a turn of the
/// index. An index found all resting (see `Pacing::resting_ends`) is
/// walked `FILL_SCAN` keys a fill: walking 65,536 of it at every fill
/// slowed the other index's fetching by a quarter. The walk of the READY
/// table passes a resting address whole, and counts it as one.
const FILL_SKIP: usize = 65_536;

/// Keys of one address a fill walks at most in the READY table before it
/// goes on to the next address; the next fill that comes to the address
/// goes on from there. So a fill sees the records of many addresses, as
/// the walk in hash order did, not a few thousand of one address's
/// records, most of them set aside for later by focus.
const FILL_PER_ADDR: usize = 256;

/// Where the resume map of [`FILL_PER_ADDR`] is given up: more addresses
/// broken off than a fetcher serves in a long while.
const ADDR_RESUME_CAP: usize = 65_536;

/// Where the keys a fill classed behind full queues (looking for first
/// looks, see `over_room` and `focus::Kept`) are forgotten: each is
/// classed once, not at every fill's turn through its address (a host
/// once judged stays so).
const LOOKED_AHEAD_CAP: usize = 16_384;

/// What a fill's walk of one index counted.
struct Walk {
    /// Keys looked at (bounded by [`FILL_SCAN`]).
    seen: usize,
    /// Keys (READY: addresses) of addresses resting past the horizon
    /// passed over, bounded by `skip_most`.
    skipped: usize,
    skip_most: usize,
    /// Keys since the last useful one ([`FILL_FUTILE`]).
    futile: usize,
    /// A record was seen whose address and origin do not rest past the
    /// horizon.
    unrested: bool,
    /// The address of the READY records being walked, and how many of
    /// them this walk looked at.
    addr: Option<IpAddr>,
    at_addr: usize,
}

impl Walk {
    fn new(skip_most: usize) -> Walk {
        Walk {
            seen: 0,
            skipped: 0,
            skip_most,
            futile: 0,
            unrested: false,
            addr: None,
            at_addr: 0,
        }
    }
}

/// Takes one of the free places in `addr`'s queue for a fill (`room`
/// holds each address's, `free` all of them), if one is left.
fn take_slot(
    room: &mut HashMap<IpAddr, usize>,
    free: &mut usize,
    policy: &Policy,
    addr: IpAddr,
) -> bool {
    let slot = room.entry(addr).or_insert_with(|| queue_cap(policy, addr));
    if *slot == 0 {
        return false;
    }
    *slot -= 1;
    *free = free.saturating_sub(1);
    true
}

/// Whether a first look at `host`, a host not judged yet, may be leased
/// for [`fast`] address `addr` although its queue is full. Its first page
/// (and robots.txt, asked as soon as the page is queued ahead) opens a
/// whole host, and behind a queue kept full by a good host on the same
/// address it waited for all of that host's pages: on
/// `scripts/bench/compare`'s web a host asking Crawl-delay, found at
/// 108 ms, was first asked at 846 ms, behind 683 requests to the other
/// hosts of its address. On a fast address that costs the good host a
/// millisecond; on a polite one a request is a rest of the address, and
/// the classes decide what the rests buy (`scripts/bench/focus` with
/// first looks ahead there too: seed 1's Latvian pages at 500 requests
/// fell from 323 to 196). Only while none of the host's pages is queued
/// or in flight here, and a quarter of the queue's depth over it at most
/// (counted in `over`).
fn over_room(
    queues: &HashMap<IpAddr, AddrQueue>,
    inflight: &HashMap<u64, (IpAddr, InFlight)>,
    over: &mut HashMap<IpAddr, usize>,
    policy: &Policy,
    addr: IpAddr,
    host: Option<&str>,
) -> bool {
    let Some(host) = host else {
        return false;
    };
    let cap = queue_cap(policy, addr);
    let most = (cap / 4).max(1);
    let queue = queues.get(&addr);
    let queued = queue.map_or(0, |q| q.jobs.len());
    let n = over.entry(addr).or_insert(0);
    if *n >= most || queued.saturating_add(*n) >= cap.saturating_add(most) {
        return false;
    }
    let of_host = |u: &str| url::host_of(u) == host;
    if queue.is_some_and(|q| q.jobs.iter().any(|j| of_host(&j.rec.url)))
        || inflight
            .values()
            .any(|(a, f)| *a == addr && matches!(f, InFlight::Page(j) if of_host(&j.rec.url)))
    {
        return false;
    }
    *n += 1;
    true
}

/// Where a leased record goes in its address's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// At the front: a first look on a [`fast`] address.
    Front,
    /// With focus, a READY record of a good host (class 0): on a polite
    /// address, ahead of the records of hosts not shown good, which were
    /// leased while better ones did not wait (`focus::good_first`).
    Good,
    /// At the back.
    Back,
}

impl Fetcher<'_> {
    /// Leases READY and DIRTY records for the addresses being served (and
    /// new addresses while there is room), walking each index from where
    /// the last pass stopped. With focus, READY records are filled class
    /// by class ([`focus::class`]): those of hosts with a good harvest
    /// first, each later class taking only the room the earlier ones leave
    /// and queued after them, and exploring ones held to their share
    /// ([`focus::Share`]) while better records wait. Politeness is
    /// untouched: only the order changes.
    pub(super) fn fill(&mut self) -> Result<()> {
        let policy = self.cfg.policy;
        if self.pacing.filling {
            // One fill at a time: the last one's leases are still coming.
            return Ok(());
        }
        let unspecified = IpAddr::from([0, 0, 0, 0]);
        // The records to lease: key, state, address, and where each goes
        // in its queue.
        let mut wanted: Vec<(Key, State, IpAddr, Place)> = Vec::new();
        // Per walk (READY, DIRTY): a record was seen whose address and
        // origin do not rest past the horizon; the walk reached its
        // index's end.
        let mut unrested = [false; 2];
        let mut ended = [false; 2];
        self.pacing.fill_leased = false;
        let horizon = Instant::now() + HORIZON;
        // Origins resting past the horizon: their records stay in the store.
        let far_origins: HashSet<&str> = self
            .pacing
            .origin_next
            .iter()
            .filter(|(_, t)| **t > horizon)
            .map(|(o, _)| o.as_str())
            .collect();
        let far_addrs = &self.pacing.far_addrs;
        // An address resting past the horizon: its records stay in the
        // store.
        let resting = |a: &IpAddr| far_addrs.get(a).is_some_and(|t| *t > horizon);
        let focus = self.cfg.focus;
        let explored = &mut self.pacing.explored;
        let kept = &mut self.pacing.kept;
        let earlier = kept.drain();
        let looks = &mut self.pacing.looks;
        let addr_resume = &mut self.pacing.addr_resume;
        if addr_resume.len() > ADDR_RESUME_CAP {
            addr_resume.clear();
        }
        let looked_ahead = &mut self.pacing.looked_ahead;
        if looked_ahead.len() > LOOKED_AHEAD_CAP {
            looked_ahead.clear();
        }
        let hosts_cap = self.cfg.hosts;
        // Keys each walk looked at (READY: records, and resting addresses
        // passed whole; DIRTY: records), for the debug line.
        let mut looked_at = [0usize; 2];
        {
            let rd = self.d.store.read()?;
            looks.prune(&rd, Instant::now())?;
            let mut room: HashMap<IpAddr, usize> = self
                .pacing
                .addrs
                .iter()
                .map(|(a, q)| (*a, queue_cap(&policy, *a).saturating_sub(q.jobs.len())))
                .collect();
            // Free slots in all, counting addresses not yet served; the
            // walk stops once they are taken.
            let mut free: usize = room.values().sum::<usize>()
                + self.cfg.hosts.saturating_sub(room.len()) * queue_cap(&policy, unspecified);
            // READY records of classes 1 and on ([`focus::class`]), leased
            // after the pass class by class if room is left.
            let mut later: [Vec<(Key, IpAddr, Option<focus::Look>)>; focus::CLASSES - 1] =
                Default::default();
            // A record of a class before exploration was seen.
            let mut better_waiting = false;
            // Records earlier fills kept that the walk has not classed.
            let mut unwalked: HashSet<Key> = earlier.iter().map(|(k, _)| *k).collect();
            // Each host's standing, read once a pass.
            let mut hosts = focus::Hosts::default();
            let yield_rule = self.cfg.yield_rule;
            if focus {
                // On a polite address the queue's order was chosen a rest
                // or two ago; a host shown good since goes first now.
                for (a, q) in self.pacing.addrs.iter_mut() {
                    if !q.jobs.is_empty() && !fast(&policy, *a) {
                        focus::good_first(&mut q.jobs, &rd, yield_rule, &mut hosts)?;
                    }
                }
            }
            let mut visit = |w: &mut Walk, state: State, k: Key, addr: Option<IpAddr>| {
                w.seen += 1;
                w.futile += 1;
                if w.seen > FILL_SCAN
                    || w.skipped > w.skip_most
                    || w.futile > FILL_FUTILE
                    || free == 0
                {
                    return Ok(Step::Stop);
                }
                let Some(a) = addr else {
                    // A record without a usable address fails on its own.
                    wanted.push((k, state, unspecified, Place::Back));
                    w.futile = 0;
                    return Ok(Step::Next);
                };
                if state == State::Ready && w.addr != Some(a) {
                    w.addr = Some(a);
                    w.at_addr = 0;
                    // FILL_FUTILE bounds a walk through records of full
                    // queues, mixed with the rest in hash order; here an
                    // address is passed whole, and FILL_PER_ADDR bounds
                    // one whose records go to later classes.
                    w.futile = 0;
                    // Where the last walk of this address broke off.
                    if let Some(to) = addr_resume.remove(&a).filter(|to| *to > k) {
                        w.seen -= 1;
                        return Ok(Step::Seek(to));
                    }
                    w.futile = 1;
                }
                w.at_addr += 1;
                if !room.contains_key(&a) && room.len() >= hosts_cap {
                    w.unrested = true;
                    return Ok(Step::NextAddr);
                }
                if resting(&a) {
                    // Neither futile nor seen: passed over on the index
                    // entry, and a big frontier is mostly such records
                    // (FILL_SKIP bounds them, or FILL_SCAN; in the READY
                    // table a whole address is one).
                    w.futile -= 1;
                    w.seen -= 1;
                    w.skipped += 1;
                    return Ok(Step::NextAddr);
                }
                w.unrested = true;
                // Its queue is full: nothing of it goes this time. With
                // focus the walk goes on for first looks: on a fast
                // address one may go over the room (`over_room`), and on
                // any other it is kept for the fill that finds room.
                let full = room.get(&a) == Some(&0);
                if full && !(focus && state == State::Ready) {
                    return Ok(Step::NextAddr);
                }
                if state == State::Ready && w.at_addr > FILL_PER_ADDR {
                    addr_resume.insert(a, k);
                    return Ok(Step::NextAddr);
                }
                // Classed before behind a full queue: not a first look
                // then, nor since, or kept.
                if full && !looked_ahead.insert(k) {
                    return Ok(Step::Next);
                }
                if !far_origins.is_empty() {
                    let far = rd
                        .peek(&k, |b| {
                            Record::decode_url(b)
                                .is_ok_and(|u| far_origins.contains(url::origin_of(u)))
                        })?
                        .unwrap_or(false);
                    if far {
                        return Ok(Step::Next);
                    }
                }
                if focus && state == State::Ready {
                    let (class, look) = focus::class(&rd, &k, yield_rule, &mut hosts, looks)?;
                    if full {
                        // Only a first look may go (`over_room`), or wait
                        // in `kept` for the fill that finds room (and from
                        // the next fill on hold exploration back, as kept
                        // records do); a kept record stays kept.
                        if class == focus::FIRST_LOOK && fast(&policy, a) {
                            unwalked.remove(&k);
                            later[0].push((k, a, look));
                        } else if look.is_some() && !unwalked.contains(&k) {
                            // Kept before, it is classed again below, and
                            // holds exploration back as it did.
                            kept.keep(class, k, a);
                        }
                        return Ok(Step::Next);
                    }
                    unwalked.remove(&k);
                    better_waiting |= class < focus::EXPLORE;
                    if class > 0 {
                        later[usize::from(class - 1)].push((k, a, look));
                        return Ok(Step::Next);
                    }
                }
                if take_slot(&mut room, &mut free, &policy, a) {
                    w.futile = 0;
                    // Here with focus a READY record is of class 0.
                    let place = if focus && state == State::Ready {
                        Place::Good
                    } else {
                        Place::Back
                    };
                    wanted.push((k, state, a, place));
                    explored.leased(false);
                }
                Ok(Step::Next)
            };
            let skip_most = |i: usize| {
                if self.pacing.resting_ends[i] >= 2 {
                    FILL_SCAN
                } else {
                    FILL_SKIP
                }
            };
            // READY by address, from where the last walk stopped.
            let mut w = Walk::new(skip_most(0));
            let from = self.pacing.ready_resume;
            let stopped = rd.walk_ready(from.as_ref(), |k, a| visit(&mut w, State::Ready, k, a))?;
            self.pacing.ready_resume = stopped;
            ended[0] = stopped.is_none();
            unrested[0] = w.unrested;
            looked_at[0] = w.seen + w.skipped;
            // DIRTY by due time: an address's records are not together.
            let mut w = Walk::new(skip_most(1));
            let mut last = None;
            let mut stopped = false;
            let from = self.pacing.dirty_resume;
            rd.walk_input(State::Dirty, from.as_ref(), |k, held| {
                last = Some(k);
                // Only the address is needed here, which the index entry
                // holds; else the record says (no full decode).
                let addr = match held {
                    Some(a) => Some(a),
                    None => rd.peek(&k, Record::decode_ip)?.flatten(),
                };
                stopped = visit(&mut w, State::Dirty, k, addr)? == Step::Stop;
                Ok(!stopped)
            })?;
            // Past the end: start from the beginning next time.
            self.pacing.dirty_resume = if stopped { last } else { None };
            ended[1] = !stopped;
            unrested[1] = w.unrested;
            looked_at[1] = w.seen + w.skipped;
            if focus {
                // The best records earlier fills saw, classed again.
                for (class, look, k, a) in
                    focus::classed_again(earlier, &rd, yield_rule, &mut hosts, looks, &unwalked)?
                {
                    if resting(&a) {
                        kept.keep(class, k, a);
                        continue;
                    }
                    unrested[0] = true;
                    better_waiting |= class < focus::EXPLORE;
                    // One of a host shown good since goes now if it can;
                    // the walk finds such records again.
                    if class == 0 {
                        if take_slot(&mut room, &mut free, &policy, a) {
                            wanted.push((k, State::Ready, a, Place::Good));
                            explored.leased(false);
                        }
                    } else if let Some(l) = later.get_mut(usize::from(class - 1)) {
                        l.push((k, a, look));
                    }
                }
            }
            // Once the room is taken, or exploring is held to its share,
            // the rest are kept for the next fill. A host not judged yet
            // gets one look: its other records move to a later class, in
            // this pass and, on a polite address, until the look is judged
            // (`focus::Looks`).
            let mut closed = false;
            let mut looked: HashSet<u32> = HashSet::new();
            // First looks leased over their address's room, by address.
            let mut over: HashMap<IpAddr, usize> = HashMap::new();
            // Within a class first looks first, and of them the hosts more
            // of the frontier points at, from accepted pages first.
            for l in later.iter_mut() {
                l.sort_by_key(|(_, _, look)| {
                    (
                        look.is_none(),
                        std::cmp::Reverse(look.map(|l| hosts.seen(l.host))),
                    )
                });
            }
            for i in 0..later.len() {
                let class = u8::try_from(i + 1).unwrap_or(u8::MAX);
                let exploring = class >= focus::EXPLORE;
                for (k, a, look) in std::mem::take(&mut later[i]) {
                    if let Some(l) = look.filter(|l| looked.contains(&l.host)) {
                        // Its class after the look is always a later one,
                        // but at the last class, where it stays.
                        let second = usize::from(l.second());
                        if second > i + 1 {
                            if let Some(v) = later.get_mut(second - 1) {
                                v.push((k, a, None));
                                continue;
                            }
                        }
                    }
                    closed |= free == 0 || exploring && !explored.may_explore(better_waiting);
                    let served = room.contains_key(&a) || room.len() < self.cfg.hosts;
                    let first = i == 0 && look.is_some() && fast(&policy, a);
                    let leased = !closed && served && take_slot(&mut room, &mut free, &policy, a)
                        || first
                            && served
                            && over_room(
                                &self.pacing.addrs,
                                &self.transfers.inflight,
                                &mut over,
                                &policy,
                                a,
                                rd.peek(&k, focus::host_in)?.flatten().as_deref(),
                            );
                    if leased {
                        let place = if first { Place::Front } else { Place::Back };
                        wanted.push((k, State::Ready, a, place));
                        explored.leased(exploring);
                        if let Some(l) = look {
                            looked.insert(l.host);
                            // Where a request costs a millisecond, the
                            // host's next one is not held for the verdict.
                            if !fast(&policy, a) {
                                if let Some(host) = rd.peek(&k, focus::host_in)?.flatten() {
                                    looks.leased(&host, k, Instant::now());
                                }
                            }
                        }
                    } else {
                        kept.keep(class, k, a);
                    }
                }
            }
        }
        let ends = &mut self.pacing.resting_ends;
        for ((n, e), u) in ends.iter_mut().zip(ended).zip(unrested) {
            *n = if u { 0 } else { n.saturating_add(u8::from(e)) };
        }
        self.pacing.fill_gap = if ends.iter().all(|n| *n >= 2) {
            (self.pacing.fill_gap * 2).min(FILL_GAP_RESTING)
        } else {
            FILL_GAP
        };
        if looked_at != [0, 0] {
            debug!(
                "fill: {} READY and {} DIRTY keys looked at, {} records to lease",
                looked_at[0],
                looked_at[1],
                wanted.len()
            );
        }
        if wanted.is_empty() {
            return Ok(());
        }
        // The leases are taken by the writer thread; the loop goes on and
        // queues the records when they come (`take_leased`).
        let lease = self.d.lease();
        self.pacing.claim.time = clock::real_now();
        let known: HashSet<IpAddr> = self.pacing.addrs.keys().copied().collect();
        let (claim, yield_rule) = (self.pacing.claim, self.cfg.yield_rule);
        // Rests recorded before (an address that left, unclaimed) go in
        // first: the writer keeps the order, so a claim made now stands.
        self.commit()?;
        self.pacing.filling = true;
        self.storing.writer()?.send(Box::new(move |store| {
            lease_wanted(store, wanted, known, claim, lease, yield_rule, policy)
                .map(writer::Reply::Leased)
        }))
    }

    /// Queues the records the writer leased for a fill.
    pub(super) fn take_leased(&mut self, l: Leased) {
        self.pacing.filling = false;
        self.pacing.fill_leased = !l.got.is_empty();
        let now = Instant::now();
        let now_ms = clock::real_now_ms();
        for (addr, rest) in l.far {
            self.pacing.far_addrs.insert(addr, now + rest);
        }
        for (addr, through) in l.armed {
            self.pacing.armed.insert(addr, through);
        }
        for (addr, mut job, low, place) in l.got {
            // Test builds: a panic outside the per-record containment.
            crate::run::daemon::test_escape(&job.rec.url);
            // A host whose pages are rarely accepted (--yield-min): set
            // aside unfetched, with the figures that decided it.
            if let Some(why) = low {
                let mut r = job.rec.clone();
                info!("excluded {}: {why}", r.url);
                self.fail(&mut r, State::Excluded, why, 0);
                self.storing.push_outcome(job, r, Vec::new());
                continue;
            }
            if job.rec.ip().is_none() {
                let mut r = job.rec.clone();
                self.fail(&mut r, State::Unreach, "no address".into(), 0);
                self.storing.push_outcome(job, r, Vec::new());
                continue;
            }
            // Admission lets in only http and https; a record that came by
            // another way is refused here, before robots.txt or libcurl
            // (which would refuse it too) are asked.
            let scheme = url::scheme_of(&job.rec.url).to_ascii_lowercase();
            if scheme != "http" && scheme != "https" {
                let mut r = job.rec.clone();
                let why = format!(
                    "only http and https are fetched (scheme {})",
                    admit::shown(&scheme)
                );
                info!("rejected {}: {why}", job.rec.url);
                self.fail(&mut r, State::Rejected, why, 0);
                self.storing.push_outcome(job, r, Vec::new());
                continue;
            }
            let claimed = l.rests.get(&addr).copied().flatten();
            if !self.pacing.addrs.contains_key(&addr) && claimed.is_none() {
                // The address left this fetcher while the leases were
                // taken, its rest recorded unclaimed: the record goes back
                // as it was, for a later fill to claim the address again.
                let r = job.rec.clone();
                self.storing.push_outcome(job, r, Vec::new());
                continue;
            }
            let q = self.pacing.addrs.entry(addr).or_insert_with(|| {
                let wait = rest_wait(claimed.unwrap_or(0), now_ms);
                AddrQueue {
                    gate: Gate::new(addr, now + wait),
                    jobs: VecDeque::new(),
                    robots_redirect: None,
                    multiplexed: false,
                }
            });
            match place {
                Place::Front => q.jobs.push_front(job),
                // Behind those of good hosts queued before it, ahead of
                // the rest, on a polite address (on a fast one the first
                // looks at the front stay there).
                Place::Good if !fast(&self.cfg.policy, addr) => {
                    job.good = true;
                    let at = q.jobs.iter().position(|j| !j.good).unwrap_or(q.jobs.len());
                    q.jobs.insert(at, job);
                }
                Place::Good | Place::Back => q.jobs.push_back(job),
            }
        }
    }
}

/// What the writer leased for a fill.
pub(super) struct Leased {
    /// The records, by address, with the low-yield verdict of their host
    /// and where each goes in its queue.
    got: Vec<(IpAddr, Job, Option<String>, Place)>,
    /// Addresses claimed (with the end of their rest, Unix ms) or left to
    /// another fetcher (None).
    rests: HashMap<IpAddr, Option<u64>>,
    /// Addresses resting past the horizon, and for how long.
    far: Vec<(IpAddr, Duration)>,
    /// Addresses whose first burst is recorded, till when it may start.
    armed: Vec<(IpAddr, Instant)>,
}

/// The writer's part of a fill: claims the addresses new to this fetcher
/// (unless another live fetcher serves them), recording their first burst,
/// and leases the records.
fn lease_wanted(
    store: &crate::store::Store,
    wanted: Vec<(Key, State, IpAddr, Place)>,
    known: HashSet<IpAddr>,
    claim: Lease,
    lease: Lease,
    yield_rule: crate::store::harvest::Rule,
    policy: Policy,
) -> Result<Leased> {
    let mut out = Leased {
        got: Vec::new(),
        rests: HashMap::new(),
        far: Vec::new(),
        armed: Vec::new(),
    };
    let now = Instant::now();
    let now_ms = clock::real_now_ms();
    let mut w = store.write()?;
    for (k, state, addr, place) in wanted {
        if !known.contains(&addr) && !addr.is_unspecified() {
            let until = match out.rests.get(&addr) {
                Some(u) => *u,
                None => {
                    let e = AddrEntry::get(&w, &addr)?;
                    let taken = e
                        .owner
                        .is_some_and(|o| o.pid != claim.pid && lease_owner_alive(o));
                    // An address resting past the horizon is left
                    // alone, and its records in the store, till then.
                    let rest = rest_wait(e.until, now_ms);
                    let far = rest > HORIZON;
                    if far && !taken {
                        out.far.push((addr, rest));
                    }
                    let u = (!taken && !far).then_some(e.until);
                    if u.is_some() {
                        // The first burst is recorded now, with the claim.
                        let gap = crate::web::politeness::gap(addr, policy.polite);
                        let until = if gap.is_zero() {
                            e.until
                        } else {
                            out.armed.push((addr, now + rest + ARM_SLACK));
                            armed_until(addr, e.until.max(now_ms), policy.polite)
                        };
                        // A pause under way stays recorded as such.
                        let pausing = e.paused(now_ms).is_some();
                        let mine = AddrEntry {
                            until,
                            owner: Some(claim),
                            why: if pausing { e.why } else { 0 },
                            strikes: if pausing { e.strikes } else { 0 },
                        };
                        mine.put(&mut w, &addr)?;
                    }
                    out.rests.insert(addr, u);
                    u
                }
            };
            if until.is_none() {
                continue;
            }
        }
        // Chosen by its address in an earlier snapshot: taken only while
        // that is still its address, so it is fetched under its own
        // address's politeness.
        let same_addr = |r: &Record| addr.is_unspecified() || r.ip() == Some(addr);
        if let Some(rec) = w.lease_key_if(&k, state, lease, same_addr)? {
            let low = yield_rule.low_host(&w, rec.host())?;
            let job = Job {
                key: k,
                rec,
                lease,
                good: false,
            };
            out.got.push((addr, job, low, place));
        }
    }
    w.commit()?;
    Ok(out)
}

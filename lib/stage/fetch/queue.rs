//! Queueing and pacing: records leased from READY and DIRTY into one queue
//! per physical address, the rest each address is owed (kept in the store
//! so a restarted fetcher stays polite), and the records given back that
//! must wait long; [`Pacing`] is the fetcher's part they live in. What is
//! stored of each address is `addr`'s [`AddrEntry`].

use super::addr::rest_wait;
use super::*;

/// Records in memory per address at most: two bursts' worth, so nothing
/// waits long under a lease.
pub(super) fn queue_cap(p: &Policy, addr: IpAddr) -> usize {
    let two_bursts = (p.burst.max(1) * 2).max(4);
    if fast(p, addr) {
        two_bursts.max(FAST_QUEUE)
    } else {
        two_bursts
    }
}

/// True for an address with (almost) no rest between bursts: it drains its
/// queue in milliseconds, so it gets a deep queue, refilled once half
/// empty rather than once empty.
pub(super) fn fast(p: &Policy, addr: IpAddr) -> bool {
    crate::web::politeness::gap(addr, p.polite) < Duration::from_millis(100)
}

/// The queue of a [`fast`] address. A fill's leases come from the writer,
/// behind the other daemons' commits, tens of milliseconds later under
/// load; at a request a millisecond on loopback, 32 records (the depth
/// before) ran out first and the address sat idle (nginx's log of
/// `scripts/bench/compare`: over half of each address's time in gaps of
/// more than 50 ms while READY held over a thousand records). Half of
/// this covers the wait.
pub(super) const FAST_QUEUE: usize = 128;

/// True when `addr`'s queue should be topped up now: a [`fast`] address
/// below half its queue.
pub(super) fn low(p: &Policy, addr: IpAddr, queued: usize) -> bool {
    fast(p, addr) && queued < queue_cap(p, addr) / 2
}

/// Keys looked at past the last useful one before a fill gives up: with
/// few addresses, most of the index belongs to addresses whose queues are
/// full. Keys of addresses resting past the horizon do not count.
pub(super) const FILL_FUTILE: usize = 512;

/// Keys looked at per fill pass.
pub(super) const FILL_SCAN: usize = 4096;

/// Keys of addresses resting past the horizon a fill pass walks past at
/// most, beside [`FILL_SCAN`], while the index holds others: each costs a
/// cursor step and a look in a map (the index entry holds the address).
/// Counted in `FILL_SCAN`, a frontier whose resting records outnumber the
/// rest fifty to one hid the rest for a turn of the index, 24 s at a
/// million resting records, 4,096 keys every 100 ms
/// (`scripts/bench/scale.rs`, 10 M). An index found all resting (see
/// `Pacing::resting_ends`) is walked `FILL_SCAN` keys a fill: walking
/// 65,536 of it at every fill slowed the other index's fetching by a
/// quarter.
pub(super) const FILL_SKIP: usize = 65_536;

/// How long after a fill the next one is due, at most (an address that
/// runs out of work, or new records, call one sooner).
pub(super) const FILL_GAP: Duration = Duration::from_millis(100);

/// The longest gap between fills once every waiting record was found
/// resting (see `Pacing::resting_ends`); the gap doubles up to it from
/// [`FILL_GAP`]. Each such fill walks up to [`FILL_SKIP`] keys, for
/// records none of which may be asked sooner.
pub(super) const FILL_GAP_RESTING: Duration = Duration::from_secs(1);

/// How often `--once` looks at most whether only waiting records are left.
pub(super) const WAITING_GAP: Duration = Duration::from_millis(200);

/// The fetcher's pacing: the queue of each address served, the rests and
/// pauses owed to addresses and origins, and the fills that lease records.
pub(super) struct Pacing {
    pub addrs: HashMap<IpAddr, AddrQueue>,
    /// Origins resting for their robots.txt delay: no request before this.
    pub origin_next: HashMap<String, Instant>,
    /// Addresses resting past [`HORIZON`]: their records are left in the
    /// store until then.
    pub far_addrs: HashMap<IpAddr, Instant>,
    /// Requests in flight to such origins: tag → (origin, delay).
    pub delayed: HashMap<u64, (String, Duration)>,
    /// Per-address entries to persist: when the next burst may start (so a
    /// restarted fetcher stays polite) and whether we still serve it.
    pub rests: HashMap<IpAddr, AddrEntry>,
    /// What is known of each address's distress and response time (see
    /// `health`); only addresses with something worth remembering.
    pub health: HashMap<IpAddr, health::Health>,
    /// Addresses whose next burst is recorded in the store (see
    /// [`ARM_SLACK`]): it may start without a transaction until then.
    pub armed: HashMap<IpAddr, Instant>,
    /// Addresses whose burst is being recorded by the writer.
    pub arming: HashSet<IpAddr>,
    /// Rests begun since the last commit: once it is in, the next burst of
    /// each address is recorded too, till the instant given.
    pub rest_arms: Vec<(IpAddr, Instant)>,
    /// Our claim on the addresses we serve; its time is renewed as we go.
    pub claim: Lease,
    /// Where the walks of READY and DIRTY stopped, for the next fill.
    pub resume: [Option<Key>; 2],
    pub last_fill: Option<Instant>,
    /// When the next fill is due after the last ([`FILL_GAP`], longer
    /// while fills find only resting records).
    pub fill_gap: Duration,
    /// Ends of each walk (READY, DIRTY) reached since it last saw a
    /// record whose address and origin do not rest past the horizon, or
    /// new records came, or a long rest ended: at two, every record of
    /// that index has been seen resting since; with both, fills slow
    /// down.
    pub resting_ends: [u8; 2],
    /// An address ran out of work: fill again soon.
    pub want_fill: bool,
    /// A fill's leases are being taken by the writer.
    pub filling: bool,
    /// The last fill leased something: fill again at once when idle.
    pub fill_leased: bool,
    /// When `--once` may next look whether only waiting records are left
    /// (see `only_waiting_left`).
    pub waiting_next: Option<Instant>,
    /// The share of recent leases that explored (`focus`).
    pub explored: focus::Share,
    /// Records of good classes fills saw but did not lease (`focus`).
    pub kept: focus::Kept,
}

impl Pacing {
    pub fn new(claim: Lease, explore: f64) -> Pacing {
        Pacing {
            addrs: HashMap::new(),
            origin_next: HashMap::new(),
            far_addrs: HashMap::new(),
            delayed: HashMap::new(),
            rests: HashMap::new(),
            health: HashMap::new(),
            armed: HashMap::new(),
            arming: HashSet::new(),
            rest_arms: Vec::new(),
            claim,
            resume: [None, None],
            last_fill: None,
            fill_gap: FILL_GAP,
            resting_ends: [0; 2],
            want_fill: false,
            filling: false,
            fill_leased: false,
            waiting_next: None,
            explored: focus::Share::new(explore),
            kept: focus::Kept::default(),
        }
    }

    /// Records queued on all addresses.
    pub fn queued(&self) -> usize {
        self.addrs.values().map(|a| a.jobs.len()).sum()
    }

    /// Addresses with a robots.txt redirect to follow.
    pub fn robots_redirects(&self) -> usize {
        self.addrs
            .values()
            .filter(|a| a.robots_redirect.is_some())
            .count()
    }

    /// The politeness of `addr` under `cfg`: the rest between bursts
    /// stretched for a slow server (see `health`).
    pub fn policy_for(&self, cfg: &Config, addr: IpAddr) -> Policy {
        let mut p = cfg.policy;
        if let Some(h) = self.health.get(&addr) {
            p.polite = h.rest(p.polite, &cfg.health);
        }
        p
    }

    /// The entry `Table::Addrs` gets for `addr` resting till `until` (Unix
    /// ms): with its pause, if one is under way.
    pub fn addr_entry(&self, addr: IpAddr, until: u64, owner: Option<Lease>) -> AddrEntry {
        let mut e = AddrEntry {
            until,
            owner,
            why: 0,
            strikes: 0,
        };
        if let Some(h) = self.health.get(&addr) {
            if let Some(p) = h.paused.filter(|p| p.until > Instant::now()) {
                e.until = e.until.max(p.until_ms);
                e.why = p.why.code();
                e.strikes = u8::try_from(h.strikes).unwrap_or(u8::MAX);
            }
        }
        e
    }

    /// How long till a queue needs filling or a burst or origin is due
    /// (`Duration::MAX` when nothing is).
    pub fn wait(&self, now: Instant) -> Duration {
        let mut w = Duration::MAX;
        // Queues ran dry: refill soon rather than idle a whole wait.
        if self.want_fill {
            w = w.min(Duration::from_millis(2));
        }
        // Also while requests are in flight: a burst due meanwhile leaves
        // on time rather than at the next answer. A burst already due that
        // did not leave waits for something else (its robots.txt, a
        // Crawl-delay), which ends the wait by itself.
        for a in self.addrs.values() {
            if !a.jobs.is_empty() && !a.gate.in_burst() && a.gate.next_start() > now {
                w = w.min(a.gate.next_start().saturating_duration_since(now));
            }
        }
        for t in self.origin_next.values() {
            if *t > now {
                w = w.min(t.saturating_duration_since(now));
            }
        }
        w
    }

    /// For the figures: how many addresses rest now, and those paused for
    /// their distress, soonest resumed first. What is over is forgotten:
    /// origins whose delay has passed, the healthy (and, past the cap, the
    /// long-resumed).
    pub fn now_resting(&mut self, now: Instant) -> (usize, Vec<(IpAddr, health::Pause)>) {
        // Hosts whose delay is over need no entry.
        self.origin_next.retain(|_, t| *t > now);
        let resting = self
            .addrs
            .values()
            .filter(|q| !q.gate.in_burst() && q.gate.next_start() > now)
            .count();
        self.health.retain(|_, h| !h.healthy(now));
        if self.health.len() > health::HEALTH_CAP {
            self.health
                .retain(|_, h| h.paused.is_some_and(|p| p.until > now));
        }
        let mut paused: Vec<(IpAddr, health::Pause)> = self
            .health
            .iter()
            .filter_map(|(a, h)| h.paused.filter(|p| p.until > now).map(|p| (*a, p)))
            .collect();
        paused.sort_by_key(|(a, p)| (p.until, *a));
        (resting, paused)
    }

    /// Records may be waiting that do not rest (new ones came, or a long
    /// rest ended): fills go back to [`FILL_GAP`] until the walks have
    /// found all resting again.
    pub fn stir(&mut self) {
        self.resting_ends = [0; 2];
        self.fill_gap = FILL_GAP;
    }

    /// A burst began on `addr`: a pause that is over is said to be.
    pub fn resumed(&mut self, addr: IpAddr, now: Instant) {
        let Some(h) = self.health.get_mut(&addr) else {
            return;
        };
        if let Some(p) = h.paused.filter(|p| p.until <= now) {
            h.paused = None;
            info!("resumed {addr} after a pause for {}", p.why.name());
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
        let mut wanted: Vec<(Key, State, IpAddr)> = Vec::new();
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
        let focus = self.cfg.focus;
        let explored = &mut self.pacing.explored;
        let kept = &mut self.pacing.kept;
        let earlier = kept.drain();
        {
            let rd = self.d.store.read()?;
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
            for (i, state) in [State::Ready, State::Dirty].into_iter().enumerate() {
                let mut seen = 0;
                let mut skipped = 0;
                let skip_most = if self.pacing.resting_ends[i] >= 2 {
                    FILL_SCAN
                } else {
                    FILL_SKIP
                };
                let mut walk_unrested = false;
                let mut futile = 0;
                let mut last = None;
                let mut stopped = false;
                let from = self.pacing.resume[i];
                rd.walk_input(state, from.as_ref(), |k, held| {
                    seen += 1;
                    futile += 1;
                    last = Some(k);
                    if seen > FILL_SCAN || skipped > skip_most || futile > FILL_FUTILE || free == 0
                    {
                        stopped = true;
                        return Ok(false);
                    }
                    // Only the address is needed here, which the index
                    // entry holds; else the record says (no full decode).
                    let addr = match held {
                        Some(a) => Some(a),
                        None => rd.peek(&k, Record::decode_ip)?.flatten(),
                    };
                    let Some(a) = addr else {
                        // A record without a usable address fails on its own.
                        wanted.push((k, state, unspecified));
                        futile = 0;
                        return Ok(true);
                    };
                    if !room.contains_key(&a) && room.len() >= self.cfg.hosts {
                        walk_unrested = true;
                        return Ok(true);
                    }
                    if far_addrs.get(&a).is_some_and(|t| *t > horizon) {
                        // Neither futile nor seen: skipped on the index
                        // entry, and a big frontier is mostly such records
                        // (FILL_SKIP bounds them, or FILL_SCAN).
                        futile -= 1;
                        seen -= 1;
                        skipped += 1;
                        return Ok(true);
                    }
                    if !far_origins.is_empty() {
                        let far = rd
                            .peek(&k, |b| {
                                Record::decode_url(b)
                                    .is_ok_and(|u| far_origins.contains(url::origin_of(u)))
                            })?
                            .unwrap_or(false);
                        if far {
                            return Ok(true);
                        }
                    }
                    walk_unrested = true;
                    if focus && state == State::Ready {
                        let (class, look) = focus::class(&rd, &k, yield_rule, &mut hosts)?;
                        unwalked.remove(&k);
                        better_waiting |= class < focus::EXPLORE;
                        if class > 0 {
                            later[usize::from(class - 1)].push((k, a, look));
                            return Ok(true);
                        }
                    }
                    if take_slot(&mut room, &mut free, &policy, a) {
                        futile = 0;
                        wanted.push((k, state, a));
                        explored.leased(false);
                    }
                    Ok(true)
                })?;
                // Past the end: start from the beginning next time.
                self.pacing.resume[i] = if stopped { last } else { None };
                ended[i] = !stopped;
                unrested[i] = walk_unrested;
            }
            if focus {
                // The best records earlier fills saw, classed again.
                for (class, look, k, a) in
                    focus::classed_again(earlier, &rd, yield_rule, &mut hosts, &unwalked)?
                {
                    if far_addrs.get(&a).is_some_and(|t| *t > horizon) {
                        kept.keep(class, k, a);
                        continue;
                    }
                    unrested[0] = true;
                    better_waiting |= class < focus::EXPLORE;
                    // One of a host shown good since goes now if it can;
                    // the walk finds such records again.
                    if class == 0 {
                        if take_slot(&mut room, &mut free, &policy, a) {
                            wanted.push((k, State::Ready, a));
                            explored.leased(false);
                        }
                    } else if let Some(l) = later.get_mut(usize::from(class - 1)) {
                        l.push((k, a, look));
                    }
                }
            }
            // Once the room is taken, or exploring is held to its share,
            // the rest are kept for the next fill. A host not judged yet
            // gets one look: its other records move to a later class.
            let mut closed = false;
            let mut looked: HashSet<u32> = HashSet::new();
            // First looks: the hosts more of the frontier points at first.
            later[0].sort_by_key(|(_, _, look)| {
                std::cmp::Reverse(look.map_or(0, |l| hosts.seen(l.host)))
            });
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
                    if !closed && served && take_slot(&mut room, &mut free, &policy, a) {
                        wanted.push((k, State::Ready, a));
                        explored.leased(exploring);
                        if let Some(l) = look {
                            looked.insert(l.host);
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
        for (addr, job, low) in l.got {
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
            q.jobs.push_back(job);
        }
    }

    /// Gives back, unleased, the queued records of origins and addresses
    /// that must wait past [`HORIZON`]: a record is not held while nothing
    /// can be done with it. An address left without work leaves, its rest
    /// kept in the store.
    pub(super) fn park(&mut self, now: Instant) -> Result<()> {
        let horizon = now + HORIZON;
        self.pacing.origin_next.retain(|_, t| *t > now);
        // An address is resting while its rest goes past the horizon.
        let resting = self.pacing.far_addrs.len();
        self.pacing.far_addrs.retain(|_, t| *t > horizon);
        if self.pacing.far_addrs.len() < resting {
            self.pacing.stir();
        }
        // Origins with a request in flight are blocked, not resting.
        let busy: HashSet<&str> = self
            .pacing
            .delayed
            .values()
            .map(|(o, _)| o.as_str())
            .collect();
        let far: HashSet<String> = self
            .pacing
            .origin_next
            .iter()
            .filter(|(o, t)| **t > horizon && !busy.contains(o.as_str()))
            .map(|(o, _)| o.clone())
            .collect();
        let mut parked: Vec<Job> = Vec::new();
        for (addr, q) in self.pacing.addrs.iter_mut() {
            if !q.gate.in_burst() && q.gate.next_start() > horizon {
                self.pacing.far_addrs.insert(*addr, q.gate.next_start());
                parked.extend(q.jobs.drain(..));
                continue;
            }
            if far.is_empty() {
                continue;
            }
            let (go, keep): (VecDeque<Job>, VecDeque<Job>) = q
                .jobs
                .drain(..)
                .partition(|j| far.contains(url::origin_of(&j.rec.url)));
            q.jobs = keep;
            parked.extend(go);
        }
        if parked.is_empty() {
            return Ok(());
        }
        // Addresses left idle leave; their rest is kept for the next fill.
        let idle: Vec<IpAddr> = self
            .pacing
            .addrs
            .iter()
            .filter(|(_, q)| {
                q.jobs.is_empty() && q.robots_redirect.is_none() && q.gate.in_flight() == 0
            })
            .map(|(a, _)| *a)
            .collect();
        let mut entries = Vec::new();
        for a in idle {
            if let Some(q) = self.pacing.addrs.remove(&a) {
                let rest = q.gate.next_start().saturating_duration_since(now);
                let e = self.pacing.addr_entry(a, clock::real_ms_after(rest), None);
                entries.push((a, e));
                self.pacing.rests.remove(&a);
                self.pacing.armed.remove(&a);
            }
        }
        debug!("giving back {} records that must wait", parked.len());
        self.storing.writer()?.send(Box::new(move |store| {
            let mut w = store.write()?;
            for j in &parked {
                w.finish(&j.key, &j.rec, j.lease)?;
            }
            for (a, e) in &entries {
                e.put(&mut w, a)?;
            }
            w.commit()?;
            Ok(writer::Reply::Committed(Vec::new()))
        }))
    }

    /// With `--once`: true when every unleased record left is waiting past
    /// [`HORIZON`] for its origin or address, each of which is then logged
    /// with its count and wait. Looked at every [`WAITING_GAP`] at most,
    /// and never more than a fifth of the time: the walk reads the whole
    /// READY index while records rest, a million keys in a big frontier,
    /// and looked at back to back it starved the fills.
    pub(super) fn only_waiting_left(&mut self, now: Instant) -> Result<bool> {
        if self.pacing.waiting_next.is_some_and(|t| now < t) {
            return Ok(false);
        }
        let began = Instant::now();
        let horizon = now + HORIZON;
        // (what waits, as logged) → (records, until when, why)
        let mut left: HashMap<String, (u64, Instant, String)> = HashMap::new();
        let mut all = true;
        {
            let rd = self.d.store.read()?;
            for state in [State::Ready, State::Dirty] {
                // The address from the index entry where it is held: a
                // frontier resting on far addresses is walked without
                // reading its records.
                rd.walk_input(state, None, |k, held| {
                    let addr = match held {
                        Some(a) => Some(a),
                        None => rd.peek(&k, Record::decode_ip)?.flatten(),
                    };
                    let Some(a) = addr else {
                        all = false;
                        return Ok(false);
                    };
                    if let Some(t) = self.pacing.far_addrs.get(&a).filter(|t| **t > horizon) {
                        let why = match self.pacing.health.get(&a).and_then(|h| h.paused) {
                            Some(p) => format!("paused for {}", p.why.name()),
                            None => "rest between bursts (--fetch-polite)".into(),
                        };
                        let e = left.entry(format!("address {a}")).or_insert((0, *t, why));
                        e.0 += 1;
                        return Ok(true);
                    }
                    let u = rd
                        .peek(&k, |b| Record::decode_url(b).ok().map(str::to_string))?
                        .flatten();
                    let Some(u) = u else {
                        all = false;
                        return Ok(false);
                    };
                    let o = url::origin_of(&u);
                    if let Some(t) = self.pacing.origin_next.get(o).filter(|t| **t > horizon) {
                        let e = left.entry(o.to_string()).or_insert((0, *t, String::new()));
                        e.0 += 1;
                        return Ok(true);
                    }
                    all = false;
                    Ok(false)
                })?;
                if !all {
                    break;
                }
            }
        }
        self.pacing.waiting_next = Some(now + WAITING_GAP.max(began.elapsed().saturating_mul(4)));
        if !all {
            return Ok(false);
        }
        let wall = clock::now();
        let mut lines: Vec<(String, (u64, Instant, String))> = left.into_iter().collect();
        lines.sort();
        for (what, (n, until, mut why)) in lines {
            if why.is_empty() {
                why = match self
                    .transfers
                    .robots_of(&what, wall)?
                    .and_then(|r| r.robots.delay())
                {
                    Some(d) if d > self.cfg.max_delay => format!(
                        "robots.txt delay {}s, capped at {}s",
                        d.as_secs_f64(),
                        self.cfg.max_delay.as_secs_f64()
                    ),
                    Some(d) => format!("robots.txt delay {}s", d.as_secs_f64()),
                    None => "robots.txt delay".into(),
                };
            }
            let wait = until.saturating_duration_since(now).as_secs_f64().ceil();
            let records = if n == 1 { "record" } else { "records" };
            info!("left {n} {records} of {what} waiting {wait}s: {why}");
        }
        Ok(true)
    }

    /// How long the loop may wait for answers before something is due.
    pub(super) fn wait_time(&self, now: Instant) -> Duration {
        let w = Duration::from_millis(50);
        w.min(self.pacing.wait(now)).min(self.storing.wait())
    }
}

/// What the writer leased for a fill.
pub(super) struct Leased {
    /// The records, by address, with the low-yield verdict of their host.
    got: Vec<(IpAddr, Job, Option<String>)>,
    /// Addresses claimed (with the end of their rest, Unix ms) or left to
    /// another fetcher (None).
    rests: HashMap<IpAddr, Option<u64>>,
    /// Addresses resting past the horizon, and for how long.
    far: Vec<(IpAddr, Duration)>,
    /// Addresses whose first burst is recorded, till when it may start.
    armed: Vec<(IpAddr, Instant)>,
}

/// How late a burst may start after the instant it was recorded for
/// without being recorded again: the stored rest runs this much longer
/// than the gap, so a burst recorded ahead (when the rest before it began)
/// needs no transaction when it starts. A fetcher killed and restarted
/// waits that much longer than it must, never less.
pub(super) const ARM_SLACK: Duration = Duration::from_secs(1);

/// The stored end of the rest that covers a burst starting no later than
/// `start_ms` + [`ARM_SLACK`] (Unix ms).
pub(super) fn armed_until(addr: IpAddr, start_ms: u64, polite: Duration) -> u64 {
    let gap = crate::web::politeness::gap(addr, polite);
    start_ms
        .saturating_add(clock::ceil_ms(gap))
        .saturating_add(clock::ceil_ms(ARM_SLACK))
}

/// The writer's part of a fill: claims the addresses new to this fetcher
/// (unless another live fetcher serves them), recording their first burst,
/// and leases the records.
fn lease_wanted(
    store: &crate::store::Store,
    wanted: Vec<(Key, State, IpAddr)>,
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
    for (k, state, addr) in wanted {
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
            out.got.push((addr, Job { key: k, rec, lease }, low));
        }
    }
    w.commit()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_without_rest_is_topped_up_at_half_its_deep_queue() {
        let lo: IpAddr = "127.0.0.5".parse().unwrap();
        let far: IpAddr = "192.0.2.5".parse().unwrap();
        let zero = Policy {
            polite: Duration::ZERO,
            ..Policy::default()
        };
        assert_eq!(queue_cap(&zero, lo), FAST_QUEUE);
        assert!(low(&zero, lo, FAST_QUEUE / 2 - 1));
        assert!(!low(&zero, lo, FAST_QUEUE / 2));
        // Off loopback the gap is at least a second: two bursts, refilled
        // when empty as before.
        assert_eq!(queue_cap(&zero, far), 4);
        assert!(!low(&zero, far, 0));
        let polite = Policy::default();
        assert_eq!(queue_cap(&polite, lo), 4);
        assert!(!low(&polite, lo, 0));
    }
}

//! Queueing and pacing: records leased from READY and DIRTY into one queue
//! per physical address, the rest each address is owed (kept in the store
//! so a restarted fetcher stays polite), and the records given back that
//! must wait long; [`Pacing`] is the fetcher's part they live in (the
//! fills that lease the records are `fill`'s). What is stored of each
//! address is `addr`'s [`AddrEntry`].

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

/// How long after a fill the next one is due, at most (an address that
/// runs out of work, or new records, call one sooner).
pub(super) const FILL_GAP: Duration = Duration::from_millis(100);

/// The longest gap between fills once every waiting record was found
/// resting (see `Pacing::resting_ends`); the gap doubles up to it from
/// [`FILL_GAP`]. Each such fill walks up to `fill::FILL_SCAN` keys of
/// the due index, for records none of which may be asked sooner.
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
    pub ready_resume: Option<crate::store::ReadyPlace>,
    pub dirty_resume: Option<Key>,
    /// Where a fill broke off the walk of an address's READY records
    /// (`fill::FILL_PER_ADDR`), for the next that comes to it.
    pub addr_resume: HashMap<IpAddr, Key>,
    /// READY records a fill classed behind a full queue (`fill`); the
    /// keys are hashes already, so the set's hash is a cheap one.
    pub looked_ahead: rustc_hash::FxHashSet<Key>,
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
    /// First looks leased whose hosts are not judged yet (`focus`).
    pub looks: focus::Looks,
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
            ready_resume: None,
            dirty_resume: None,
            addr_resume: HashMap::new(),
            looked_ahead: rustc_hash::FxHashSet::default(),
            last_fill: None,
            fill_gap: FILL_GAP,
            resting_ends: [0; 2],
            want_fill: false,
            filling: false,
            fill_leased: false,
            waiting_next: None,
            explored: focus::Share::new(explore),
            kept: focus::Kept::default(),
            looks: focus::Looks::default(),
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

impl Fetcher<'_> {
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

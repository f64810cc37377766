//! nlpc-fetch: READY and DIRTY records fetched politely, per physical
//! address, over persistent connections; robots.txt obeyed; bodies stored
//! and earlier versions archived; records moved to FRESH, REJECTED,
//! EXCLUDED, REDIRECT or UNREACH.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{IsTerminal, Write as _};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::run::clock;
use crate::run::daemon::{lease_owner_alive, Daemon};
use crate::store::archive::{Archive, Version};
use crate::store::cache::Cache;
use crate::store::record::{Flags, Lease, Record, State};
use crate::store::rep::RepCache;
use crate::store::{Key, Table};
use crate::web::http::{self, Client, Failure, Kind, Request, Response};
use crate::web::politeness::{Gate, Policy};
use crate::web::robots::{self, Entry, Robots};
use crate::web::url::{self, Base};
use crate::{debug, info};

/// How nlpc-fetch works.
#[derive(Clone, Debug)]
pub struct Config {
    pub policy: Policy,
    /// Addresses served at once (`--fetch-hosts`).
    pub hosts: usize,
    pub http: http::Config,
    /// How long a robots.txt is trusted at most (`--robots-ttl`).
    pub robots_ttl: Duration,
    /// Redirects followed from a first URL (`--fetch-redirects`).
    pub max_redirects: u8,
    /// `-m`: print the monitor once a second.
    pub monitor: bool,
}

/// A leased record waiting for, or in, a request.
#[derive(Clone, Debug)]
struct Job {
    key: Key,
    rec: Record,
    lease: Lease,
}

/// The work of one physical address.
struct AddrQueue {
    gate: Gate,
    jobs: VecDeque<Job>,
    /// A robots.txt redirect to follow on this address: origin, URL, hops.
    robots_redirect: Option<(String, String, u8)>,
    /// The server answered over HTTP/2: a burst may multiplex. Over
    /// HTTP/1.1 requests go one at a time, each on the kept-alive
    /// connection, so no request waits out its timeout in a queue.
    multiplexed: bool,
}

enum InFlight {
    Page(Box<Job>),
    Robots { origin: String, hops: u8 },
}

/// A result waiting to be committed.
struct Outcome {
    job: Job,
    rec: Record,
    inserts: Vec<Record>,
    history: Option<(Vec<u8>, Vec<u8>)>,
}

/// Counters for the log and the monitor.
#[derive(Default, Clone, Copy)]
struct Stats {
    pages: u64,
    bytes: u64,
    errors: u64,
    robots: u64,
    connections: u64,
}

/// Records in memory per address at most: two bursts' worth, so nothing
/// waits long under a lease.
fn queue_cap(p: &Policy, addr: IpAddr) -> usize {
    let two_bursts = (p.burst.max(1) * 2).max(4);
    // An address with (almost) no rest drains its queue in milliseconds:
    // a deeper queue keeps it busy between two fills.
    if crate::web::politeness::gap(addr, p.polite) < Duration::from_millis(100) {
        two_bursts.max(32)
    } else {
        two_bursts
    }
}

/// Keys looked at past the last useful one before a fill gives up: with
/// few addresses, most of the index belongs to addresses whose queues are
/// full.
const FILL_FUTILE: usize = 512;

/// How long an origin is held while a request to it is in flight.
const BLOCKED: Duration = Duration::from_secs(86_400);

/// Keys looked at per fill pass.
const FILL_SCAN: usize = 4096;

/// The fetcher's state for one run.
pub struct Fetcher<'d> {
    d: &'d Daemon,
    cfg: Config,
    client: Client,
    cache: Cache,
    archive: Archive,
    rep: RepCache,
    addrs: HashMap<IpAddr, AddrQueue>,
    robots: HashMap<String, (Arc<Robots>, u64)>,
    robots_fetching: HashSet<String>,
    /// Origins resting for their robots.txt delay: no request before this.
    origin_next: HashMap<String, Instant>,
    /// Requests in flight to such origins: tag → (origin, delay).
    delayed: HashMap<u64, (String, Duration)>,
    inflight: HashMap<u64, (IpAddr, InFlight)>,
    next_tag: u64,
    outcomes: Vec<Outcome>,
    /// Records whose result could not be stored, to release on the way out.
    unfinished: Vec<Job>,
    /// Per-address entries to persist: when the next burst may start (so a
    /// restarted fetcher stays polite) and whether we still serve it.
    rests: HashMap<IpAddr, AddrEntry>,
    /// Our claim on the addresses we serve; its time is renewed as we go.
    claim: Lease,
    resume: [Option<Key>; 2],
    last_fill: Option<Instant>,
    /// An address ran out of work: fill again soon.
    want_fill: bool,
    last_commit: Instant,
    stats: Stats,
    shown: (Instant, Stats),
    /// Pages per host since the last minute began, for the monitors.
    top: HashMap<String, u64>,
    top_since: Instant,
    /// The last few failures, for the monitors.
    recent: VecDeque<String>,
    published: Instant,
}

/// The key under which nlpc-fetch publishes its figures in `Table::Stats`,
/// once a second, for nlpcd's monitor.
pub const STATS_KEY: &[u8] = b"nlpc-fetch";

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// X-Robots-Tag values that apply to us: returns (noindex, nofollow).
pub fn x_robots(values: &[String]) -> (bool, bool) {
    let (mut noindex, mut nofollow) = (false, false);
    for v in values {
        let mut directives = v.as_str();
        // "botname: noindex" applies to that bot only.
        if let Some((bot, rest)) = v.split_once(':') {
            let bot = bot.trim();
            if !bot.contains([',', ' ']) && !bot.eq_ignore_ascii_case("unavailable_after") {
                if !bot.eq_ignore_ascii_case(robots::PRODUCT) {
                    continue;
                }
                directives = rest;
            }
        }
        for d in directives.split(',').map(|d| d.trim().to_ascii_lowercase()) {
            match d.as_str() {
                "noindex" => noindex = true,
                "nofollow" => nofollow = true,
                "none" => {
                    noindex = true;
                    nofollow = true
                }
                _ => {}
            }
        }
    }
    (noindex, nofollow)
}

/// When the response says it expires: Cache-Control max-age, else Expires.
pub fn expiry(h: &http::Headers, now: u64) -> u64 {
    for d in h.cache_control.split(',') {
        if let Some(v) = d.trim().strip_prefix("max-age=") {
            if let Ok(secs) = v.trim_matches('"').parse::<u64>() {
                return now + secs;
            }
        }
    }
    if h.expires.is_empty() {
        return 0;
    }
    // An invalid Expires (often "0" or "-1") means already expired.
    clock::parse_http_date(&h.expires).unwrap_or(now)
}

/// What `Table::Addrs` holds for one physical address: when its next burst
/// may start, and which fetcher serves it, so two fetchers never serve one
/// server at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddrEntry {
    /// No burst before this, in Unix ms.
    pub until: u64,
    /// The fetcher serving the address, if any.
    pub owner: Option<Lease>,
}

impl AddrEntry {
    fn encode(&self) -> [u8; 20] {
        let mut v = [0; 20];
        v[..8].copy_from_slice(&self.until.to_le_bytes());
        let o = self.owner.unwrap_or_default();
        v[8..12].copy_from_slice(&o.pid.to_le_bytes());
        v[12..].copy_from_slice(&o.time.to_le_bytes());
        v
    }

    fn decode(v: &[u8]) -> AddrEntry {
        let u64_at = |i: usize| {
            v.get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
        };
        let pid = v
            .get(8..12)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .unwrap_or(0);
        AddrEntry {
            until: u64_at(0).unwrap_or(0),
            owner: (pid != 0).then(|| Lease {
                pid,
                time: u64_at(12).unwrap_or(0),
            }),
        }
    }

    /// The entry of `addr`.
    pub fn get(w: &crate::store::Write<'_>, addr: &IpAddr) -> Result<AddrEntry> {
        Ok(w.table_get(Table::Addrs, addr.to_string().as_bytes())?
            .map(|v| AddrEntry::decode(&v))
            .unwrap_or_default())
    }

    fn put(&self, w: &mut crate::store::Write<'_>, addr: &IpAddr) -> Result<()> {
        w.table_put(Table::Addrs, addr.to_string().as_bytes(), &self.encode())
    }
}

/// The path and query of a URL: what robots.txt rules match against.
fn path_and_query(u: &str) -> &str {
    let o = url::origin_of(u);
    let rest = &u[o.len()..];
    if rest.is_empty() {
        "/"
    } else {
        rest
    }
}

impl<'d> Fetcher<'d> {
    pub fn new(d: &'d Daemon, cfg: Config) -> Result<Fetcher<'d>> {
        let client = Client::new(cfg.http.clone())?;
        let c = &d.common;
        Ok(Fetcher {
            d,
            client,
            cache: Cache::new(&c.cache),
            archive: Archive::new(&c.archive),
            rep: RepCache::new(&c.rep),
            cfg,
            addrs: HashMap::new(),
            robots: HashMap::new(),
            robots_fetching: HashSet::new(),
            origin_next: HashMap::new(),
            delayed: HashMap::new(),
            inflight: HashMap::new(),
            next_tag: 1,
            outcomes: Vec::new(),
            unfinished: Vec::new(),
            rests: HashMap::new(),
            claim: d.lease(),
            resume: [None, None],
            last_fill: None,
            want_fill: false,
            last_commit: Instant::now(),
            stats: Stats::default(),
            shown: (Instant::now(), Stats::default()),
            top: HashMap::new(),
            top_since: Instant::now(),
            recent: VecDeque::new(),
            published: Instant::now(),
        })
    }

    fn queued(&self) -> usize {
        self.addrs.values().map(|a| a.jobs.len()).sum()
    }

    /// Runs until stopped or, with `--once`, until READY and DIRTY are
    /// drained.
    pub fn run(&mut self) -> Result<()> {
        info!("started, database {}", self.d.common.db.display());
        // A fetcher killed while writing a body leaves its temporary file.
        let n = self.cache.clean_temporaries()?;
        if n > 0 {
            info!("removed {n} temporary files of killed fetchers");
        }
        let res = self.main_loop();
        // Whatever happened, give back what we hold so nothing waits for a
        // reclaim.
        self.client.abort_all();
        let released = self.release_all();
        res?;
        released?;
        info!(
            "stopped: {} pages, {} bytes, {} errors",
            self.stats.pages, self.stats.bytes, self.stats.errors
        );
        Ok(())
    }

    fn main_loop(&mut self) -> Result<()> {
        loop {
            if self.d.signals.stopping() {
                return Ok(());
            }
            let now = Instant::now();
            // Fill every 100 ms, or at once (but not in a tight loop) when
            // an address ran out of work.
            let since = self.last_fill.map(|t| now.duration_since(t));
            let fill_due = since.is_none_or(|t| {
                t >= Duration::from_millis(100) || (self.want_fill && t >= Duration::from_millis(2))
            });
            if fill_due && self.addrs.len() <= self.cfg.hosts {
                self.fill()?;
                self.last_fill = Some(now);
                self.want_fill = false;
            }
            self.dispatch(now)?;
            let wait = self.wait_time(now);
            for r in self.client.poll(wait)? {
                // Sending the next request before storing this body was
                // tried and was slower: libcurl's wait then found no socket
                // to poll and slept (strace), the new transfer apparently
                // waiting for the host's one connection.
                self.gate_done(&r);
                self.handle(r)?;
            }
            if self.outcomes.len() >= 256
                || (!self.outcomes.is_empty()
                    && self.last_commit.elapsed() >= Duration::from_millis(100))
            {
                self.commit()?;
            }
            self.monitor();
            if self.published.elapsed() >= Duration::from_secs(1) {
                self.publish()?;
            }
            if self.client.in_flight() == 0 && self.queued() == 0 && self.robots_redirects() == 0 {
                self.commit()?;
                if self.input_left()? {
                    // Work is waiting in the database: look for it soon.
                    self.want_fill = true;
                    continue;
                }
                if self.d.common.once || self.d.idle(&[State::Ready, State::Dirty])? {
                    return Ok(());
                }
                self.d.reclaim()?;
            }
        }
    }

    fn robots_redirects(&self) -> usize {
        self.addrs
            .values()
            .filter(|a| a.robots_redirect.is_some())
            .count()
    }

    /// True while READY or DIRTY records remain unleased.
    fn input_left(&self) -> Result<bool> {
        let rd = self.d.store.read()?;
        Ok(rd.count(State::Ready, false)? + rd.count(State::Dirty, false)? > 0)
    }

    fn wait_time(&self, now: Instant) -> Duration {
        let mut w = Duration::from_millis(50);
        // Queues ran dry: refill soon rather than idle a whole wait.
        if self.want_fill {
            w = w.min(Duration::from_millis(2));
        }
        if self.client.in_flight() == 0 {
            for a in self.addrs.values() {
                if !a.jobs.is_empty() && !a.gate.in_burst() {
                    w = w.min(a.gate.next_start().saturating_duration_since(now));
                }
            }
            for t in self.origin_next.values() {
                if *t > now {
                    w = w.min(t.saturating_duration_since(now));
                }
            }
        }
        w
    }

    /// Leases READY and DIRTY records for the addresses being served (and
    /// new addresses while there is room), walking each index from where
    /// the last pass stopped.
    fn fill(&mut self) -> Result<()> {
        let policy = self.cfg.policy;
        let unspecified = IpAddr::from([0, 0, 0, 0]);
        let mut wanted: Vec<(Key, State, IpAddr)> = Vec::new();
        {
            let rd = self.d.store.read()?;
            let mut room: HashMap<IpAddr, usize> = self
                .addrs
                .iter()
                .map(|(a, q)| (*a, queue_cap(&policy, *a).saturating_sub(q.jobs.len())))
                .collect();
            // Free slots in all, counting addresses not yet served; the
            // walk stops once they are taken.
            let mut free: usize = room.values().sum::<usize>()
                + self.cfg.hosts.saturating_sub(room.len()) * queue_cap(&policy, unspecified);
            for (i, state) in [State::Ready, State::Dirty].into_iter().enumerate() {
                let mut seen = 0;
                let mut futile = 0;
                let mut last = None;
                let mut stopped = false;
                let from = self.resume[i];
                rd.walk_keys(state, false, from.as_ref(), |k| {
                    seen += 1;
                    futile += 1;
                    last = Some(k);
                    if seen > FILL_SCAN || futile > FILL_FUTILE || free == 0 {
                        stopped = true;
                        return Ok(false);
                    }
                    // Only the address is needed here: no full decode.
                    let addr = rd
                        .peek(&k, |b| {
                            Record::decode_addr(b)
                                .ok()
                                .and_then(|a| a.parse::<IpAddr>().ok())
                        })?
                        .flatten();
                    let Some(a) = addr else {
                        // A record without a usable address fails on its own.
                        wanted.push((k, state, unspecified));
                        futile = 0;
                        return Ok(true);
                    };
                    if !room.contains_key(&a) && room.len() >= self.cfg.hosts {
                        return Ok(true);
                    }
                    let slot = room.entry(a).or_insert_with(|| queue_cap(&policy, a));
                    if *slot > 0 {
                        *slot -= 1;
                        free = free.saturating_sub(1);
                        futile = 0;
                        wanted.push((k, state, a));
                    }
                    Ok(true)
                })?;
                // Past the end: start from the beginning next time.
                self.resume[i] = if stopped { last } else { None };
            }
        }
        if wanted.is_empty() {
            return Ok(());
        }
        let lease = self.d.lease();
        self.claim.time = clock::real_now();
        let mut w = self.d.store.write()?;
        // Addresses new to this fetcher: claimed here, unless another live
        // fetcher serves them; then their records are left for it.
        let mut rests: HashMap<IpAddr, Option<u64>> = HashMap::new();
        let mut got = Vec::new();
        for (k, state, addr) in wanted {
            if !self.addrs.contains_key(&addr) && !addr.is_unspecified() {
                let until = match rests.get(&addr) {
                    Some(u) => *u,
                    None => {
                        let e = AddrEntry::get(&w, &addr)?;
                        let taken = e
                            .owner
                            .is_some_and(|o| o.pid != self.claim.pid && lease_owner_alive(o));
                        let u = (!taken).then_some(e.until);
                        if !taken {
                            let mine = AddrEntry {
                                until: e.until,
                                owner: Some(self.claim),
                            };
                            mine.put(&mut w, &addr)?;
                        }
                        rests.insert(addr, u);
                        u
                    }
                };
                if until.is_none() {
                    continue;
                }
            }
            if let Some(rec) = w.lease_key(&k, state, lease)? {
                got.push((addr, Job { key: k, rec, lease }));
            }
        }
        w.commit()?;
        let now = Instant::now();
        let now_ms = unix_ms();
        for (addr, job) in got {
            if job.rec.addr.parse::<IpAddr>().is_err() {
                let mut r = job.rec.clone();
                self.fail(&mut r, State::Unreach, "no address".into(), 0);
                self.push_outcome(job, r, Vec::new(), None);
                continue;
            }
            let q = self.addrs.entry(addr).or_insert_with(|| {
                let until = rests.get(&addr).copied().flatten().unwrap_or(0);
                let wait = Duration::from_millis(until.saturating_sub(now_ms));
                AddrQueue {
                    gate: Gate::new(addr, now + wait),
                    jobs: VecDeque::new(),
                    robots_redirect: None,
                    multiplexed: false,
                }
            });
            q.jobs.push_back(job);
        }
        Ok(())
    }

    /// The robots.txt rules of `origin`, if known and fresh: from memory,
    /// else from the REP cache.
    fn robots_of(&mut self, origin: &str, now: u64) -> Result<Option<Arc<Robots>>> {
        if let Some((r, exp)) = self.robots.get(origin) {
            if *exp > now {
                return Ok(Some(r.clone()));
            }
        }
        if let Some(e) = self.rep.load(origin)? {
            if e.expires > now {
                let r = Arc::new(e.robots());
                self.robots
                    .insert(origin.to_string(), (r.clone(), e.expires));
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// Starts whatever requests politeness allows now.
    fn dispatch(&mut self, now: Instant) -> Result<()> {
        let addrs: Vec<IpAddr> = self.addrs.keys().copied().collect();
        let wall = clock::now();
        let mut starting: Vec<IpAddr> = Vec::new();
        let mut requests: Vec<Request> = Vec::new();
        for addr in addrs {
            while let Some(q) = self.addrs.get_mut(&addr) {
                let mut policy = self.cfg.policy;
                if !q.multiplexed {
                    policy.pipeline = 1;
                }
                if !q.gate.may_send(&policy, now) {
                    break;
                }
                // A robots.txt redirect on this address goes first.
                if let Some((origin, u, hops)) = q.robots_redirect.take() {
                    requests.push(self.robots_request(addr, origin, u, hops, &mut starting));
                    continue;
                }
                // The first job whose host may be asked now: not waiting
                // for its robots.txt, nor resting for its Crawl-delay.
                let pick = q.jobs.iter().position(|j| {
                    let o = url::origin_of(&j.rec.url);
                    !self.robots_fetching.contains(o)
                        && self.origin_next.get(o).is_none_or(|t| *t <= now)
                });
                let Some(idx) = pick else {
                    break;
                };
                let origin = url::origin_of(&q.jobs[idx].rec.url).to_string();
                match self.robots_of(&origin, wall)? {
                    None => {
                        // robots.txt first; it counts as a request of the burst.
                        self.robots_fetching.insert(origin.clone());
                        let u = format!("{origin}/robots.txt");
                        requests.push(self.robots_request(addr, origin, u, 0, &mut starting));
                    }
                    Some(rules) => {
                        let Some(q) = self.addrs.get_mut(&addr) else {
                            break;
                        };
                        let Some(job) = q.jobs.remove(idx) else {
                            break;
                        };
                        if let Some(why) = self.refused_by_robots(&rules, &job.rec.url, wall) {
                            let mut r = job.rec.clone();
                            let state = if rules.denies_all() || why.contains("Visit-time") {
                                State::Unreach
                            } else {
                                State::Excluded
                            };
                            info!(
                                "{} {}: {why}",
                                state.name().to_ascii_lowercase(),
                                job.rec.url
                            );
                            self.fail(&mut r, state, why, 0);
                            self.push_outcome(job, r, Vec::new(), None);
                            continue;
                        }
                        let Some(q) = self.addrs.get_mut(&addr) else {
                            break;
                        };
                        if !q.gate.in_burst() {
                            starting.push(addr);
                        }
                        q.gate.sent();
                        let tag = self.tag();
                        // A host with a Crawl-delay gets nothing more until
                        // this request is over and the delay has passed; the
                        // other hosts on the address go on.
                        if let Some(d) = rules.delay().filter(|d| !d.is_zero()) {
                            self.origin_next.insert(origin.clone(), now + BLOCKED);
                            self.delayed.insert(tag, (origin.clone(), d));
                        }
                        requests.push(Request {
                            tag,
                            url: job.rec.url.clone(),
                            addr,
                            kind: Kind::Page,
                            headers: self.conditional_headers(&job),
                        });
                        self.inflight
                            .insert(tag, (addr, InFlight::Page(Box::new(job))));
                    }
                }
            }
        }
        if requests.is_empty() {
            return Ok(());
        }
        // Before a burst leaves, record that the address is resting until
        // at least its gap from now, so a fetcher killed mid-burst and
        // restarted does not start another burst at once. An address with
        // no rest (loopback, politeness 0) needs no record.
        let polite = self.cfg.policy.polite;
        starting.retain(|a| !crate::web::politeness::gap(*a, polite).is_zero());
        if !starting.is_empty() {
            let now_ms = unix_ms();
            let mut w = self.d.store.write()?;
            for addr in &starting {
                let rest = crate::web::politeness::gap(*addr, polite);
                let e = AddrEntry {
                    until: now_ms + rest.as_millis() as u64,
                    owner: Some(self.claim),
                };
                e.put(&mut w, addr)?;
            }
            w.commit()?;
        }
        for r in requests {
            debug!("request {} at {}", r.url, r.addr);
            self.client.start(r)?;
        }
        Ok(())
    }

    /// A robots.txt request on `addr`, counted in its burst.
    fn robots_request(
        &mut self,
        addr: IpAddr,
        origin: String,
        url: String,
        hops: u8,
        starting: &mut Vec<IpAddr>,
    ) -> Request {
        if let Some(q) = self.addrs.get_mut(&addr) {
            if !q.gate.in_burst() {
                starting.push(addr);
            }
            q.gate.sent();
        }
        let tag = self.tag();
        self.inflight
            .insert(tag, (addr, InFlight::Robots { origin, hops }));
        Request {
            tag,
            url,
            addr,
            kind: Kind::Robots,
            headers: Vec::new(),
        }
    }

    fn refused_by_robots(&self, rules: &Robots, u: &str, wall: u64) -> Option<String> {
        if rules.denies_all() {
            return Some("robots.txt unavailable".into());
        }
        if !rules.allowed(path_and_query(u)) {
            return Some("disallowed by robots.txt".into());
        }
        if !rules.visit_allowed(((wall % 86_400) / 60) as u32) {
            return Some("outside robots.txt Visit-time".into());
        }
        None
    }

    fn conditional_headers(&self, job: &Job) -> Vec<String> {
        let r = &job.rec;
        let mut h = Vec::new();
        // Only a record whose body we still hold may be revalidated.
        if r.state == State::Dirty && r.hash != [0; 32] && self.cache.path(&job.key).exists() {
            if !r.etag.is_empty() {
                h.push(format!("If-None-Match: {}", r.etag));
            }
            if !r.last_modified.is_empty() {
                h.push(format!("If-Modified-Since: {}", r.last_modified));
            }
        }
        h
    }

    fn fail(&mut self, r: &mut Record, state: State, reason: String, status: u16) {
        if state == State::Unreach {
            self.stats.errors += 1;
            if self.recent.len() == 5 {
                self.recent.pop_front();
            }
            self.recent.push_back(format!("{}: {reason}", r.url));
        }
        r.state = state;
        r.reason = reason;
        r.status = status;
        r.changed = clock::now();
    }

    fn push_outcome(
        &mut self,
        job: Job,
        rec: Record,
        inserts: Vec<Record>,
        history: Option<(Vec<u8>, Vec<u8>)>,
    ) {
        self.outcomes.push(Outcome {
            job,
            rec,
            inserts,
            history,
        });
    }

    /// A request finished: its address's burst goes on or ends.
    fn gate_done(&mut self, resp: &Response) {
        let Some((addr, _)) = self.inflight.get(&resp.tag) else {
            return;
        };
        let addr = *addr;
        let now = Instant::now();
        if let Some((origin, d)) = self.delayed.remove(&resp.tag) {
            self.origin_next.insert(origin, now + d);
        }
        let policy = self.cfg.policy;
        if let Some(q) = self.addrs.get_mut(&addr) {
            if resp.status != 0 {
                q.multiplexed = resp.multiplexed;
            }
            let more = !q.jobs.is_empty() || q.robots_redirect.is_some();
            let was = q.gate.in_burst();
            q.gate.finished(&policy, now, more);
            if was && !q.gate.in_burst() {
                let rest = q.gate.next_start().saturating_duration_since(now);
                let e = AddrEntry {
                    until: unix_ms() + rest.as_millis() as u64,
                    owner: Some(self.claim),
                };
                self.rests.insert(addr, e);
            }
        }
    }

    fn handle(&mut self, resp: Response) -> Result<()> {
        let Some((addr, what)) = self.inflight.remove(&resp.tag) else {
            return Ok(());
        };
        if resp.new_connection {
            self.stats.connections += 1;
        }
        let now = Instant::now();
        match what {
            InFlight::Robots { origin, hops } => self.robots_done(addr, origin, hops, resp)?,
            InFlight::Page(job) => {
                // If storing fails (a full disk), the record must still be
                // returned to its state when the fetcher stops.
                let held = (*job).clone();
                if let Err(e) = self.page_done(*job, resp) {
                    self.unfinished.push(held);
                    return Err(e);
                }
            }
        }
        // An address with nothing left leaves, making room for another.
        if let Some(q) = self.addrs.get(&addr) {
            if q.jobs.is_empty() {
                self.want_fill = true;
                if q.robots_redirect.is_none() && q.gate.in_flight() == 0 {
                    let until = self.rests.get(&addr).map(|e| e.until).unwrap_or_else(|| {
                        unix_ms()
                            + q.gate
                                .next_start()
                                .saturating_duration_since(now)
                                .as_millis() as u64
                    });
                    self.rests.insert(addr, AddrEntry { until, owner: None });
                    self.addrs.remove(&addr);
                }
            }
        }
        Ok(())
    }

    fn robots_done(
        &mut self,
        addr: IpAddr,
        origin: String,
        hops: u8,
        resp: Response,
    ) -> Result<()> {
        self.stats.robots += 1;
        let now = clock::now();
        let status = if resp.failure.is_some() {
            0
        } else {
            resp.status
        };
        // RFC 9309 2.3.1.2: follow at least five redirects. We follow them
        // on the same host only, since another host's address is not ours
        // to resolve here; any other redirect means "unavailable".
        if (300..400).contains(&status) && hops < 5 && !resp.headers.location.is_empty() {
            if let Some(target) = Base::parse(&resp.url)
                .ok()
                .and_then(|b| b.join(&resp.headers.location).ok())
            {
                if url::host_of(&target) == url::host_of(&resp.url) {
                    if let Some(q) = self.addrs.get_mut(&addr) {
                        q.robots_redirect = Some((origin, target, hops + 1));
                        return Ok(());
                    }
                }
            }
        }
        let ttl = self.cfg.robots_ttl.as_secs();
        let lifetime = match expiry(&resp.headers, now) {
            0 => ttl,
            t => t.saturating_sub(now).min(ttl),
        };
        let entry = Entry {
            origin: origin.clone(),
            fetched: now,
            expires: now + lifetime.max(60),
            status,
            body: if (200..300).contains(&status) {
                resp.body
            } else {
                Vec::new()
            },
        };
        let rules = entry.robots();
        if let Some(f) = &resp.failure {
            info!("robots.txt {}: {f}", resp.url);
        } else {
            info!("robots.txt {}: {}", resp.url, status);
        }
        self.rep.store(&entry)?;
        // Sitemaps listed in robots.txt become NEW records.
        let inserts: Vec<Record> = rules
            .sitemaps
            .iter()
            .filter_map(|s| url::normalise(s).ok())
            .filter(|s| matches!(url::scheme_of(s), "http" | "https"))
            .map(|s| Record::new(&s, now))
            .collect();
        if !inserts.is_empty() {
            let mut w = self.d.store.write()?;
            for r in &inserts {
                w.insert(r)?;
            }
            w.commit()?;
        }
        self.robots
            .insert(origin.clone(), (Arc::new(rules), entry.expires));
        self.robots_fetching.remove(&origin);
        Ok(())
    }

    fn page_done(&mut self, job: Job, resp: Response) -> Result<()> {
        let now = clock::now();
        let mut r = job.rec.clone();
        r.fetched = now;
        r.changed = now;
        let status = resp.status;
        if let Some(f) = &resp.failure {
            let (state, why) = match f {
                Failure::Rejected(why) => (State::Rejected, why.clone()),
                other => (State::Unreach, other.to_string()),
            };
            info!("{} {}: {why}", state.name().to_ascii_lowercase(), r.url);
            if state == State::Rejected {
                r.content_type = resp.headers.content_type.clone();
            }
            self.fail(&mut r, state, why, status);
            self.push_outcome(job, r, Vec::new(), None);
            return Ok(());
        }
        self.stats.bytes += resp.wire_bytes;
        match status {
            200..=299 => self.stored(job, r, resp, now),
            304 if job.rec.state == State::Dirty => {
                info!("unchanged {} (304)", r.url);
                self.stats.pages += 1;
                r.status = 304;
                r.state = State::Fresh;
                r.reason.clear();
                r.revivals = 0;
                let e = expiry(&resp.headers, now);
                if e != 0 {
                    r.expires = e;
                }
                self.push_outcome(job, r, Vec::new(), None);
                Ok(())
            }
            301 | 302 | 303 | 307 | 308 => {
                let target = Base::parse(&r.url)
                    .ok()
                    .and_then(|b| b.join(&resp.headers.location).ok())
                    .map(url::strip_session_ids);
                let (state, why, inserts) = match target {
                    None => (
                        State::Unreach,
                        format!("HTTP {status} without a usable Location"),
                        Vec::new(),
                    ),
                    Some(t) if t == r.url => (State::Unreach, "redirect loop".into(), Vec::new()),
                    Some(_) if r.redirects >= self.cfg.max_redirects => {
                        (State::Unreach, "too many redirects".into(), Vec::new())
                    }
                    Some(t) if !matches!(url::scheme_of(&t), "http" | "https") => {
                        (State::Unreach, format!("redirect to {t}"), Vec::new())
                    }
                    Some(t) => {
                        let mut n = Record::new(&t, now);
                        n.depth = r.depth;
                        n.redirects = r.redirects + 1;
                        (State::Redirect, format!("redirect to {t}"), vec![n])
                    }
                };
                info!("{} {}: {why}", state.name().to_ascii_lowercase(), r.url);
                self.fail(&mut r, state, why, status);
                self.push_outcome(job, r, inserts, None);
                Ok(())
            }
            _ => {
                let why = format!("HTTP {status}");
                info!("unreach {}: {why}", r.url);
                self.fail(&mut r, State::Unreach, why, status);
                self.push_outcome(job, r, Vec::new(), None);
                Ok(())
            }
        }
    }

    /// A 2xx: store the body (archiving the old one if it changed), fill in
    /// the record, and move it to FRESH.
    fn stored(&mut self, job: Job, mut r: Record, resp: Response, now: u64) -> Result<()> {
        let h = &resp.headers;
        let hash = *blake3::hash(&resp.body).as_bytes();
        let mut history = None;
        let changed = hash != job.rec.hash;
        if changed {
            if job.rec.hash != [0; 32] {
                history = self.archive_old(&job)?;
            }
            self.cache.write(&job.key, &resp.body)?;
        }
        let (noindex, nofollow) = x_robots(&h.x_robots_tag);
        r.flags &= !(Flags::NOINDEX | Flags::NOFOLLOW);
        if noindex {
            r.flags |= Flags::NOINDEX;
        }
        if nofollow {
            r.flags |= Flags::NOFOLLOW;
        }
        r.status = resp.status;
        r.state = State::Fresh;
        r.reason.clear();
        r.revivals = 0;
        r.content_type = h.content_type.clone();
        r.charset = http::canonical_charset(&h.charset).unwrap_or_else(|| h.charset.clone());
        r.language = h.languages.first().cloned().unwrap_or_default();
        r.etag = h.etag.clone();
        r.last_modified = h.last_modified.clone();
        r.modified = clock::parse_http_date(&h.last_modified).unwrap_or(0);
        r.expires = expiry(h, now);
        r.size = resp.body.len() as u64;
        r.hash = hash;
        self.stats.pages += 1;
        *self.top.entry(r.host().to_string()).or_insert(0) += 1;
        info!(
            "fetched {} {} {} bytes{}",
            r.url,
            resp.status,
            r.size,
            if changed { "" } else { ", unchanged" }
        );
        self.push_outcome(job, r, Vec::new(), history);
        Ok(())
    }

    /// Keeps the stored body of a re-fetched record in the archive, if it is
    /// still the version the record describes.
    fn archive_old(&mut self, job: &Job) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let old = &job.rec;
        let Some(body) = self.cache.read(&job.key)? else {
            return Ok(None);
        };
        // After a crash between storing a new body and committing, the
        // cache already holds the new body; the old one was archived then.
        if *blake3::hash(&body).as_bytes() != old.hash {
            return Ok(None);
        }
        self.archive
            .keep(&self.cache.path(&job.key), &job.key, old.fetched, &old.hash)?;
        Ok(Some((
            Version::table_key(&job.key, old.fetched),
            Version::of(old).encode(),
        )))
    }

    /// Commits every finished record, its new links and history, and the
    /// addresses' rests, in one transaction.
    fn commit(&mut self) -> Result<()> {
        if self.outcomes.is_empty() && self.rests.is_empty() {
            return Ok(());
        }
        let mut w = self.d.store.write()?;
        for o in &self.outcomes {
            if !w.finish(&o.job.key, &o.rec, o.job.lease)? {
                debug!("{}: lease lost, result dropped", o.rec.url);
                continue;
            }
            for n in &o.inserts {
                w.insert(n)?;
            }
            if let Some((k, v)) = &o.history {
                w.table_put(Table::History, k, v)?;
            }
        }
        for (addr, e) in &self.rests {
            e.put(&mut w, addr)?;
        }
        w.commit()?;
        self.outcomes.clear();
        self.rests.clear();
        self.last_commit = Instant::now();
        Ok(())
    }

    /// Returns every record still held, unchanged, to its state.
    fn release_all(&mut self) -> Result<()> {
        let now = Instant::now();
        for (addr, q) in &self.addrs {
            // A burst cut short rests a full gap from now.
            let rest = if q.gate.in_burst() {
                crate::web::politeness::gap(*addr, self.cfg.policy.polite)
            } else {
                q.gate.next_start().saturating_duration_since(now)
            };
            let until = unix_ms() + rest.as_millis() as u64;
            self.rests.insert(*addr, AddrEntry { until, owner: None });
        }
        self.commit()?;
        let mut held: Vec<Job> = std::mem::take(&mut self.unfinished);
        for (_, q) in self.addrs.drain() {
            held.extend(q.jobs);
        }
        for (_, (_, f)) in self.inflight.drain() {
            if let InFlight::Page(j) = f {
                held.push(*j);
            }
        }
        if held.is_empty() {
            return Ok(());
        }
        let mut w = self.d.store.write()?;
        for j in &held {
            w.finish(&j.key, &j.rec, j.lease)?;
        }
        w.commit()?;
        info!("released {} records", held.len());
        Ok(())
    }

    /// Publishes the running totals and what is being served, for nlpcd's
    /// monitor; the totals restart with the process.
    fn publish(&mut self) -> Result<()> {
        let now = Instant::now();
        // Hosts whose delay is over need no entry.
        self.origin_next.retain(|_, t| *t > now);
        if now.duration_since(self.top_since) >= Duration::from_secs(60) {
            self.top.clear();
            self.top_since = now;
        }
        let mut top: Vec<(&String, &u64)> = self.top.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let resting = self
            .addrs
            .values()
            .filter(|q| !q.gate.in_burst() && q.gate.next_start() > now)
            .count();
        let v = serde_json::json!({
            "pid": std::process::id(),
            "time": clock::real_now(),
            "pages": self.stats.pages,
            "bytes": self.stats.bytes,
            "errors": self.stats.errors,
            "robots": self.stats.robots,
            "connections": self.stats.connections,
            "in_flight": self.client.in_flight(),
            "queued": self.queued(),
            "addresses": self.addrs.len(),
            "resting": resting,
            "top": top.iter().take(5).map(|(h, n)| serde_json::json!([h, n])).collect::<Vec<_>>(),
            "recent": self.recent.iter().collect::<Vec<_>>(),
        });
        let mut w = self.d.store.write()?;
        w.table_put(Table::Stats, STATS_KEY, v.to_string().as_bytes())?;
        w.commit()?;
        self.published = now;
        Ok(())
    }

    /// `-m`: once a second, what is being fetched and how fast.
    fn monitor(&mut self) {
        if !self.cfg.monitor || self.shown.0.elapsed() < Duration::from_secs(1) {
            return;
        }
        let secs = self.shown.0.elapsed().as_secs_f64();
        let (prev, s) = (self.shown.1, self.stats);
        let mut out = String::new();
        let tty = std::io::stdout().is_terminal();
        if tty {
            out.push_str("\x1b[H\x1b[2J");
        }
        out.push_str(&format!(
            "nlpc-fetch: {:.1} pages/s  {:.0} bytes/s  {} errors/s  {} in flight  {} queued  {} addresses\n",
            (s.pages - prev.pages) as f64 / secs,
            (s.bytes - prev.bytes) as f64 / secs,
            s.errors - prev.errors,
            self.client.in_flight(),
            self.queued(),
            self.addrs.len(),
        ));
        if tty {
            let now = Instant::now();
            let mut addrs: Vec<(&IpAddr, &AddrQueue)> = self.addrs.iter().collect();
            addrs.sort_by_key(|(a, _)| **a);
            for (a, q) in addrs.iter().take(20) {
                let state = if q.gate.in_burst() {
                    "fetching".to_string()
                } else {
                    format!(
                        "resting {:.1}s",
                        q.gate
                            .next_start()
                            .saturating_duration_since(now)
                            .as_secs_f64()
                    )
                };
                out.push_str(&format!("  {a:<40} {:>3} queued  {state}\n", q.jobs.len()));
            }
        }
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(out.as_bytes());
        let _ = o.flush();
        self.shown = (Instant::now(), s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_robots_tag_for_us_only() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(x_robots(&v(&["noindex"])), (true, false));
        assert_eq!(x_robots(&v(&["NoIndex, NoFollow"])), (true, true));
        assert_eq!(x_robots(&v(&["none"])), (true, true));
        assert_eq!(x_robots(&v(&["googlebot: noindex"])), (false, false));
        assert_eq!(x_robots(&v(&["nlpcrawl: nofollow"])), (false, true));
        assert_eq!(
            x_robots(&v(&["unavailable_after: 25 Jun 2010 15:00:00 PST"])),
            (false, false)
        );
    }

    #[test]
    fn expiry_from_headers() {
        let mut h = http::Headers {
            cache_control: "public, max-age=600".into(),
            ..http::Headers::default()
        };
        assert_eq!(expiry(&h, 1000), 1600);
        h.cache_control.clear();
        h.expires = "Sun, 06 Nov 1994 08:49:37 GMT".into();
        assert_eq!(expiry(&h, 1000), 784_111_777);
        h.expires = "0".into();
        assert_eq!(expiry(&h, 1000), 1000);
        h.expires.clear();
        assert_eq!(expiry(&h, 1000), 0);
    }

    #[test]
    fn robots_paths() {
        assert_eq!(path_and_query("http://h"), "/");
        assert_eq!(path_and_query("http://h/a?b=c"), "/a?b=c");
    }
}

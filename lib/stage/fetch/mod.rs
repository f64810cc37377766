//! nlpc-fetch: READY and DIRTY records fetched politely, per physical
//! address, over persistent connections; robots.txt obeyed; bodies stored
//! and earlier versions archived; records moved to FRESH, REJECTED,
//! EXCLUDED, REDIRECT or UNREACH.
//!
//! This file holds the fetcher's state and its loop; `queue` fills the
//! per-address queues, `transfer` starts requests when pacing allows,
//! `health` says what an answer shows of its server's distress (pauses)
//! and speed (longer rests), `results` turns answers into records and
//! hands them on, `storer` makes their bodies durable before `writer`
//! commits them, and `stats` keeps the figures (`published` is what
//! nlpcd's monitor reads of them).

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{IsTerminal, Write as _};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::document::charset;
use crate::error::Result;
use crate::run::clock;
use crate::run::daemon::{lease_owner_alive, Daemon};
use crate::store::archive::Archive;
use crate::store::cache::{self, Cache};
use crate::store::record::{Flags, Lease, Record, State};
use crate::store::rep::RepCache;
use crate::store::{Key, Table};
use crate::web::admit::{self, Filter, Refusal};
use crate::web::http::{self, Client, Failure, Kind, Request, Response};
use crate::web::politeness::{Gate, Policy};
use crate::web::robots::{self, Entry, Robots};
use crate::web::url::{self, Base};
use crate::{debug, info};

mod fds;
mod figures;
mod group;
pub mod health;
mod options;
pub mod published;
mod queue;
mod results;
mod rules;
mod stats;
mod storer;
mod transfer;
mod writer;

pub use queue::AddrEntry;
use results::path_and_query;
pub use results::{expiry, x_robots};
pub use rules::{Rules, RulesCache, DEFAULT_CAP as ROBOTS_CACHE_CAP};

/// How nlpc-fetch works.
#[derive(Clone, Debug)]
pub struct Config {
    pub policy: Policy,
    /// Addresses served at once (`--fetch-hosts`).
    pub hosts: usize,
    pub http: http::Config,
    /// How long a robots.txt is trusted at most (`--robots-ttl`).
    pub robots_ttl: Duration,
    /// The longest wait between two requests to one origin that a server
    /// may ask for (Crawl-delay, Request-rate) and get (`--fetch-max-delay`).
    pub max_delay: Duration,
    /// Redirects followed from a first URL (`--fetch-redirects`).
    pub max_redirects: u8,
    /// Which redirect targets and robots.txt Sitemap lines may become
    /// records: the same admission nlpc-scan applies to links.
    pub admit: Filter,
    /// `--yield-sample`, `--yield-min`: hosts whose pages are rarely
    /// accepted get no more of them fetched (`store::harvest`).
    pub yield_rule: crate::store::harvest::Rule,
    /// `-m`: print the monitor once a second.
    pub monitor: bool,
    /// `--stat-every`: how often the counters go into the history.
    pub stat_every: Duration,
    /// `--fetch-store-cap`: bytes of bodies waiting to be made durable at
    /// which no new request starts.
    pub store_cap: u64,
    /// How distress and slowness are heard (`--fetch-pause`,
    /// `--fetch-pause-max`, `--fetch-max-retry-after`,
    /// `--fetch-slow-factor`; see `health`).
    pub health: health::Rules,
    /// `--fetch-sync-each`: sync each body and directory rather than the
    /// file system once per batch.
    pub sync_each: bool,
    /// Focus (off with `--fetch-no-focus`): a fill leases records reached
    /// through rejected pages only after the others it sees.
    pub focus: bool,
}

/// The longest rest between bursts `--fetch-polite` may ask for.
pub const MAX_POLITE: Duration = Duration::from_secs(86_400);

/// The most `--fetch-max-delay` may let a server ask for.
pub const MAX_DELAY_LIMIT: Duration = Duration::from_secs(86_400);

/// The default of `--fetch-max-delay`.
pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(60);

/// Records whose origin or address must wait longer than this are given
/// back to their state unleased rather than held in memory.
pub const HORIZON: Duration = Duration::from_secs(5);

impl Config {
    /// Refuses a configuration with an unbounded wait or transfer, naming
    /// the options at fault.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.policy.polite > MAX_POLITE {
            return Err(format!(
                "--fetch-polite: {}s is more than the limit of {}s",
                self.policy.polite.as_secs_f64(),
                MAX_POLITE.as_secs()
            ));
        }
        if self.max_delay > MAX_DELAY_LIMIT {
            return Err(format!(
                "--fetch-max-delay: {}s is more than the limit of {}s",
                self.max_delay.as_secs_f64(),
                MAX_DELAY_LIMIT.as_secs()
            ));
        }
        let h = &self.health;
        for (name, d) in [
            ("--fetch-pause", h.pause),
            ("--fetch-pause-max", h.pause_max),
            ("--fetch-max-retry-after", h.max_retry_after),
        ] {
            if d > health::PAUSE_LIMIT {
                return Err(format!(
                    "{name}: {}s is more than the limit of {}s",
                    d.as_secs_f64(),
                    health::PAUSE_LIMIT.as_secs()
                ));
            }
        }
        if self.store_cap == 0 {
            return Err("--fetch-store-cap: 0 would let no request start".into());
        }
        self.http.validate()
    }

    /// The delay a robots.txt asks for, capped at `--fetch-max-delay`.
    pub fn delay_of(&self, rules: &Robots) -> Option<Duration> {
        rules
            .delay()
            .filter(|d| !d.is_zero())
            .map(|d| d.min(self.max_delay))
    }
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
    /// A new body, stored by the storer before the commit.
    body: Option<storer::Body>,
}

/// Counters for the log and the monitor.
#[derive(Default, Clone, Copy)]
struct Stats {
    pages: u64,
    bytes: u64,
    errors: u64,
    robots: u64,
    connections: u64,
    /// Pages asked again after their address's distress answer.
    deferred: u64,
    /// Pauses begun (see `health`).
    pauses: u64,
}

/// Answers stored between two looks at the transfers.
const HANDLE_SLICE: usize = 8;

/// How long an origin is held while a request to it is in flight.
const BLOCKED: Duration = Duration::from_secs(86_400);

/// The fetcher's state for one run.
pub struct Fetcher<'d> {
    d: &'d Daemon,
    cfg: Config,
    client: Client,
    cache: Cache,
    archive: Archive,
    rep: RepCache,
    addrs: HashMap<IpAddr, AddrQueue>,
    /// Parsed robots.txt rules, bounded by size; the REP cache on disk
    /// holds them all.
    robots: RulesCache,
    robots_fetching: HashSet<String>,
    /// Origins resting for their robots.txt delay: no request before this.
    origin_next: HashMap<String, Instant>,
    /// Addresses resting past [`HORIZON`]: their records are left in the
    /// store until then.
    far_addrs: HashMap<IpAddr, Instant>,
    /// The last fill leased something: fill again at once when idle.
    fill_leased: bool,
    /// When `--once` last looked whether only waiting records are left.
    waiting_checked: Option<Instant>,
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
    /// What is known of each address's distress and response time (see
    /// `health`); only addresses with something worth remembering.
    health: HashMap<IpAddr, health::Health>,
    /// Requests whose answer was distress: their records are asked again.
    deferred: HashSet<u64>,
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
    figures: figures::Figures,
    /// The thread that makes the loop's write transactions (while running).
    writer: Option<writer::Writer>,
    /// The thread that makes bodies durable before their commit.
    storer: Option<storer::Storer>,
    /// Bytes of bodies fetched and not yet durable.
    waiting: storer::Waiting,
    /// The records of each batch handed to the storer whose commit is not
    /// confirmed yet, oldest first.
    handed: VecDeque<Vec<Job>>,
    /// Bytes of bodies answered and not yet taken in (counted against
    /// `--fetch-store-cap` with `waiting`).
    arriving: u64,
    /// The most `waiting` held, for the log.
    waiting_peak: u64,
    /// A fill's leases are being taken by the writer.
    filling: bool,
    /// Addresses whose next burst is recorded in the store (see
    /// `queue::ARM_SLACK`): it may start without a transaction until then.
    armed: HashMap<IpAddr, Instant>,
    /// Addresses whose burst is being recorded by the writer.
    arming: HashSet<IpAddr>,
    /// Rests begun since the last commit: once it is in, the next burst of
    /// each address is recorded too, till the instant given.
    rest_arms: Vec<(IpAddr, Instant)>,
}

/// The key under which nlpc-fetch publishes its figures in `Table::Stats`,
/// once a second, for nlpcd's monitor.
pub const STATS_KEY: &[u8] = b"nlpc-fetch";

impl<'d> Fetcher<'d> {
    pub fn new(d: &'d Daemon, mut cfg: Config) -> Result<Fetcher<'d>> {
        cfg.hosts = fds::fit(cfg.hosts);
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
            robots: RulesCache::new(ROBOTS_CACHE_CAP),
            robots_fetching: HashSet::new(),
            origin_next: HashMap::new(),
            far_addrs: HashMap::new(),
            fill_leased: false,
            waiting_checked: None,
            delayed: HashMap::new(),
            inflight: HashMap::new(),
            next_tag: 1,
            outcomes: Vec::new(),
            unfinished: Vec::new(),
            rests: HashMap::new(),
            health: HashMap::new(),
            deferred: HashSet::new(),
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
            figures: figures::Figures::new(),
            published: Instant::now(),
            writer: None,
            storer: None,
            waiting: storer::Waiting::default(),
            handed: VecDeque::new(),
            arriving: 0,
            waiting_peak: 0,
            filling: false,
            armed: HashMap::new(),
            arming: HashSet::new(),
            rest_arms: Vec::new(),
        })
    }

    /// Runs until stopped or, with `--once`, until READY and DIRTY are
    /// drained.
    pub fn run(&mut self) -> Result<()> {
        info!("started, database {}", self.d.common.db.display());
        // A fetcher killed while writing a body leaves its temporary file.
        let n = self.cache.clean_temporaries()? + self.archive.clean_temporaries()?;
        if n > 0 {
            info!("removed {n} temporary files of killed fetchers");
        }
        let d: &'d Daemon = self.d;
        let store = &d.store;
        let (res, released) = std::thread::scope(|scope| {
            let w = writer::Writer::start(scope, store);
            let parts = storer::Parts {
                cache: self.cache.clone(),
                archive: self.archive.clone(),
                admit: self.cfg.admit.clone(),
                waiting: self.waiting.clone(),
                sync: if self.cfg.sync_each {
                    cache::Sync::Each
                } else {
                    cache::Sync::FileSystem
                },
            };
            self.storer = Some(storer::Storer::start(scope, w.sender(), parts));
            self.writer = Some(w);
            let res = self.main_loop();
            // Whatever happened, give back what we hold so nothing waits
            // for a reclaim.
            self.client.abort_all();
            let released = self.release_all();
            // The storer holds the writer's other end: it goes first.
            if let Some(s) = self.storer.as_mut() {
                s.close();
            }
            self.storer = None;
            if let Some(w) = self.writer.as_mut() {
                w.close();
            }
            self.writer = None;
            (res, released)
        });
        res?;
        released?;
        // The last figures go into the history too.
        self.write_series(true)?;
        info!(
            "stopped: {} pages, {} bytes, {} errors, at most {} bytes of bodies waiting to be stored",
            self.stats.pages, self.stats.bytes, self.stats.errors, self.waiting_peak
        );
        Ok(())
    }

    fn main_loop(&mut self) -> Result<()> {
        loop {
            if self.d.signals.stopping() {
                return Ok(());
            }
            self.take_replies()?;
            let now = Instant::now();
            // Fill every 100 ms, or at once (but not in a tight loop) when
            // an address ran out of work.
            let since = self.last_fill.map(|t| now.duration_since(t));
            let fill_due = since.is_none_or(|t| {
                t >= Duration::from_millis(100) || (self.want_fill && t >= Duration::from_millis(2))
            });
            if fill_due {
                // Records that must wait long go back to the store first.
                self.park(now)?;
            }
            if fill_due && self.addrs.len() <= self.cfg.hosts {
                self.fill()?;
                self.last_fill = Some(now);
                self.want_fill = false;
            }
            self.dispatch(now)?;
            let wait = self.wait_time(now);
            // New READY or DIRTY records wake the wait, and are leased at
            // the next pass rather than at the next 100 ms fill.
            let wake = self.d.wake_fd(&[State::Ready, State::Dirty]);
            let (done, woken) = self.client.poll_or_wake(wait, wake)?;
            if woken && self.d.drain_wake() {
                self.want_fill = true;
            }
            // The answers end their requests and are stored; then the next
            // requests of the bursts leave, put on the wire at once, before
            // anything that takes the database's write lock (a commit, a
            // fill), which another daemon may hold for a while. Sending
            // them before storing the bodies was tried and was slower:
            // libcurl's wait then found no socket to poll and slept
            // (strace), the new transfer apparently waiting for the host's
            // one connection.
            // The next requests of the bursts leave before the answers'
            // bodies are stored: with hundreds of addresses answering at
            // once, storing them all first held the second request of a
            // burst back by tens of milliseconds.
            let answered = !done.is_empty();
            for r in &done {
                self.gate_done(r);
                self.arriving = self.arriving.saturating_add(r.body.len() as u64);
            }
            if answered {
                self.dispatch(Instant::now())?;
            }
            // Storing answers takes a while when hundreds come at once:
            // between every few, what has finished meanwhile is taken in
            // and the requests politeness allows now leave (the next of a
            // burst, or a burst whose rest ended), rather than after all.
            let mut backlog: VecDeque<Response> = done.into();
            let mut handled = 0usize;
            while let Some(r) = backlog.pop_front() {
                self.arriving = self.arriving.saturating_sub(r.body.len() as u64);
                self.handle(r)?;
                handled += 1;
                if handled.is_multiple_of(HANDLE_SLICE) && !backlog.is_empty() {
                    let more = self.client.poll(Duration::ZERO)?;
                    for r in &more {
                        self.gate_done(r);
                        self.arriving = self.arriving.saturating_add(r.body.len() as u64);
                    }
                    self.dispatch(Instant::now())?;
                    backlog.extend(more);
                }
            }
            // Every answer is taken in by now.
            self.arriving = 0;
            if answered {
                self.take_replies()?;
                self.dispatch(Instant::now())?;
            }
            // A group commit (see `group`): at once when the storer is
            // idle, else with whatever gathers while it works.
            if group::due(
                self.outcomes.len(),
                self.handed.len(),
                self.last_commit.elapsed(),
            ) {
                self.commit()?;
            }
            self.monitor();
            if self.published.elapsed() >= Duration::from_secs(1) {
                self.publish()?;
                self.write_series(false)?;
            }
            if self.client.in_flight() == 0 && self.queued() == 0 && self.robots_redirects() == 0 {
                self.commit()?;
                // Idle: whatever the writer was given is in before the
                // database is asked what is left.
                self.settle()?;
                // A fill that came in during the wait may have queued
                // records, or given some back (their address had left):
                // those are outcomes to commit before the database can
                // say what is left, else --once ends with them unfetched.
                if self.queued() > 0 || !self.outcomes.is_empty() {
                    continue;
                }
                if self.input_left()? {
                    if self.fill_leased {
                        // Work is waiting in the database: look for it soon.
                        self.want_fill = true;
                        continue;
                    }
                    // What is left may all be waiting out a long delay:
                    // --once leaves it, saying so, rather than sit there.
                    if self.d.common.once && self.only_waiting_left(now)? {
                        return Ok(());
                    }
                    continue;
                }
                if self.d.common.once || self.d.idle(&[State::Ready, State::Dirty])? {
                    return Ok(());
                }
                self.d.reclaim()?;
            }
        }
    }

    /// The writer, while the fetcher runs.
    fn writer(&mut self) -> Result<&mut writer::Writer> {
        self.writer
            .as_mut()
            .ok_or_else(|| crate::error::Error::Input("nlpc-fetch: no database writer".into()))
    }

    /// Takes in what the writer has done so far.
    fn take_replies(&mut self) -> Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        for r in w.ready()? {
            self.apply(r);
        }
        Ok(())
    }

    /// Waits till the writer has done everything it was given.
    fn settle(&mut self) -> Result<()> {
        while let Some(w) = self.writer.as_mut() {
            if w.pending() == 0 {
                break;
            }
            if let Some(r) = w.next(Duration::from_secs(1))? {
                self.apply(r);
            }
        }
        Ok(())
    }

    fn apply(&mut self, r: writer::Reply) {
        match r {
            writer::Reply::Leased(l) => self.take_leased(l),
            writer::Reply::Stored => {
                self.handed.pop_front();
            }
            writer::Reply::Committed(arms) | writer::Reply::Armed(arms) => {
                for (addr, through) in arms {
                    self.arming.remove(&addr);
                    // An address that left meanwhile is recorded afresh
                    // when it comes back.
                    if self.addrs.contains_key(&addr) {
                        self.armed.insert(addr, through);
                    }
                }
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
}

//! nlpc-fetch: READY and DIRTY records fetched politely, per physical
//! address, over persistent connections; robots.txt obeyed; bodies stored
//! and earlier versions archived; records moved to FRESH, REJECTED,
//! EXCLUDED, REDIRECT or UNREACH.
//!
//! This file holds the fetcher and its loop. Its state is split by
//! concern, each part in the file of that concern: `queue`'s
//! `Pacing` (the per-address queues it fills, rests, pauses and
//! claims), `transfer`'s `Transfers` (the client, requests in
//! flight, robots.txt rules), `results`' `Storing` (results on
//! their way to the store, the storer and writer threads) and `figures`'
//! `Figures` (counters). `transfer` starts requests when pacing
//! allows, `health` says what an answer shows of its server's distress
//! (pauses) and speed (longer rests), `results` turns answers into records
//! and hands them on, `storer` makes their bodies durable before `writer`
//! commits them, and `stats` shows and publishes the figures (`published`
//! is what nlpcd's monitor reads of them); `addr` is what is stored of
//! each address.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{IsTerminal, Write as _};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::document::charset;
use crate::error::Result;
use crate::run::clock;
use crate::run::daemon::{catch_panic, lease_owner_alive, Daemon};
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

mod addr;
mod fds;
mod figures;
mod fill;
mod focus;
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

pub use addr::AddrEntry;
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
    /// Focus (with `--filter-lang`, off with `--fetch-no-focus`): a fill
    /// leases records class by class, good hosts first, tunnelled records
    /// and poor hosts last (`focus`).
    pub focus: bool,
    /// `--fetch-explore`: the most share of leases exploring records get
    /// while better ones wait.
    pub explore: f64,
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
    /// With focus on a polite address: its host was good when it was
    /// leased or last looked at, and it goes ahead of those whose host
    /// was not (`focus::good_first`).
    good: bool,
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

/// Answers stored between two looks at the transfers.
const HANDLE_SLICE: usize = 8;

/// How long an origin is held while a request to it is in flight.
const BLOCKED: Duration = Duration::from_secs(86_400);

/// The fetcher's state for one run, one part per concern; a method that
/// needs only some parts borrows only those.
pub struct Fetcher<'d> {
    d: &'d Daemon,
    cfg: Config,
    /// The address queues and what paces them (`queue`).
    pacing: queue::Pacing,
    /// Requests in flight and robots.txt (`transfer`).
    transfers: transfer::Transfers,
    /// Results on their way to the store (`results`, `storer`, `writer`).
    storing: results::Storing,
    /// Counters for the log, the monitors and the history (`figures`).
    figures: figures::Figures,
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
            pacing: queue::Pacing::new(d.lease(), cfg.explore),
            transfers: transfer::Transfers::new(client, &c.rep),
            storing: results::Storing::new(&c.cache, &c.archive),
            figures: figures::Figures::new(),
            cfg,
        })
    }

    /// Runs until stopped or, with `--once`, until READY and DIRTY are
    /// drained.
    pub fn run(&mut self) -> Result<()> {
        info!("started, database {}", self.d.common.db.display());
        // A fetcher killed while writing a body leaves its temporary file.
        let n =
            self.storing.cache.clean_temporaries()? + self.storing.archive.clean_temporaries()?;
        if n > 0 {
            info!("removed {n} temporary files of killed fetchers");
        }
        let d: &'d Daemon = self.d;
        let store = &d.store;
        let (res, released) = std::thread::scope(|scope| {
            let w = writer::Writer::start(scope, store);
            let parts = storer::Parts {
                cache: self.storing.cache.clone(),
                archive: self.storing.archive.clone(),
                admit: self.cfg.admit.clone(),
                waiting: self.storing.waiting.clone(),
                sync: if self.cfg.sync_each {
                    cache::Sync::Each
                } else {
                    cache::Sync::FileSystem
                },
            };
            self.storing.storer = Some(storer::Storer::start(scope, w.sender(), parts));
            self.storing.writer = Some(w);
            // A panic in the loop (a bug) must still close the threads'
            // channels, or the scope waits for them for ever and the
            // process, its loop gone, no longer even answers SIGTERM.
            let res = catch_panic("", || self.main_loop());
            // Whatever else happened, give back what we hold so nothing
            // waits for a reclaim (after a panic the state is not to be
            // trusted: the leases are reclaimed as a dead process's).
            self.transfers.client.abort_all();
            let released = match res {
                Ok(_) => self.release_all(),
                Err(_) => Ok(()),
            };
            // The storer holds the writer's other end: it goes first.
            if let Some(s) = self.storing.storer.as_mut() {
                s.close();
            }
            self.storing.storer = None;
            if let Some(w) = self.storing.writer.as_mut() {
                w.close();
            }
            self.storing.writer = None;
            (res, released)
        });
        // As a batch daemon's: it ends, counting the failure against the
        // records it held.
        let res = res.map_err(|why| d.failed(why))?;
        res?;
        released?;
        // The last figures go into the history too.
        self.write_series(true)?;
        info!(
            "stopped: {} pages, {} bytes, {} errors, at most {} bytes of bodies waiting to be stored",
            self.figures.stats.pages,
            self.figures.stats.bytes,
            self.figures.stats.errors,
            self.storing.waiting_peak
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
            // Fill every 100 ms (less often while fills find only resting
            // records), or at once (but not in a tight loop) when an
            // address ran out of work.
            let since = self.pacing.last_fill.map(|t| now.duration_since(t));
            let fill_due = since.is_none_or(|t| {
                t >= self.pacing.fill_gap
                    || (self.pacing.want_fill && t >= Duration::from_millis(2))
            });
            if fill_due {
                // Records that must wait long go back to the store first.
                self.park(now)?;
            }
            if fill_due && self.pacing.addrs.len() <= self.cfg.hosts {
                self.fill()?;
                self.pacing.last_fill = Some(now);
                self.pacing.want_fill = false;
            }
            self.dispatch(now)?;
            let wait = self.wait_time(now);
            // New READY or DIRTY records wake the wait, and are leased at
            // the next pass rather than at the next 100 ms fill.
            let wake = self.d.wake_fd(&[State::Ready, State::Dirty]);
            let (done, woken) = self.transfers.client.poll_or_wake(wait, wake)?;
            if woken && self.d.drain_wake() {
                self.pacing.want_fill = true;
                self.pacing.stir();
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
                self.storing.arriving = self.storing.arriving.saturating_add(r.body.len() as u64);
            }
            // A robots.txt is taken in before that, so a new host's first
            // page goes in the burst its robots.txt began rather than a
            // whole rest later behind another host's (its file is kept on
            // disk after, by `keep_robots`).
            let done = self.take_robots(done)?;
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
                self.storing.arriving = self.storing.arriving.saturating_sub(r.body.len() as u64);
                self.handle(r)?;
                handled += 1;
                if handled.is_multiple_of(HANDLE_SLICE) && !backlog.is_empty() {
                    let more = self.transfers.client.poll(Duration::ZERO)?;
                    for r in &more {
                        self.gate_done(r);
                        self.storing.arriving =
                            self.storing.arriving.saturating_add(r.body.len() as u64);
                    }
                    let more = self.take_robots(more)?;
                    self.dispatch(Instant::now())?;
                    backlog.extend(more);
                }
            }
            self.keep_robots()?;
            // Every answer is taken in by now.
            self.storing.arriving = 0;
            if answered {
                self.take_replies()?;
                self.dispatch(Instant::now())?;
            }
            // A group commit (see `group`): at once when the storer is
            // idle, else with whatever gathers while it works.
            if group::due(
                self.storing.outcomes.len(),
                self.storing.handed.len(),
                self.storing.last_commit.elapsed(),
            ) {
                self.commit()?;
            }
            self.monitor();
            if self.figures.published.elapsed() >= Duration::from_secs(1) {
                self.publish()?;
                self.write_series(false)?;
            }
            if self.transfers.client.in_flight() == 0
                && self.pacing.queued() == 0
                && self.pacing.robots_redirects() == 0
            {
                self.commit()?;
                // Idle: whatever the writer was given is in before the
                // database is asked what is left.
                self.settle()?;
                // A fill that came in during the wait may have queued
                // records, or given some back (their address had left):
                // those are outcomes to commit before the database can
                // say what is left, else --once ends with them unfetched.
                if self.pacing.queued() > 0 || !self.storing.outcomes.is_empty() {
                    continue;
                }
                if self.input_left()? {
                    if self.pacing.fill_leased {
                        // Work is waiting in the database: look for it soon.
                        self.pacing.want_fill = true;
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

    /// Takes in what the writer has done so far.
    fn take_replies(&mut self) -> Result<()> {
        let Some(w) = self.storing.writer.as_mut() else {
            return Ok(());
        };
        for r in w.ready()? {
            self.apply(r);
        }
        Ok(())
    }

    /// Waits till the writer has done everything it was given.
    fn settle(&mut self) -> Result<()> {
        while let Some(w) = self.storing.writer.as_mut() {
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
                self.storing.handed.pop_front();
            }
            writer::Reply::Committed(arms) | writer::Reply::Armed(arms) => {
                for (addr, through) in arms {
                    self.pacing.arming.remove(&addr);
                    // An address that left meanwhile is recorded afresh
                    // when it comes back.
                    if self.pacing.addrs.contains_key(&addr) {
                        self.pacing.armed.insert(addr, through);
                    }
                }
            }
        }
    }

    /// True while READY or DIRTY records remain unleased.
    fn input_left(&self) -> Result<bool> {
        let rd = self.d.store.read()?;
        Ok(rd.count(State::Ready, false)? + rd.count(State::Dirty, false)? > 0)
    }
}

//! Transfers: which queued requests may go now (bursts, rests, robots.txt
//! delays and Visit-time), the requests themselves, and what an answer
//! means for its address's pacing.

use super::queue::Pacing;
use super::*;
use crate::run::daemon::catch_panic;

/// What a distress answer was, for the log.
fn failure_or_status(resp: &Response) -> String {
    match &resp.failure {
        Some(f) => f.to_string(),
        None => format!("HTTP {}", resp.status),
    }
}

/// Requests and what they need: the HTTP client, the requests in flight,
/// and robots.txt rules (in memory, and the REP cache on disk).
pub(super) struct Transfers {
    pub client: Client,
    pub inflight: HashMap<u64, (IpAddr, InFlight)>,
    pub next_tag: u64,
    /// Requests whose answer was distress: their records are asked again.
    pub deferred: HashSet<u64>,
    /// Parsed robots.txt rules, bounded by size; the REP cache on disk
    /// holds them all.
    pub robots: RulesCache,
    pub rep: RepCache,
    /// Origins whose robots.txt is being asked for.
    pub robots_fetching: HashSet<String>,
    /// robots.txt files whose rules are in use, not yet kept on disk.
    pub robots_to_keep: Vec<Learned>,
}

/// A robots.txt taken in: what `Fetcher::keep_robots` keeps of it.
pub(super) struct Learned {
    /// The URL it was asked at (the last, after redirects).
    pub url: String,
    pub sitemaps: Vec<String>,
    pub entry: Entry,
}

impl Transfers {
    pub fn new(client: Client, rep: &std::path::Path) -> Transfers {
        Transfers {
            client,
            inflight: HashMap::new(),
            next_tag: 1,
            deferred: HashSet::new(),
            robots: RulesCache::new(ROBOTS_CACHE_CAP),
            rep: RepCache::new(rep),
            robots_fetching: HashSet::new(),
            robots_to_keep: Vec::new(),
        }
    }

    /// Whether the answer tagged `tag` is to a robots.txt request.
    pub fn is_robots(&self, tag: u64) -> bool {
        matches!(self.inflight.get(&tag), Some((_, InFlight::Robots { .. })))
    }

    /// A new request's tag.
    pub fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// The robots.txt rules of `origin`, if known and fresh: from memory,
    /// else from the REP cache.
    pub fn robots_of(&mut self, origin: &str, now: u64) -> Result<Option<Rules>> {
        if let Some(r) = self.robots.get(origin) {
            if r.expires > now {
                return Ok(Some(r));
            }
        }
        if let Some(e) = self.rep.load(origin)? {
            if e.expires > now {
                let robots = e.robots();
                // The failure's detail lives only in memory; from disk, an
                // entry without a status was not answered at all.
                let refusal = robots.denies_all().then(|| {
                    if e.status == 0 {
                        "robots.txt unavailable: no answer".to_string()
                    } else {
                        "robots.txt unavailable".to_string()
                    }
                });
                let r = Rules {
                    robots: Arc::new(robots),
                    expires: e.expires,
                    refusal,
                };
                self.robots.insert(origin.to_string(), r.clone());
                return Ok(Some(r));
            }
        }
        Ok(None)
    }
}

/// Why robots.txt (`rules`) refuses `u` at `wall` (Unix seconds), if it does.
fn refused_by_robots(rules: &Rules, u: &str, wall: u64) -> Option<String> {
    if rules.robots.denies_all() {
        return Some(
            rules
                .refusal
                .clone()
                .unwrap_or_else(|| "robots.txt unavailable".into()),
        );
    }
    let rules = &rules.robots;
    if !rules.allowed(path_and_query(u)) {
        return Some("disallowed by robots.txt".into());
    }
    if !rules.visit_allowed(((wall % 86_400) / 60) as u32) {
        return Some("outside robots.txt Visit-time".into());
    }
    None
}

/// The headers that revalidate `job`'s page, whose body `cache` holds.
fn conditional_headers(cache: &Cache, job: &Job) -> Vec<String> {
    let r = &job.rec;
    let mut h = Vec::new();
    // Only a record whose body we still hold may be revalidated.
    if r.state == State::Dirty && r.hash != [0; 32] && cache.path(&job.key).exists() {
        if !r.etag.is_empty() {
            h.push(format!("If-None-Match: {}", r.etag));
        }
        if !r.last_modified.is_empty() {
            h.push(format!("If-Modified-Since: {}", r.last_modified));
        }
    }
    h
}

impl Fetcher<'_> {
    /// Starts whatever requests politeness allows now.
    pub(super) fn dispatch(&mut self, now: Instant) -> Result<()> {
        if self
            .storing
            .waiting
            .get()
            .saturating_add(self.storing.arriving)
            >= self.cfg.store_cap
        {
            // Bodies wait to be made durable: no request starts till the
            // storer catches up, so memory stays bounded however large the
            // bodies; those still in the loop go to it now.
            return self.commit();
        }
        let addrs: Vec<IpAddr> = self.pacing.addrs.keys().copied().collect();
        let wall = clock::now();
        let mut starting: Vec<IpAddr> = Vec::new();
        let mut requests: Vec<Request> = Vec::new();
        let mut to_arm: Vec<IpAddr> = Vec::new();
        for addr in addrs {
            let addr_policy = self.pacing.policy_for(&self.cfg, addr);
            while let Some(q) = self.pacing.addrs.get_mut(&addr) {
                let mut policy = addr_policy;
                if !q.multiplexed {
                    policy.pipeline = 1;
                }
                if !q.gate.may_send(&policy, now) {
                    break;
                }
                // A burst starts only once the store says the address
                // rests a gap from now (so a fetcher killed mid-burst and
                // restarted stays polite); that record is made ahead, when
                // the rest before began, else asked of the writer here.
                if q.gate.begins(&policy, now)
                    && !crate::web::politeness::gap(addr, policy.polite).is_zero()
                    && self.pacing.armed.get(&addr).is_none_or(|t| *t < now)
                {
                    to_arm.push(addr);
                    break;
                }
                // A robots.txt redirect on this address goes first.
                if let Some((origin, u, hops)) = q.robots_redirect.take() {
                    requests.push(self.robots_request(addr, origin, u, hops, now, &mut starting));
                    continue;
                }
                // The first job whose host may be asked now: not waiting
                // for its robots.txt, nor resting for its Crawl-delay.
                let pick = q.jobs.iter().position(|j| {
                    let o = url::origin_of(&j.rec.url);
                    !self.transfers.robots_fetching.contains(o)
                        && self.pacing.origin_next.get(o).is_none_or(|t| *t <= now)
                });
                let Some(idx) = pick else {
                    break;
                };
                let origin = url::origin_of(&q.jobs[idx].rec.url).to_string();
                match self.transfers.robots_of(&origin, wall)? {
                    None => {
                        // robots.txt first; it counts as a request of the burst.
                        self.transfers.robots_fetching.insert(origin.clone());
                        let u = format!("{origin}/robots.txt");
                        requests.push(self.robots_request(addr, origin, u, 0, now, &mut starting));
                    }
                    Some(rules) => {
                        let Some(q) = self.pacing.addrs.get_mut(&addr) else {
                            break;
                        };
                        let Some(job) = q.jobs.remove(idx) else {
                            break;
                        };
                        if queue::low(&policy, addr, q.jobs.len()) {
                            self.pacing.want_fill = true;
                        }
                        if let Some(why) = refused_by_robots(&rules, &job.rec.url, wall) {
                            let mut r = job.rec.clone();
                            let state = if rules.robots.denies_all() || why.contains("Visit-time") {
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
                            self.storing.push_outcome(job, r, Vec::new());
                            continue;
                        }
                        let Some(q) = self.pacing.addrs.get_mut(&addr) else {
                            break;
                        };
                        if q.gate.sent(&policy, now) {
                            starting.push(addr);
                        }
                        let tag = self.transfers.tag();
                        // A host with a Crawl-delay gets nothing more until
                        // this request is over and the delay has passed; the
                        // other hosts on the address go on.
                        if let Some(d) = self.cfg.delay_of(&rules.robots) {
                            self.pacing
                                .origin_next
                                .insert(origin.clone(), now + BLOCKED);
                            self.pacing.delayed.insert(tag, (origin.clone(), d));
                        }
                        requests.push(Request {
                            tag,
                            url: job.rec.url.clone(),
                            addr,
                            kind: Kind::Page,
                            headers: conditional_headers(&self.storing.cache, &job),
                        });
                        self.transfers
                            .inflight
                            .insert(tag, (addr, InFlight::Page(Box::new(job))));
                    }
                }
            }
        }
        // A recorded burst is used once.
        for a in &starting {
            self.pacing.armed.remove(a);
            self.pacing.resumed(*a, now);
        }
        to_arm.retain(|a| !self.pacing.arming.contains(a));
        if !to_arm.is_empty() {
            self.arm(to_arm)?;
        }
        if requests.is_empty() {
            return Ok(());
        }
        for r in requests {
            debug!("request {} at {}", r.url, r.addr);
            self.transfers.client.start(r)?;
        }
        self.transfers.client.send()
    }

    /// Asks the writer to record that each of `addrs` rests a gap (and
    /// [`queue::ARM_SLACK`]) from now, so a burst may start there.
    fn arm(&mut self, addrs: Vec<IpAddr>) -> Result<()> {
        // Rests recorded before go in first, so this record stands.
        self.commit()?;
        self.pacing.arming.extend(addrs.iter().copied());
        let (claim, polite) = (self.pacing.claim, self.cfg.policy.polite);
        self.storing.writer()?.send(Box::new(move |store| {
            let now = Instant::now();
            let now_ms = clock::real_now_ms();
            let mut w = store.write()?;
            for a in &addrs {
                let e = AddrEntry {
                    until: queue::armed_until(*a, now_ms, polite),
                    owner: Some(claim),
                    why: 0,
                    strikes: 0,
                };
                e.put(&mut w, a)?;
            }
            w.commit()?;
            let through = now + queue::ARM_SLACK;
            Ok(writer::Reply::Armed(
                addrs.into_iter().map(|a| (a, through)).collect(),
            ))
        }))
    }

    /// A robots.txt request on `addr`, counted in its burst.
    pub(super) fn robots_request(
        &mut self,
        addr: IpAddr,
        origin: String,
        url: String,
        hops: u8,
        now: Instant,
        starting: &mut Vec<IpAddr>,
    ) -> Request {
        let policy = self.pacing.policy_for(&self.cfg, addr);
        if let Some(q) = self.pacing.addrs.get_mut(&addr) {
            if q.gate.sent(&policy, now) {
                starting.push(addr);
            }
        }
        let tag = self.transfers.tag();
        self.transfers
            .inflight
            .insert(tag, (addr, InFlight::Robots { origin, hops }));
        Request {
            tag,
            url,
            addr,
            kind: Kind::Robots,
            headers: Vec::new(),
        }
    }

    /// A request finished: its address's burst goes on or ends, and what
    /// the answer shows of the server's health is heard.
    pub(super) fn gate_done(&mut self, resp: &Response) {
        let Some((addr, _)) = self.transfers.inflight.get(&resp.tag) else {
            return;
        };
        let heard = self.pacing.answered(&self.cfg, *addr, resp);
        if heard.defer {
            self.transfers.deferred.insert(resp.tag);
        }
        if heard.paused {
            self.figures.stats.pauses += 1;
        }
    }

    /// Takes in the answers to robots.txt requests among `done` (their
    /// rules in use at once, the files kept later), and gives back the
    /// others.
    pub(super) fn take_robots(&mut self, done: Vec<Response>) -> Result<Vec<Response>> {
        let (robots, others): (Vec<Response>, Vec<Response>) = done
            .into_iter()
            .partition(|r| self.transfers.is_robots(r.tag));
        for r in robots {
            self.storing.arriving = self.storing.arriving.saturating_sub(r.body.len() as u64);
            self.handle(r)?;
        }
        Ok(others)
    }

    pub(super) fn handle(&mut self, resp: Response) -> Result<()> {
        let Some((addr, what)) = self.transfers.inflight.remove(&resp.tag) else {
            return Ok(());
        };
        if resp.new_connection {
            self.figures.stats.connections += 1;
        }
        let now = Instant::now();
        let deferred = self.transfers.deferred.remove(&resp.tag);
        match what {
            // The server is in distress, not the file missing: asked again
            // after the pause.
            InFlight::Robots { origin, .. } if deferred => {
                self.figures.stats.robots += 1;
                info!(
                    "robots.txt {}: {}, asked again after the pause",
                    resp.url,
                    failure_or_status(&resp)
                );
                self.transfers.robots_fetching.remove(&origin);
            }
            InFlight::Robots { origin, hops } => self.robots_done(addr, origin, hops, resp)?,
            // Not the page's fault: it keeps its place, unchanged and
            // uncounted, and goes when the pause is over (or back to its
            // state if the pause is long; see `park`).
            InFlight::Page(job) if deferred => {
                self.figures.stats.deferred += 1;
                info!(
                    "deferred {}: {}, asked again after the pause",
                    job.rec.url,
                    failure_or_status(&resp)
                );
                match self.pacing.addrs.get_mut(&addr) {
                    Some(q) => q.jobs.push_front(*job),
                    None => {
                        let r = job.rec.clone();
                        self.storing.push_outcome(*job, r, Vec::new());
                    }
                }
            }
            InFlight::Page(job) => {
                let took = resp.finished.saturating_duration_since(resp.started);
                self.figures.timed(url::host_of(&resp.url), took);
                // If storing fails (a full disk), the record must still be
                // returned to its state when the fetcher stops.
                let held = (*job).clone();
                // A panic on one answer (a defect a hostile page found)
                // sets that record aside and the fetcher goes on. page_done
                // runs outside any transaction (outcomes are committed
                // later); a panic in it can leave a figure counted or a
                // body file written for the record it quarantines, nothing
                // that misleads the next record.
                match catch_panic(&held.rec.url, || self.page_done(*job, resp)) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        self.storing.unfinished.push(held);
                        return Err(e);
                    }
                    Err(why) => {
                        info!("quarantined {}: {why}", held.rec.url);
                        self.figures.stats.errors += 1;
                        let mut r = held.rec.clone();
                        r.state = State::Quarantined;
                        r.reason = why;
                        r.changed = clock::now();
                        self.storing.push_outcome(held, r, Vec::new());
                    }
                }
            }
        }
        // An address with nothing left leaves, making room for another.
        if let Some(q) = self.pacing.addrs.get(&addr) {
            if q.jobs.is_empty() {
                self.pacing.want_fill = true;
                if q.robots_redirect.is_none() && q.gate.in_flight() == 0 {
                    // The rest it is owed, not the longer one recorded for
                    // a next burst here.
                    let until =
                        clock::real_ms_after(q.gate.next_start().saturating_duration_since(now));
                    let e = self.pacing.addr_entry(addr, until, None);
                    self.pacing.rests.insert(addr, e);
                    self.pacing.addrs.remove(&addr);
                    self.pacing.armed.remove(&addr);
                }
            }
        }
        Ok(())
    }
}

/// What an answer showed of its server's health.
#[derive(Default)]
struct Heard {
    /// Distress: the request is to be made again after the pause.
    defer: bool,
    /// A pause began.
    paused: bool,
}

/// What an answer means for its address's pacing.
impl Pacing {
    /// A request to `addr` finished: its burst goes on or ends, and the
    /// answer is heard (see [`Pacing::hear`]).
    fn answered(&mut self, cfg: &Config, addr: IpAddr, resp: &Response) -> Heard {
        // The rest runs from when the answer was in, not from when this
        // loop came to it: the server saw the request end earlier still.
        let now = resp.finished;
        if let Some((origin, d)) = self.delayed.remove(&resp.tag) {
            self.origin_next.insert(origin, now + d);
        }
        let policy = self.policy_for(cfg, addr);
        if let Some(q) = self.addrs.get_mut(&addr) {
            if resp.status != 0 {
                q.multiplexed = resp.multiplexed;
            }
            let more = !q.jobs.is_empty() || q.robots_redirect.is_some();
            let was = q.gate.in_burst();
            q.gate.finished(&policy, now, more);
            if was && !q.gate.in_burst() {
                // The rest is stored as covering the next burst too, when
                // it starts on time (queue::ARM_SLACK), so that burst needs
                // no transaction of its own.
                let rest = q.gate.next_start().saturating_duration_since(now);
                let start_ms = clock::real_ms_after(rest);
                let gap = crate::web::politeness::gap(addr, policy.polite);
                let until = if gap.is_zero() {
                    start_ms
                } else {
                    self.rest_arms
                        .push((addr, q.gate.next_start() + queue::ARM_SLACK));
                    queue::armed_until(addr, start_ms, policy.polite)
                };
                let e = AddrEntry {
                    until,
                    owner: Some(self.claim),
                    why: 0,
                    strikes: 0,
                };
                self.rests.insert(addr, e);
            }
        }
        // After the gate: a pause overrides the rest just recorded.
        self.hear(&cfg.health, addr, resp, now)
    }

    /// What an answer says of its address's health: a distress answer
    /// pauses the address (its request to be made again when the verdict
    /// says to defer it), another one feeds the smoothed response time.
    fn hear(
        &mut self,
        rules: &health::Rules,
        addr: IpAddr,
        resp: &Response,
        now: Instant,
    ) -> Heard {
        let mut heard = Heard::default();
        let Some(why) = health::distress(resp.status, resp.failure.as_ref()) else {
            let took = resp.finished.saturating_duration_since(resp.started);
            if let Some(h) = self.health.get_mut(&addr) {
                h.answered(took);
            } else if resp.status != 0 && took >= health::SLOW_FLOOR {
                self.health.entry(addr).or_default().answered(took);
            }
            return heard;
        };
        let asked = if matches!(why, health::Why::TooMany | health::Why::Unavailable) {
            health::retry_after(&resp.headers.retry_after, clock::real_now())
        } else {
            None
        };
        let rules = *rules;
        let h = self.health.entry(addr).or_default();
        let verdict = h.strike(asked, &rules, health::noise(addr));
        let strikes = h.strikes;
        let (d, defer) = match verdict {
            health::Verdict::Pause(d) => (d, true),
            health::Verdict::Down(d) => {
                if strikes == health::STRIKES + 1 && !rules.pause.is_zero() {
                    info!(
                        "{addr} taken as down after {} distress answers in a row ({}): its requests fail their records",
                        health::STRIKES + 1,
                        why.name()
                    );
                }
                (d, false)
            }
        };
        heard.defer = defer;
        if d.is_zero() {
            return heard;
        }
        let until = now + d;
        let until_ms = clock::real_ms_after(until.saturating_duration_since(Instant::now()));
        h.paused = Some(health::Pause {
            why,
            until,
            until_ms,
            asked: asked.is_some(),
        });
        heard.paused = true;
        let asked_by = if asked.is_some() {
            ", as Retry-After asked"
        } else {
            ""
        };
        info!(
            "paused {addr} for {:.1}s till {}: {}{asked_by}, {strikes} in a row",
            d.as_secs_f64(),
            clock::iso8601(until_ms / 1000),
            why.name()
        );
        if let Some(q) = self.addrs.get_mut(&addr) {
            q.gate.pause(until);
        }
        let e = self.addr_entry(addr, until_ms, Some(self.claim));
        self.rests.insert(addr, e);
        heard
    }
}

//! Transfers: which queued requests may go now (bursts, rests, robots.txt
//! delays and Visit-time), the requests themselves, and what an answer
//! means for its address's pacing.

use super::*;
use crate::run::daemon::catch_panic;

/// What a distress answer was, for the log.
fn failure_or_status(resp: &Response) -> String {
    match &resp.failure {
        Some(f) => f.to_string(),
        None => format!("HTTP {}", resp.status),
    }
}

impl Fetcher<'_> {
    /// Starts whatever requests politeness allows now.
    pub(super) fn dispatch(&mut self, now: Instant) -> Result<()> {
        if self.waiting.get().saturating_add(self.arriving) >= self.cfg.store_cap {
            // Bodies wait to be made durable: no request starts till the
            // storer catches up, so memory stays bounded however large the
            // bodies; those still in the loop go to it now.
            return self.commit();
        }
        let addrs: Vec<IpAddr> = self.addrs.keys().copied().collect();
        let wall = clock::now();
        let mut starting: Vec<IpAddr> = Vec::new();
        let mut requests: Vec<Request> = Vec::new();
        let mut to_arm: Vec<IpAddr> = Vec::new();
        for addr in addrs {
            let addr_policy = self.policy_for(addr);
            while let Some(q) = self.addrs.get_mut(&addr) {
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
                    && self.armed.get(&addr).is_none_or(|t| *t < now)
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
                        requests.push(self.robots_request(addr, origin, u, 0, now, &mut starting));
                    }
                    Some(rules) => {
                        let Some(q) = self.addrs.get_mut(&addr) else {
                            break;
                        };
                        let Some(job) = q.jobs.remove(idx) else {
                            break;
                        };
                        if queue::low(&policy, addr, q.jobs.len()) {
                            self.want_fill = true;
                        }
                        if let Some(why) = self.refused_by_robots(&rules, &job.rec.url, wall) {
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
                            self.push_outcome(job, r, Vec::new());
                            continue;
                        }
                        let Some(q) = self.addrs.get_mut(&addr) else {
                            break;
                        };
                        if q.gate.sent(&policy, now) {
                            starting.push(addr);
                        }
                        let tag = self.tag();
                        // A host with a Crawl-delay gets nothing more until
                        // this request is over and the delay has passed; the
                        // other hosts on the address go on.
                        if let Some(d) = self.cfg.delay_of(&rules.robots) {
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
        // A recorded burst is used once.
        for a in &starting {
            self.armed.remove(a);
            self.resumed(*a, now);
        }
        to_arm.retain(|a| !self.arming.contains(a));
        if !to_arm.is_empty() {
            self.arm(to_arm)?;
        }
        if requests.is_empty() {
            return Ok(());
        }
        for r in requests {
            debug!("request {} at {}", r.url, r.addr);
            self.client.start(r)?;
        }
        self.client.send()
    }

    /// Asks the writer to record that each of `addrs` rests a gap (and
    /// [`queue::ARM_SLACK`]) from now, so a burst may start there.
    fn arm(&mut self, addrs: Vec<IpAddr>) -> Result<()> {
        // Rests recorded before go in first, so this record stands.
        self.commit()?;
        self.arming.extend(addrs.iter().copied());
        let (claim, polite) = (self.claim, self.cfg.policy.polite);
        self.writer()?.send(Box::new(move |store| {
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
        let policy = self.policy_for(addr);
        if let Some(q) = self.addrs.get_mut(&addr) {
            if q.gate.sent(&policy, now) {
                starting.push(addr);
            }
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

    pub(super) fn refused_by_robots(&self, rules: &Rules, u: &str, wall: u64) -> Option<String> {
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

    pub(super) fn conditional_headers(&self, job: &Job) -> Vec<String> {
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

    /// The politeness of `addr`: the rest between bursts stretched for a
    /// slow server (see `health`).
    pub(super) fn policy_for(&self, addr: IpAddr) -> Policy {
        let mut p = self.cfg.policy;
        if let Some(h) = self.health.get(&addr) {
            p.polite = h.rest(p.polite, &self.cfg.health);
        }
        p
    }

    /// A burst began on `addr`: a pause that is over is said to be.
    fn resumed(&mut self, addr: IpAddr, now: Instant) {
        let Some(h) = self.health.get_mut(&addr) else {
            return;
        };
        if let Some(p) = h.paused.filter(|p| p.until <= now) {
            h.paused = None;
            info!("resumed {addr} after a pause for {}", p.why.name());
        }
    }

    /// What an answer says of its address's health: a distress answer
    /// pauses the address (its request to be made again, when `deferred`
    /// holds its tag), another one feeds the smoothed response time.
    fn hear(&mut self, addr: IpAddr, resp: &Response, now: Instant) {
        let Some(why) = health::distress(resp.status, resp.failure.as_ref()) else {
            let took = resp.finished.saturating_duration_since(resp.started);
            if let Some(h) = self.health.get_mut(&addr) {
                h.answered(took);
            } else if resp.status != 0 && took >= health::SLOW_FLOOR {
                self.health.entry(addr).or_default().answered(took);
            }
            return;
        };
        let asked = if matches!(why, health::Why::TooMany | health::Why::Unavailable) {
            health::retry_after(&resp.headers.retry_after, clock::real_now())
        } else {
            None
        };
        let rules = self.cfg.health;
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
        if defer {
            self.deferred.insert(resp.tag);
        }
        if d.is_zero() {
            return;
        }
        let until = now + d;
        let until_ms = clock::real_ms_after(until.saturating_duration_since(Instant::now()));
        h.paused = Some(health::Pause {
            why,
            until,
            until_ms,
            asked: asked.is_some(),
        });
        self.stats.pauses += 1;
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
    }

    /// The entry `Table::Addrs` gets for `addr` resting till `until` (Unix
    /// ms): with its pause, if one is under way.
    pub(super) fn addr_entry(&self, addr: IpAddr, until: u64, owner: Option<Lease>) -> AddrEntry {
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

    /// A request finished: its address's burst goes on or ends.
    pub(super) fn gate_done(&mut self, resp: &Response) {
        let Some((addr, _)) = self.inflight.get(&resp.tag) else {
            return;
        };
        let addr = *addr;
        // The rest runs from when the answer was in, not from when this
        // loop came to it: the server saw the request end earlier still.
        let now = resp.finished;
        if let Some((origin, d)) = self.delayed.remove(&resp.tag) {
            self.origin_next.insert(origin, now + d);
        }
        let policy = self.policy_for(addr);
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
        self.hear(addr, resp, now);
    }

    pub(super) fn handle(&mut self, resp: Response) -> Result<()> {
        let Some((addr, what)) = self.inflight.remove(&resp.tag) else {
            return Ok(());
        };
        if resp.new_connection {
            self.stats.connections += 1;
        }
        let now = Instant::now();
        let deferred = self.deferred.remove(&resp.tag);
        match what {
            // The server is in distress, not the file missing: asked again
            // after the pause.
            InFlight::Robots { origin, .. } if deferred => {
                self.stats.robots += 1;
                info!(
                    "robots.txt {}: {}, asked again after the pause",
                    resp.url,
                    failure_or_status(&resp)
                );
                self.robots_fetching.remove(&origin);
            }
            InFlight::Robots { origin, hops } => self.robots_done(addr, origin, hops, resp)?,
            // Not the page's fault: it keeps its place, unchanged and
            // uncounted, and goes when the pause is over (or back to its
            // state if the pause is long; see `park`).
            InFlight::Page(job) if deferred => {
                self.stats.deferred += 1;
                info!(
                    "deferred {}: {}, asked again after the pause",
                    job.rec.url,
                    failure_or_status(&resp)
                );
                match self.addrs.get_mut(&addr) {
                    Some(q) => q.jobs.push_front(*job),
                    None => {
                        let r = job.rec.clone();
                        self.push_outcome(*job, r, Vec::new());
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
                        self.unfinished.push(held);
                        return Err(e);
                    }
                    Err(why) => {
                        info!("quarantined {}: {why}", held.rec.url);
                        self.stats.errors += 1;
                        let mut r = held.rec.clone();
                        r.state = State::Quarantined;
                        r.reason = why;
                        r.changed = clock::now();
                        self.push_outcome(held, r, Vec::new());
                    }
                }
            }
        }
        // An address with nothing left leaves, making room for another.
        if let Some(q) = self.addrs.get(&addr) {
            if q.jobs.is_empty() {
                self.want_fill = true;
                if q.robots_redirect.is_none() && q.gate.in_flight() == 0 {
                    // The rest it is owed, not the longer one recorded for
                    // a next burst here.
                    let until =
                        clock::real_ms_after(q.gate.next_start().saturating_duration_since(now));
                    let e = self.addr_entry(addr, until, None);
                    self.rests.insert(addr, e);
                    self.addrs.remove(&addr);
                    self.armed.remove(&addr);
                }
            }
        }
        Ok(())
    }

    pub(super) fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }
}

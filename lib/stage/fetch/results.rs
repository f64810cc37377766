//! Storing results: what an answer means for its record (stored, archived,
//! rejected, excluded, redirected, unreachable), and the batched commit
//! that applies them under the records' leases; [`Storing`] is the
//! fetcher's part that holds them till then.

use super::transfer::Learned;
use super::*;
use crate::store::scope;

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

/// The longest Cache-Control max-age taken as it is: a year, as the older
/// HTTP/1.1 specification asked of servers. nlpc-up only uses an expiry to
/// refetch sooner than --ttexp, so a longer one would change nothing, and a
/// max-age near 2^64 must not wrap around to before the fetch.
pub const MAX_EXPIRY: u64 = 365 * 86_400;

/// When the response says it expires: Cache-Control max-age, else Expires.
pub fn expiry(h: &http::Headers, now: u64) -> u64 {
    for d in h.cache_control.split(',') {
        if let Some(v) = d.trim().strip_prefix("max-age=") {
            let v = v.trim_matches('"');
            // Digits too many for u64 still mean "very long" (RFC 9111 1.2.2).
            if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
                let secs = v.parse::<u64>().unwrap_or(u64::MAX);
                return now.saturating_add(secs.min(MAX_EXPIRY));
            }
        }
    }
    if h.expires.is_empty() {
        return 0;
    }
    // An invalid Expires (often "0" or "-1") means already expired.
    clock::parse_http_date(&h.expires).unwrap_or(now)
}

/// The path and query of a URL: what robots.txt rules match against.
pub(super) fn path_and_query(u: &str) -> &str {
    let o = url::origin_of(u);
    let rest = &u[o.len()..];
    if rest.is_empty() {
        "/"
    } else {
        rest
    }
}

/// Results on their way to the store: gathered here, their bodies made
/// durable by the storer, then committed by the writer (which also makes
/// the loop's other write transactions).
pub(super) struct Storing {
    /// The thread that makes the loop's write transactions (while running).
    pub writer: Option<writer::Writer>,
    /// The thread that makes bodies durable before their commit.
    pub storer: Option<storer::Storer>,
    pub cache: Cache,
    pub archive: Archive,
    pub outcomes: Vec<Outcome>,
    pub last_commit: Instant,
    /// The records of each batch handed to the storer whose commit is not
    /// confirmed yet, oldest first.
    pub handed: VecDeque<Vec<Job>>,
    /// Records whose result could not be stored, to release on the way out.
    pub unfinished: Vec<Job>,
    /// Bytes of bodies fetched and not yet durable.
    pub waiting: storer::Waiting,
    /// Bytes of bodies answered and not yet taken in (counted against
    /// `--fetch-store-cap` with `waiting`).
    pub arriving: u64,
    /// The most `waiting` held, for the log.
    pub waiting_peak: u64,
}

impl Storing {
    pub fn new(cache: &std::path::Path, archive: &std::path::Path) -> Storing {
        Storing {
            writer: None,
            storer: None,
            cache: Cache::new(cache),
            archive: Archive::new(archive),
            outcomes: Vec::new(),
            last_commit: Instant::now(),
            handed: VecDeque::new(),
            unfinished: Vec::new(),
            waiting: storer::Waiting::default(),
            arriving: 0,
            waiting_peak: 0,
        }
    }

    /// The writer, while the fetcher runs.
    pub fn writer(&mut self) -> Result<&mut writer::Writer> {
        self.writer
            .as_mut()
            .ok_or_else(|| crate::error::Error::Input("nlpc-fetch: no database writer".into()))
    }

    /// How long till the writer's replies or a group commit are due
    /// (`Duration::MAX` when neither is).
    pub fn wait(&self) -> Duration {
        let mut w = Duration::MAX;
        // The writer's replies wake nothing: look for them often while
        // some are due (leases to queue, bursts recorded).
        if self.writer.as_ref().is_some_and(|wr| wr.pending() > 0) {
            w = w.min(Duration::from_millis(2));
        }
        // Results gathered go to an idle storer once the spacing is over
        // (while a batch is in the storer, the writer's reply is awaited
        // as above).
        if let Some(left) = group::spacing_left(
            self.outcomes.len(),
            self.handed.len(),
            self.last_commit.elapsed(),
        ) {
            w = w.min(left);
        }
        w
    }

    /// A finished record and the links it adds, to be committed; its
    /// history entry and new body, if any, are the storer's to add.
    pub fn push_outcome(&mut self, job: Job, rec: Record, inserts: Vec<Record>) {
        self.outcomes.push(Outcome {
            job,
            rec,
            inserts,
            history: None,
            body: None,
        });
    }

    /// Gives `b` to the storer; its commit's reply (`Reply::Stored`) comes
    /// from the writer. Its records are remembered till then, to be given
    /// back if the storer or the writer stops first.
    fn hand_over(&mut self, b: storer::Batch) -> Result<()> {
        self.handed
            .push_back(b.outcomes.iter().map(|o| o.job.clone()).collect());
        let Some(s) = self.storer.as_ref() else {
            return Err(crate::error::Error::Input(
                "nlpc-fetch: no body storing thread".into(),
            ));
        };
        if let Err(e) = s.send(b) {
            // The storer stops once the writer has; the writer says why.
            return Err(self.writer()?.failure().unwrap_or(e));
        }
        self.writer()?.expect();
        Ok(())
    }
}

impl Fetcher<'_> {
    pub(super) fn fail(&mut self, r: &mut Record, state: State, reason: String, status: u16) {
        if state == State::Unreach {
            self.figures.unreach(&r.url, &reason, status);
        }
        if state == State::Rejected {
            crate::store::sched::forget_body(r);
        }
        r.state = state;
        r.reason = reason;
        r.status = status;
        r.changed = clock::now();
    }

    pub(super) fn robots_done(
        &mut self,
        addr: IpAddr,
        origin: String,
        hops: u8,
        resp: Response,
    ) -> Result<()> {
        self.figures.stats.robots += 1;
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
                    if let Some(q) = self.pacing.addrs.get_mut(&addr) {
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
        let expires = entry.expires;
        // Kept on disk, and its Sitemap lines admitted, by `keep_robots`
        // once the next requests have left.
        self.transfers.robots_to_keep.push(Learned {
            url: resp.url.clone(),
            sitemaps: rules.sitemaps.clone(),
            entry,
        });
        // The robots.txt request counts in the pacing: the first page waits
        // out the delay from when the file arrived.
        if let Some(d) = self.cfg.delay_of(&rules) {
            if rules.delay().is_some_and(|asked| asked > d) {
                info!(
                    "robots.txt {}: delay of {}s capped at {}s (--fetch-max-delay)",
                    resp.url,
                    rules.delay().unwrap_or(d).as_secs_f64(),
                    d.as_secs_f64()
                );
            }
            self.pacing
                .origin_next
                .insert(origin.clone(), Instant::now() + d);
        }
        self.transfers.robots_fetching.remove(&origin);
        // Why a page is refused when the file was not had: a connection
        // that failed is named, so nlpc-up resolves the host again.
        let refusal = rules.denies_all().then(|| match &resp.failure {
            Some(f) => format!("robots.txt unavailable: {f}"),
            None => "robots.txt unavailable".to_string(),
        });
        self.transfers.robots.insert(
            origin,
            Rules {
                robots: Arc::new(rules),
                expires,
                refusal,
            },
        );
        Ok(())
    }

    /// Keeps the robots.txt files taken in since the last call: each in
    /// the REP cache (a synced file), and its Sitemap lines admitted as
    /// NEW records. Their rules were in use from the moment each arrived
    /// (`robots_done`); this is the slow part, done after the requests
    /// that the rules let go have left.
    pub(super) fn keep_robots(&mut self) -> Result<()> {
        let now = clock::now();
        for l in std::mem::take(&mut self.transfers.robots_to_keep) {
            self.transfers.rep.store(&l.entry)?;
            // Sitemaps listed in robots.txt become NEW records, if admitted.
            let inserts = self.admit_sitemaps(&l.url, &l.sitemaps, now);
            if !inserts.is_empty() {
                let mut w = self.d.store.write()?;
                for r in &inserts {
                    if let Err(why) = scope::insert(&mut w, r, &self.cfg.admit)? {
                        info!("robots.txt {}: Sitemap {}: {why}", l.url, r.url);
                    }
                }
                w.commit()?;
            }
        }
        Ok(())
    }

    /// The NEW records of a robots.txt's Sitemap lines, those admission
    /// lets in. Each refusal is logged with its reason: the first few as
    /// info lines, the rest as debug lines and a count, so a hostile file of
    /// thousands of lines cannot flood the log.
    fn admit_sitemaps(&self, robots_url: &str, sitemaps: &[String], now: u64) -> Vec<Record> {
        const SAID: usize = 5;
        let mut inserts = Vec::new();
        let mut refused = 0usize;
        for s in sitemaps {
            match self.cfg.admit.admit(s, None) {
                Ok(u) => inserts.push(Record::new(&u, now)),
                Err(why) => {
                    refused += 1;
                    if refused <= SAID {
                        info!(
                            "robots.txt {}: Sitemap {} not admitted: {why}",
                            admit::shown(robots_url),
                            admit::shown(s)
                        );
                    } else {
                        debug!(
                            "robots.txt {}: Sitemap {} not admitted: {why}",
                            admit::shown(robots_url),
                            admit::shown(s)
                        );
                    }
                }
            }
        }
        if refused > SAID {
            info!(
                "robots.txt {}: {refused} Sitemap lines not admitted in all",
                admit::shown(robots_url)
            );
        }
        inserts
    }

    pub(super) fn page_done(&mut self, job: Job, resp: Response) -> Result<()> {
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
            self.storing.push_outcome(job, r, Vec::new());
            return Ok(());
        }
        self.figures.stats.bytes += resp.wire_bytes;
        match status {
            200..=299 => self.stored(job, r, resp, now),
            304 if job.rec.state == State::Dirty => {
                info!("unchanged {} (304)", r.url);
                self.figures.stats.pages += 1;
                r.status = 304;
                r.state = State::Fresh;
                r.reason.clear();
                r.revivals = 0;
                let e = expiry(&resp.headers, now);
                if e != 0 {
                    r.expires = e;
                }
                self.storing.push_outcome(job, r, Vec::new());
                Ok(())
            }
            301 | 302 | 303 | 307 | 308 => {
                let location = resp.headers.location.trim();
                let target = match Base::parse(&r.url) {
                    Ok(b) if !location.is_empty() => Some(self.cfg.admit.admit(location, Some(&b))),
                    _ => None,
                };
                let (state, why, inserts) = match target {
                    None | Some(Err(Refusal::NotAUrl(_))) => (
                        State::Unreach,
                        format!("HTTP {status} without a usable Location"),
                        Vec::new(),
                    ),
                    // A target admission refuses is a filter's verdict, not
                    // a failure to retry: REJECTED, with the reason.
                    Some(Err(refusal)) => (
                        State::Rejected,
                        format!("redirect to a URL not admitted: {refusal}"),
                        Vec::new(),
                    ),
                    Some(Ok(t)) if url::same_resource(&t, &r.url) => {
                        (State::Unreach, "redirect loop".into(), Vec::new())
                    }
                    Some(Ok(_)) if r.redirects >= self.cfg.max_redirects => {
                        (State::Unreach, "too many redirects".into(), Vec::new())
                    }
                    Some(Ok(t)) => {
                        let mut n = Record::new(&t, now);
                        n.depth = r.depth;
                        n.redirects = r.redirects.saturating_add(1);
                        (State::Redirect, format!("redirect to {t}"), vec![n])
                    }
                };
                info!("{} {}: {why}", state.name().to_ascii_lowercase(), r.url);
                self.fail(&mut r, state, why, status);
                self.storing.push_outcome(job, r, inserts);
                Ok(())
            }
            _ => {
                let why = format!("HTTP {status}");
                info!("unreach {}: {why}", r.url);
                self.fail(&mut r, State::Unreach, why, status);
                self.storing.push_outcome(job, r, Vec::new());
                Ok(())
            }
        }
    }

    /// A 2xx: store the body (archiving the old one if it changed), fill in
    /// the record, and move it to FRESH.
    pub(super) fn stored(
        &mut self,
        job: Job,
        mut r: Record,
        resp: Response,
        now: u64,
    ) -> Result<()> {
        let h = &resp.headers;
        let hash = *blake3::hash(&resp.body).as_bytes();
        let changed = hash != job.rec.hash;
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
        r.charset = charset::canonical(&h.charset).unwrap_or_else(|| h.charset.clone());
        // The header's charset, which nlpc-vrfy has yet to weigh.
        r.charset_source = None;
        r.language = h.languages.first().cloned().unwrap_or_default();
        r.etag = h.etag.clone();
        r.last_modified = h.last_modified.clone();
        r.modified = clock::parse_http_date(&h.last_modified).unwrap_or(0);
        r.expires = expiry(h, now);
        r.size = resp.body.len() as u64;
        r.hash = hash;
        self.figures.fetched(r.host());
        info!(
            "fetched {} {} {} bytes{}",
            r.url,
            resp.status,
            r.size,
            if changed { "" } else { ", unchanged" }
        );
        let archive_old = changed && job.rec.hash != [0; 32];
        let body = changed.then(|| {
            // The body waits in memory till the storer has made it durable.
            let held = self.storing.waiting.add(r.size);
            self.storing.waiting_peak = self.storing.waiting_peak.max(held);
            storer::Body {
                data: resp.body,
                archive_old,
            }
        });
        self.storing.outcomes.push(Outcome {
            job,
            rec: r,
            inserts: Vec::new(),
            history: None,
            body,
        });
        Ok(())
    }

    /// Hands every finished record and its new links to the storer, which
    /// stores their bodies (archiving the versions they replace) and then
    /// has the writer commit them in one transaction; the addresses' rests
    /// go to the writer at once, in order with the bursts recorded since.
    pub(super) fn commit(&mut self) -> Result<()> {
        self.storing.last_commit = Instant::now();
        if !self.storing.outcomes.is_empty() {
            let outcomes = std::mem::take(&mut self.storing.outcomes);
            self.storing.hand_over(storer::Batch { outcomes })?;
        }
        if self.pacing.rests.is_empty() && self.pacing.rest_arms.is_empty() {
            return Ok(());
        }
        let rests: Vec<(IpAddr, AddrEntry)> = self.pacing.rests.drain().collect();
        let arms = std::mem::take(&mut self.pacing.rest_arms);
        let (admit, cache) = (self.cfg.admit.clone(), self.storing.cache.clone());
        self.storing.writer()?.send(Box::new(move |store| {
            commit_outcomes(store, &[], &rests, &admit, &cache)?;
            Ok(writer::Reply::Committed(arms))
        }))
    }

    /// Returns every record still held, unchanged, to its state.
    pub(super) fn release_all(&mut self) -> Result<()> {
        let now = Instant::now();
        for (addr, q) in &self.pacing.addrs {
            // A burst cut short rests a full gap from now.
            let rest = if q.gate.in_burst() {
                crate::web::politeness::gap(*addr, self.cfg.policy.polite)
            } else {
                q.gate.next_start().saturating_duration_since(now)
            };
            let until = clock::real_ms_after(rest);
            let e = self.pacing.addr_entry(*addr, until, None);
            self.pacing.rests.insert(*addr, e);
        }
        // When the storer or the writer has stopped (a full disk), what
        // they were given and did not commit is given back below.
        let handed = self.commit().and_then(|()| self.settle());
        let mut held: Vec<Job> = std::mem::take(&mut self.storing.unfinished);
        held.extend(self.storing.outcomes.drain(..).map(|o| o.job));
        // Records of batches whose commit was not confirmed; those that
        // were committed meanwhile are no longer leased and stay as they are.
        held.extend(self.storing.handed.drain(..).flatten());
        for (_, q) in self.pacing.addrs.drain() {
            held.extend(q.jobs);
        }
        for (_, (_, f)) in self.transfers.inflight.drain() {
            if let InFlight::Page(j) = f {
                held.push(*j);
            }
        }
        if held.is_empty() {
            return handed;
        }
        let mut w = self.d.store.write()?;
        let mut released = 0;
        for j in &held {
            released += usize::from(w.finish(&j.key, &j.rec, j.lease)?);
        }
        w.commit()?;
        info!("released {released} records");
        handed
    }
}

/// The writer's commit of results: each record under its lease, the links
/// of redirects, the history of changed pages, the rests of addresses.
pub(super) fn commit_outcomes(
    store: &crate::store::Store,
    outcomes: &[Outcome],
    rests: &[(IpAddr, AddrEntry)],
    admit: &Filter,
    cache: &Cache,
) -> Result<()> {
    let mut w = store.write()?;
    let mut rejected = Vec::new();
    for o in outcomes {
        if !w.finish(&o.job.key, &o.rec, o.job.lease)? {
            debug!("{}: lease lost, result dropped", o.rec.url);
            continue;
        }
        if o.rec.state == State::Rejected {
            rejected.push(o.job.key);
        }
        for n in &o.inserts {
            if let Err(why) = scope::insert(&mut w, n, admit)? {
                info!("{}: redirect target {}: {why}", o.rec.url, n.url);
            }
        }
        if let Some((k, v)) = &o.history {
            w.table_put(Table::History, k, v)?;
        }
    }
    for (addr, e) in rests {
        e.put(&mut w, addr)?;
    }
    w.commit()?;
    // A REJECTED page's body is not kept (see store::sched::forget_body).
    for key in &rejected {
        cache.remove(key)?;
    }
    Ok(())
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
    fn expiry_far_ahead_is_capped_not_wrapped() {
        let now = 1_700_000_000;
        let mut h = http::Headers {
            cache_control: "max-age=18446744073709551615".into(),
            ..http::Headers::default()
        };
        assert_eq!(expiry(&h, now), now + MAX_EXPIRY);
        h.cache_control = format!("max-age={}", MAX_EXPIRY + 1);
        assert_eq!(expiry(&h, now), now + MAX_EXPIRY);
        h.cache_control = "max-age=99999999999999999999999".into();
        assert_eq!(expiry(&h, now), now + MAX_EXPIRY);
        h.cache_control = "max-age=60".into();
        assert_eq!(expiry(&h, u64::MAX - 10), u64::MAX);
    }

    #[test]
    fn robots_paths() {
        assert_eq!(path_and_query("http://h"), "/");
        assert_eq!(path_and_query("http://h/a?b=c"), "/a?b=c");
    }
}

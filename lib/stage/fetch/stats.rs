//! Figures: counters for the log, the `-m` monitor, and the figures
//! published once a second for nlpcd's monitor.

use super::*;

impl Fetcher<'_> {
    /// Publishes the running totals and what is being served, for nlpcd's
    /// monitor; the totals restart with the process.
    pub(super) fn publish(&mut self) -> Result<()> {
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
        // Addresses in distress now, soonest resumed first; the healthy
        // are forgotten (and, past the cap, the long-resumed).
        self.health.retain(|_, h| !h.healthy(now));
        if self.health.len() > super::health::HEALTH_CAP {
            self.health
                .retain(|_, h| h.paused.is_some_and(|p| p.until > now));
        }
        let mut paused: Vec<(IpAddr, super::health::Pause)> = self
            .health
            .iter()
            .filter_map(|(a, h)| h.paused.filter(|p| p.until > now).map(|p| (*a, p)))
            .collect();
        paused.sort_by_key(|(a, p)| (p.until, *a));
        let n = |x: usize| x as u64;
        let v = super::published::Published {
            pid: u64::from(std::process::id()),
            time: clock::real_now(),
            pages: self.stats.pages,
            bytes: self.stats.bytes,
            errors: self.stats.errors,
            robots: self.stats.robots,
            connections: self.stats.connections,
            deferred: self.stats.deferred,
            pauses: self.stats.pauses,
            in_flight: n(self.client.in_flight()),
            queued: n(self.queued()),
            addresses: n(self.addrs.len()),
            resting: n(resting),
            paused: n(paused.len()),
            paused_list: paused
                .iter()
                .take(5)
                .map(|(a, p)| (a.to_string(), p.why.name().to_string(), p.until_ms / 1000))
                .collect(),
            top: top
                .iter()
                .take(5)
                .map(|(h, c)| (h.to_string(), **c))
                .collect(),
            recent: self.recent.iter().cloned().collect(),
            kinds: self
                .figures
                .kinds
                .iter()
                .map(|(k, c)| (k.to_string(), *c))
                .collect(),
            slowest: self.figures.slowest(5),
        };
        self.published = now;
        // Through the writer: the loop does not wait for the write lock.
        let v = v.to_json();
        self.writer()?.send(Box::new(move |store| {
            let mut w = store.write()?;
            w.table_put(Table::Stats, STATS_KEY, v.as_bytes())?;
            w.commit()?;
            Ok(super::writer::Reply::Committed(Vec::new()))
        }))
    }

    /// `-m`: once a second, what is being fetched and how fast.
    pub(super) fn monitor(&mut self) {
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
                let paused = self
                    .health
                    .get(a)
                    .and_then(|h| h.paused)
                    .filter(|p| p.until > now);
                let state = if let Some(p) = paused {
                    format!(
                        "paused {:.1}s: {}",
                        p.until.saturating_duration_since(now).as_secs_f64(),
                        p.why.name()
                    )
                } else if q.gate.in_burst() {
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

//! Showing the figures `figures` keeps: the `-m` monitor, and the figures
//! published once a second for nlpcd's monitor (`published`).

use super::*;

impl Fetcher<'_> {
    /// Publishes the running totals and what is being served, for nlpcd's
    /// monitor; the totals restart with the process.
    pub(super) fn publish(&mut self) -> Result<()> {
        let now = Instant::now();
        if now.duration_since(self.figures.top_since) >= Duration::from_secs(60) {
            self.figures.top.clear();
            self.figures.top_since = now;
        }
        let mut top: Vec<(&String, &u64)> = self.figures.top.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let (resting, paused) = self.pacing.now_resting(now);
        let n = |x: usize| x as u64;
        let v = super::published::Published {
            pid: u64::from(std::process::id()),
            time: clock::real_now(),
            pages: self.figures.stats.pages,
            bytes: self.figures.stats.bytes,
            errors: self.figures.stats.errors,
            robots: self.figures.stats.robots,
            connections: self.figures.stats.connections,
            deferred: self.figures.stats.deferred,
            pauses: self.figures.stats.pauses,
            in_flight: n(self.transfers.client.in_flight()),
            queued: n(self.pacing.queued()),
            addresses: n(self.pacing.addrs.len()),
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
            recent: self.figures.recent.iter().cloned().collect(),
            kinds: self
                .figures
                .kinds
                .iter()
                .map(|(k, c)| (k.to_string(), *c))
                .collect(),
            slowest: self.figures.slowest(5),
        };
        self.figures.published = now;
        // Through the writer: the loop does not wait for the write lock.
        let v = v.to_json();
        self.storing.writer()?.send(Box::new(move |store| {
            let mut w = store.write()?;
            w.table_put(Table::Stats, STATS_KEY, v.as_bytes())?;
            w.commit()?;
            Ok(super::writer::Reply::Committed(Vec::new()))
        }))
    }

    /// `-m`: once a second, what is being fetched and how fast.
    pub(super) fn monitor(&mut self) {
        if !self.cfg.monitor || self.figures.shown.0.elapsed() < Duration::from_secs(1) {
            return;
        }
        let secs = self.figures.shown.0.elapsed().as_secs_f64();
        let (prev, s) = (self.figures.shown.1, self.figures.stats);
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
            self.transfers.client.in_flight(),
            self.pacing.queued(),
            self.pacing.addrs.len(),
        ));
        if tty {
            let now = Instant::now();
            let mut addrs: Vec<(&IpAddr, &AddrQueue)> = self.pacing.addrs.iter().collect();
            addrs.sort_by_key(|(a, _)| **a);
            for (a, q) in addrs.iter().take(20) {
                let paused = self
                    .pacing
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
        self.figures.shown = (Instant::now(), s);
    }
}

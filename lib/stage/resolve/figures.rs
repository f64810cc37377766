//! nlpc-resolve's figures: its running counts published once a second in
//! `Table::Stats` (for nlpcd's monitor, which shows the hosts that did not
//! resolve as DNS failures) and written into the statistics history every
//! `--stat-every` (see [`crate::store::series`]).

use std::time::{Duration, Instant};

use crate::error::Result;
use crate::run::clock;
use crate::stage::resolve::Stats;
use crate::store::{series, Store, Table};

/// The key of nlpc-resolve's figures in `Table::Stats`, and its name in the
/// history.
pub const STATS_KEY: &str = "nlpc-resolve";

/// When the figures were last published and written.
pub struct Figures {
    every: Duration,
    published: Option<Instant>,
    charted: Option<Instant>,
}

impl Figures {
    /// Figures written into the history every `every`.
    pub fn new(every: Duration) -> Figures {
        Figures {
            every,
            published: None,
            charted: None,
        }
    }

    /// Publishes `s` when a second has passed, and writes it into the
    /// history when `every` has (or, `last`, at once).
    pub fn update(&mut self, store: &Store, s: Stats, last: bool) -> Result<()> {
        let due = |t: Option<Instant>, d: Duration| last || t.is_none_or(|t| t.elapsed() >= d);
        let publish = due(self.published, Duration::from_secs(1));
        let chart = due(self.charted, self.every);
        if !publish && !chart {
            return Ok(());
        }
        let mut w = store.write()?;
        if publish {
            let v = serde_json::json!({
                "pid": std::process::id(),
                "time": clock::real_now(),
                "queries": s.queries,
                "resolved": s.resolved,
                "cache_hits": s.cache_hits,
                "unreach": s.unreach,
            });
            w.table_put(Table::Stats, STATS_KEY.as_bytes(), v.to_string().as_bytes())?;
        }
        if chart {
            let counters = [
                ("queries", s.queries),
                ("resolved", s.resolved),
                ("cache_hits", s.cache_hits),
                ("unreach.dns", s.unreach),
            ]
            .map(|(k, v)| (k.to_string(), v));
            series::put(&mut w, clock::real_now(), STATS_KEY, &counters)?;
        }
        w.commit()?;
        let now = Instant::now();
        if publish {
            self.published = Some(now);
        }
        if chart {
            self.charted = Some(now);
        }
        Ok(())
    }
}

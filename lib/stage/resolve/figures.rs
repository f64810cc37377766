//! nlpc-resolve's figures: its running counts published once a second in
//! `Table::Stats` (for nlpcd's monitor, which shows the hosts that did not
//! resolve as DNS failures) and written into the statistics history every
//! `--stat-every` (see [`crate::store::series`]). What is published is
//! [`Published`], written and read by serde so each key is named once.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::run::clock;
use crate::stage::resolve::Stats;
use crate::store::{series, Store, Table};

/// The key of nlpc-resolve's figures in `Table::Stats`, and its name in the
/// history.
pub const STATS_KEY: &str = "nlpc-resolve";

/// nlpc-resolve's figures for the monitor; a key missing from the stored
/// object reads as zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Published {
    pub pid: u64,
    /// When they were written, Unix seconds.
    pub time: u64,
    /// Running counts since the resolver started (see [`Stats`]).
    pub queries: u64,
    pub resolved: u64,
    pub cache_hits: u64,
    pub unreach: u64,
}

impl Published {
    pub fn to_json(&self) -> String {
        crate::stage::figures_to_json(self)
    }

    /// The figures stored in `v`; None when it is no JSON object of them.
    pub fn from_json(v: &[u8]) -> Option<Published> {
        crate::stage::figures_from_json(v)
    }
}

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
            let v = Published {
                pid: u64::from(std::process::id()),
                time: clock::real_now(),
                queries: s.queries,
                resolved: s.resolved,
                cache_hits: s.cache_hits,
                unreach: s.unreach,
            };
            w.table_put(Table::Stats, STATS_KEY.as_bytes(), v.to_json().as_bytes())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_come_back_and_missing_keys_read_as_zero() {
        let p = Published {
            pid: 1,
            time: 2,
            queries: 3,
            resolved: 4,
            cache_hits: 5,
            unreach: 6,
        };
        assert_eq!(Published::from_json(p.to_json().as_bytes()), Some(p));
        let q = Published::from_json(br#"{"unreach": 4}"#).expect("an object");
        assert_eq!(
            q,
            Published {
                unreach: 4,
                ..Published::default()
            }
        );
        assert_eq!(Published::from_json(b"[4]"), None);
        assert_eq!(Published::from_json(b"not json"), None);
    }
}

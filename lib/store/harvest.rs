//! Yield per host: what the crawl's downloads bring into the corpus.
//!
//! nlpc-vrfy adds each verdict to its host's entry in [`Table::Yield`], in
//! the transaction that records the verdict ([`judged`]): pages judged
//! (fetched, as far as the corpus is concerned), pages accepted (VERIFIED),
//! bytes downloaded (the bodies judged) and bytes of accepted main text. A
//! page fetched again is judged again and counts again: the figures measure
//! the work done, not the pages known.
//!
//! The harvest rate is accepted / judged; the yield, bytes of accepted text
//! per byte downloaded. [`Rule`] is `--yield-sample` and `--yield-min`:
//! once a host has had its sample of pages judged, a host whose share of
//! accepted pages is below the minimum has its remaining pages set aside
//! by nlpc-fetch as EXCLUDED ("low yield"), unfetched.

use crate::error::Result;
use crate::store::db::{Key, Table, MAX_TABLE_KEY};
use crate::store::record::{Record, State};
use crate::store::{Read, Write};

/// One host's figures (or the sum over all hosts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostYield {
    /// Pages judged by nlpc-vrfy.
    pub fetched: u64,
    /// Of those, VERIFIED.
    pub accepted: u64,
    /// Bytes of the bodies judged.
    pub bytes: u64,
    /// Bytes (UTF-8) of the main text of the pages accepted.
    pub text: u64,
}

impl HostYield {
    const LEN: usize = 32;

    fn encode(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        for (i, v) in [self.fetched, self.accepted, self.bytes, self.text]
            .into_iter()
            .enumerate()
        {
            b[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// None for a value of another length: an entry this version did not
    /// write is not guessed at.
    fn decode(b: &[u8]) -> Option<HostYield> {
        if b.len() != Self::LEN {
            return None;
        }
        let f = |i: usize| {
            let mut a = [0; 8];
            a.copy_from_slice(&b[i * 8..i * 8 + 8]);
            u64::from_le_bytes(a)
        };
        Some(HostYield {
            fetched: f(0),
            accepted: f(1),
            bytes: f(2),
            text: f(3),
        })
    }

    /// Accepted / fetched; 0 when nothing was fetched.
    pub fn harvest(&self) -> f64 {
        ratio(self.accepted, self.fetched)
    }

    /// Accepted text bytes / downloaded bytes; 0 when nothing was.
    pub fn yield_ratio(&self) -> f64 {
        ratio(self.text, self.bytes)
    }

    fn add(&mut self, o: &HostYield) {
        self.fetched = self.fetched.saturating_add(o.fetched);
        self.accepted = self.accepted.saturating_add(o.accepted);
        self.bytes = self.bytes.saturating_add(o.bytes);
        self.text = self.text.saturating_add(o.text);
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// A host's stored figures, or zero, from `value` (a table lookup).
fn decoded(value: Option<Vec<u8>>) -> HostYield {
    value
        .and_then(|v| HostYield::decode(&v))
        .unwrap_or_default()
}

fn get(w: &Write, host: &str) -> Result<HostYield> {
    Ok(decoded(w.table_get(Table::Yield, host.as_bytes())?))
}

/// `host`'s figures, read in `r`; zero for a host not judged yet, or one
/// that cannot be a key (no host, or a longer one than LMDB holds).
pub fn host_yield(r: &Read, host: &str) -> Result<HostYield> {
    Ok(decoded(r.table_get(Table::Yield, host.as_bytes())?))
}

/// The share of accepted pages below which nlpc-fetch's focus fills a
/// host's records last, when `--yield-min` is off (else half of it).
pub const POOR_HARVEST: f64 = 0.1;

/// Pages of a host judged, none of them accepted, after which focus
/// counts the host poor without waiting for its sample: an order may be
/// set on less evidence than setting pages aside takes.
pub const FIRST_LOOK: u64 = 3;

/// The share of accepted pages under which focus counts a host with some
/// accepted mixed, once [`FIRST_LOOK`] of its pages are judged: most of
/// what it serves is in other languages, and its pages no longer go
/// before new hosts' first looks.
pub const MIXED_HARVEST: f64 = 0.5;

/// Adds nlpc-vrfy's verdict on `rec` (the record under `key` as judged:
/// VERIFIED or REJECTED) to its host's figures; `text` is the bytes of main
/// text the verdict was made on. A rejected page also goes on the
/// tunnelling queue ([`crate::store::tunnel`]). Other states are not
/// verdicts and add nothing.
pub fn judged(w: &mut Write, key: &Key, rec: &Record, text: u64) -> Result<()> {
    crate::store::tunnel::judged(w, key, rec)?;
    let accepted = match rec.state {
        State::Verified => true,
        State::Rejected => false,
        _ => return Ok(()),
    };
    let host = rec.host();
    // A URL without a host (a file: URL planted by hand) or with one longer
    // than a key has no figures to keep.
    if host.is_empty() || host.len() > MAX_TABLE_KEY {
        return Ok(());
    }
    let mut y = get(w, host)?;
    y.add(&HostYield {
        fetched: 1,
        accepted: u64::from(accepted),
        bytes: rec.size,
        text: if accepted { text } else { 0 },
    });
    w.table_put(Table::Yield, host.as_bytes(), &y.encode())
}

/// `--yield-sample` and `--yield-min`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// Pages of a host judged before the rule applies to it.
    pub sample: u64,
    /// The least share of accepted pages; 0 turns the rule off.
    pub min: f64,
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            sample: 20,
            min: 0.0,
        }
    }
}

impl Rule {
    /// Why a host with these figures gets no more of the crawl, or None.
    pub fn low(&self, y: &HostYield) -> Option<String> {
        if self.min <= 0.0 || y.fetched == 0 || y.fetched < self.sample {
            return None;
        }
        (y.harvest() < self.min).then(|| {
            format!(
                "low yield ({} of {} pages accepted, below {})",
                y.accepted, y.fetched, self.min
            )
        })
    }

    /// A host's standing in nlpc-fetch's focus: 0, pages of it accepted
    /// and its harvest not poor or mixed; 1, not judged yet; 2, judged but
    /// none accepted yet, fewer than [`FIRST_LOOK`] pages; 3, poor: none
    /// accepted of [`FIRST_LOOK`] or more, or after its sample a harvest
    /// below half of `--yield-min` ([`POOR_HARVEST`] when that is off);
    /// 4, mixed: some accepted, but under [`MIXED_HARVEST`] of
    /// [`FIRST_LOOK`] or more pages. Focus orders them 0, 1, 4, 2, 3.
    pub fn rank(&self, y: &HostYield) -> u8 {
        let poor = if self.min > 0.0 {
            self.min / 2.0
        } else {
            POOR_HARVEST
        };
        if y.fetched == 0 {
            1
        } else if y.accepted == 0 {
            if y.fetched < FIRST_LOOK {
                2
            } else {
                3
            }
        } else if y.fetched >= self.sample && y.harvest() < poor {
            3
        } else if y.fetched >= FIRST_LOOK && y.harvest() < MIXED_HARVEST {
            4
        } else {
            0
        }
    }

    /// [`Rule::low`] for `host`, read in the transaction `w`.
    pub fn low_host(&self, w: &Write, host: &str) -> Result<Option<String>> {
        if self.min <= 0.0 {
            return Ok(None);
        }
        Ok(self.low(&get(w, host)?))
    }
}

/// The figures of every host, most fetched first, and their sum.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub hosts: Vec<(String, HostYield)>,
    pub total: HostYield,
}

impl Report {
    /// The overall harvest rate: accepted / fetched over every host.
    pub fn harvest(&self) -> f64 {
        self.total.harvest()
    }
}

/// The sum over every host (for the statistics history), without keeping
/// the hosts.
pub fn total(r: &Read) -> Result<HostYield> {
    let mut t = HostYield::default();
    r.table_walk(Table::Yield, b"", |_, v| {
        if let Some(y) = HostYield::decode(v) {
            t.add(&y);
        }
        Ok(true)
    })?;
    Ok(t)
}

/// Every host's figures (for nlpc-list --hosts and the monitor): hosts by
/// pages fetched, most first, then by name.
pub fn report(r: &Read) -> Result<Report> {
    let mut out = Report::default();
    r.table_walk(Table::Yield, b"", |k, v| {
        if let Some(y) = HostYield::decode(v) {
            out.total.add(&y);
            out.hosts.push((String::from_utf8_lossy(k).into_owned(), y));
        }
        Ok(true)
    })?;
    out.hosts
        .sort_by(|a, b| b.1.fetched.cmp(&a.1.fetched).then_with(|| a.0.cmp(&b.0)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_that_cannot_be_a_key_has_no_figures_and_fails_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let st = crate::store::Store::open(tmp.path(), crate::store::Options::default()).unwrap();
        let long = "h".repeat(MAX_TABLE_KEY + 1);
        let rd = st.read().unwrap();
        for h in ["", long.as_str()] {
            assert_eq!(host_yield(&rd, h).unwrap(), HostYield::default());
        }
        drop(rd);
        let w = st.write().unwrap();
        assert_eq!(get(&w, "").unwrap(), HostYield::default());
        assert_eq!(get(&w, &long).unwrap(), HostYield::default());
    }

    #[test]
    fn entries_round_trip_and_ratios_are_safe() {
        let y = HostYield {
            fetched: 4,
            accepted: 1,
            bytes: 1000,
            text: 250,
        };
        assert_eq!(HostYield::decode(&y.encode()), Some(y));
        assert_eq!(HostYield::decode(&[0; 31]), None);
        assert_eq!(y.harvest(), 0.25);
        assert_eq!(y.yield_ratio(), 0.25);
        assert_eq!(HostYield::default().harvest(), 0.0);
    }

    #[test]
    fn ranks_follow_the_harvest_after_the_sample() {
        let rule = Rule::default();
        let y = |fetched, accepted| HostYield {
            fetched,
            accepted,
            ..HostYield::default()
        };
        assert_eq!(rule.rank(&y(0, 0)), 1, "not judged");
        assert_eq!(rule.rank(&y(2, 0)), 2, "none accepted at a first look");
        assert_eq!(rule.rank(&y(FIRST_LOOK, 0)), 3, "none accepted after it");
        assert_eq!(rule.rank(&y(2, 1)), 0, "one of its first two");
        assert_eq!(rule.rank(&y(5, 3)), 0);
        assert_eq!(rule.rank(&y(5, 2)), 4, "mixed: 2 of 5");
        assert_eq!(rule.rank(&y(19, 1)), 4, "within its sample, mixed");
        assert_eq!(rule.rank(&y(20, 1)), 3, "1 of 20 is below 0.1");
        assert_eq!(rule.rank(&y(20, 2)), 4);
        assert_eq!(rule.rank(&y(20, 10)), 0);
        let strict = Rule {
            sample: 20,
            min: 0.5,
        };
        assert_eq!(strict.rank(&y(20, 4)), 3, "below half of 0.5");
        assert_eq!(strict.rank(&y(20, 5)), 4);
    }

    #[test]
    fn the_rule_waits_for_its_sample() {
        let r = Rule {
            sample: 5,
            min: 0.1,
        };
        let y = |fetched, accepted| HostYield {
            fetched,
            accepted,
            ..HostYield::default()
        };
        assert_eq!(r.low(&y(4, 0)), None);
        assert_eq!(
            r.low(&y(5, 0)).as_deref(),
            Some("low yield (0 of 5 pages accepted, below 0.1)")
        );
        assert_eq!(r.low(&y(10, 1)), None);
        assert!(r.low(&y(11, 1)).is_some());
        let off = Rule {
            sample: 5,
            min: 0.0,
        };
        assert_eq!(off.low(&y(100, 0)), None);
    }
}

//! The statistics history: once a minute (`--stat-every`) and when it
//! stops, a daemon
//! writes its running counters into [`Table::Series`], for `nlpc-stat`.
//!
//! Key: the Unix time in seconds as 8 big-endian bytes, then the daemon's
//! name, so a walk of the table is in time order. Value: a JSON object of
//! counter name → non-negative integer.
//!
//! Retention: every entry of the last [`FULL`] is kept; older ones are
//! thinned to the first entry of each hour per daemon, and entries older
//! than [`KEEP`] are deleted. A year of crawling thus holds about 2,900
//! minute entries and 8,800 hourly ones per daemon. Counters are running
//! totals (or, for states, levels), so thinning loses resolution, never a
//! total.

use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};
use crate::store::{Read, Store, Table, Write};

/// How long every minute's entry is kept.
pub const FULL: u64 = 2 * 86_400;
/// How long any entry is kept.
pub const KEEP: u64 = 400 * 86_400;

/// One daemon's counters at one time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub time: u64,
    pub daemon: String,
    pub counters: BTreeMap<String, u64>,
}

fn key(time: u64, daemon: &str) -> Vec<u8> {
    let mut k = time.to_be_bytes().to_vec();
    k.extend_from_slice(daemon.as_bytes());
    k
}

/// Writes `daemon`'s counters at `time` in `w` and thins the old entries
/// (see the module's comment). The caller commits.
pub fn put(w: &mut Write<'_>, time: u64, daemon: &str, counters: &[(String, u64)]) -> Result<()> {
    let obj: serde_json::Map<String, serde_json::Value> = counters
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::from(*v)))
        .collect();
    w.table_put(
        Table::Series,
        &key(time, daemon),
        serde_json::Value::Object(obj).to_string().as_bytes(),
    )?;
    thin(w, time)
}

/// Writes `daemon`'s counters at `time` in a transaction of its own.
pub fn record(store: &Store, time: u64, daemon: &str, counters: &[(String, u64)]) -> Result<()> {
    let mut w = store.write()?;
    put(&mut w, time, daemon, counters)?;
    w.commit()
}

/// Deletes what the retention no longer keeps, as of `now`.
fn thin(w: &mut Write<'_>, now: u64) -> Result<()> {
    let full_from = now.saturating_sub(FULL);
    let keep_from = now.saturating_sub(KEEP);
    let mut doomed = Vec::new();
    // The hour of the last entry kept, per daemon.
    let mut kept: HashMap<Vec<u8>, u64> = HashMap::new();
    w.table_walk(Table::Series, b"", |k, _| {
        let Some(t) = time_of(k) else {
            doomed.push(k.to_vec());
            return Ok(true);
        };
        if t >= full_from {
            return Ok(false);
        }
        let hour = t / 3600;
        let name = k[8..].to_vec();
        if t < keep_from || kept.get(&name) == Some(&hour) {
            doomed.push(k.to_vec());
        } else {
            kept.insert(name, hour);
        }
        Ok(true)
    })?;
    for k in doomed {
        w.table_del(Table::Series, &k)?;
    }
    Ok(())
}

fn time_of(k: &[u8]) -> Option<u64> {
    k.get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_be_bytes)
}

/// Every entry at or after `since`, in time order. An entry that does not
/// decode is an error naming its key.
pub fn entries(rd: &Read<'_>, since: u64) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut bad = None;
    rd.table_walk(Table::Series, b"", |k, v| {
        let (Some(time), Ok(daemon)) = (time_of(k), std::str::from_utf8(k.get(8..).unwrap_or(b"")))
        else {
            bad = Some(format!("series entry with a malformed key {k:?}"));
            return Ok(false);
        };
        if time < since {
            return Ok(true);
        }
        let counters = serde_json::from_slice::<BTreeMap<String, u64>>(v).map_err(|e| {
            Error::Input(format!(
                "series entry of {daemon} at {time}: not an object of counters ({e})"
            ))
        })?;
        out.push(Entry {
            time,
            daemon: daemon.to_string(),
            counters,
        });
        Ok(true)
    })?;
    match bad {
        Some(why) => Err(Error::Input(why)),
        None => Ok(out),
    }
}

/// The counts of records per state, leased ones included, as series
/// counters named by the states.
pub fn state_counts(rd: &Read<'_>) -> Result<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for s in crate::store::record::State::ALL {
        out.push((
            s.name().to_string(),
            rd.count(s, false)?.saturating_add(rd.count(s, true)?),
        ));
    }
    Ok(out)
}

/// The name under which nlpcd writes the counts of records per state.
pub const STATES: &str = "nlpcd";

/// The name under which the yield's running totals are written: they are
/// nlpc-vrfy's figures (`store::harvest`, written in the transaction of
/// each verdict), read from the harvest table by nlpcd with the states.
pub const YIELD: &str = "nlpc-vrfy";
/// Bytes of the bodies nlpc-vrfy judged, a running total.
pub const JUDGED_BYTES: &str = "judged_bytes";
/// Bytes of main text of the pages nlpc-vrfy accepted, a running total.
pub const TEXT_BYTES: &str = "text_bytes";

/// The yield's running totals as series counters ([`YIELD`]).
pub fn yield_counts(rd: &Read<'_>) -> Result<Vec<(String, u64)>> {
    let t = crate::store::harvest::total(rd)?;
    Ok(vec![
        (JUDGED_BYTES.to_string(), t.bytes),
        (TEXT_BYTES.to_string(), t.text),
    ])
}

/// Writes the counts of records per state at `time`, under [`STATES`],
/// and the yield's totals, under [`YIELD`], in one transaction.
pub fn record_states(store: &Store, time: u64) -> Result<()> {
    let (counts, yields) = {
        let rd = store.read()?;
        (state_counts(&rd)?, yield_counts(&rd)?)
    };
    let mut w = store.write()?;
    put(&mut w, time, STATES, &counts)?;
    put(&mut w, time, YIELD, &yields)?;
    w.commit()
}

/// The harvest rate: accepted over accepted + rejected; None when both
/// are 0. The monitor and nlpc-stat count (VERIFIED + SCANNED) as
/// accepted and REJECTED as rejected.
pub fn harvest(accepted: u64, rejected: u64) -> Option<f64> {
    let judged = accepted.saturating_add(rejected);
    (judged > 0).then(|| accepted as f64 / judged as f64)
}

//! Duplicate marks: which verified pages repeat the main text of an
//! earlier one, exactly or nearly, and the index that finds them.
//!
//! nlpc-vrfy hands each page it judges to [`record`], in the transaction
//! that stores the verdict, so the marks and the index are always those
//! of the records' last verification, whatever kills the daemon when. A
//! verified page is either a *first copy* or a duplicate of one:
//!
//! - an *exact* duplicate has the same main text (white space aside) as a
//!   first copy;
//! - a *near* duplicate has a SimHash within `--dup-distance` bits of a
//!   page of a cluster (its first copy or one of its duplicates: a page
//!   edited a little at a time stays in its cluster); of several
//!   clusters, it joins the one whose first copy was verified earliest.
//!
//! A duplicate always points to a first copy, never to another duplicate,
//! so a cluster is a first copy and the duplicates pointing to it; the
//! distance recorded is to the first copy, and may exceed the option's
//! when the page was reached through another duplicate.
//!
//! The entries, all in [`Table::Dups`] under a one-byte prefix:
//!
//! - `d` key → the page: verification order, text hash, SimHash, and its
//!   mark if it is a duplicate (kind, first copy, distance);
//! - `t` text hash → key of the first copy with that text;
//! - `b` band, band bits, key → SimHash, for every page: the 64 bits cut
//!   in [`BANDS`] bands of 16; two fingerprints at most [`MAX_DISTANCE`]
//!   bits apart agree in at least one whole band (pigeonhole), so looking
//!   up each band of a fingerprint finds every page within the distance;
//! - `m` first copy, member → nothing: the cluster's members;
//! - `s` → the next verification number; `D` → the distance last used.
//!
//! When a record leaves (verified again with another text, rejected,
//! quarantined, pruned), its entries go. A duplicate just leaves its
//! cluster. A first copy that leaves dissolves its cluster: its members
//! are taken out and placed again, oldest first, as if it had never been
//! seen; each becomes a duplicate of a cluster within the distance (one
//! its elder just started, perhaps), or a first copy itself. No mark
//! ever points to a record that left.

use std::fmt;

use crate::document::fingerprint::{distance, Fingerprint};
use crate::error::{Error, Result};
use crate::store::record::State;
use crate::store::{Key, Read, Table, Write, KEY_LEN};

/// Bands of the SimHash in the index.
pub const BANDS: usize = 4;
/// Bits per band.
const BAND_BITS: usize = 64 / BANDS;
/// The largest distance the index answers for: one fewer than the bands.
pub const MAX_DISTANCE: u32 = BANDS as u32 - 1;
/// `--dup-distance`'s default.
pub const DEFAULT_DISTANCE: u32 = MAX_DISTANCE;

const DOC: u8 = b'd';
const TEXT: u8 = b't';
const BAND: u8 = b'b';
const MEMBER: u8 = b'm';
const SEQ: &[u8] = b"s";
const DIST: &[u8] = b"D";

/// How a duplicate repeats its first copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The same main text.
    Exact,
    /// A SimHash within the distance.
    Near,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::Near => "near",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A duplicate's mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub kind: Kind,
    /// The first copy.
    pub first: Key,
    /// Bits between the two SimHashes.
    pub distance: u32,
}

/// A verified page as the index knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Doc {
    /// Verification order: smaller is earlier.
    seq: u64,
    fp: Fingerprint,
    mark: Option<Mark>,
}

impl Doc {
    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(8 + 8 + 16 + 1 + KEY_LEN + 1);
        v.extend_from_slice(&self.seq.to_le_bytes());
        v.extend_from_slice(&self.fp.simhash.to_le_bytes());
        v.extend_from_slice(&self.fp.text);
        match &self.mark {
            None => v.push(0),
            Some(m) => {
                v.push(match m.kind {
                    Kind::Exact => 1,
                    Kind::Near => 2,
                });
                v.extend_from_slice(&m.first.0);
                // At most 64.
                v.push(m.distance as u8);
            }
        }
        v
    }

    fn decode(b: &[u8]) -> Option<Doc> {
        let seq = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
        let simhash = u64::from_le_bytes(b.get(8..16)?.try_into().ok()?);
        let text: [u8; 16] = b.get(16..32)?.try_into().ok()?;
        let kind = match *b.get(32)? {
            0 if b.len() == 33 => None,
            1 => Some(Kind::Exact),
            2 => Some(Kind::Near),
            _ => return None,
        };
        let mark = match kind {
            None => None,
            Some(kind) => {
                if b.len() != 33 + KEY_LEN + 1 {
                    return None;
                }
                Some(Mark {
                    kind,
                    first: Key(b.get(33..33 + KEY_LEN)?.try_into().ok()?),
                    distance: u32::from(b[33 + KEY_LEN]),
                })
            }
        };
        Some(Doc {
            seq,
            fp: Fingerprint { text, simhash },
            mark,
        })
    }
}

fn doc_key(key: &Key) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + KEY_LEN);
    k.push(DOC);
    k.extend_from_slice(&key.0);
    k
}

fn text_key(h: &[u8; 16]) -> Vec<u8> {
    let mut k = Vec::with_capacity(17);
    k.push(TEXT);
    k.extend_from_slice(h);
    k
}

/// The band's prefix: `b`, the band's number, its 16 bits.
fn band_prefix(band: usize, simhash: u64) -> [u8; 4] {
    let bits = (simhash >> (band * BAND_BITS)) as u16;
    let b = bits.to_be_bytes();
    // band < BANDS = 4.
    [BAND, band as u8, b[0], b[1]]
}

fn band_key(band: usize, simhash: u64, key: &Key) -> Vec<u8> {
    let mut k = band_prefix(band, simhash).to_vec();
    k.extend_from_slice(&key.0);
    k
}

fn member_key(first: &Key, member: &Key) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + 2 * KEY_LEN);
    k.push(MEMBER);
    k.extend_from_slice(&first.0);
    k.extend_from_slice(&member.0);
    k
}

/// What walks an entry of the table: key and value; false stops.
pub type Visit<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// Reading the marks, in a snapshot or in the write transaction.
pub trait View {
    /// The record under `key`, for its state and URL.
    fn record_state(&self, key: &Key) -> Result<Option<(State, String)>>;
    #[doc(hidden)]
    fn dups_get(&self, k: &[u8]) -> Result<Option<Vec<u8>>>;
    #[doc(hidden)]
    fn dups_walk(&self, prefix: &[u8], f: &mut Visit<'_>) -> Result<()>;
    #[doc(hidden)]
    fn dups_corrupt(&self, k: &[u8], why: &'static str) -> Error;
}

macro_rules! view {
    ($t:ty) => {
        impl View for $t {
            fn record_state(&self, key: &Key) -> Result<Option<(State, String)>> {
                Ok(self.get(key)?.map(|r| (r.state, r.url)))
            }
            fn dups_get(&self, k: &[u8]) -> Result<Option<Vec<u8>>> {
                self.table_get(Table::Dups, k)
            }
            fn dups_walk(&self, prefix: &[u8], f: &mut Visit<'_>) -> Result<()> {
                self.table_walk(Table::Dups, prefix, f)
            }
            fn dups_corrupt(&self, k: &[u8], why: &'static str) -> Error {
                self.store.corrupt(k, why)
            }
        }
    };
}
view!(Read<'_>);
view!(Write<'_>);

fn get_doc(v: &impl View, key: &Key) -> Result<Option<Doc>> {
    let k = doc_key(key);
    match v.dups_get(&k)? {
        None => Ok(None),
        Some(b) => Doc::decode(&b)
            .map(Some)
            .ok_or_else(|| v.dups_corrupt(&k, "bad duplicate entry")),
    }
}

/// The mark of the record under `key`: None for a first copy and for a
/// record the index does not hold (never verified, or left).
pub fn duplicate_of(v: &impl View, key: &Key) -> Result<Option<Mark>> {
    Ok(get_doc(v, key)?.and_then(|d| d.mark))
}

/// A page's cluster: its first copy and the duplicates of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub first: Key,
    /// Each duplicate and its mark, in verification order.
    pub members: Vec<(Key, Mark)>,
}

/// The cluster of the record under `key`, whether it is the first copy or
/// a duplicate; None when the index does not hold it.
pub fn cluster(v: &impl View, key: &Key) -> Result<Option<Cluster>> {
    let Some(d) = get_doc(v, key)? else {
        return Ok(None);
    };
    let first = d.mark.map_or(*key, |m| m.first);
    let mut members = Vec::new();
    for k in member_keys(v, &first)? {
        let doc = get_doc(v, &k)?
            .ok_or_else(|| v.dups_corrupt(&k.0, "cluster member without an entry"))?;
        let mark = doc
            .mark
            .ok_or_else(|| v.dups_corrupt(&k.0, "cluster member that is a first copy"))?;
        members.push((doc.seq, k, mark));
    }
    members.sort_by_key(|m| m.0);
    Ok(Some(Cluster {
        first,
        members: members.into_iter().map(|(_, k, m)| (k, m)).collect(),
    }))
}

fn member_keys(v: &impl View, first: &Key) -> Result<Vec<Key>> {
    let mut prefix = vec![MEMBER];
    prefix.extend_from_slice(&first.0);
    let mut out = Vec::new();
    v.dups_walk(&prefix, &mut |k, _| {
        let m = k
            .get(1 + KEY_LEN..)
            .and_then(|b| <[u8; KEY_LEN]>::try_from(b).ok())
            .ok_or_else(|| v.dups_corrupt(k, "bad cluster entry"))?;
        out.push(Key(m));
        Ok(true)
    })?;
    Ok(out)
}

/// Pages within the distance that one lookup weighs at most. A page
/// repeated thousands of times (a template, a soft error page) makes a
/// cluster as large, every page of which lies within the distance of the
/// next; weighing them all made each new copy cost as much as the
/// cluster's size, and a crawl of them quadratic. Past this many, the
/// lookup stops, and the page joins the earliest cluster among those
/// weighed: the same cluster, whenever they all belong to one.
pub const MAX_NEAR: usize = 64;
/// Entries of one band a lookup reads at most, within the distance or not:
/// pages sharing 16 bits of their SimHash but farther apart than the
/// distance are a server's to multiply as well.
pub const MAX_BAND_READ: usize = 4096;

/// Pages whose SimHash is within `max` bits of `simhash`, with their
/// distance, `not` excluded: at most [`MAX_NEAR`] of them, from at most
/// [`MAX_BAND_READ`] entries of each band. Also returns how many entries
/// were read.
fn near_pages(
    v: &impl View,
    simhash: u64,
    max: u32,
    not: &Key,
) -> Result<(Vec<(Key, u32)>, usize)> {
    let mut out: Vec<(Key, u32)> = Vec::new();
    let mut read = 0;
    for band in 0..BANDS {
        if out.len() >= MAX_NEAR {
            break;
        }
        let prefix = band_prefix(band, simhash);
        let mut in_band = 0;
        v.dups_walk(&prefix, &mut |k, val| {
            read += 1;
            in_band += 1;
            let key = k
                .get(4..)
                .and_then(|b| <[u8; KEY_LEN]>::try_from(b).ok())
                .map(Key);
            let other = <[u8; 8]>::try_from(val).ok().map(u64::from_le_bytes);
            let (Some(key), Some(other)) = (key, other) else {
                return Err(v.dups_corrupt(k, "bad band entry"));
            };
            let d = distance(simhash, other);
            if d <= max && key != *not && !out.iter().any(|(k, _)| *k == key) {
                out.push((key, d));
            }
            Ok(out.len() < MAX_NEAR && in_band < MAX_BAND_READ)
        })?;
    }
    Ok((out, read))
}

/// How many index entries placing a page with `simhash` reads (for tests
/// and benchmarks of the lookup's bound).
pub fn lookup_cost(v: &Read<'_>, simhash: u64, max: u32) -> Result<usize> {
    Ok(near_pages(v, simhash, max.min(MAX_DISTANCE), &Key([0; KEY_LEN]))?.1)
}

fn next_seq(w: &mut Write<'_>) -> Result<u64> {
    let n = match w.dups_get(SEQ)? {
        Some(b) => <[u8; 8]>::try_from(b.as_slice())
            .map(u64::from_le_bytes)
            .map_err(|_| w.dups_corrupt(SEQ, "bad duplicate counter"))?,
        None => 0,
    };
    w.table_put(Table::Dups, SEQ, &n.saturating_add(1).to_le_bytes())?;
    Ok(n)
}

/// The distance nlpc-vrfy last used, for placing members again outside it
/// (nlpc-up's pruning).
fn distance_in_use(v: &impl View) -> Result<Option<u32>> {
    match v.dups_get(DIST)? {
        None => Ok(None),
        Some(b) if b.len() == 1 => Ok(Some(u32::from(b[0]).min(MAX_DISTANCE))),
        Some(_) => Err(v.dups_corrupt(DIST, "bad duplicate distance")),
    }
}

/// Records what the verification of the record under `key` found, in the
/// transaction that stores its verdict: `fp` is the fingerprint of its
/// main text when it was verified, None when it was not (rejected,
/// quarantined). `max` is `--dup-distance` (at most [`MAX_DISTANCE`]).
/// A record verified again with the same text keeps its place and mark.
/// Returns its mark.
pub fn record(
    w: &mut Write<'_>,
    key: &Key,
    fp: Option<&Fingerprint>,
    max: u32,
) -> Result<Option<Mark>> {
    let max = max.min(MAX_DISTANCE);
    if distance_in_use(w)? != Some(max) {
        // At most MAX_DISTANCE.
        w.table_put(Table::Dups, DIST, &[max as u8])?;
    }
    let old = get_doc(w, key)?;
    let Some(fp) = fp else {
        if old.is_some() {
            forget_at(w, key, max)?;
        }
        return Ok(None);
    };
    if let Some(d) = old {
        if d.fp.text == fp.text {
            return Ok(d.mark);
        }
        forget_at(w, key, max)?;
    }
    let seq = next_seq(w)?;
    place(w, key, *fp, seq, max)
}

/// Removes the record under `key` from the index, as when it is pruned.
pub fn forget(w: &mut Write<'_>, key: &Key) -> Result<()> {
    let max = distance_in_use(w)?.unwrap_or(DEFAULT_DISTANCE);
    forget_at(w, key, max)
}

fn forget_at(w: &mut Write<'_>, key: &Key, max: u32) -> Result<()> {
    let Some(d) = get_doc(w, key)? else {
        return Ok(());
    };
    take_out(w, key, &d)?;
    if d.mark.is_some() {
        return Ok(());
    }
    let tk = text_key(&d.fp.text);
    if w.dups_get(&tk)?.as_deref() == Some(&key.0[..]) {
        w.table_del(Table::Dups, &tk)?;
    }
    // The cluster dissolves: its members are placed again, oldest first.
    // Every member leaves the index before any comes back, so none is
    // found through another that still points to the first copy.
    let mut members = Vec::new();
    for m in member_keys(w, key)? {
        let doc = get_doc(w, &m)?
            .ok_or_else(|| w.dups_corrupt(&m.0, "cluster member without an entry"))?;
        take_out(w, &m, &doc)?;
        members.push((m, doc));
    }
    members.sort_by_key(|(_, d)| d.seq);
    for (m, doc) in members {
        place(w, &m, doc.fp, doc.seq, max)?;
        // A member may now be a first copy: the search index, which holds
        // first copies only, looks at it again.
        w.log_change(&m, State::Verified)?;
    }
    Ok(())
}

/// Removes a page's own entries and its member entry (not its first
/// copy's text entry, nor its members).
fn take_out(w: &mut Write<'_>, key: &Key, d: &Doc) -> Result<()> {
    w.table_del(Table::Dups, &doc_key(key))?;
    for band in 0..BANDS {
        w.table_del(Table::Dups, &band_key(band, d.fp.simhash, key))?;
    }
    match d.mark {
        Some(m) => w.table_del(Table::Dups, &member_key(&m.first, key)),
        None => Ok(()),
    }
}

/// Enters a record not in the index: as a duplicate of a first copy, or as
/// a first copy.
fn place(
    w: &mut Write<'_>,
    key: &Key,
    fp: Fingerprint,
    seq: u64,
    max: u32,
) -> Result<Option<Mark>> {
    let mut mark = None;
    if let Some(b) = w.dups_get(&text_key(&fp.text))? {
        let first = Key::from_slice(&b).ok_or_else(|| w.dups_corrupt(&b, "bad text entry"))?;
        if first != *key {
            let d = get_doc(w, &first)?
                .ok_or_else(|| w.dups_corrupt(&first.0, "text entry without a page"))?;
            mark = Some(Mark {
                kind: Kind::Exact,
                first,
                distance: distance(fp.simhash, d.fp.simhash),
            });
        }
    }
    if mark.is_none() {
        // The clusters of the pages within the distance, by their first
        // copies; the earliest first copy wins.
        let mut best: Option<(u64, Key, u32)> = None;
        for (k, _) in near_pages(w, fp.simhash, max, key)?.0 {
            let Some(doc) = get_doc(w, &k)? else {
                return Err(w.dups_corrupt(&k.0, "band entry without a page"));
            };
            let (first, fdoc) = match doc.mark {
                None => (k, doc),
                Some(m) => match get_doc(w, &m.first)? {
                    Some(f) => (m.first, f),
                    None => return Err(w.dups_corrupt(&k.0, "duplicate of a page not indexed")),
                },
            };
            if best.is_none_or(|(s, _, _)| fdoc.seq < s) {
                best = Some((fdoc.seq, first, distance(fp.simhash, fdoc.fp.simhash)));
            }
        }
        mark = best.map(|(_, first, distance)| Mark {
            kind: Kind::Near,
            first,
            distance,
        });
    }
    let doc = Doc { seq, fp, mark };
    w.table_put(Table::Dups, &doc_key(key), &doc.encode())?;
    for band in 0..BANDS {
        w.table_put(
            Table::Dups,
            &band_key(band, fp.simhash, key),
            &fp.simhash.to_le_bytes(),
        )?;
    }
    match &mark {
        Some(m) => w.table_put(Table::Dups, &member_key(&m.first, key), &[])?,
        None => w.table_put(Table::Dups, &text_key(&fp.text), &key.0)?,
    }
    Ok(mark)
}

/// True when the record under `key` is a duplicate whose first copy is in
/// one of `corpus`'s states, so an export that has the first copy can
/// leave this one out. A duplicate of a page that is not in the corpus
/// now (being fetched again, unreachable) is kept.
pub fn covered(v: &impl View, key: &Key, corpus: &[State]) -> Result<Option<Mark>> {
    let Some(m) = duplicate_of(v, key)? else {
        return Ok(None);
    };
    Ok(match v.record_state(&m.first)? {
        Some((s, _)) if corpus.contains(&s) => Some(m),
        _ => None,
    })
}

/// Checks the index against itself and the records: every mark points to
/// a first copy that lists it, every first copy is under its text, every
/// page in each band, every entry belongs to a record still there (not
/// GONE), and no entry is left over. Returns the problems found.
pub fn check(v: &impl View) -> Result<Vec<String>> {
    // Entry by entry, with point lookups: nothing but the problems is held
    // in memory, however large the index.
    let mut problems = Vec::new();
    let key_at = |b: &[u8], at: usize| {
        b.get(at..at + KEY_LEN)
            .and_then(|s| <[u8; KEY_LEN]>::try_from(s).ok())
            .map(Key)
    };
    v.dups_walk(&[DOC], &mut |k, val| {
        let (Some(key), Some(d)) = (key_at(k, 1), Doc::decode(val)) else {
            problems.push(format!("bad duplicate entry {k:?}"));
            return Ok(true);
        };
        let hex = key.hex();
        match v.record_state(&key)? {
            None => problems.push(format!("duplicate entry {hex}: no such record")),
            Some((State::Gone, url)) => problems.push(format!("{url}: pruned but still indexed")),
            Some(_) => {}
        }
        match d.mark {
            Some(m) => {
                match get_doc(v, &m.first)? {
                    Some(f) if f.mark.is_none() => {}
                    Some(_) => problems.push(format!("{hex}: a duplicate of a duplicate")),
                    None => problems.push(format!("{hex}: a duplicate of a page not indexed")),
                }
                if v.dups_get(&member_key(&m.first, &key))?.is_none() {
                    problems.push(format!("{hex}: missing from its cluster"));
                }
            }
            None => {
                if v.dups_get(&text_key(&d.fp.text))?.as_deref() != Some(&key.0[..]) {
                    problems.push(format!("{hex}: a first copy not found by its text"));
                }
            }
        }
        for band in 0..BANDS {
            let b = v.dups_get(&band_key(band, d.fp.simhash, &key))?;
            if b.as_deref() != Some(&d.fp.simhash.to_le_bytes()[..]) {
                problems.push(format!("{hex}: missing from band {band}"));
            }
        }
        Ok(true)
    })?;
    v.dups_walk(&[BAND], &mut |k, val| {
        let band = usize::from(k.get(1).copied().unwrap_or(u8::MAX));
        let doc = match key_at(k, 4) {
            Some(key) => get_doc(v, &key)?,
            None => None,
        };
        let ok = band < BANDS
            && doc.is_some_and(|d| {
                k.get(..4) == Some(&band_prefix(band, d.fp.simhash)[..])
                    && val == d.fp.simhash.to_le_bytes()
            });
        if !ok {
            problems.push(format!("left-over band entry {k:?}"));
        }
        Ok(true)
    })?;
    v.dups_walk(&[TEXT], &mut |k, val| {
        let doc = match Key::from_slice(val) {
            Some(key) => get_doc(v, &key)?,
            None => None,
        };
        if !doc.is_some_and(|d| d.mark.is_none() && k.get(1..) == Some(&d.fp.text[..])) {
            problems.push(format!("left-over text entry {k:?}"));
        }
        Ok(true)
    })?;
    v.dups_walk(&[MEMBER], &mut |k, _| {
        let (first, member) = (key_at(k, 1), key_at(k, 1 + KEY_LEN));
        let doc = match member {
            Some(m) if k.len() == 1 + 2 * KEY_LEN => get_doc(v, &m)?,
            _ => None,
        };
        if first.is_none() || doc.and_then(|d| d.mark).map(|m| m.first) != first {
            problems.push(format!("left-over cluster entry {k:?}"));
        }
        Ok(true)
    })?;
    Ok(problems)
}

/// What the duplicate table takes on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Entries of every kind.
    pub entries: u64,
    /// Bytes of its B-tree pages (branch, leaf and overflow).
    pub bytes: u64,
}

/// The size of [`Table::Dups`] in the snapshot `rd`.
pub fn size(rd: &Read<'_>) -> Result<Size> {
    let (entries, bytes) = rd.table_size(Table::Dups)?;
    Ok(Size { entries, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let fp = Fingerprint {
            text: [7; 16],
            simhash: 0xdead_beef_0123_4567,
        };
        for mark in [
            None,
            Some(Mark {
                kind: Kind::Near,
                first: Key([3; KEY_LEN]),
                distance: 3,
            }),
            Some(Mark {
                kind: Kind::Exact,
                first: Key([4; KEY_LEN]),
                distance: 0,
            }),
        ] {
            let d = Doc { seq: 9, fp, mark };
            assert_eq!(Doc::decode(&d.encode()), Some(d));
        }
        assert_eq!(Doc::decode(&[0; 10]), None);
        let mut bad = Doc {
            seq: 1,
            fp,
            mark: None,
        }
        .encode();
        bad[32] = 9;
        assert_eq!(Doc::decode(&bad), None);
    }

    #[test]
    fn bands_cover_every_fingerprint_within_the_distance() {
        // Any three flipped bits leave at least one band whole.
        let a = 0x0123_4567_89ab_cdefu64;
        for i in 0..64 {
            for j in i..64 {
                for k in j..64 {
                    let b = a ^ (1 << i) ^ (1 << j) ^ (1 << k);
                    assert!(
                        (0..BANDS).any(|band| band_prefix(band, a) == band_prefix(band, b)),
                        "{i} {j} {k}"
                    );
                }
            }
        }
        // Four bits, one per band, leave none.
        let b = a ^ 1 ^ (1 << 16) ^ (1 << 32) ^ (1 << 48);
        assert!((0..BANDS).all(|band| band_prefix(band, a) != band_prefix(band, b)));
    }
}

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
//! - a *near* duplicate's word shingles are at least `--dup-similarity`
//!   percent the same as those of a page of a cluster (its first copy or
//!   one of its near duplicates: a page edited a little at a time stays in
//!   its cluster), as their MinHash signatures estimate the Jaccard
//!   similarity; of several clusters, it joins the one whose first copy
//!   was verified earliest.
//!
//! A duplicate always points to a first copy, never to another duplicate,
//! so a cluster is a first copy and the duplicates pointing to it; the
//! distance recorded is 100 less the estimated similarity to the first
//! copy in percent (0 for an exact copy), and may exceed the option's
//! when the page was reached through another duplicate.
//!
//! The entries, all in [`Table::Dups`] under a one-byte prefix:
//!
//! - `d` key → the page: verification order, text hash, its mark if it is
//!   a duplicate (kind, first copy, distance), and its signature;
//! - `t` text hash → key of the first copy with that text;
//! - `l` band, band key, key → nothing: the buckets of locality-sensitive
//!   hashing. A signature's [`BANDS`] bands of four slots are each
//!   hashed to a key; two texts of Jaccard similarity 0.5 share a bucket
//!   with chance 87%, of 0.6 with 99%, of 0.3 with 23%. Each candidate met
//!   in a bucket is weighed by its stored signature. First copies and near
//!   duplicates are in the buckets (exact duplicates are found through
//!   their first copy), at most [`MAX_BUCKET`] pages to a bucket: a page
//!   that finds its bucket full is left out of it (it is still found
//!   through its other bands, or through the pages already there, which
//!   are like it);
//! - `m` first copy, member → nothing: the cluster's members;
//! - `s` → the next verification number; `J` → the similarity last used.
//!
//! What one page costs is bounded, however large its cluster: at most
//! [`MAX_BUCKET`] entries read in each band and [`MAX_CANDIDATES`]
//! signatures weighed. A page placed reads its buckets and enters them
//! through one cursor, in band order, so each entry is put where its
//! bucket's walk left the cursor, without a second search of the tree.
//!
//! Entries written before the signatures (a SimHash in place of the
//! signature, and `b` band entries of the SimHash's four 16-bit bands)
//! are still read: such a page is found by its text alone until it is
//! verified again, which writes it anew; its `b` entries go when it
//! leaves.
//!
//! When a record leaves (verified again with another text, rejected,
//! quarantined, pruned), its entries go. A duplicate just leaves its
//! cluster. A first copy that leaves dissolves its cluster: its members
//! are taken out and placed again, oldest first, as if it had never been
//! seen; each becomes a duplicate of a cluster within the similarity (one
//! its elder just started, perhaps), or a first copy itself. No mark
//! ever points to a record that left.
//!
//! The index's check of itself against the records, and its size on
//! disk, are in `check`.

use std::collections::HashSet;
use std::fmt;

use crate::document::fingerprint::minhash::BANDS;
use crate::document::fingerprint::{Fingerprint, Signature};
use crate::error::{Error, Result};
use crate::store::record::State;
use crate::store::{Key, Read, Table, Write, KEY_LEN};

mod check;

pub use check::{check, size, Size};

/// The least `--dup-similarity`, in percent: below it, texts that share
/// only their language's common phrases would meet.
pub const MIN_SIMILARITY: u32 = 10;
/// `--dup-similarity`'s default, chosen on the tuning half of
/// `scripts/bench/dups`.
pub const DEFAULT_SIMILARITY: u32 = 50;
/// Pages one bucket holds at most.
pub const MAX_BUCKET: usize = 32;
/// Signatures one lookup weighs at most.
pub const MAX_CANDIDATES: usize = 256;

const DOC: u8 = b'd';
const TEXT: u8 = b't';
const LSH: u8 = b'l';
/// The SimHash bands of entries written before the signatures.
const OLD_BAND: u8 = b'b';
const MEMBER: u8 = b'm';
const SEQ: &[u8] = b"s";
const SIM: &[u8] = b"J";

/// How a duplicate repeats its first copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The same main text.
    Exact,
    /// Shingles alike to the similarity.
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
    /// 100 less the estimated similarity to the first copy, in percent
    /// (marks written before the signatures hold SimHash bits, 0 to 3).
    pub distance: u32,
}

/// A verified page as the index knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Doc {
    /// Verification order: smaller is earlier.
    seq: u64,
    text: [u8; 16],
    /// None for an entry written before the signatures.
    sig: Option<Signature>,
    /// Such an entry's SimHash (its `b` entries' keys); 0 otherwise.
    old: u64,
    mark: Option<Mark>,
}

/// Bytes of an entry with its signature, without a mark.
const NEW_LEN: usize = 8 + 16 + 1 + Signature::BYTES;

impl Doc {
    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(NEW_LEN + KEY_LEN + 1);
        v.extend_from_slice(&self.seq.to_le_bytes());
        if self.sig.is_none() {
            v.extend_from_slice(&self.old.to_le_bytes());
        }
        v.extend_from_slice(&self.text);
        match &self.mark {
            None => v.push(0),
            Some(m) => {
                v.push(match m.kind {
                    Kind::Exact => 1,
                    Kind::Near => 2,
                });
                v.extend_from_slice(&m.first.0);
                // At most 100.
                v.push(m.distance.min(255) as u8);
            }
        }
        if let Some(sig) = &self.sig {
            v.extend_from_slice(&sig.to_bytes());
        }
        v
    }

    fn decode(b: &[u8]) -> Option<Doc> {
        let seq = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
        // The two layouts differ in length: the old is 33 or 51 bytes,
        // the new over 500.
        let (old, rest) = if b.len() < NEW_LEN {
            (u64::from_le_bytes(b.get(8..16)?.try_into().ok()?), 16)
        } else {
            (0, 8)
        };
        let text: [u8; 16] = b.get(rest..rest + 16)?.try_into().ok()?;
        let at = rest + 16;
        let kind = match *b.get(at)? {
            0 => None,
            1 => Some(Kind::Exact),
            2 => Some(Kind::Near),
            _ => return None,
        };
        let (mark, end) = match kind {
            None => (None, at + 1),
            Some(kind) => {
                let first = Key(b.get(at + 1..at + 1 + KEY_LEN)?.try_into().ok()?);
                let distance = u32::from(*b.get(at + 1 + KEY_LEN)?);
                (
                    Some(Mark {
                        kind,
                        first,
                        distance,
                    }),
                    at + 2 + KEY_LEN,
                )
            }
        };
        let sig = if rest == 16 {
            if b.len() != end {
                return None;
            }
            None
        } else {
            Some(Signature::from_bytes(b.get(end..)?)?)
        };
        Some(Doc {
            seq,
            text,
            sig,
            old,
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

/// Bytes of a bucket's prefix.
const BUCKET_LEN: usize = 6;

/// A bucket's prefix: `l`, the band's number, its key.
fn bucket(band: usize, sig: &Signature) -> [u8; BUCKET_LEN] {
    let b = sig.band(band).to_be_bytes();
    // band < BANDS = 32.
    [LSH, band as u8, b[0], b[1], b[2], b[3]]
}

fn bucket_key(band: usize, sig: &Signature, key: &Key) -> Vec<u8> {
    let mut k = bucket(band, sig).to_vec();
    k.extend_from_slice(&key.0);
    k
}

/// An old entry's SimHash band: `b`, the band's number (of four), its 16
/// bits.
fn old_band_key(band: usize, simhash: u64, key: &Key) -> Vec<u8> {
    let bits = ((simhash >> (band * 16)) as u16).to_be_bytes();
    // band < 4.
    let mut k = vec![OLD_BAND, band as u8, bits[0], bits[1]];
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
    /// `f` of the entry under `k`, read in place: a page's entry is read
    /// for each page met in its buckets, and a copy of it is not needed.
    #[doc(hidden)]
    fn dups_peek<R>(&self, k: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>>;
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
            fn dups_peek<R>(&self, k: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
                self.table_peek(Table::Dups, k, f)
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
    match v.dups_peek(&k, Doc::decode)? {
        None => Ok(None),
        Some(d) => d
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

/// Pages alike that one lookup keeps at most: enough to tell which of
/// their clusters is the earliest when they belong to several.
pub const MAX_NEAR: usize = 16;

/// What looking up a signature found: the pages at least `min` percent
/// alike, with their similarity and entry (at most [`MAX_NEAR`]), and the
/// bucket entries read.
struct Found {
    near: Vec<(Key, u32, Doc)>,
    read: usize,
}

/// The pages met in a signature's buckets, as their walks find them.
struct Met {
    /// Each band's, at most [`MAX_BUCKET`].
    keys: Vec<Vec<Key>>,
    read: usize,
    /// A bucket entry that is not one.
    bad: Option<Vec<u8>>,
}

impl Met {
    fn new() -> Met {
        Met {
            keys: vec![Vec::new(); BANDS],
            read: 0,
            bad: None,
        }
    }

    /// Entry `k` of band `band`'s bucket; false when the walk is to stop
    /// (the bucket is full, or the entry bad).
    fn visit(&mut self, band: usize, k: &[u8]) -> bool {
        self.read += 1;
        let key = k
            .get(BUCKET_LEN..)
            .and_then(|b| <[u8; KEY_LEN]>::try_from(b).ok());
        match (key, self.keys.get_mut(band)) {
            (Some(key), Some(m)) => {
                m.push(Key(key));
                m.len() < MAX_BUCKET
            }
            _ => {
                self.bad = Some(k.to_vec());
                false
            }
        }
    }
}

/// Each band's walk of a page's buckets, in band order (their keys'
/// order), with the entry that puts the page under `key` in it.
fn bucket_walks(sig: &Signature, key: &Key) -> Vec<([u8; BUCKET_LEN], Vec<u8>)> {
    (0..BANDS)
        .map(|band| (bucket(band, sig), bucket_key(band, sig, key)))
        .collect()
}

/// The pages whose signatures are at least `min` percent like `sig`, `not`
/// excluded: every band's bucket read (at most [`MAX_BUCKET`] entries of
/// each), and at most [`MAX_CANDIDATES`] of the pages met there weighed.
fn near_pages(v: &impl View, sig: &Signature, min: u32, not: &Key) -> Result<Found> {
    let mut met = Met::new();
    if !sig.is_none() {
        for (band, (prefix, _)) in bucket_walks(sig, not).iter().enumerate() {
            v.dups_walk(prefix, &mut |k, _| Ok(met.visit(band, k)))?;
        }
    }
    weigh(v, met, sig, min, not)
}

/// [`near_pages`] of what the walks of `sig`'s buckets met.
fn weigh(v: &impl View, met: Met, sig: &Signature, min: u32, not: &Key) -> Result<Found> {
    if let Some(k) = &met.bad {
        return Err(v.dups_corrupt(k, "bad bucket entry"));
    }
    let mut found = Found {
        near: Vec::new(),
        read: met.read,
    };
    // A set, not a list: a page meets up to BANDS * MAX_BUCKET entries,
    // mostly the same few pages, and a list's scans added up.
    let mut seen: HashSet<Key> = HashSet::with_capacity(MAX_CANDIDATES);
    for key in met.keys.into_iter().flatten() {
        // Past either bound nothing more is weighed.
        if seen.len() >= MAX_CANDIDATES || found.near.len() >= MAX_NEAR {
            break;
        }
        if key == *not || !seen.insert(key) {
            continue;
        }
        let doc = get_doc(v, &key)?
            .ok_or_else(|| v.dups_corrupt(&key.0, "bucket entry without a page"))?;
        let s = doc.sig.map_or(0, |o| o.similarity(sig));
        if s >= min {
            found.near.push((key, s, doc));
        }
    }
    Ok(found)
}

/// How many index entries placing a page with the signature `sig` reads
/// (for tests and benchmarks of the lookup's bound).
pub fn lookup_cost(v: &Read<'_>, sig: &Signature, min: u32) -> Result<usize> {
    Ok(near_pages(v, sig, min, &Key([0; KEY_LEN]))?.read)
}

/// How many pages the bucket of band `band` of `sig` holds, up to
/// [`MAX_BUCKET`] and one (for tests of the cap).
pub fn bucket_len(v: &Read<'_>, sig: &Signature, band: usize) -> Result<usize> {
    bucket_count(v, band, sig)
}

fn next_seq(w: &mut Write<'_>) -> Result<u64> {
    let n = match w.dups_peek(SEQ, |b| <[u8; 8]>::try_from(b).ok())? {
        Some(b) => b
            .map(u64::from_le_bytes)
            .ok_or_else(|| w.dups_corrupt(SEQ, "bad duplicate counter"))?,
        None => 0,
    };
    w.table_put(Table::Dups, SEQ, &n.saturating_add(1).to_le_bytes())?;
    Ok(n)
}

/// The similarity nlpc-vrfy last used, for placing members again (nlpc-up's
/// pruning).
fn similarity_in_use(v: &impl View) -> Result<Option<u32>> {
    match v.dups_peek(SIM, |b| <[u8; 1]>::try_from(b).ok())? {
        None => Ok(None),
        Some(Some([b])) => Ok(Some(u32::from(b).clamp(MIN_SIMILARITY, 100))),
        Some(None) => Err(v.dups_corrupt(SIM, "bad duplicate similarity")),
    }
}

/// Records what the verification of the record under `key` found, in the
/// transaction that stores its verdict: `fp` is the fingerprint of its
/// main text when it was verified, None when it was not (rejected,
/// quarantined). `min` is `--dup-similarity`, in percent (from
/// [`MIN_SIMILARITY`] to 100). A record verified again with the same text
/// keeps its place and mark. Returns its mark.
pub fn record(
    w: &mut Write<'_>,
    key: &Key,
    fp: Option<&Fingerprint>,
    min: u32,
) -> Result<Option<Mark>> {
    let min = min.clamp(MIN_SIMILARITY, 100);
    if similarity_in_use(w)? != Some(min) {
        // At most 100.
        w.table_put(Table::Dups, SIM, &[min as u8])?;
    }
    let old = get_doc(w, key)?;
    let Some(fp) = fp else {
        if old.is_some() {
            forget_at(w, key, min)?;
        }
        return Ok(None);
    };
    if let Some(d) = old {
        if d.text == fp.text {
            if d.sig.is_none() {
                upgrade(w, key, d, fp.minhash)?;
            }
            return Ok(d.mark);
        }
        forget_at(w, key, min)?;
    }
    let seq = next_seq(w)?;
    place(w, key, fp.text, Some(fp.minhash), 0, seq, min)
}

/// Gives an entry written before the signatures, verified again with the
/// same text, its signature, in its place and with its mark: its SimHash
/// bands go, and it goes into the buckets that have room.
fn upgrade(w: &mut Write<'_>, key: &Key, d: Doc, sig: Signature) -> Result<()> {
    for band in 0..4 {
        w.table_del(Table::Dups, &old_band_key(band, d.old, key))?;
    }
    let new = Doc {
        sig: Some(sig),
        old: 0,
        ..d
    };
    w.table_put(Table::Dups, &doc_key(key), &new.encode())?;
    if !sig.is_none() && d.mark.is_none_or(|m| m.kind == Kind::Near) {
        let mut n = [0usize; BANDS];
        w.table_walk_enter(Table::Dups, &bucket_walks(&sig, key), |band, _| {
            let c = n.get_mut(band).map_or(MAX_BUCKET, |c| {
                *c += 1;
                *c
            });
            Ok(c < MAX_BUCKET)
        })?;
    }
    Ok(())
}

/// The pages in a bucket, counted up to [`MAX_BUCKET`] and one.
fn bucket_count(v: &impl View, band: usize, sig: &Signature) -> Result<usize> {
    let mut n = 0;
    v.dups_walk(&bucket(band % BANDS, sig), &mut |_, _| {
        n += 1;
        Ok(n <= MAX_BUCKET)
    })?;
    Ok(n)
}

/// Removes the record under `key` from the index, as when it is pruned.
pub fn forget(w: &mut Write<'_>, key: &Key) -> Result<()> {
    let min = similarity_in_use(w)?.unwrap_or(DEFAULT_SIMILARITY);
    forget_at(w, key, min)
}

fn forget_at(w: &mut Write<'_>, key: &Key, min: u32) -> Result<()> {
    let Some(d) = get_doc(w, key)? else {
        return Ok(());
    };
    take_out(w, key, &d)?;
    if d.mark.is_some() {
        return Ok(());
    }
    let tk = text_key(&d.text);
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
        place(w, &m, doc.text, doc.sig, doc.old, doc.seq, min)?;
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
    match &d.sig {
        // Deleting what is not there (a bucket that was full) is nothing.
        Some(sig) => {
            for band in 0..BANDS {
                w.table_del(Table::Dups, &bucket_key(band, sig, key))?;
            }
        }
        None => {
            for band in 0..4 {
                w.table_del(Table::Dups, &old_band_key(band, d.old, key))?;
            }
        }
    }
    match d.mark {
        Some(m) => w.table_del(Table::Dups, &member_key(&m.first, key)),
        None => Ok(()),
    }
}

/// Enters a record not in the index: as a duplicate of a first copy, or as
/// a first copy. `sig` is None for an entry written before the
/// signatures, whose SimHash `old` is kept.
fn place(
    w: &mut Write<'_>,
    key: &Key,
    text: [u8; 16],
    sig: Option<Signature>,
    old: u64,
    seq: u64,
    min: u32,
) -> Result<Option<Mark>> {
    let mut mark = None;
    let first = w.dups_peek(&text_key(&text), |b| {
        Key::from_slice(b).ok_or_else(|| b.to_vec())
    })?;
    if let Some(first) = first {
        let first = first.map_err(|b| w.dups_corrupt(&b, "bad text entry"))?;
        if first != *key {
            mark = Some(Mark {
                kind: Kind::Exact,
                first,
                distance: 0,
            });
        }
    }
    // An exact copy needs no lookup: it goes into no bucket. Any other
    // page with words goes into each of its buckets that has room, put
    // there as each is read (whatever its mark, which only a near copy
    // has).
    if let Some(sig) = sig.as_ref().filter(|s| mark.is_none() && !s.is_none()) {
        let mut met = Met::new();
        w.table_walk_enter(Table::Dups, &bucket_walks(sig, key), |band, k| {
            Ok(met.visit(band, k))
        })?;
        let found = weigh(w, met, sig, min, key)?;
        // The clusters of the pages alike, by their first copies; the
        // earliest first copy wins. Pages alike are mostly of one
        // cluster, whose first copy is read once.
        let mut best: Option<(u64, Key, u32)> = None;
        let mut firsts: Vec<(Key, Doc)> = Vec::new();
        for (k, s, doc) in found.near {
            let (first, fdoc) = match doc.mark {
                None => (k, doc),
                Some(m) => match firsts.iter().find(|(f, _)| *f == m.first) {
                    Some(&(_, f)) => (m.first, f),
                    None => match get_doc(w, &m.first)? {
                        Some(f) => {
                            firsts.push((m.first, f));
                            (m.first, f)
                        }
                        None => return Err(w.dups_corrupt(&k.0, "duplicate of a page not indexed")),
                    },
                },
            };
            if best.is_none_or(|(s, _, _)| fdoc.seq < s) {
                // The first copy's own likeness, when it has a
                // signature; else the page's met.
                let to_first = fdoc.sig.map_or(s, |f| f.similarity(sig));
                best = Some((fdoc.seq, first, 100 - to_first.min(100)));
            }
        }
        mark = best.map(|(_, first, distance)| Mark {
            kind: Kind::Near,
            first,
            distance,
        });
    }
    let doc = Doc {
        seq,
        text,
        sig,
        old,
        mark,
    };
    w.table_put(Table::Dups, &doc_key(key), &doc.encode())?;
    match &mark {
        Some(m) => w.table_put(Table::Dups, &member_key(&m.first, key), &[])?,
        None => w.table_put(Table::Dups, &text_key(&text), &key.0)?,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::fingerprint::minhash;

    #[test]
    fn entries_round_trip() {
        let sig = minhash("Rīga ir Latvijas galvaspilsēta un lielākā pilsēta");
        for mark in [
            None,
            Some(Mark {
                kind: Kind::Near,
                first: Key([3; KEY_LEN]),
                distance: 37,
            }),
            Some(Mark {
                kind: Kind::Exact,
                first: Key([4; KEY_LEN]),
                distance: 0,
            }),
        ] {
            let d = Doc {
                seq: 9,
                text: [7; 16],
                sig: Some(sig),
                old: 0,
                mark,
            };
            assert_eq!(Doc::decode(&d.encode()), Some(d));
            // An entry written before the signatures.
            let o = Doc {
                sig: None,
                old: 0xdead_beef_0123_4567,
                ..d
            };
            assert!(o.encode().len() < NEW_LEN);
            assert_eq!(Doc::decode(&o.encode()), Some(o));
        }
        assert_eq!(Doc::decode(&[0; 10]), None);
        let good = Doc {
            seq: 1,
            text: [7; 16],
            sig: Some(sig),
            old: 0,
            mark: None,
        }
        .encode();
        let mut bad = good.clone();
        bad[24] = 9;
        assert_eq!(Doc::decode(&bad), None);
        assert_eq!(Doc::decode(&good[..good.len() - 1]), None);
        let mut long = good.clone();
        long.push(0);
        assert_eq!(Doc::decode(&long), None);
    }

    #[test]
    fn old_entries_as_written_before_the_signatures_decode() {
        // The layout of the SimHash's entries: seq, SimHash, text hash,
        // then 0, or the kind, the first copy and the distance.
        let mut b = 5u64.to_le_bytes().to_vec();
        b.extend_from_slice(&0x0123_u64.to_le_bytes());
        b.extend_from_slice(&[9; 16]);
        b.push(2);
        b.extend_from_slice(&[1; KEY_LEN]);
        b.push(3);
        let d = Doc::decode(&b).expect("old entry");
        assert_eq!((d.seq, d.old, d.text, d.sig), (5, 0x0123, [9; 16], None));
        assert_eq!(
            d.mark,
            Some(Mark {
                kind: Kind::Near,
                first: Key([1; KEY_LEN]),
                distance: 3
            })
        );
        assert_eq!(d.encode(), b);
    }
}

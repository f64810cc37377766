//! The record index's encoding (a byte per state and lease, then the key;
//! the value an address or a lease) and the low-level reads every
//! transaction shares: a record and its lease, a URL's slot, counts, walks
//! and table reads. Like `db`, it calls LMDB directly.

use std::net::IpAddr;

use lmdb::{Cursor, Transaction};

use super::db::*;
use crate::error::{Error, Result};
use crate::store::record::{Lease, Record, State};
use crate::web::url::same_resource;

/// The index byte of the unleased READY records, which the READY table
/// (`ready`) holds by address as well.
pub(super) const READY_UNLEASED: u8 = State::Ready as u8;

pub(super) fn index_byte(state: State, leased: bool) -> u8 {
    state as u8 | if leased { LEASED } else { 0 }
}

pub(super) fn index_key(byte: u8, key: &Key) -> [u8; 1 + KEY_LEN] {
    let mut k = [0; 1 + KEY_LEN];
    k[0] = byte;
    k[1..].copy_from_slice(&key.0);
    k
}

pub(super) fn record_index_byte(r: &Record) -> u8 {
    index_byte(r.state, r.lease.is_some())
}

/// Whether the unleased entries under index `byte` hold their record's
/// address: those of the fetcher's inputs, whose walk sorts records by
/// address and passes most over, so it reads no record it does not take.
pub(super) fn holds_addr(byte: u8) -> bool {
    byte == State::Ready as u8 || byte == State::Dirty as u8
}

/// The value of the entry of `r` under index `byte`: its lease when
/// leased; its address (4 or 16 bytes) where [`holds_addr`]; else empty,
/// as is the entry of a record without a usable address.
pub(super) fn index_value(byte: u8, r: &Record) -> Vec<u8> {
    if byte & LEASED != 0 {
        return r.lease.map_or_else(Vec::new, |l| l.encode().to_vec());
    }
    if !holds_addr(byte) {
        return Vec::new();
    }
    match r.ip() {
        Some(IpAddr::V4(a)) => a.octets().to_vec(),
        Some(IpAddr::V6(a)) => a.octets().to_vec(),
        None => Vec::new(),
    }
}

/// The address an unleased entry's value holds; None when it holds none
/// (no usable address, or written before entries held them): the record
/// then says.
pub(super) fn index_addr(v: &[u8]) -> Option<IpAddr> {
    if let Ok(a) = <[u8; 4]>::try_from(v) {
        return Some(IpAddr::from(a));
    }
    <[u8; 16]>::try_from(v).ok().map(IpAddr::from)
}

/// What is wrong with the value `v` of the unleased entry of `r` under
/// index `byte`, if anything: an address that is not the record's would
/// queue its fetch under another address's politeness. Empty is sound
/// (written before entries held addresses).
pub(super) fn index_value_problem(byte: u8, r: &Record, v: &[u8]) -> Option<String> {
    if byte & LEASED != 0 || v.is_empty() || v == index_value(byte, r) {
        return None;
    }
    Some(match index_addr(v).filter(|_| holds_addr(byte)) {
        Some(a) => format!("{}: its index entry holds address {a}, not its own", r.url),
        None => format!(
            "{}: its index entry holds {} bytes, not an address",
            r.url,
            v.len()
        ),
    })
}

/// The lease on the record `r` under `key`: the value of its entry in the
/// leased index of its state, or none when it has no entry there. A record
/// leased while leases were written into records (an empty value) keeps
/// the lease it holds; without one, a lease of no live process, reclaimed.
pub(super) fn stored_lease<T: Transaction>(
    store: &Store,
    txn: &T,
    key: &Key,
    r: &Record,
) -> Result<Option<Lease>> {
    match txn.get(store.index, &index_key(index_byte(r.state, true), key)) {
        Ok([]) => Ok(Some(r.lease.unwrap_or_default())),
        Ok(v) => Lease::decode(v)
            .map(Some)
            .ok_or_else(|| store.corrupt(&key.0, "bad lease in the leased index")),
        // The record's own, which check() reports when it names a lease.
        Err(lmdb::Error::NotFound) => Ok(r.lease),
        Err(e) => Err(store.err("cannot read index", e)),
    }
}

/// A key candidate: the URL's hash plus a collision ordinal.
pub(super) fn candidate(hash: &[u8; 16], ordinal: u8) -> Key {
    let mut k = [0; KEY_LEN];
    k[..16].copy_from_slice(hash);
    k[16] = ordinal;
    Key(k)
}

/// Whether a URL is stored, and under which key.
pub(super) enum Slot {
    Found(Key),
    Free,
}

// Lookups shared by read and write transactions; generic over the binding's
// transaction type so both wrappers use one body.
pub(super) fn get_record<T: Transaction>(
    store: &Store,
    txn: &T,
    key: &Key,
) -> Result<Option<Record>> {
    match txn.get(store.records, &key.0) {
        Ok(v) => store.decode_record(txn, key, v).map(Some),
        Err(lmdb::Error::NotFound) => Ok(None),
        Err(e) => Err(store.err("cannot read record", e)),
    }
}

pub(super) fn locate<T: Transaction>(store: &Store, txn: &T, url: &str) -> Result<Slot> {
    let hash = store.hash(url);
    for ordinal in 0..=u8::MAX {
        let key = candidate(&hash, ordinal);
        match txn.get(store.records, &key.0) {
            Ok(v) => {
                let stored = Record::decode_url(v).map_err(|why| store.corrupt(&key.0, why))?;
                if same_resource(stored, url) {
                    return Ok(Slot::Found(key));
                }
            }
            Err(lmdb::Error::NotFound) => return Ok(Slot::Free),
            Err(e) => return Err(store.err("cannot read record", e)),
        }
    }
    Err(Error::Input(format!(
        "{url}: more than 256 URLs share its hash; refusing to store it"
    )))
}

pub(super) fn count<T: Transaction>(store: &Store, txn: &T, byte: u8) -> Result<u64> {
    match txn.get(store.counters, &[byte]) {
        Ok(v) => <[u8; 8]>::try_from(v)
            .map(u64::from_le_bytes)
            .map_err(|_| store.corrupt(&[byte], "bad counter")),
        Err(lmdb::Error::NotFound) => Ok(0),
        Err(e) => Err(store.err("cannot read counter", e)),
    }
}

/// Walks the keys under one index byte, from `from` on, until `f` says stop.
pub(super) fn walk_index<T: Transaction>(
    store: &Store,
    txn: &T,
    byte: u8,
    from: Option<&Key>,
    mut f: impl FnMut(Key) -> Result<bool>,
) -> Result<()> {
    walk_index_values(store, txn, byte, from, |k, _| f(k))
}

/// [`walk_index`] with each entry's value.
pub(super) fn walk_index_values<T: Transaction>(
    store: &Store,
    txn: &T,
    byte: u8,
    from: Option<&Key>,
    mut f: impl FnMut(Key, &[u8]) -> Result<bool>,
) -> Result<()> {
    let start = match from {
        Some(k) => index_key(byte, k).to_vec(),
        None => vec![byte],
    };
    let mut cur = txn
        .open_ro_cursor(store.index)
        .map_err(|e| store.err("cannot open cursor", e))?;
    for item in cur.iter_from(&start) {
        let (k, v) = item.map_err(|e| store.err("cannot walk index", e))?;
        if k.first() != Some(&byte) {
            break;
        }
        let key = Key::from_slice(&k[1..]).ok_or_else(|| store.corrupt(k, "bad index key"))?;
        if !f(key, v)? {
            break;
        }
    }
    Ok(())
}

pub(super) fn walk_records<T: Transaction>(
    store: &Store,
    txn: &T,
    mut f: impl FnMut(Key, Record) -> Result<bool>,
) -> Result<()> {
    let mut cur = txn
        .open_ro_cursor(store.records)
        .map_err(|e| store.err("cannot open cursor", e))?;
    for item in cur.iter_start() {
        let (k, v) = item.map_err(|e| store.err("cannot walk records", e))?;
        let key = Key::from_slice(k).ok_or_else(|| store.corrupt(k, "bad record key"))?;
        let rec = store.decode_record(txn, &key, v)?;
        if !f(key, rec)? {
            break;
        }
    }
    Ok(())
}

/// `f` of the value under `key` in table `t`, read in place (no copy of
/// it is made); None when there is none.
pub(super) fn table_peek<T: Transaction, R>(
    store: &Store,
    txn: &T,
    t: Table,
    key: &[u8],
    f: impl FnOnce(&[u8]) -> R,
) -> Result<Option<R>> {
    // A key LMDB cannot hold names no entry: asking for one (a host-keyed
    // table and a URL without a host) is an answer, not a failure.
    if key.is_empty() || key.len() > MAX_TABLE_KEY {
        return Ok(None);
    }
    match txn.get(store.table(t), &key) {
        Ok(v) => Ok(Some(f(v))),
        Err(lmdb::Error::NotFound) => Ok(None),
        Err(e) => Err(store.err("cannot read table", e)),
    }
}

/// The entries of `cur`'s table from the first key at or after `prefix`
/// (the caller stops at the first key without it). An empty prefix starts
/// at the first entry: LMDB has no empty key to seek to.
pub(super) fn from_prefix<'t>(cur: &mut impl Cursor<'t>, prefix: &[u8]) -> lmdb::Iter<'t> {
    if prefix.is_empty() {
        cur.iter_start()
    } else {
        cur.iter_from(prefix)
    }
}

pub(super) fn table_walk<T: Transaction>(
    store: &Store,
    txn: &T,
    t: Table,
    prefix: &[u8],
    mut f: impl FnMut(&[u8], &[u8]) -> Result<bool>,
) -> Result<()> {
    let mut cur = txn
        .open_ro_cursor(store.table(t))
        .map_err(|e| store.err("cannot open cursor", e))?;
    for item in from_prefix(&mut cur, prefix) {
        let (k, v) = item.map_err(|e| store.err("cannot walk table", e))?;
        if !k.starts_with(prefix) || !f(k, v)? {
            break;
        }
    }
    Ok(())
}

impl Store {
    /// The record stored under `key` as `v`, counted in
    /// [`Store::records_decoded`]; a record that does not decode is the
    /// database's corruption, named by its key.
    /// Its lease, if any, comes from the leased index (read here).
    pub(super) fn decode_record<T: lmdb::Transaction>(
        &self,
        txn: &T,
        key: &Key,
        v: &[u8],
    ) -> Result<Record> {
        self.decoded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut r = Record::decode(v).map_err(|why| self.corrupt(&key.0, why))?;
        r.lease = stored_lease(self, txn, key, &r)?;
        Ok(r)
    }
}

//! The READY records by address: table `ready`, one entry for every
//! unleased READY record, keyed by its address and then its key, with
//! no value. A fill walks it address by address and passes over an
//! address it cannot use (resting, its queue full) with one seek, where
//! the record index, in hash order, interleaves that address's records
//! with everyone's: a frontier of a million records resting on a few
//! hundred addresses cost a fill up to 65,536 cursor steps to find the
//! few records it could fetch (`scripts/bench/scale.rs`, 10 M).
//!
//! An entry's key: a family byte (0 for a record without a usable
//! address, 4, 6), 16 bytes of address (IPv4 in the first four, the rest
//! zero), the record key. Written in the transaction of every move into
//! or out of the unleased READY index (`txn`), built once from that index
//! when a database from before the table is first opened for writing.
//! Like `db` and `txn`, this calls LMDB directly.

use std::net::IpAddr;

use lmdb::{Cursor, Transaction};

use super::db::*;
use super::index::{index_addr, index_byte, walk_index_values};
use crate::error::Result;
use crate::store::record::{Record, State};

/// Present once the table holds every unleased READY record.
const META_BUILT: &[u8] = b"ready:built";

const ADDR_LEN: usize = 1 + 16;
const ENTRY_LEN: usize = ADDR_LEN + KEY_LEN;

/// Where a walk of the table stopped: the next walk starts there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadyPlace([u8; ENTRY_LEN]);

/// What a walk does after an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The next entry.
    Next,
    /// The first entry of the next address.
    NextAddr,
    /// This address's entry at this key or after it, if it is past the
    /// current one (else the next entry).
    Seek(Key),
    /// Stop here: the walk returns this entry's place.
    Stop,
}

fn addr_bytes(addr: Option<IpAddr>) -> [u8; ADDR_LEN] {
    let mut b = [0; ADDR_LEN];
    match addr {
        Some(IpAddr::V4(a)) => {
            b[0] = 4;
            b[1..5].copy_from_slice(&a.octets());
        }
        Some(IpAddr::V6(a)) => {
            b[0] = 6;
            b[1..].copy_from_slice(&a.octets());
        }
        None => {}
    }
    b
}

fn entry_key(addr: Option<IpAddr>, key: &Key) -> [u8; ENTRY_LEN] {
    let mut k = [0; ENTRY_LEN];
    k[..ADDR_LEN].copy_from_slice(&addr_bytes(addr));
    k[ADDR_LEN..].copy_from_slice(&key.0);
    k
}

/// The address and key of an entry; None for bytes that are not one.
fn decode(k: &[u8]) -> Option<(Option<IpAddr>, Key)> {
    if k.len() != ENTRY_LEN {
        return None;
    }
    let key = Key::from_slice(&k[ADDR_LEN..])?;
    let addr = match k[0] {
        0 => None,
        4 => Some(IpAddr::from(<[u8; 4]>::try_from(&k[1..5]).ok()?)),
        6 => Some(IpAddr::from(<[u8; 16]>::try_from(&k[1..ADDR_LEN]).ok()?)),
        _ => return None,
    };
    Some((addr, key))
}

/// The first possible entry after every entry of `k`'s address, or None
/// past the last address there can be.
fn after_addr(k: &[u8]) -> Option<Vec<u8>> {
    let mut p = k.get(..ADDR_LEN)?.to_vec();
    for b in p.iter_mut().rev() {
        if *b == u8::MAX {
            *b = 0;
        } else {
            *b += 1;
            return Some(p);
        }
    }
    None
}

fn table(store: &Store) -> Result<lmdb::Database> {
    store.ready.ok_or_else(|| {
        crate::error::Error::Input(format!(
            "{}: the database has no READY table yet (run any daemon on it once)",
            store.path().display()
        ))
    })
}

/// Enters the unleased READY record `rec` under `key`.
pub(super) fn put(
    store: &Store,
    txn: &mut lmdb::RwTransaction<'_>,
    key: &Key,
    rec: &Record,
) -> Result<()> {
    let t = table(store)?;
    txn.put(t, &entry_key(rec.ip(), key), &[], lmdb::WriteFlags::empty())
        .map_err(|e| store.err("cannot write READY table", e))
}

/// Takes out the entry of `rec` (as stored) under `key`. One that is not
/// there is not an error: `check` names it, and a walk hands out only
/// what it finds.
pub(super) fn del(
    store: &Store,
    txn: &mut lmdb::RwTransaction<'_>,
    key: &Key,
    rec: &Record,
) -> Result<()> {
    let t = table(store)?;
    match txn.del(t, &entry_key(rec.ip(), key), None) {
        Ok(()) | Err(lmdb::Error::NotFound) => Ok(()),
        Err(e) => Err(store.err("cannot write READY table", e)),
    }
}

/// Walks the table from `from` (or its start), address by address, each
/// address's records in key order; `f` gets each key and address and says
/// where to go on. Returns the place where `f` said [`Step::Stop`], or
/// None when the walk passed the end.
pub(super) fn walk<T: Transaction>(
    store: &Store,
    txn: &T,
    from: Option<&ReadyPlace>,
    mut f: impl FnMut(Key, Option<IpAddr>) -> Result<Step>,
) -> Result<Option<ReadyPlace>> {
    let t = table(store)?;
    let mut cur = txn
        .open_ro_cursor(t)
        .map_err(|e| store.err("cannot open cursor", e))?;
    let mut start: Vec<u8> = from.map_or_else(|| vec![0], |p| p.0.to_vec());
    loop {
        let mut next = None;
        for item in cur.iter_from(&start) {
            let (k, _) = item.map_err(|e| store.err("cannot walk READY table", e))?;
            let (addr, key) = decode(k).ok_or_else(|| store.corrupt(k, "bad READY table key"))?;
            match f(key, addr)? {
                Step::Next => {}
                Step::NextAddr => {
                    next = Some(after_addr(k));
                    break;
                }
                Step::Seek(to) if to > key => {
                    next = Some(Some(entry_key(addr, &to).to_vec()));
                    break;
                }
                Step::Seek(_) => {}
                Step::Stop => {
                    let mut p = [0; ENTRY_LEN];
                    p.copy_from_slice(k);
                    return Ok(Some(ReadyPlace(p)));
                }
            }
        }
        match next {
            Some(Some(s)) => start = s,
            _ => return Ok(None),
        }
    }
}

impl Store {
    /// Fills the READY table from the unleased READY index, if it was
    /// never built.
    pub(super) fn ensure_ready(&self) -> Result<()> {
        let Some(t) = self.ready else {
            return Ok(());
        };
        if self.meta_flag(META_BUILT)? {
            return Ok(());
        }
        let mut w = self.write()?;
        w.txn
            .clear_db(t)
            .map_err(|e| self.err("cannot clear READY table", e))?;
        let mut entries = Vec::new();
        walk_index_values(
            self,
            &w.txn,
            index_byte(State::Ready, false),
            None,
            |k, v| {
                entries.push((k, index_addr(v)));
                Ok(true)
            },
        )?;
        let mut keys = Vec::with_capacity(entries.len());
        for (k, held) in entries {
            // An entry from before index entries held addresses: the record says.
            let addr = match held {
                Some(a) => Some(a),
                None => super::index::get_record(self, &w.txn, &k)?.and_then(|r| r.ip()),
            };
            keys.push(entry_key(addr, &k));
        }
        // In order, each leaf is written once and left full: a table of
        // millions of entries stays within the pages one transaction may
        // change.
        keys.sort_unstable();
        for k in keys {
            w.txn
                .put(t, &k, &[], lmdb::WriteFlags::APPEND)
                .map_err(|e| self.err("cannot write READY table", e))?;
        }
        w.table_put(Table::Meta, META_BUILT, &[1])?;
        w.commit()
    }
}

/// Compares the table with the unleased READY index: an entry for each
/// record there, under its address, and nothing else.
pub(super) fn problems<T: Transaction>(store: &Store, txn: &T) -> Result<Vec<String>> {
    let Some(t) = store.ready else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut cur = txn
        .open_ro_cursor(t)
        .map_err(|e| store.err("cannot open cursor", e))?;
    let mut entries = 0u64;
    for item in cur.iter_start() {
        let (k, _) = item.map_err(|e| store.err("cannot walk READY table", e))?;
        entries += 1;
        let Some((addr, key)) = decode(k) else {
            out.push(format!(
                "READY table entry {}: not an address and a key",
                hex(k)
            ));
            continue;
        };
        match super::index::get_record(store, txn, &key)? {
            Some(r) if r.state == State::Ready && r.lease.is_none() && r.ip() == addr => {}
            Some(r) => out.push(format!(
                "{}: in the READY table under {}, but {} at {}",
                r.url,
                addr.map_or_else(|| "no address".into(), |a| a.to_string()),
                r.state,
                if r.addr.is_empty() {
                    "no address"
                } else {
                    &r.addr
                },
            )),
            None => out.push(format!(
                "{}: in the READY table, but there is no such record",
                key.hex()
            )),
        }
    }
    let ready = super::index::count(store, txn, index_byte(State::Ready, false))?;
    if entries != ready {
        out.push(format!(
            "READY table: {entries} entries for {ready} unleased READY records"
        ));
    }
    Ok(out)
}

impl Read<'_> {
    /// Walks the unleased READY records address by address (see [`walk`]).
    pub fn walk_ready(
        &self,
        from: Option<&ReadyPlace>,
        f: impl FnMut(Key, Option<IpAddr>) -> Result<Step>,
    ) -> Result<Option<ReadyPlace>> {
        walk(self.store, &self.txn, from, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::Lease;
    use crate::store::{Inserted, Options};

    fn ready(url: &str, addr: &str) -> Record {
        let mut r = Record::new(url, 1000);
        r.state = State::Ready;
        r.addr = addr.into();
        r
    }

    fn plant(st: &Store, recs: &[Record]) -> Vec<Key> {
        let mut w = st.write().unwrap();
        let keys = w
            .insert_batch(recs)
            .unwrap()
            .into_iter()
            .map(|i| match i {
                Inserted::New(k) => k,
                other => panic!("{other:?}"),
            })
            .collect();
        w.commit().unwrap();
        keys
    }

    /// The (address, key) pairs a whole walk hands out.
    fn walked(st: &Store) -> Vec<(Option<IpAddr>, Key)> {
        let mut out = Vec::new();
        let end = st
            .read()
            .unwrap()
            .walk_ready(None, |k, a| {
                out.push((a, k));
                Ok(Step::Next)
            })
            .unwrap();
        assert_eq!(end, None, "a walk to the end returns no place");
        out
    }

    #[test]
    fn a_walk_goes_address_by_address_and_follows_every_move() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let mut recs = Vec::new();
        for i in 0..30 {
            let addr = ["192.0.2.9", "2001:db8::1", "192.0.2.1", ""][i % 4];
            recs.push(ready(&format!("http://h{i}.test/"), addr));
        }
        let keys = plant(&st, &recs);
        let got = walked(&st);
        assert_eq!(got.len(), 30);
        // No address first, then IPv4 before IPv6, each address's keys in order.
        let mut want: Vec<(Option<IpAddr>, Key)> =
            recs.iter().zip(&keys).map(|(r, k)| (r.ip(), *k)).collect();
        let rank = |a: &Option<IpAddr>| match a {
            None => 0,
            Some(IpAddr::V4(_)) => 1,
            Some(IpAddr::V6(_)) => 2,
        };
        want.sort_by_key(|x| (rank(&x.0), x.0, x.1 .0));
        assert_eq!(got, want);
        assert!(st.read().unwrap().check().unwrap().is_empty());

        // A lease, a move out of READY and a new address each show.
        let (leased, moved, readdressed) = (keys[0], keys[1], keys[2]);
        let mut w = st.write().unwrap();
        w.lease_key(&leased, State::Ready, Lease { pid: 7, time: 9 })
            .unwrap()
            .unwrap();
        let mut r = recs[1].clone();
        r.state = State::Unreach;
        w.update(&moved, &r).unwrap();
        let mut r = recs[2].clone();
        r.addr = "198.51.100.5".into();
        w.update(&readdressed, &r).unwrap();
        w.commit().unwrap();
        let got = walked(&st);
        assert_eq!(got.len(), 28);
        assert!(!got.iter().any(|(_, k)| *k == leased || *k == moved));
        assert!(got.contains(&(Some("198.51.100.5".parse().unwrap()), readdressed)));
        assert!(st.read().unwrap().check().unwrap().is_empty());
        assert!(st.check_all().unwrap().problems.is_empty());
    }

    #[test]
    fn a_walk_passes_an_address_seeks_in_one_and_stops_where_told() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let mut recs = Vec::new();
        for i in 0..300 {
            let addr = if i < 200 { "192.0.2.1" } else { "192.0.2.2" };
            recs.push(ready(&format!("http://h{i}.test/"), addr));
        }
        plant(&st, &recs);
        let all = walked(&st);
        let first_b = all.iter().position(|(a, _)| *a == recs[250].ip()).unwrap();
        assert_eq!(first_b, 200);
        let rd = st.read().unwrap();
        // Passing over the first address: its next entry is the other's.
        let mut seen = Vec::new();
        rd.walk_ready(None, |k, a| {
            seen.push(k);
            Ok(if a == recs[0].ip() {
                Step::NextAddr
            } else {
                Step::Next
            })
        })
        .unwrap();
        assert_eq!(seen.len(), 101);
        assert_eq!(seen[1], all[200].1);
        // A seek forward in an address, and one backward that is ignored.
        let mut seen = Vec::new();
        rd.walk_ready(None, |k, _| {
            seen.push(k);
            Ok(match seen.len() {
                1 => Step::Seek(all[150].1),
                2 => Step::Seek(all[0].1),
                _ => Step::Next,
            })
        })
        .unwrap();
        assert_eq!(seen[..3], [all[0].1, all[150].1, all[151].1]);
        assert_eq!(seen.len(), 1 + 150);
        // Stopped at an entry, the next walk begins with it.
        let place = rd
            .walk_ready(None, |k, _| {
                Ok(if k == all[230].1 {
                    Step::Stop
                } else {
                    Step::Next
                })
            })
            .unwrap()
            .expect("stopped");
        let mut first = None;
        rd.walk_ready(Some(&place), |k, _| {
            first = Some(k);
            Ok(Step::Stop)
        })
        .unwrap();
        assert_eq!(first, Some(all[230].1));
    }

    #[test]
    fn a_database_without_the_table_gets_it_filled_when_opened_for_writing() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let recs: Vec<Record> = (0..50)
            .map(|i| ready(&format!("http://h{i}.test/"), "192.0.2.3"))
            .collect();
        plant(&st, &recs);
        let before = walked(&st);
        // As a database from before the table: empty, never built.
        let mut w = st.write().unwrap();
        w.txn.clear_db(st.ready.unwrap()).unwrap();
        w.txn.del(st.table(Table::Meta), &META_BUILT, None).unwrap();
        w.commit().unwrap();
        let problems = st.read().unwrap().check().unwrap();
        assert!(
            problems.iter().any(|p| p.contains("0 entries for 50")),
            "{problems:?}"
        );
        drop(st);
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        assert_eq!(walked(&st), before);
        assert!(st.read().unwrap().check().unwrap().is_empty());
    }

    #[test]
    fn an_entry_that_is_not_its_records_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let keys = plant(&st, &[ready("http://a.test/", "192.0.2.3")]);
        let mut w = st.write().unwrap();
        let wrong = entry_key(Some("192.0.2.4".parse().unwrap()), &keys[0]);
        w.txn
            .put(st.ready.unwrap(), &wrong, &[], lmdb::WriteFlags::empty())
            .unwrap();
        w.commit().unwrap();
        let problems = st.check_all().unwrap().problems;
        assert!(
            problems
                .iter()
                .any(|p| p.contains("http://a.test/") && p.contains("under 192.0.2.4")),
            "{problems:?}"
        );
    }
}

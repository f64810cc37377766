//! Transactions on the store: the methods of a read-only snapshot
//! ([`Read`]) and of the one write transaction ([`Write`]), both declared
//! with [`Store`] in `db`; the lookups and walks they share are in `index`.
//! Like `db`, it calls LMDB directly.

use lmdb::{Cursor, Transaction};

use super::db::*;
use super::index::*;
use crate::error::{Error, Result};
use crate::store::record::{Flags, Lease, Record, State, RECLAIM_LIMIT};
use crate::web::url::same_resource;

/// The read operations, shared by [`Read`] and [`Write`].
macro_rules! view_methods {
    () => {
        /// The record under `key`.
        pub fn get(&self, key: &Key) -> Result<Option<Record>> {
            get_record(self.store, &self.txn, key)
        }

        /// Looks at the encoded record under `key` without decoding it all
        /// (see [`Record::decode_addr`]); None when there is none.
        pub fn peek<T>(&self, key: &Key, f: impl FnOnce(&[u8]) -> T) -> Result<Option<T>> {
            match self.txn.get(self.store.records, &key.0) {
                Ok(v) => Ok(Some(f(v))),
                Err(lmdb::Error::NotFound) => Ok(None),
                Err(e) => Err(self.store.err("cannot read record", e)),
            }
        }

        /// The key and record of a URL, if known: of any URL with the same
        /// key form (`web::url::key_form`).
        pub fn lookup(&self, url: &str) -> Result<Option<(Key, Record)>> {
            match locate(self.store, &self.txn, url)? {
                Slot::Found(k) => Ok(self.get(&k)?.map(|r| (k, r))),
                Slot::Free => Ok(None),
            }
        }

        /// Records in `state` (unleased, or leased if `leased`), in key order.
        pub fn count(&self, state: State, leased: bool) -> Result<u64> {
            count(self.store, &self.txn, index_byte(state, leased))
        }

        /// Walks the keys of records in `state`, in key order, from `from`.
        /// `f` returns false to stop.
        pub fn walk_keys(
            &self,
            state: State,
            leased: bool,
            from: Option<&Key>,
            f: impl FnMut(Key) -> Result<bool>,
        ) -> Result<()> {
            walk_index(self.store, &self.txn, index_byte(state, leased), from, f)
        }

        /// Walks the records in `state` (leased or not), in key order.
        pub fn walk_state(
            &self,
            state: State,
            leased: bool,
            mut f: impl FnMut(Key, Record) -> Result<bool>,
        ) -> Result<()> {
            walk_index(
                self.store,
                &self.txn,
                index_byte(state, leased),
                None,
                |k| match get_record(self.store, &self.txn, &k)? {
                    Some(r) => f(k, r),
                    None => Err(self.store.corrupt(&k.0, "index names a missing record")),
                },
            )
        }

        /// True when a leased record's lease satisfies `f` (stops at the
        /// first): lets a daemon see that no lease needs reclaiming
        /// without taking the write lock.
        pub fn any_lease(&self, mut f: impl FnMut(Lease) -> bool) -> Result<bool> {
            let mut found = false;
            for state in State::ALL {
                self.walk_state(state, true, |_, r| {
                    found = r.lease.is_none_or(&mut f);
                    Ok(!found)
                })?;
                if found {
                    break;
                }
            }
            Ok(found)
        }

        /// Walks every record in key order.
        pub fn walk_all(&self, f: impl FnMut(Key, Record) -> Result<bool>) -> Result<()> {
            walk_records(self.store, &self.txn, f)
        }

        /// A value from one of the free-form tables.
        pub fn table_get(&self, t: Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
            self.table_peek(t, key, <[u8]>::to_vec)
        }

        /// `f` of a value from one of the free-form tables, read where it
        /// lies in the store: for values read often and kept in part.
        pub fn table_peek<R>(
            &self,
            t: Table,
            key: &[u8],
            f: impl FnOnce(&[u8]) -> R,
        ) -> Result<Option<R>> {
            table_peek(self.store, &self.txn, t, key, f)
        }

        /// Walks a free-form table's entries whose keys start with `prefix`.
        pub fn table_walk(
            &self,
            t: Table,
            prefix: &[u8],
            f: impl FnMut(&[u8], &[u8]) -> Result<bool>,
        ) -> Result<()> {
            table_walk(self.store, &self.txn, t, prefix, f)
        }

        /// Checks that every record is in exactly the index its state says
        /// and that the counters match; returns the problems found.
        pub fn check(&self) -> Result<Vec<String>> {
            let mut problems = Vec::new();
            let mut by_byte = [0u64; 256];
            walk_records(self.store, &self.txn, |k, r| {
                let b = record_index_byte(&r);
                by_byte[b as usize] += 1;
                match self.txn.get(self.store.index, &index_key(b, &k)) {
                    Ok(v) => problems.extend(index_value_problem(b, &r, v)),
                    Err(lmdb::Error::NotFound) => {
                        problems.push(format!("{}: not in the {} index", r.url, r.state))
                    }
                    Err(e) => return Err(self.store.err("cannot read index", e)),
                }
                Ok(true)
            })?;
            let mut indexed = [0u64; 256];
            let mut cur = self
                .txn
                .open_ro_cursor(self.store.index)
                .map_err(|e| self.store.err("cannot open cursor", e))?;
            for item in cur.iter_start() {
                let (k, _) = item.map_err(|e| self.store.err("cannot walk index", e))?;
                indexed[k[0] as usize] += 1;
            }
            for b in 0..256usize {
                let counted = count(self.store, &self.txn, b as u8)?;
                if indexed[b] != by_byte[b] || counted != by_byte[b] {
                    problems.push(format!(
                        "index byte {b:#04x}: {} records, {} index entries, counter {}",
                        by_byte[b], indexed[b], counted
                    ));
                }
            }
            problems.extend(super::due::problems(self.store, &self.txn)?);
            problems.extend(super::ready::problems(self.store, &self.txn)?);
            Ok(problems)
        }
    };
}

impl<'s> Read<'s> {
    view_methods!();
}

impl<'s> Write<'s> {
    view_methods!();

    /// Commits every change, counters included.
    pub fn commit(mut self) -> Result<()> {
        let deltas = std::mem::take(&mut self.deltas);
        for (byte, delta) in deltas {
            if delta == 0 {
                continue;
            }
            let now = count(self.store, &self.txn, byte)? as i64 + delta;
            let v = (now.max(0) as u64).to_le_bytes();
            self.txn
                .put(self.store.counters, &[byte], &v, lmdb::WriteFlags::empty())
                .map_err(|e| self.store.err("cannot write counter", e))?;
        }
        let store = self.store;
        let added = self.added;
        self.txn
            .commit()
            .map_err(|e| store.err("cannot commit transaction", e))?;
        super::wake::notify(store.path(), added);
        Ok(())
    }

    fn delta(&mut self, byte: u8, d: i64) {
        match self.deltas.iter_mut().find(|(b, _)| *b == byte) {
            Some((_, v)) => *v += d,
            None => self.deltas.push((byte, d)),
        }
    }

    /// Enters `key`, the key of `rec`, in the index `byte` (see
    /// [`index_value`] for what the entry holds).
    fn index_put(&mut self, byte: u8, key: &Key, rec: &Record) -> Result<()> {
        self.index_write(byte, key, rec)?;
        self.delta(byte, 1);
        if byte & LEASED == 0 {
            self.added |= 1u32.checked_shl(byte as u32).unwrap_or(0);
        }
        Ok(())
    }

    /// Writes the entry of `key` in the index `byte`, counting nothing,
    /// and an unleased READY record's in the READY table.
    fn index_write(&mut self, byte: u8, key: &Key, rec: &Record) -> Result<()> {
        self.txn
            .put(
                self.store.index,
                &index_key(byte, key),
                &index_value(byte, rec),
                lmdb::WriteFlags::empty(),
            )
            .map_err(|e| self.store.err("cannot write index", e))?;
        if byte == READY_UNLEASED {
            super::ready::put(self.store, &mut self.txn, key, rec)?;
        }
        Ok(())
    }

    /// Takes `key`, the key of `old` (as stored), out of the index `byte`
    /// (and out of the READY table).
    fn index_del(&mut self, byte: u8, key: &Key, old: &Record) -> Result<()> {
        if byte == READY_UNLEASED {
            super::ready::del(self.store, &mut self.txn, key, old)?;
        }
        match self.txn.del(self.store.index, &index_key(byte, key), None) {
            Ok(()) => {
                self.delta(byte, -1);
                Ok(())
            }
            Err(lmdb::Error::NotFound) => {
                Err(self.store.corrupt(&key.0, "record missing from its index"))
            }
            Err(e) => Err(self.store.err("cannot write index", e)),
        }
    }

    /// Inserts a record for a URL not yet known. A known URL, in whatever
    /// state, is left as it is.
    pub fn insert(&mut self, rec: &Record) -> Result<Inserted> {
        let hash = self.store.hash(&rec.url);
        let enc = rec.encode();
        for ordinal in 0..=u8::MAX {
            let key = candidate(&hash, ordinal);
            // One B-tree search: a put that refuses to overwrite hands back
            // the record already there, if any.
            match self.put_new(&key, &enc)? {
                None => {
                    self.index_put(record_index_byte(rec), &key, rec)?;
                    self.reschedule(&key, None, rec)?;
                    return Ok(Inserted::New(key));
                }
                Some((url_matches, state)) if url_matches => {
                    return Ok(Inserted::Known(key, state));
                }
                Some(_) => continue,
            }
        }
        Err(Error::Input(format!(
            "{}: more than 256 URLs share its hash; refusing to store it",
            rec.url
        )))
    }

    /// Writes `enc` under `key` unless the key exists; then returns whether
    /// the existing record holds the same URL, and its state.
    fn put_new(&mut self, key: &Key, enc: &[u8]) -> Result<Option<(bool, State)>> {
        let mut k = lmdb_sys::MDB_val {
            mv_size: key.0.len(),
            mv_data: key.0.as_ptr() as *mut libc::c_void,
        };
        let mut v = lmdb_sys::MDB_val {
            mv_size: enc.len(),
            mv_data: enc.as_ptr() as *mut libc::c_void,
        };
        // SAFETY: the transaction and database are open; k and v point to
        // live buffers; on MDB_KEYEXIST LMDB points v at the existing data,
        // which stays valid until the next write, and is read before one.
        let rc = unsafe {
            lmdb_sys::mdb_put(
                self.txn.txn(),
                self.store.records.dbi(),
                &mut k,
                &mut v,
                lmdb_sys::MDB_NOOVERWRITE,
            )
        };
        match rc {
            0 => Ok(None),
            lmdb_sys::MDB_KEYEXIST => {
                // SAFETY: see above.
                let existing =
                    unsafe { std::slice::from_raw_parts(v.mv_data as *const u8, v.mv_size) };
                let url =
                    Record::decode_url(existing).map_err(|why| self.store.corrupt(&key.0, why))?;
                let state = existing
                    .get(1)
                    .copied()
                    .and_then(State::from_u8)
                    .ok_or_else(|| self.store.corrupt(&key.0, "unknown state"))?;
                let new_url = Record::decode_url(enc).unwrap_or("");
                Ok(Some((same_resource(url, new_url), state)))
            }
            e => Err(self
                .store
                .err("cannot write record", lmdb::Error::from_err_code(e))),
        }
    }

    /// Inserts many records, as [`Write::insert`] does each, in key order:
    /// neighbouring keys share B-tree pages, so a sorted batch dirties each
    /// page once. Results come back in the order of `recs`.
    pub fn insert_batch(&mut self, recs: &[Record]) -> Result<Vec<Inserted>> {
        let mut order: Vec<(usize, [u8; 16])> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| (i, self.store.hash(&r.url)))
            .collect();
        order.sort_unstable_by_key(|a| a.1);
        let mut out = vec![None; recs.len()];
        for (i, _) in order {
            out[i] = Some(self.insert(&recs[i])?);
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// Stores `rec` under `key`, moving it between indexes as its state and
    /// lease say. The record must exist.
    pub fn update(&mut self, key: &Key, rec: &Record) -> Result<()> {
        // A re-fetch's verdict waits in the record for the schedule; the
        // stored record's, not the caller's copy, says what is pending.
        let mut adjusted: Option<Record> = None;
        let (old, enc, same) = match self.txn.get(self.store.records, &key.0) {
            Ok(v) => {
                let old = self.store.decode_record(&self.txn, key, v)?;
                let bits = crate::store::sched::verdict_after(&old, rec);
                if rec.flags & Flags::REFETCH != bits {
                    let mut r = rec.clone();
                    r.flags = r.flags & !Flags::REFETCH | bits;
                    adjusted = Some(r);
                }
                let enc = adjusted.as_ref().unwrap_or(rec).encode();
                let same = v == &enc[..];
                (old, enc, same)
            }
            Err(lmdb::Error::NotFound) => {
                return Err(self.store.corrupt(&key.0, "update of a missing record"))
            }
            Err(e) => return Err(self.store.err("cannot read record", e)),
        };
        let rec = adjusted.as_ref().unwrap_or(rec);
        let (from, to) = (record_index_byte(&old), record_index_byte(rec));
        if from != to {
            self.index_del(from, key, &old)?;
            self.index_put(to, key, rec)?;
        } else if to & LEASED != 0 {
            // The lease may be another, or still in the record (written
            // before leases moved to the index): the index holds it now.
            self.index_write(to, key, rec)?;
        } else if holds_addr(to) && old.addr != rec.addr {
            if to == READY_UNLEASED {
                super::ready::del(self.store, &mut self.txn, key, &old)?;
            }
            self.index_write(to, key, rec)?;
        }
        self.reschedule(key, Some(&old), rec)?;
        // A record that only lost or changed its lease is not written:
        // in a large database it is a leaf and a branch page of its own.
        if same {
            return Ok(());
        }
        self.txn
            .put(self.store.records, &key.0, &enc, lmdb::WriteFlags::empty())
            .map_err(|e| self.store.err("cannot write record", e))
    }

    /// Takes up to `n` unleased records in `state`, in key order, and leases
    /// them to `lease`. They stay in `state`, invisible to other daemons,
    /// until [`Write::finish`] or a reclaim.
    pub fn lease(&mut self, state: State, n: usize, lease: Lease) -> Result<Vec<(Key, Record)>> {
        self.lease_from(state, n, lease, None)
    }

    /// [`Write::lease`] from the key `from` on (where the caller's last
    /// batch ended), then from the start: a record is not passed over for
    /// ever while records before it keep coming in faster than they are
    /// taken.
    pub fn lease_from(
        &mut self,
        state: State,
        n: usize,
        lease: Lease,
        from: Option<&Key>,
    ) -> Result<Vec<(Key, Record)>> {
        let mut keys = Vec::with_capacity(n);
        let byte = index_byte(state, false);
        walk_index(self.store, &self.txn, byte, from, |k| {
            keys.push(k);
            Ok(keys.len() < n)
        })?;
        if let Some(end) = from.filter(|_| keys.len() < n) {
            walk_index(self.store, &self.txn, byte, None, |k| {
                if k >= *end {
                    return Ok(false);
                }
                keys.push(k);
                Ok(keys.len() < n)
            })?;
        }
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            let mut rec = self
                .get(&key)?
                .ok_or_else(|| self.store.corrupt(&key.0, "index names a missing record"))?;
            self.take(&key, &mut rec, lease)?;
            out.push((key, rec));
        }
        Ok(out)
    }

    /// Leases the record under `key` if it is in `state` and unleased;
    /// returns it, or None when it has moved on or is taken.
    pub fn lease_key(&mut self, key: &Key, state: State, lease: Lease) -> Result<Option<Record>> {
        self.lease_key_if(key, state, lease, |_| true)
    }

    /// [`Write::lease_key`] of a record that `want` accepts as it is now:
    /// a caller that chose it from an earlier snapshot checks that what
    /// it chose it by still holds.
    pub fn lease_key_if(
        &mut self,
        key: &Key,
        state: State,
        lease: Lease,
        want: impl FnOnce(&Record) -> bool,
    ) -> Result<Option<Record>> {
        let Some(mut rec) = self.get(key)? else {
            return Ok(None);
        };
        if rec.state != state || rec.lease.is_some() || !want(&rec) {
            return Ok(None);
        }
        self.take(key, &mut rec, lease)?;
        Ok(Some(rec))
    }

    /// Leases the unleased record `rec` under `key`: it moves to its
    /// state's leased index, which holds the lease; the record itself is
    /// not written (see [`Lease`]).
    fn take(&mut self, key: &Key, rec: &mut Record, lease: Lease) -> Result<()> {
        self.unplace_for_lease(key, rec)?;
        self.index_del(index_byte(rec.state, false), key, rec)?;
        rec.lease = Some(lease);
        self.index_put(index_byte(rec.state, true), key, rec)
    }

    /// Ends `lease` on the record under `key`, storing `rec` (its new state
    /// and fields). Returns false and changes nothing when the lease is no
    /// longer the caller's (it was reclaimed), so no work is applied twice.
    pub fn finish(&mut self, key: &Key, rec: &Record, lease: Lease) -> Result<bool> {
        match self.get(key)? {
            Some(cur) if cur.lease == Some(lease) => {
                let mut rec = rec.clone();
                rec.lease = None;
                // Its daemon lived to give it back: the failures before
                // were not its fault.
                rec.reclaims = 0;
                self.update(key, &rec)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Returns every lease whose owner `alive` says is gone to the record's
    /// input state. Returns how many were reclaimed. A dead owner's leases
    /// are not held against the records: an owner killed from outside (an
    /// operator, the OOM killer) looks the same as one that crashed.
    pub fn reclaim(&mut self, alive: impl Fn(Lease) -> bool) -> Result<usize> {
        Ok(self.end_leases(|l| !alive(l), false, 0)?.returned)
    }

    /// Ends the leases of process `pid`, which failed while holding them (a
    /// panic outside the work on any one record). Each record counts such
    /// failures in a row (cleared by [`Write::finish`]); at
    /// [`RECLAIM_LIMIT`] it is set aside as QUARANTINED (changed at `now`)
    /// instead of going back to its input state, so a record that makes its
    /// daemon fail is not handed out forever.
    pub fn fail_leases(&mut self, pid: u32, now: u64) -> Result<Reclaimed> {
        self.end_leases(|l| l.pid == pid, true, now)
    }

    fn end_leases(
        &mut self,
        end: impl Fn(Lease) -> bool,
        count: bool,
        now: u64,
    ) -> Result<Reclaimed> {
        let mut leased = Vec::new();
        for state in State::ALL {
            walk_index(self.store, &self.txn, index_byte(state, true), None, |k| {
                leased.push(k);
                Ok(true)
            })?;
        }
        let mut out = Reclaimed::default();
        for key in leased {
            let Some(mut rec) = self.get(&key)? else {
                return Err(self.store.corrupt(&key.0, "index names a missing record"));
            };
            match rec.lease {
                Some(l) if !end(l) => continue,
                _ => {}
            }
            rec.lease = None;
            if count {
                rec.reclaims = rec.reclaims.saturating_add(1);
            }
            if count && rec.reclaims >= RECLAIM_LIMIT {
                rec.reason = format!(
                    "its daemon failed {} times while holding it (in {})",
                    rec.reclaims, rec.state
                );
                rec.state = State::Quarantined;
                rec.changed = now;
                out.quarantined.push(rec.url.clone());
            } else {
                out.returned += 1;
            }
            self.update(&key, &rec)?;
        }
        Ok(out)
    }

    /// Stores a value in one of the free-form tables.
    pub fn table_put(&mut self, t: Table, key: &[u8], val: &[u8]) -> Result<()> {
        self.txn
            .put(self.store.table(t), &key, &val, lmdb::WriteFlags::empty())
            .map_err(|e| self.store.err("cannot write table", e))
    }

    /// For each `(prefix, key)` of `walks` in turn: walks the free-form
    /// table's entries whose keys start with `prefix` (`f` is given the
    /// pair's place in `walks` and each entry's key; false stops that
    /// walk), and then, unless `f` stopped it, puts `key` with an empty
    /// value. One cursor serves every walk and put, so a key that sorts
    /// among the entries just walked is put without a second search from
    /// the root of the tree.
    pub fn table_walk_enter<P: AsRef<[u8]>, K: AsRef<[u8]>>(
        &mut self,
        t: Table,
        walks: &[(P, K)],
        mut f: impl FnMut(usize, &[u8]) -> Result<bool>,
    ) -> Result<()> {
        let store = self.store;
        let mut cur = self
            .txn
            .open_rw_cursor(store.table(t))
            .map_err(|e| store.err("cannot open cursor", e))?;
        for (i, (prefix, key)) in walks.iter().enumerate() {
            let prefix = prefix.as_ref();
            let mut stopped = false;
            for item in super::index::from_prefix(&mut cur, prefix) {
                let (k, _) = item.map_err(|e| store.err("cannot walk table", e))?;
                if !k.starts_with(prefix) {
                    break;
                }
                if !f(i, k)? {
                    stopped = true;
                    break;
                }
            }
            if !stopped {
                cur.put(key, &[], lmdb::WriteFlags::empty())
                    .map_err(|e| store.err("cannot write table", e))?;
            }
        }
        Ok(())
    }

    /// Removes a value from one of the free-form tables; absent is fine.
    pub fn table_del(&mut self, t: Table, key: &[u8]) -> Result<()> {
        match self.txn.del(self.store.table(t), &key, None) {
            Ok(()) | Err(lmdb::Error::NotFound) => Ok(()),
            Err(e) => Err(self.store.err("cannot write table", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Options;
    use std::net::IpAddr;

    fn dirty(url: &str) -> Record {
        let mut r = Record::new(url, 1000);
        r.state = State::Dirty;
        r
    }

    /// A store in a temporary directory, holding one DIRTY record.
    fn one_dirty() -> (tempfile::TempDir, Store, Key) {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let mut w = st.write().unwrap();
        let Inserted::New(key) = w.insert(&dirty("http://a.test/")).unwrap() else {
            panic!("not new");
        };
        w.commit().unwrap();
        (tmp, st, key)
    }

    #[test]
    fn a_lease_lives_in_the_index_and_the_record_is_untouched() {
        let (_tmp, st, key) = one_dirty();
        let stored = |st: &Store| {
            let r = st.read().unwrap();
            r.txn.get(st.records, &key.0).unwrap().to_vec()
        };
        let before = stored(&st);
        let lease = Lease { pid: 7, time: 99 };
        let mut w = st.write().unwrap();
        assert_eq!(w.lease(State::Dirty, 10, lease).unwrap().len(), 1);
        w.commit().unwrap();
        assert_eq!(stored(&st), before, "the record was written");
        let r = st.read().unwrap();
        assert_eq!(r.get(&key).unwrap().unwrap().lease, Some(lease));
        assert_eq!(
            (
                r.count(State::Dirty, true).unwrap(),
                r.count(State::Dirty, false).unwrap()
            ),
            (1, 0)
        );
        assert!(r.check().unwrap().is_empty());
        drop(r);
        // Another owner's finish changes nothing; the owner's ends it.
        let mut w = st.write().unwrap();
        let mut done = dirty("http://a.test/");
        done.state = State::Fresh;
        assert!(!w.finish(&key, &done, Lease { pid: 8, time: 99 }).unwrap());
        assert!(w.finish(&key, &done, lease).unwrap());
        w.commit().unwrap();
        let r = st.read().unwrap();
        let got = r.get(&key).unwrap().unwrap();
        assert_eq!((got.state, got.lease), (State::Fresh, None));
        assert!(r.check().unwrap().is_empty());
        assert!(st.check_all().unwrap().problems.is_empty());
    }

    #[test]
    fn a_lease_written_into_the_record_is_still_seen_and_reclaimed() {
        let (_tmp, st, key) = one_dirty();
        let mut w = st.write().unwrap();
        // As a daemon before leases moved to the index left it.
        let lease = Lease { pid: 7, time: 99 };
        let mut old = dirty("http://a.test/");
        old.lease = Some(lease);
        let flags = lmdb::WriteFlags::empty();
        w.txn
            .put(st.records, &key.0, &old.encode_with_lease(), flags)
            .unwrap();
        w.txn
            .del(
                st.index,
                &index_key(index_byte(State::Dirty, false), &key),
                None,
            )
            .unwrap();
        w.txn
            .put(
                st.index,
                &index_key(index_byte(State::Dirty, true), &key),
                &[],
                flags,
            )
            .unwrap();
        w.delta(index_byte(State::Dirty, false), -1);
        w.delta(index_byte(State::Dirty, true), 1);
        w.commit().unwrap();
        let r = st.read().unwrap();
        assert_eq!(r.get(&key).unwrap().unwrap().lease, Some(lease));
        assert!(r.check().unwrap().is_empty(), "{:?}", r.check());
        assert!(st.check_all().unwrap().problems.is_empty());
        drop(r);
        let mut w = st.write().unwrap();
        assert_eq!(w.reclaim(|l| l != lease).unwrap(), 1);
        w.commit().unwrap();
        let r = st.read().unwrap();
        let got = r.get(&key).unwrap().unwrap();
        assert_eq!((got.state, got.lease), (State::Dirty, None));
        assert_eq!(r.count(State::Dirty, false).unwrap(), 1);
        assert!(r.check().unwrap().is_empty());
        // The record no longer holds the lease either.
        let raw = r.txn.get(st.records, &key.0).unwrap();
        assert_eq!(Record::decode(raw).unwrap().lease, None);
    }

    #[test]
    fn a_bad_lease_in_the_index_names_the_record() {
        let (_tmp, st, key) = one_dirty();
        let mut w = st.write().unwrap();
        w.lease(State::Dirty, 1, Lease { pid: 7, time: 99 })
            .unwrap();
        let byte = index_byte(State::Dirty, true);
        w.txn
            .put(
                st.index,
                &index_key(byte, &key),
                &[1, 2, 3],
                lmdb::WriteFlags::empty(),
            )
            .unwrap();
        w.commit().unwrap();
        let err = st.read().unwrap().get(&key).unwrap_err().to_string();
        assert!(
            err.contains("bad lease") && err.contains(&key.hex()),
            "{err}"
        );
        let problems = st.check_all().unwrap().problems;
        assert!(
            problems.iter().any(|p| p.contains("bad lease")),
            "{problems:?}"
        );
    }

    /// The addresses `walk_input` hands out with the keys of `state`.
    fn held(st: &Store, state: State) -> Vec<(Key, Option<IpAddr>)> {
        let mut out = Vec::new();
        st.read()
            .unwrap()
            .walk_input(state, None, |k, a| {
                out.push((k, a));
                Ok(true)
            })
            .unwrap();
        out
    }

    #[test]
    fn an_unleased_fetch_entry_holds_its_records_address() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let mut w = st.write().unwrap();
        let mut recs = Vec::new();
        for (url, state, addr) in [
            ("http://a.test/", State::Dirty, "192.0.2.7"),
            ("http://b.test/", State::Ready, "2001:db8::1"),
            ("http://c.test/", State::Ready, ""),
            ("http://d.test/", State::Scanned, "192.0.2.9"),
        ] {
            let mut r = dirty(url);
            (r.state, r.addr) = (state, addr.into());
            let Inserted::New(k) = w.insert(&r).unwrap() else {
                panic!("not new");
            };
            recs.push((k, r));
        }
        w.commit().unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().ok();
        assert_eq!(held(&st, State::Dirty), [(recs[0].0, ip("192.0.2.7"))]);
        let mut ready = held(&st, State::Ready);
        ready.sort();
        let mut want = vec![(recs[1].0, ip("2001:db8::1")), (recs[2].0, None)];
        want.sort();
        assert_eq!(ready, want);
        // Only the fetcher's inputs hold one.
        let r = st.read().unwrap();
        let scanned = index_key(index_byte(State::Scanned, false), &recs[3].0);
        assert_eq!(r.txn.get(st.index, &scanned).unwrap(), &[] as &[u8]);
        drop(r);

        // A new address is held at once; a lease and its end keep it.
        let mut w = st.write().unwrap();
        let (k, mut r) = recs[0].clone();
        r.addr = "192.0.2.8".into();
        w.update(&k, &r).unwrap();
        w.commit().unwrap();
        assert_eq!(held(&st, State::Dirty), [(k, ip("192.0.2.8"))]);
        let lease = Lease { pid: 7, time: 99 };
        let mut w = st.write().unwrap();
        assert!(w.lease_key(&k, State::Dirty, lease).unwrap().is_some());
        w.commit().unwrap();
        assert!(held(&st, State::Dirty).is_empty());
        let mut w = st.write().unwrap();
        assert_eq!(w.reclaim(|l| l != lease).unwrap(), 1);
        w.commit().unwrap();
        assert_eq!(held(&st, State::Dirty), [(k, ip("192.0.2.8"))]);
        assert!(st.read().unwrap().check().unwrap().is_empty());
        assert!(st.check_all().unwrap().problems.is_empty());

        // Taken only while the caller's reason to take it holds.
        let mut w = st.write().unwrap();
        let other = |r: &Record| r.addr == "192.0.2.7";
        assert!(w
            .lease_key_if(&k, State::Dirty, lease, other)
            .unwrap()
            .is_none());
        w.commit().unwrap();
        assert_eq!(held(&st, State::Dirty).len(), 1);
    }

    #[test]
    fn an_entry_written_without_its_address_is_sound_and_a_wrong_one_is_named() {
        let (_tmp, st, key) = one_dirty();
        let byte = index_byte(State::Dirty, false);
        let mut w = st.write().unwrap();
        let mut r = w.get(&key).unwrap().unwrap();
        r.addr = "192.0.2.7".into();
        w.update(&key, &r).unwrap();
        // As a version before entries held addresses left it: the walk
        // hands out no address, and the record is read for it.
        let flags = lmdb::WriteFlags::empty();
        w.txn
            .put(st.index, &index_key(byte, &key), &[], flags)
            .unwrap();
        w.commit().unwrap();
        assert_eq!(held(&st, State::Dirty), [(key, None)]);
        assert!(st.read().unwrap().check().unwrap().is_empty());
        assert!(st.check_all().unwrap().problems.is_empty());

        let mut w = st.write().unwrap();
        let wrong = [192, 0, 2, 99];
        w.txn
            .put(st.index, &index_key(byte, &key), &wrong, flags)
            .unwrap();
        w.commit().unwrap();
        for problems in [
            st.read().unwrap().check().unwrap(),
            st.check_all().unwrap().problems,
        ] {
            assert!(
                problems
                    .iter()
                    .any(|p| p.contains("http://a.test/") && p.contains("192.0.2.99")),
                "{problems:?}"
            );
        }
    }
}

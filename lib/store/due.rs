//! The due index: every record waiting for nlpc-up or for a re-fetch,
//! ordered by when it is due, so a pass walks what is due and stops at the
//! first entry that is not, whatever the size of the database.
//!
//! Two tables, written in the transaction of every move of a record:
//!
//! - `due`: state byte, due time (big-endian Unix seconds), record key →
//!   nothing; one state's entries are in due-time order;
//! - `sched`: record key → [`Entry`]: where the record is in `due`, and its
//!   adapted interval and rejections in a row.
//!
//! The due times follow the [`Policy`] stored in `meta`: nlpc-up stores
//! the one its options give, and when it differs from the stored one
//! rebuilds the index in one transaction ([`Write::set_policy`]). A
//! database from before the index is indexed the same way when first
//! opened for writing. Like `db` and `txn`, this calls LMDB directly.

use std::net::IpAddr;

use lmdb::{Cursor, Transaction};

use super::db::*;
use super::sched::{placed, placement, Entry, Policy};
use crate::error::Result;
use crate::store::record::{Record, State};

/// The stored policy, in `meta`.
const META_POLICY: &[u8] = b"sched:policy";
/// Present once the due index describes every record.
const META_BUILT: &[u8] = b"due:built";

const DUE_KEY_LEN: usize = 1 + 8 + KEY_LEN;

/// Records looked at per chunk of a rebuild, so the cursor is not held
/// across writes.
const REBUILD_CHUNK: usize = 65_536;

fn due_key(state: u8, due: u64, key: &Key) -> [u8; DUE_KEY_LEN] {
    let mut k = [0; DUE_KEY_LEN];
    k[0] = state;
    k[1..9].copy_from_slice(&due.to_be_bytes());
    k[9..].copy_from_slice(&key.0);
    k
}

fn tables(store: &Store) -> Result<(lmdb::Database, lmdb::Database)> {
    match (store.due, store.sched) {
        (Some(d), Some(s)) => Ok((d, s)),
        // Only a read-only open of a database no writer opened since the
        // index was added lacks them.
        _ => Err(crate::error::Error::Input(format!(
            "{}: the database has no due index yet (run any daemon on it once)",
            store.path().display()
        ))),
    }
}

fn entry_get<T: Transaction>(store: &Store, txn: &T, key: &Key) -> Result<Option<Entry>> {
    let (_, sched) = tables(store)?;
    match txn.get(sched, &key.0) {
        Ok(v) => Entry::decode(v)
            .map(Some)
            .ok_or_else(|| store.corrupt(&key.0, "bad schedule entry")),
        Err(lmdb::Error::NotFound) => Ok(None),
        Err(e) => Err(store.err("cannot read schedule", e)),
    }
}

/// True when the due index holds `key` under state byte `state` at `due_at`.
fn in_due<T: Transaction>(
    store: &Store,
    txn: &T,
    state: u8,
    due_at: u64,
    key: &Key,
) -> Result<bool> {
    let (due, _) = tables(store)?;
    match txn.get(due, &due_key(state, due_at, key)) {
        Ok(_) => Ok(true),
        Err(lmdb::Error::NotFound) => Ok(false),
        Err(e) => Err(store.err("cannot read due index", e)),
    }
}

fn policy_get<T: Transaction>(store: &Store, txn: &T) -> Result<Policy> {
    match txn.get(store.table(Table::Meta), &META_POLICY) {
        Ok(v) => Ok(Policy::decode(v).unwrap_or_default()),
        Err(lmdb::Error::NotFound) => Ok(Policy::default()),
        Err(e) => Err(store.err("cannot read schedule policy", e)),
    }
}

/// Walks `state`'s entries due at or before `until`, earliest first, from
/// `from` (a due time and key) on; `f` gets the key and due time and
/// returns false to stop.
fn walk<T: Transaction>(
    store: &Store,
    txn: &T,
    state: State,
    until: u64,
    from: Option<(u64, &Key)>,
    mut f: impl FnMut(Key, u64) -> Result<bool>,
) -> Result<()> {
    let (due, _) = tables(store)?;
    let start = match from {
        Some((t, k)) => due_key(state as u8, t, k).to_vec(),
        None => vec![state as u8],
    };
    let mut cur = txn
        .open_ro_cursor(due)
        .map_err(|e| store.err("cannot open cursor", e))?;
    for item in cur.iter_from(&start) {
        let (k, _) = item.map_err(|e| store.err("cannot walk due index", e))?;
        if k.len() != DUE_KEY_LEN {
            return Err(store.corrupt(k, "bad due index key"));
        }
        if k[0] != state as u8 {
            break;
        }
        let t = u64::from_be_bytes(k[1..9].try_into().unwrap_or([0xff; 8]));
        if t > until {
            break;
        }
        let key = Key::from_slice(&k[9..]).ok_or_else(|| store.corrupt(k, "bad due index key"))?;
        if !f(key, t)? {
            break;
        }
    }
    Ok(())
}

/// The value of the entry of the DIRTY record under `key` in the unleased
/// DIRTY index, which holds its address; None when the record is leased
/// (a read of that index's small DIRTY part, no record decoded).
fn unleased_dirty<'t, T: Transaction>(
    store: &Store,
    txn: &'t T,
    key: &Key,
) -> Result<Option<&'t [u8]>> {
    let byte = super::index::index_byte(State::Dirty, false);
    match txn.get(store.index, &super::index::index_key(byte, key)) {
        Ok(v) => Ok(Some(v)),
        Err(lmdb::Error::NotFound) => Ok(None),
        Err(e) => Err(store.err("cannot read index", e)),
    }
}

/// Compares the due index with the records: each record where the policy
/// places it, and nothing else in the index.
pub(super) fn problems<T: Transaction>(store: &Store, txn: &T) -> Result<Vec<String>> {
    let Ok((due, _)) = tables(store) else {
        return Ok(Vec::new());
    };
    let p = policy_get(store, txn)?;
    let mut out = Vec::new();
    let mut placed = 0u64;
    super::index::walk_records(store, txn, |key, r| {
        let e = entry_get(store, txn, &key)?.unwrap_or_default();
        let want = placement(&p, &r, &e);
        if want.is_none() {
            // Out of the index, the entry's place is stale (see
            // `reschedule`), but the index must not hold it.
            if e.indexed != 0 && in_due(store, txn, e.indexed, e.due, &key)? {
                out.push(format!(
                    "{}: in the due index, though the record is due for no one",
                    r.url
                ));
            }
            return Ok(true);
        }
        let have = (e.indexed != 0).then_some(e.due);
        if want.map(|w| w.1) != have || want.map_or(0, |w| w.0 as u8) != e.indexed {
            out.push(format!(
                "{}: due index says {:?}, the record {:?}",
                r.url, have, want
            ));
            return Ok(true);
        }
        if let Some((s, t)) = want {
            placed += 1;
            if !in_due(store, txn, s as u8, t, &key)? {
                out.push(format!("{}: not in the due index", r.url));
            }
        }
        Ok(true)
    })?;
    let mut entries = 0u64;
    let mut cur = txn
        .open_ro_cursor(due)
        .map_err(|e| store.err("cannot open cursor", e))?;
    for item in cur.iter_start() {
        item.map_err(|e| store.err("cannot walk due index", e))?;
        entries += 1;
    }
    if entries != placed {
        out.push(format!(
            "due index: {entries} entries for {placed} records due"
        ));
    }
    Ok(out)
}

/// The read side, shared by [`Read`] and [`Write`].
macro_rules! due_views {
    () => {
        /// Walks the records in `state` due at or before `until`, earliest
        /// first, from `from` on (a due time and key, inclusive).
        pub fn walk_due(
            &self,
            state: State,
            until: u64,
            from: Option<(u64, &Key)>,
            f: impl FnMut(Key, u64) -> Result<bool>,
        ) -> Result<()> {
            walk(self.store, &self.txn, state, until, from, f)
        }

        /// The schedule entry of the record under `key`, if any.
        pub fn sched_entry(&self, key: &Key) -> Result<Option<Entry>> {
            entry_get(self.store, &self.txn, key)
        }

        /// The policy the due times follow.
        pub fn sched_policy(&self) -> Result<Policy> {
            policy_get(self.store, &self.txn)
        }

        /// Walks the keys of unleased records in a daemon's input `state`
        /// from `from` on: DIRTY ones by the time they fell due, earliest
        /// first; the others in key order. With each key goes the address
        /// its index entry holds (READY and DIRTY), if any: a walk that
        /// sorts records by address need not read the records.
        pub fn walk_input(
            &self,
            state: State,
            from: Option<&Key>,
            mut f: impl FnMut(Key, Option<IpAddr>) -> Result<bool>,
        ) -> Result<()> {
            if state != State::Dirty || self.store.due.is_none() {
                let byte = super::index::index_byte(state, false);
                return super::index::walk_index_values(
                    self.store,
                    &self.txn,
                    byte,
                    from,
                    |k, v| f(k, super::index::index_addr(v)),
                );
            }
            let start = match from {
                Some(k) => match self.sched_entry(k)? {
                    // Still in the index (an entry out of it keeps a stale
                    // place): go on from there.
                    Some(e)
                        if e.indexed == State::Dirty as u8
                            && in_due(self.store, &self.txn, e.indexed, e.due, k)? =>
                    {
                        Some((e.due, k))
                    }
                    // It moved on: start again from the earliest.
                    _ => None,
                },
                None => None,
            };
            // Leased DIRTY records keep their place in the due index (see
            // `placement`): only those still in the unleased index are
            // handed out.
            walk(
                self.store,
                &self.txn,
                state,
                u64::MAX,
                start,
                |k, _| match unleased_dirty(self.store, &self.txn, &k)? {
                    Some(v) => f(k, super::index::index_addr(v)),
                    None => Ok(true),
                },
            )
        }
    };
}

impl Read<'_> {
    due_views!();
}

impl Write<'_> {
    due_views!();

    fn policy(&mut self) -> Result<Policy> {
        if let Some(p) = self.policy {
            return Ok(p);
        }
        let p = policy_get(self.store, &self.txn)?;
        self.policy = Some(p);
        Ok(p)
    }

    /// Enters `key` in the due index under `state` at time `due_at`.
    fn due_put(&mut self, due: lmdb::Database, state: State, due_at: u64, key: &Key) -> Result<()> {
        self.txn
            .put(
                due,
                &due_key(state as u8, due_at, key),
                &[],
                lmdb::WriteFlags::empty(),
            )
            .map_err(|err| self.store.err("cannot write due index", err))
    }

    /// Takes `key`'s entry under state byte `state` at `due_at` out of the
    /// due index; one already gone is no error.
    fn due_del(&mut self, due: lmdb::Database, state: u8, due_at: u64, key: &Key) -> Result<()> {
        match self.txn.del(due, &due_key(state, due_at, key), None) {
            Ok(()) | Err(lmdb::Error::NotFound) => Ok(()),
            Err(err) => Err(self.store.err("cannot write due index", err)),
        }
    }

    /// Moves the record under `key` in the due index after it changed from
    /// `old` (None: inserted) to `new`, adapting its schedule. Called by
    /// every write of a record, in its transaction.
    ///
    /// The entry's place (`indexed`, `due`) means something only while the
    /// record has a placement: a record that leaves the index (a DIRTY one
    /// answered, one leased by a daemon) has its due-index entry deleted
    /// but its schedule entry left as it was unless what adapts changed.
    /// In a large database that spares a leaf of `sched` on every fetch.
    pub(super) fn reschedule(
        &mut self,
        key: &Key,
        old: Option<&Record>,
        new: &Record,
    ) -> Result<()> {
        let Some((due, sched)) = self.store.due.zip(self.store.sched) else {
            return Ok(());
        };
        let p = self.policy()?;
        let before = match old {
            Some(_) => entry_get(self.store, &self.txn, key)?.unwrap_or_default(),
            // A new record has no entry (records are never deleted).
            None => Entry::default(),
        };
        let mut e = before;
        match old {
            Some(o) if placed(o) => p.adapt(o, new, &mut e),
            Some(o) => {
                // Out of the index before: its place in the entry is stale.
                e.indexed = 0;
                e.due = 0;
                p.adapt(o, new, &mut e);
            }
            None => {}
        }
        let want = placement(&p, new, &e);
        if e.indexed != 0 && want != Some((state_of(e.indexed), e.due)) {
            self.due_del(due, e.indexed, e.due, key)?;
            e.indexed = 0;
        }
        if let Some((s, t)) = want {
            if e.indexed == 0 {
                self.due_put(due, s, t, key)?;
            }
            e.indexed = s as u8;
            e.due = t;
        } else if new.state == State::Gone {
            // A tombstone forgets its schedule with its body.
            e = Entry::default();
        } else if e.interval == before.interval && e.rejects == before.rejects {
            // Nothing that adapts changed: the entry stays as it stands,
            // its place read as stale.
            return Ok(());
        } else {
            e.due = 0;
        }
        if e == before {
            return Ok(());
        }
        let r = if e.is_empty() && e.due == 0 {
            match self.txn.del(sched, &key.0, None) {
                Ok(()) | Err(lmdb::Error::NotFound) => Ok(()),
                Err(err) => Err(err),
            }
        } else {
            self.txn
                .put(sched, &key.0, &e.encode(), lmdb::WriteFlags::empty())
        };
        r.map_err(|err| self.store.err("cannot write schedule", err))
    }

    /// Takes the unleased record `rec` out of the due index for a lease,
    /// unless it is DIRTY (a leased DIRTY record keeps its place, see
    /// `placement`). Its schedule entry is not written: its place is
    /// stale from here on, and nothing that adapts changes. A record in a
    /// state the index does not order costs no read at all.
    pub(super) fn unplace_for_lease(&mut self, key: &Key, rec: &Record) -> Result<()> {
        let Some(due) = self.store.due else {
            return Ok(());
        };
        if rec.state == State::Dirty || !placed(rec) {
            return Ok(());
        }
        let e = entry_get(self.store, &self.txn, key)?.unwrap_or_default();
        if e.indexed == 0 {
            return Ok(());
        }
        self.due_del(due, e.indexed, e.due, key)
    }

    /// Stores `p` as the crawl's schedule policy. When it differs from the
    /// one stored, every due time is computed again (a walk of every
    /// record, in this transaction); returns true then.
    pub fn set_policy(&mut self, p: &Policy) -> Result<bool> {
        if self.store.due.is_none() || policy_get(self.store, &self.txn)? == *p {
            return Ok(false);
        }
        self.txn
            .put(
                self.store.table(Table::Meta),
                &META_POLICY,
                &p.encode(),
                lmdb::WriteFlags::empty(),
            )
            .map_err(|e| self.store.err("cannot write schedule policy", e))?;
        self.policy = Some(*p);
        self.rebuild_due()?;
        Ok(true)
    }

    /// Builds the due index again from the records, keeping each record's
    /// adapted interval and rejections. Returns the records indexed.
    pub fn rebuild_due(&mut self) -> Result<u64> {
        let (due, sched) = tables(self.store)?;
        let p = self.policy()?;
        self.txn
            .clear_db(due)
            .map_err(|e| self.store.err("cannot clear due index", e))?;
        let mut from: Option<Key> = None;
        let mut indexed = 0;
        loop {
            let mut chunk: Vec<(Key, Record)> = Vec::new();
            {
                let mut cur = self
                    .txn
                    .open_ro_cursor(self.store.records)
                    .map_err(|e| self.store.err("cannot open cursor", e))?;
                let iter = match &from {
                    Some(k) => cur.iter_from(k.0),
                    None => cur.iter_start(),
                };
                for item in iter {
                    let (k, v) = item.map_err(|e| self.store.err("cannot walk records", e))?;
                    let key = Key::from_slice(k)
                        .ok_or_else(|| self.store.corrupt(k, "bad record key"))?;
                    if Some(key) == from {
                        continue;
                    }
                    let r = self.store.decode_record(&self.txn, &key, v)?;
                    chunk.push((key, r));
                    if chunk.len() == REBUILD_CHUNK {
                        break;
                    }
                }
            }
            let Some(last) = chunk.last().map(|c| c.0) else {
                break;
            };
            for (key, r) in &chunk {
                let before = entry_get(self.store, &self.txn, key)?;
                let mut e = before.unwrap_or_default();
                e.indexed = 0;
                if let Some((s, t)) = placement(&p, r, &e) {
                    self.due_put(due, s, t, key)?;
                    e.indexed = s as u8;
                    e.due = t;
                    indexed += 1;
                } else {
                    e.due = 0;
                }
                if before != Some(e) && !(before.is_none() && e.is_empty()) {
                    self.txn
                        .put(sched, &key.0, &e.encode(), lmdb::WriteFlags::empty())
                        .map_err(|err| self.store.err("cannot write schedule", err))?;
                }
            }
            from = Some(last);
        }
        self.table_put(Table::Meta, META_BUILT, &[1])?;
        Ok(indexed)
    }
}

fn state_of(b: u8) -> State {
    State::from_u8(b).unwrap_or(State::New)
}

impl Store {
    /// Builds the due index of a database written before it existed (or
    /// whose build was cut short): once, when first opened for writing.
    pub(super) fn ensure_due(&self) -> Result<()> {
        if self.due.is_none() {
            return Ok(());
        }
        if self.meta_flag(META_BUILT)? {
            return Ok(());
        }
        let mut w = self.write()?;
        w.rebuild_due()?;
        w.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Inserted, Options};

    #[test]
    fn a_stale_place_is_sound_but_the_index_holding_it_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let mut r = Record::new("http://a.test/", 1000);
        r.state = State::Scanned;
        let mut w = st.write().unwrap();
        let Inserted::New(key) = w.insert(&r).unwrap() else {
            panic!("not new");
        };
        w.commit().unwrap();
        let placed = st.read().unwrap().sched_entry(&key).unwrap().unwrap();
        // Out of the index: the entry keeps its place, and that is sound.
        r.state = State::Ready;
        let mut w = st.write().unwrap();
        w.update(&key, &r).unwrap();
        w.commit().unwrap();
        let rd = st.read().unwrap();
        assert_eq!(rd.sched_entry(&key).unwrap(), Some(placed));
        assert!(!in_due(&st, &rd.txn, placed.indexed, placed.due, &key).unwrap());
        assert_eq!(rd.check().unwrap(), Vec::<String>::new());
        drop(rd);
        // The index holding that place while the record is due for no one
        // is named.
        let mut w = st.write().unwrap();
        w.txn
            .put(
                st.due.unwrap(),
                &due_key(placed.indexed, placed.due, &key),
                &[],
                lmdb::WriteFlags::empty(),
            )
            .unwrap();
        w.commit().unwrap();
        let found = st.read().unwrap().check().unwrap();
        assert!(
            found.iter().any(|f| f.contains("due for no one")),
            "{found:?}"
        );
    }
}

//! The change log of the corpus: what nlpc-index follows to keep its word
//! index up to date without walking every record.
//!
//! `changes` maps a sequence number (big-endian u64, so LMDB's order is the
//! log's order) to a record key and an event. A writer appends in the same
//! transaction as the state change it describes, so the log never says
//! more or less than the records do. The follower applies entries in order,
//! keeps the last sequence it applied with its own data (the search index
//! keeps it in its commit), and trims what it has applied ([`Write::trim_changes`]),
//! which bounds the log by what the follower has not yet read.

use lmdb::{Cursor, Transaction};

use crate::error::Result;
use crate::store::db::{Key, Table, KEY_LEN};
use crate::store::record::State;
use crate::store::{Read, Write};

/// What happened to a record, as the index sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Verified (first time, or again after a re-fetch that changed the
    /// page): (re)index its body.
    Verified = 1,
    /// No longer in the corpus (rejected after a re-fetch, set aside,
    /// pruned): drop it from the index.
    Removed = 2,
}

impl Event {
    /// The event a move to `state` means, if any: VERIFIED is (re)indexed;
    /// REJECTED, QUARANTINED, EXCLUDED and GONE leave the corpus. The other
    /// states keep a verified page's body where it was (a SCANNED or DIRTY
    /// page is still the corpus's) or never had one.
    pub fn of(state: State) -> Option<Event> {
        match state {
            State::Verified => Some(Event::Verified),
            State::Rejected | State::Quarantined | State::Excluded | State::Gone => {
                Some(Event::Removed)
            }
            _ => None,
        }
    }

    fn from_byte(b: u8) -> Option<Event> {
        match b {
            1 => Some(Event::Verified),
            2 => Some(Event::Removed),
            _ => None,
        }
    }
}

/// One entry of the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub seq: u64,
    pub key: Key,
    pub event: Event,
}

fn last_seq(txn: &impl Transaction, db: lmdb::Database) -> Option<u64> {
    let cur = txn.open_ro_cursor(db).ok()?;
    // MDB_LAST: the highest sequence, or nothing in an empty log.
    let (k, _) = cur.get(None, None, lmdb_sys::MDB_LAST).ok()?;
    Some(u64::from_be_bytes(k?.try_into().ok()?))
}

impl Write<'_> {
    /// Appends the event that a move of `key` to `state` means, if any
    /// ([`Event::of`]); call in the transaction that moves the record.
    pub fn log_change(&mut self, key: &Key, state: State) -> Result<()> {
        let Some(event) = Event::of(state) else {
            return Ok(());
        };
        let db = self.store.table(Table::Changes);
        // Sequences start at 1 so that 0 can mean "nothing applied yet"; a
        // trimmed log starts again after the follower's cursor, which the
        // follower keeps, so numbers only ever grow while entries remain.
        let seq = last_seq(&self.txn, db).map_or(1, |s| s.saturating_add(1));
        let mut val = [0u8; KEY_LEN + 1];
        val[..KEY_LEN].copy_from_slice(&key.0);
        val[KEY_LEN] = event as u8;
        // The commit wakes nlpc-index.
        self.added |= super::wake::CHANGES;
        self.table_put(Table::Changes, &seq.to_be_bytes(), &val)
    }

    /// Removes every entry up to and including `seq`: the follower has
    /// applied and committed them. The newest entry stays, whatever `seq`,
    /// so the next sequence never goes back below a follower's cursor.
    pub fn trim_changes(&mut self, seq: u64) -> Result<usize> {
        let db = self.store.table(Table::Changes);
        let Some(last) = last_seq(&self.txn, db) else {
            return Ok(0);
        };
        let upto = seq.min(last.saturating_sub(1));
        let mut keys = Vec::new();
        self.table_walk(Table::Changes, &[], |k, _| {
            match <[u8; 8]>::try_from(k).map(u64::from_be_bytes) {
                Ok(s) if s <= upto => {
                    keys.push(s);
                    Ok(true)
                }
                _ => Ok(false),
            }
        })?;
        for s in &keys {
            self.table_del(Table::Changes, &s.to_be_bytes())?;
        }
        Ok(keys.len())
    }
}

impl Read<'_> {
    /// Up to `n` entries after sequence `after`, in order. An entry this
    /// version cannot read is skipped (a newer writer's event).
    pub fn changes_after(&self, after: u64, n: usize) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        let from = after.saturating_add(1).to_be_bytes();
        let db = self.store.table(Table::Changes);
        let mut cur = self
            .txn
            .open_ro_cursor(db)
            .map_err(|e| self.store.err("cannot open cursor", e))?;
        for item in cur.iter_from(from) {
            if out.len() >= n {
                break;
            }
            let (k, v) = item.map_err(|e| self.store.err("cannot walk table", e))?;
            let Ok(seq) = <[u8; 8]>::try_from(k).map(u64::from_be_bytes) else {
                continue;
            };
            if v.len() != KEY_LEN + 1 {
                continue;
            }
            let (Some(key), Some(event)) =
                (Key::from_slice(&v[..KEY_LEN]), Event::from_byte(v[KEY_LEN]))
            else {
                continue;
            };
            out.push(Change { seq, key, event });
        }
        Ok(out)
    }

    /// The newest sequence in the log (0: empty).
    pub fn last_change(&self) -> u64 {
        last_seq(&self.txn, self.store.table(Table::Changes)).unwrap_or(0)
    }
}

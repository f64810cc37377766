//! Upkeep of the environment that is safe while the daemons run: the deep
//! check behind `nlpc-list --check` and the hot backup behind
//! `nlpc-list --backup`. Both work on one read snapshot, which never blocks
//! a writer.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use lmdb::{Cursor, Transaction};

use crate::error::{Error, Result};
use crate::store::check;
use crate::store::db::{db_error, hex, Store, Table, KEY_LEN};
use crate::store::index::{index_key, index_value_problem, record_index_byte, stored_lease};
use crate::store::record::{Record, State};

/// What [`Store::check_all`] found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Records read.
    pub records: u64,
    /// Index entries read.
    pub index_entries: u64,
    /// One line each: the key, page or table concerned and what is wrong.
    pub problems: Vec<String>,
}

/// An index byte as people read it: the state, and whether leased.
fn byte_name(b: u8) -> String {
    match State::from_u8(b & 0x7f) {
        Some(s) if b & 0x80 != 0 => format!("{s} (leased)"),
        Some(s) => s.to_string(),
        None => format!("unknown state byte {b:#04x}"),
    }
}

impl Store {
    /// Checks every page of the environment (without letting LMDB read a
    /// damaged one), then decodes every record and index entry and checks
    /// the counters. Only an I/O or LMDB failure is an error; damage is
    /// reported in the result.
    pub fn check_all(&self) -> Result<CheckReport> {
        let data = self.path().join("data.mdb");
        let mut tries = 0;
        let (txn, structure) = loop {
            let txn = self
                .env
                .begin_ro_txn()
                .map_err(|e| self.err("cannot begin read transaction", e))?;
            // SAFETY: txn is a live transaction of this environment.
            let id = unsafe { lmdb_sys::mdb_txn_id(txn.txn()) } as u64;
            match check::walk_snapshot(self.path(), id)
                .map_err(|e| Error::io(&data, "cannot read", e))?
            {
                Some(s) => break (txn, s),
                // Two commits since our snapshot began overwrote its meta
                // page: take the newest one instead.
                None if tries < 100 => tries += 1,
                None => {
                    return Err(Error::Input(format!(
                        "database {}: writers commit too fast to check a snapshot; try again",
                        self.path().display()
                    )))
                }
            }
        };
        let mut rep = CheckReport {
            problems: structure.problems,
            ..CheckReport::default()
        };
        let unreadable = ["main tree", "records", "index", "counters"]
            .iter()
            .any(|t| structure.damaged.iter().any(|d| d == t));
        if unreadable {
            rep.problems.push(
                "records and index entries were not decoded: LMDB cannot read the damaged pages above"
                    .into(),
            );
            return Ok(rep);
        }
        let mut indexed = [0u64; 256];
        self.check_records(&txn, &mut rep)?;
        self.check_index(&txn, &mut rep, &mut indexed)?;
        self.check_counters(&txn, &mut rep, &indexed)?;
        // The due index against the records, once they all decode.
        // And the READY table against the index.
        let damaged = |names: &[&str]| {
            structure
                .damaged
                .iter()
                .any(|d| names.contains(&d.as_str()))
        };
        let decoded = rep.problems.is_empty();
        if decoded && !damaged(&["due", "sched"]) {
            rep.problems.extend(super::due::problems(self, &txn)?);
        }
        if decoded && !damaged(&["ready"]) {
            rep.problems.extend(super::ready::problems(self, &txn)?);
        }
        // The duplicate marks against themselves and the records.
        if !structure.damaged.iter().any(|d| d == "dups") {
            let rd = crate::store::Read { store: self, txn };
            rep.problems.extend(crate::store::dups::check(&rd)?);
        }
        Ok(rep)
    }

    fn check_records(&self, txn: &lmdb::RoTransaction<'_>, rep: &mut CheckReport) -> Result<()> {
        let mut cur = txn
            .open_ro_cursor(self.records)
            .map_err(|e| self.err("cannot open cursor", e))?;
        for item in cur.iter_start() {
            let (k, v) = item.map_err(|e| self.err("cannot walk records", e))?;
            rep.records += 1;
            let Ok(key) = <[u8; KEY_LEN]>::try_from(k) else {
                rep.problems.push(format!(
                    "{}: a record key of {} bytes, not {KEY_LEN}",
                    hex(k),
                    k.len()
                ));
                continue;
            };
            let mut rec = match Record::decode(v) {
                Ok(r) => r,
                Err(why) => {
                    rep.problems.push(format!("{}: record: {why}", hex(k)));
                    continue;
                }
            };
            match stored_lease(self, txn, &crate::store::Key(key), &rec) {
                Ok(l) => rec.lease = l,
                Err(e) => {
                    rep.problems.push(e.to_string());
                    continue;
                }
            }
            let b = record_index_byte(&rec);
            match txn.get(self.index, &index_key(b, &crate::store::Key(key))) {
                Ok(v) => rep.problems.extend(index_value_problem(b, &rec, v)),
                Err(lmdb::Error::NotFound) => rep.problems.push(format!(
                    "{}: record of {} is missing from the {} index",
                    hex(k),
                    rec.url,
                    byte_name(b)
                )),
                Err(e) => return Err(self.err("cannot read index", e)),
            }
        }
        Ok(())
    }

    fn check_index(
        &self,
        txn: &lmdb::RoTransaction<'_>,
        rep: &mut CheckReport,
        indexed: &mut [u64; 256],
    ) -> Result<()> {
        let mut cur = txn
            .open_ro_cursor(self.index)
            .map_err(|e| self.err("cannot open cursor", e))?;
        for item in cur.iter_start() {
            let (k, _) = item.map_err(|e| self.err("cannot walk index", e))?;
            rep.index_entries += 1;
            if k.len() != 1 + KEY_LEN {
                rep.problems.push(format!(
                    "index entry {}: {} bytes, not {}",
                    hex(k),
                    k.len(),
                    1 + KEY_LEN
                ));
                continue;
            }
            let (b, key) = (k[0], &k[1..]);
            indexed[b as usize] += 1;
            if State::from_u8(b & 0x7f).is_none() {
                rep.problems
                    .push(format!("{}: index entry under {}", hex(key), byte_name(b)));
                continue;
            }
            match txn.get(self.records, &key) {
                Ok(v) => {
                    // An undecodable record was reported by the record walk.
                    if let Ok(mut rec) = Record::decode(v) {
                        // A bad lease was reported by the record walk.
                        if let Some(key) = crate::store::Key::from_slice(key) {
                            rec.lease = stored_lease(self, txn, &key, &rec).unwrap_or(rec.lease);
                        }
                        let want = record_index_byte(&rec);
                        if want != b {
                            rep.problems.push(format!(
                                "{}: in the {} index, but its record is {}",
                                hex(key),
                                byte_name(b),
                                byte_name(want)
                            ));
                        }
                    }
                }
                Err(lmdb::Error::NotFound) => rep.problems.push(format!(
                    "{}: in the {} index, but there is no such record",
                    hex(key),
                    byte_name(b)
                )),
                Err(e) => return Err(self.err("cannot read record", e)),
            }
        }
        Ok(())
    }

    fn check_counters(
        &self,
        txn: &lmdb::RoTransaction<'_>,
        rep: &mut CheckReport,
        indexed: &[u64; 256],
    ) -> Result<()> {
        let mut counted = [None::<u64>; 256];
        let mut cur = txn
            .open_ro_cursor(self.counters)
            .map_err(|e| self.err("cannot open cursor", e))?;
        for item in cur.iter_start() {
            let (k, v) = item.map_err(|e| self.err("cannot walk counters", e))?;
            match (k, <[u8; 8]>::try_from(v)) {
                ([b], Ok(n)) => counted[*b as usize] = Some(u64::from_le_bytes(n)),
                _ => rep.problems.push(format!(
                    "counter {}: a value of {} bytes, not 8",
                    hex(k),
                    v.len()
                )),
            }
        }
        for b in 0..256 {
            let c = counted[b].unwrap_or(0);
            if c != indexed[b] {
                rep.problems.push(format!(
                    "counter of {}: says {c}, the index holds {}",
                    byte_name(b as u8),
                    indexed[b]
                ));
            }
        }
        Ok(())
    }

    /// Copies the environment, compacted, to `dir/data.mdb` from one read
    /// snapshot, so the copy is consistent while writers go on. Refuses to
    /// overwrite an existing file. Returns the copy's size in bytes.
    pub fn backup(&self, dir: &Path) -> Result<u64> {
        let target = dir.join("data.mdb");
        if target.symlink_metadata().is_ok() {
            return Err(Error::Input(format!(
                "{}: a file is already there; refusing to overwrite it",
                target.display()
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(dir, "cannot create backup directory", e))?;
        let c = CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| Error::Input(format!("{}: a path with a NUL byte", dir.display())))?;
        // SAFETY: the environment is open for the whole call and c is a
        // NUL-terminated path that outlives it.
        let rc = unsafe {
            lmdb_sys::mdb_env_copy2(self.env.env(), c.as_ptr(), lmdb_sys::MDB_CP_COMPACT)
        };
        if rc != 0 {
            // LMDB created the file (exclusively) before failing: remove
            // the partial copy so that nobody mistakes it for a backup.
            let _ = std::fs::remove_file(&target);
            return Err(Error::Db {
                path: dir.to_path_buf(),
                what: "cannot write the backup",
                source: db_error(lmdb::Error::from_err_code(rc)),
            });
        }
        std::fs::metadata(&target)
            .map(|m| m.len())
            .map_err(|e| Error::io(&target, "cannot read the backup", e))
    }
}

impl crate::store::Read<'_> {
    /// The entries of a free-form table, and the bytes of its B-tree pages
    /// (branch, leaf and overflow), in this snapshot.
    pub fn table_size(&self, t: Table) -> Result<(u64, u64)> {
        let st = self
            .txn
            .stat(self.store.table(t))
            .map_err(|e| self.store.err("cannot read table size", e))?;
        let pages = (st.branch_pages() + st.leaf_pages() + st.overflow_pages()) as u64;
        Ok((st.entries() as u64, pages * u64::from(st.page_size())))
    }
}

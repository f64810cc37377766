//! Incremental export: `--since TIME` and `--cursor NAME`.
//!
//! A page is new when its record changed state at or after the time: the
//! record's `changed` field, which nlpc-vrfy sets when it verifies a page
//! and nlpc-scan when it scans it. A cursor (kept by `store::cursor`)
//! starts where its last export ended and remembers the versions it
//! exported that could come up again: those of records changed since its
//! new time, and those of VERIFIED records, which nlpc-scan will change
//! without changing the page. The new time is the start of the export's
//! snapshot, held back to the oldest lease nlpc-vrfy or nlpc-scan had
//! then, since what they commit later carries the time they took before
//! committing.

use crate::error::{Error, Result};
use crate::run::clock;
use crate::store::cursor::{self, hash_prefix, Cursor};
use crate::store::record::{Record, State};
use crate::store::{Key, Read, Store};

/// Which records an export takes, and the cursor it advances.
#[derive(Debug, Default)]
pub struct Incremental {
    /// Records changed at or after this time are taken (0: all).
    pub from: u64,
    name: Option<String>,
    /// The cursor as the export's snapshot held it.
    old: Option<Cursor>,
    /// The cursor the export leaves.
    next: Cursor,
    /// Versions skipped as exported already.
    pub skipped: usize,
}

impl Incremental {
    /// Starts an export from snapshot `rd`, taken at crawl time `now`.
    pub fn begin(
        rd: &Read<'_>,
        since: Option<u64>,
        name: Option<&str>,
        now: u64,
    ) -> Result<Incremental> {
        let old = match name {
            Some(n) => cursor::get(rd, n)?,
            None => None,
        };
        let from = since.unwrap_or(0).max(old.as_ref().map_or(0, |c| c.time));
        let mut next = Cursor {
            time: now,
            ..Cursor::default()
        };
        if name.is_some() {
            // Leases are in real time, `changed` in crawl time (which tests
            // shift); a daemon shares this process's shift.
            let shift = now as i64 - clock::real_now() as i64;
            for s in [State::Fresh, State::Verified] {
                rd.walk_state(s, true, |_, r| {
                    if let Some(l) = r.lease {
                        let t = (l.time as i64).saturating_add(shift).max(0) as u64;
                        next.time = next.time.min(t);
                    }
                    Ok(true)
                })?;
            }
        }
        Ok(Incremental {
            from,
            name: name.map(str::to_string),
            old,
            next,
            skipped: 0,
        })
    }

    fn seen(&self, key: &Key, rec: &Record) -> bool {
        self.old
            .as_ref()
            .is_some_and(|c| c.seen.contains(&(*key, hash_prefix(&rec.hash))))
    }

    /// Whether a record that may come up again is remembered.
    fn keep(&mut self, key: &Key, rec: &Record) {
        if self.name.is_some() && (rec.state == State::Verified || rec.changed >= self.next.time) {
            self.next.seen.insert((*key, hash_prefix(&rec.hash)));
        }
    }

    /// Whether to export `rec`: changed at or after the time, and not
    /// exported already as it is.
    pub fn wanted(&mut self, key: &Key, rec: &Record) -> bool {
        if rec.changed < self.from {
            if self.seen(key, rec) {
                self.keep(key, rec);
            }
            return false;
        }
        if self.seen(key, rec) {
            self.keep(key, rec);
            self.skipped += 1;
            return false;
        }
        true
    }

    /// Notes that `rec` was exported.
    pub fn exported(&mut self, key: &Key, rec: &Record) {
        self.keep(key, rec);
    }

    /// Advances the cursor, once the export's files are on disk: in one
    /// write transaction that reads the cursor again and refuses when
    /// another export moved it meanwhile.
    pub fn commit(self, store: &Store) -> Result<()> {
        let Some(name) = &self.name else {
            return Ok(());
        };
        let mut w = store.write()?;
        if cursor::get_in(&w, name)? != self.old {
            return Err(Error::Input(format!(
                "cursor {name}: another export moved it meanwhile; the files are written, the cursor was not advanced"
            )));
        }
        cursor::put(&mut w, name, &self.next)?;
        w.commit()
    }
}

//! The fetcher's storer: a thread of its own that makes the bodies of a
//! batch of results durable, then hands the batch to the writer to commit.
//!
//! Storing a body with its own syncs costs far more than fetching it on a
//! disk (a data sync and a directory sync per page), and the fetch loop
//! sent no request meanwhile. Here a batch's bodies are written under
//! temporary names without syncing, synced together, renamed into place
//! and their names synced (`cache::write_durable`); only then does the
//! commit that moves their records to FRESH go to the writer.
//! Kill-safety is as before: a record is FRESH only once its body is
//! durable under its final name, and a killed storer leaves temporary
//! files that the next fetcher removes.
//!
//! Batches are stored and committed in the order they were given, so a
//! commit never overtakes an earlier one. The bytes of bodies given and not
//! yet durable are counted in [`Waiting`], which the loop checks against
//! `--fetch-store-cap` before it starts a request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;

use super::writer::{Reply, Task};
use super::{results, Outcome};
use crate::error::{Error, Result};
use crate::store::archive::Archive;
use crate::store::cache::{self, Cache};
use crate::web::admit::Filter;

/// Bytes of bodies handed to the storer and not yet durable.
#[derive(Clone, Default)]
pub(super) struct Waiting(Arc<AtomicU64>);

impl Waiting {
    pub(super) fn add(&self, n: u64) -> u64 {
        self.0.fetch_add(n, Ordering::AcqRel).saturating_add(n)
    }
    fn sub(&self, n: u64) {
        self.0.fetch_sub(n, Ordering::AcqRel);
    }
    pub(super) fn get(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
}

/// A batch of results.
pub(super) struct Batch {
    pub outcomes: Vec<Outcome>,
}

/// The loop's end of the storer.
pub(super) struct Storer {
    batches: Option<Sender<Batch>>,
}

impl Storer {
    /// Starts the storer in `scope`; it hands each batch, once stored, to
    /// the writer through `writer`.
    pub(super) fn start<'s, 'e: 's>(
        scope: &'s std::thread::Scope<'s, 'e>,
        writer: Sender<Task<Reply>>,
        parts: Parts,
    ) -> Storer {
        let (tx, rx) = channel::<Batch>();
        scope.spawn(move || {
            while let Ok(first) = rx.recv() {
                // Batches that came in while the last were stored are
                // stored together: when storing lags, each sync is shared
                // by more bodies.
                let mut group = vec![first];
                while let Ok(b) = rx.try_recv() {
                    group.push(b);
                }
                // One task per batch, as the loop counts them; the last
                // also returns what could not be stored, and the error.
                let mut failed = parts.store(&mut group).err();
                let n = group.len();
                for (i, b) in group.into_iter().enumerate() {
                    let last = if i + 1 == n { failed.take() } else { None };
                    if writer.send(parts.commit(b, last)).is_err() {
                        return;
                    }
                }
            }
        });
        Storer { batches: Some(tx) }
    }

    /// Hands `b` to the storer.
    pub(super) fn send(&self, b: Batch) -> Result<()> {
        let sent = self.batches.as_ref().is_some_and(|t| t.send(b).is_ok());
        if sent {
            Ok(())
        } else {
            Err(Error::Input(
                "nlpc-fetch: the body storing thread stopped".into(),
            ))
        }
    }

    /// Ends the storer once it has stored what it was given.
    pub(super) fn close(&mut self) {
        self.batches = None;
    }
}

/// What the storer works with.
pub(super) struct Parts {
    pub cache: Cache,
    pub archive: Archive,
    pub admit: Filter,
    pub waiting: Waiting,
    pub sync: cache::Sync,
}

impl Parts {
    /// The writer's task that commits batch `b`, its bodies stored. With
    /// `failed`, the records whose bodies could not be stored go back to
    /// their states at once (not at lease expiry) and the task ends with
    /// the error, which stops the loop.
    fn commit(&self, b: Batch, failed: Option<(Error, Vec<Outcome>)>) -> Task<Reply> {
        let (admit, cache) = (self.admit.clone(), self.cache.clone());
        Box::new(move |store| {
            results::commit_outcomes(store, &b.outcomes, &[], &admit, &cache)?;
            if let Some((e, unstored)) = failed {
                let mut w = store.write()?;
                for o in &unstored {
                    w.finish(&o.job.key, &o.job.rec, o.job.lease)?;
                }
                w.commit()?;
                return Err(e);
            }
            Ok(Reply::Stored)
        })
    }

    /// Archives the old versions the batches replace, then makes their new
    /// bodies durable under their names. The bodies leave the outcomes
    /// (they are not needed for the commit); their bytes leave `waiting`
    /// whatever happens, since they are no longer held. When some cannot
    /// be stored (a full disk), their outcomes leave the batches and are
    /// returned with the error; the rest stay to be committed.
    fn store(&self, group: &mut [Batch]) -> std::result::Result<(), (Error, Vec<Outcome>)> {
        let mut bytes = 0u64;
        let mut files = Vec::new();
        // Where each file's outcome is: (batch, outcome).
        let mut owners = Vec::new();
        let mut failed = None;
        for (bi, b) in group.iter_mut().enumerate() {
            for (oi, o) in b.outcomes.iter_mut().enumerate() {
                let Some(body) = o.body.take() else {
                    continue;
                };
                bytes = bytes.saturating_add(body.data.len() as u64);
                owners.push((bi, oi));
                if failed.is_some() {
                    continue;
                }
                if body.archive_old {
                    match self.archive_old(o) {
                        Ok(h) => o.history = h,
                        Err(e) => {
                            failed = Some(e);
                            continue;
                        }
                    }
                }
                files.push((self.cache.path(&o.job.key), body.data));
            }
        }
        let (stored, res) = cache::write_durable(&files, self.sync);
        drop(files);
        self.waiting.sub(bytes);
        let Some(e) = failed.or(res.err()) else {
            return Ok(());
        };
        // The outcomes whose bodies are not durable, last first so the
        // indices before stay valid.
        let mut unstored = Vec::new();
        for &(bi, oi) in owners[stored..].iter().rev() {
            unstored.push(group[bi].outcomes.remove(oi));
        }
        unstored.reverse();
        Err((e, unstored))
    }

    /// Keeps the stored body of a re-fetched record in the archive, if it is
    /// still the version the record describes; returns its history entry.
    fn archive_old(&self, o: &Outcome) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let (key, old) = (&o.job.key, &o.job.rec);
        let Some(body) = self.cache.read(key)? else {
            return Ok(None);
        };
        // After a crash between storing a new body and committing, the
        // cache already holds the new body; the old one was archived then.
        if *blake3::hash(&body).as_bytes() != old.hash {
            return Ok(None);
        }
        self.archive
            .keep(&self.cache.path(key), key, old.fetched, &old.hash)?;
        Ok(Some((
            crate::store::archive::Version::table_key(key, old.fetched),
            crate::store::archive::Version::of(old).encode(),
        )))
    }
}

/// A new body to store with its result.
pub(super) struct Body {
    pub data: Vec<u8>,
    /// The record had a body before: keep it in the archive first.
    pub archive_old: bool,
}

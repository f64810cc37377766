//! The fetcher's storer: a thread of its own that makes the bodies of a
//! batch of results durable, then hands the batch to the writer to commit.
//!
//! Storing a body with its own syncs costs far more than fetching it on a
//! disk (a data sync and a directory sync per page), and the fetch loop
//! sent no request meanwhile. Here a batch's bodies are written under
//! temporary names without syncing, each file's data is synced, the files
//! are renamed into place and every directory touched is synced once;
//! only then does the commit that moves their records to FRESH go to the
//! writer. Kill-safety is as before: a record is FRESH only once its body
//! is durable under its final name, and a killed storer leaves temporary
//! files that the next fetcher removes.
//!
//! Batches are stored and committed in the order they were given, so a
//! commit never overtakes an earlier one. The bytes of bodies given and not
//! yet durable are counted in [`Waiting`], which the loop checks against
//! `--fetch-store-cap` before it starts a request.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::Instant;

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

/// A batch of results, with the rests to persist once it is committed.
pub(super) struct Batch {
    pub outcomes: Vec<Outcome>,
    /// Addresses whose next burst is recorded once this batch is in.
    pub arms: Vec<(IpAddr, Instant)>,
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
            for mut b in rx {
                let stored = parts.store(&mut b.outcomes);
                let task: Task<Reply> = match stored {
                    Ok(()) => {
                        let (admit, cache) = (parts.admit.clone(), parts.cache.clone());
                        let arms = b.arms;
                        let outcomes = b.outcomes;
                        Box::new(move |store| {
                            results::commit_outcomes(store, &outcomes, &[], &admit, &cache)?;
                            Ok(Reply::Committed(arms))
                        })
                    }
                    // Nothing of this batch is committed: its records go
                    // back to their states at once (not at lease expiry),
                    // and the loop stops on the error.
                    Err(e) => {
                        let outcomes = b.outcomes;
                        Box::new(move |store| {
                            let mut w = store.write()?;
                            for o in &outcomes {
                                w.finish(&o.job.key, &o.job.rec, o.job.lease)?;
                            }
                            w.commit()?;
                            Err(e)
                        })
                    }
                };
                if writer.send(task).is_err() {
                    return;
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
}

impl Parts {
    /// Archives the old versions the batch replaces, then makes its new
    /// bodies durable under their names. The bodies leave the outcomes
    /// (they are not needed for the commit); their bytes leave `waiting`
    /// whatever happens, since they are no longer held.
    fn store(&self, outcomes: &mut [Outcome]) -> Result<()> {
        let mut bytes = 0u64;
        let mut files = Vec::new();
        let mut res = Ok(());
        for o in outcomes.iter_mut() {
            let Some(body) = o.body.take() else {
                continue;
            };
            bytes = bytes.saturating_add(body.data.len() as u64);
            if res.is_err() {
                continue;
            }
            if body.archive_old {
                match self.archive_old(o) {
                    Ok(h) => o.history = h,
                    Err(e) => res = Err(e),
                }
            }
            files.push((self.cache.path(&o.job.key), body.data));
        }
        if res.is_ok() {
            res = cache::write_durable(&files);
        }
        self.waiting.sub(bytes);
        res
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

//! nlpc-scan's tunnelling (`--filter-tunnel`): the links of rejected pages
//! nlpc-vrfy queued (`store::tunnel`), followed while the rejected pages in
//! a row that lead to them are at most `--filter-tunnel`. The queue is
//! drained whatever the option says, so it never grows; with 0 (the
//! default) no rejected page's links are read.

use crate::debug;
use crate::error::Result;
use crate::info;
use crate::run::clock;
use crate::run::daemon::{Contained, Daemon};
use crate::stage::scan::{links_of, Config};
use crate::store::cache::Cache;
use crate::store::record::{Record, State};
use crate::store::{scope, tunnel, wake, Inserted};
use crate::web::admit;

/// The wake-up mask of nlpc-scan's input: verified pages, and rejected
/// ones, which nlpc-vrfy queues here in the commit that rejects them. A
/// batch of rejections alone wakes no waiter of VERIFIED, so without the
/// second state their links waited for scan's next `--use-interval` look.
pub fn scan_wake_mask() -> u32 {
    wake::mask(&[State::Verified, State::Rejected])
}

/// Whether nlpc-scan has input: an unleased VERIFIED record or a queued
/// rejected page (a REJECTED record alone is none: most stay so).
pub fn scan_waiting(d: &Daemon) -> Result<bool> {
    Ok(d.waiting(&[State::Verified])? || !tunnel::queued(&d.store.read()?, 1)?.is_empty())
}

/// Takes up to `cfg.batch` queued rejected pages and inserts the links of
/// those within reach; returns how many were taken.
pub fn step(d: &Daemon, cfg: &Config, cache: &Cache) -> Result<usize> {
    let queued = tunnel::queued(&d.store.read()?, cfg.batch)?;
    if queued.is_empty() {
        return Ok(0);
    }
    // Bodies are read and parsed outside the write transaction.
    let mut work = Vec::with_capacity(queued.len());
    for (key, hops) in queued {
        let rec = d.store.read()?.get(&key)?;
        let found = match &rec {
            Some(rec) if hops <= cfg.tunnel && rec.state == State::Rejected => {
                match d.contain(&rec.url, || {
                    Ok(cache.read(&key)?.map(|body| links_of(rec, &body, cfg)))
                })? {
                    Contained::Done(f) => f,
                    Contained::Quarantine(_) => None,
                }
            }
            _ => None,
        };
        work.push((key, hops, rec, found));
    }
    let now = clock::now();
    let taken = work.len();
    let mut w = d.store.write()?;
    let mut drop_body = Vec::new();
    for (key, hops, rec, found) in work {
        if !tunnel::take(&mut w, &key)? {
            continue;
        }
        // nlpc-vrfy left the body of a rejected page for this; once its
        // links are read it goes, as nlpc-vrfy drops it without tunnelling.
        if w.get(&key)?.is_some_and(|r| r.state == State::Rejected) {
            drop_body.push(key);
        }
        let (Some(rec), Some(found)) = (rec, found) else {
            continue;
        };
        let (mut new, mut known, mut refused) = (0, 0, 0);
        for u in found.urls {
            let mut r = Record::new(&u, now);
            r.depth = rec.depth.saturating_add(1);
            match scope::insert(&mut w, &r, &cfg.filter)? {
                Ok(Inserted::New(k)) => {
                    tunnel::reached(&mut w, &k, hops)?;
                    new += 1;
                }
                Ok(Inserted::Known(..)) => known += 1,
                Ok(Inserted::Forwarded(p)) => {
                    debug!("{}: {} forwarded to node {p}", rec.url, admit::shown(&u))
                }
                Err(why) => {
                    refused += 1;
                    debug!("{}: skip {}: {why}", rec.url, admit::shown(&u))
                }
            }
        }
        info!(
            "tunnelled {} ({hops} rejected in a row; {new} new, {known} known{})",
            rec.url,
            crate::stage::scan::refused_by_count(refused)
        );
    }
    w.commit()?;
    for key in &drop_body {
        cache.remove(key)?;
    }
    Ok(taken)
}

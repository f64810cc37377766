//! Tunnelling (`--filter-tunnel`): following the links of rejected pages
//! for a few hops, so a page in the language reached only through a page
//! that is not (an English index of Latvian articles) is still found.
//!
//! [`Table::Tunnel`] holds two kinds of entries:
//! - `q` + record key → hops: a page nlpc-vrfy rejected, waiting for
//!   nlpc-scan to read its links; hops is how many rejected pages in a
//!   row lead to it, itself included;
//! - `h` + record key → hops: a record created from the links of such a
//!   page, so that when it is rejected in turn the count goes on.
//!
//! A record without an `h` entry was reached from an accepted page or is a
//! seed: 0 hops. A record an accepted page links to loses its entry,
//! however it was found first ([`linked_from_accepted`]). nlpc-fetch
//! reads the `h` entries to lease tunnelled records after the others
//! (focus).

use crate::error::Result;
use crate::store::db::{Key, Table, KEY_LEN};
use crate::store::record::{Record, State};
use crate::store::{Read, Write};

fn entry(kind: u8, key: &Key) -> [u8; KEY_LEN + 1] {
    let mut k = [0; KEY_LEN + 1];
    k[0] = kind;
    k[1..].copy_from_slice(&key.0);
    k
}

fn hops_of(v: Option<Vec<u8>>) -> u8 {
    v.and_then(|v| v.first().copied()).unwrap_or(0)
}

/// After nlpc-vrfy's verdict on `rec` (under `key`): a rejected page is
/// queued for nlpc-scan with its hops, which decides by its own
/// `--filter-tunnel` whether to follow them. Hops stop counting at 255.
pub fn judged(w: &mut Write, key: &Key, rec: &Record) -> Result<()> {
    if rec.state != State::Rejected {
        return Ok(());
    }
    let hops = hops_of(w.table_get(Table::Tunnel, &entry(b'h', key))?).saturating_add(1);
    w.table_put(Table::Tunnel, &entry(b'q', key), &[hops])
}

/// How many rejected pages in a row lead to record `key`: 0 for one
/// reached from an accepted page or a seed.
pub fn hops(r: &Read, key: &Key) -> Result<u8> {
    Ok(hops_of(r.table_get(Table::Tunnel, &entry(b'h', key))?))
}

/// Up to `n` queued rejected pages, with their hops.
pub fn queued(r: &Read, n: usize) -> Result<Vec<(Key, u8)>> {
    let mut out = Vec::new();
    r.table_walk(Table::Tunnel, b"q", |k, v| {
        if out.len() >= n {
            return Ok(false);
        }
        if let (Ok(k), Some(&h)) = (<[u8; KEY_LEN]>::try_from(&k[1..]), v.first()) {
            out.push((Key(k), h));
        }
        Ok(true)
    })?;
    Ok(out)
}

/// Takes `key` off the queue; false when it was no longer there (another
/// scanner took it).
pub fn take(w: &mut Write, key: &Key) -> Result<bool> {
    let q = entry(b'q', key);
    if w.table_get(Table::Tunnel, &q)?.is_none() {
        return Ok(false);
    }
    w.table_del(Table::Tunnel, &q)?;
    Ok(true)
}

/// Records that `key` (a new record) was reached through `hops` rejected
/// pages in a row.
pub fn reached(w: &mut Write, key: &Key, hops: u8) -> Result<()> {
    w.table_put(Table::Tunnel, &entry(b'h', key), &[hops])
}

/// An accepted page links to record `key`: it is 0 hops away now, whatever
/// rejected pages led to it first.
pub fn linked_from_accepted(w: &mut Write, key: &Key) -> Result<()> {
    w.table_del(Table::Tunnel, &entry(b'h', key))
}

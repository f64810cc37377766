//! The outbox of a node in a cluster: links whose host another node owns
//! (`web::partition`), written by `store::scope::insert` in the
//! same transaction as the page that holds them, and sent on by nlpc-relay,
//! which deletes them only once the message engine has acknowledged them.
//! A process killed anywhere in between loses no link: the entry is either
//! not yet committed (and neither is the page's scan) or still here.
//!
//! [`Table::Outbox`]: key the 16-byte hash of the URL's key form (the
//! record hash the receiving node will file it under; a second link to the
//! same URL overwrites the first), value the partition (4 bytes LE), the
//! link depth (2 bytes LE) and the URL.
//!
//! The partition map itself is kept in the meta table under
//! [`MAP_KEY`] as `I/N`, stored when nlpcd or nlpc-relay starts with
//! `--nats`; without it nothing is forwarded, so a database of one
//! machine never sees this module.

use crate::error::{Error, Result};
use crate::store::db::{Store, Table};
use crate::store::record::Record;
use crate::store::{Read, Write};
use crate::web::partition::Partition;
use crate::web::url;

/// The meta key of the partition map.
pub const MAP_KEY: &[u8] = b"cluster:node";

/// One link waiting to be sent to its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The record hash: the message id, so the engine drops a resent copy.
    pub hash: [u8; 16],
    pub partition: u32,
    pub depth: u16,
    pub url: String,
}

impl Entry {
    /// The value stored in the outbox, which is also the message body.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(6 + self.url.len());
        v.extend_from_slice(&self.partition.to_le_bytes());
        v.extend_from_slice(&self.depth.to_le_bytes());
        v.extend_from_slice(self.url.as_bytes());
        v
    }

    /// Reads [`Entry::encode`]'s bytes back; None when they are not an
    /// entry (a message from elsewhere on the subject, say).
    pub fn decode(hash: [u8; 16], v: &[u8]) -> Option<Entry> {
        let partition = u32::from_le_bytes(v.get(..4)?.try_into().ok()?);
        let depth = u16::from_le_bytes(v.get(4..6)?.try_into().ok()?);
        let url = std::str::from_utf8(v.get(6..)?).ok()?.to_string();
        (!url.is_empty()).then_some(Entry {
            hash,
            partition,
            depth,
            url,
        })
    }

    /// The record the owning node inserts.
    pub fn record(&self, now: u64) -> Record {
        let mut r = Record::new(&self.url, now);
        r.depth = self.depth;
        r
    }

    /// The hash as lowercase hex: the `Nats-Msg-Id`.
    pub fn id(&self) -> String {
        crate::store::hex(&self.hash)
    }
}

fn parse_map(v: Option<Vec<u8>>) -> Option<Partition> {
    let v = v?;
    Partition::parse(std::str::from_utf8(&v).ok()?).ok()
}

/// The database's partition map, if it is a node of a cluster.
pub fn map(r: &Read) -> Result<Option<Partition>> {
    Ok(parse_map(r.table_get(Table::Meta, MAP_KEY)?))
}

/// Stores `p` as the database's partition map; refuses a map other than
/// the one stored (the hosts of the other would already be here).
pub fn set_map(store: &Store, p: Partition) -> Result<()> {
    let mut w = store.write()?;
    match parse_map(w.table_get(Table::Meta, MAP_KEY)?) {
        Some(q) if q == p => return Ok(()),
        Some(q) => {
            return Err(Error::Input(format!(
                "{}: this database is node {q} of its cluster, not {p}; a node keeps its partition",
                store.path().display()
            )))
        }
        None => {}
    }
    w.table_put(Table::Meta, MAP_KEY, p.to_string().as_bytes())?;
    w.commit()
}

/// Called by the admission point before it inserts `rec`: when the
/// database is a node of a cluster and another node owns the URL's host,
/// writes the link into the outbox (in `w`, the caller's transaction) and
/// returns that node's partition; otherwise None, and nothing is written.
pub fn route(w: &mut Write, rec: &Record) -> Result<Option<u32>> {
    let Some(p) = parse_map(w.table_get(Table::Meta, MAP_KEY)?) else {
        return Ok(None);
    };
    let host = url::host_of(&rec.url).to_ascii_lowercase();
    let to = p.of_host(&host);
    if to == p.node {
        return Ok(None);
    }
    let e = Entry {
        hash: w.store.hash(&rec.url),
        partition: to,
        depth: rec.depth,
        url: rec.url.clone(),
    };
    w.table_put(Table::Outbox, &e.hash, &e.encode())?;
    Ok(Some(to))
}

/// Up to `n` entries, in hash order.
pub fn peek(r: &Read, n: usize) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    r.table_walk(Table::Outbox, &[], |k, v| {
        if let (Ok(hash), true) = (<[u8; 16]>::try_from(k), out.len() < n) {
            if let Some(e) = Entry::decode(hash, v) {
                out.push(e);
            }
        }
        Ok(out.len() < n)
    })?;
    Ok(out)
}

/// The keys of the entries among the first `n` that are no entry
/// (damaged): they can never be sent, and the relay deletes them, so the
/// outbox drains.
pub fn damaged(r: &Read, n: usize) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    let mut seen = 0;
    r.table_walk(Table::Outbox, &[], |k, v| {
        let ok = <[u8; 16]>::try_from(k).is_ok_and(|h| Entry::decode(h, v).is_some());
        if !ok {
            out.push(k.to_vec());
        }
        seen += 1;
        Ok(seen < n)
    })?;
    Ok(out)
}

/// Deletes the entries of `keys`.
pub fn remove_keys(w: &mut Write, keys: &[Vec<u8>]) -> Result<()> {
    for k in keys {
        w.table_del(Table::Outbox, k)?;
    }
    Ok(())
}

/// Deletes sent entries, unless a newer link rewrote one meanwhile (it
/// then goes out again with the next batch).
pub fn remove(w: &mut Write, sent: &[Entry]) -> Result<()> {
    for e in sent {
        if w.table_get(Table::Outbox, &e.hash)?.as_deref() == Some(&e.encode()[..]) {
            w.table_del(Table::Outbox, &e.hash)?;
        }
    }
    Ok(())
}

/// Entries waiting.
pub fn len(r: &Read) -> Result<u64> {
    let mut n = 0u64;
    r.table_walk(Table::Outbox, &[], |_, _| {
        n += 1;
        Ok(true)
    })?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_and_junk_is_refused() {
        let e = Entry {
            hash: [7; 16],
            partition: 2,
            depth: 5,
            url: "http://a.lv/ā".into(),
        };
        assert_eq!(Entry::decode([7; 16], &e.encode()), Some(e.clone()));
        assert_eq!(e.id().len(), 32);
        assert_eq!(Entry::decode([7; 16], b"abc"), None);
        assert_eq!(Entry::decode([7; 16], &[0, 0, 0, 0, 1, 0]), None);
        assert_eq!(Entry::decode([7; 16], &[0, 0, 0, 0, 1, 0, 0xff]), None);
    }
}

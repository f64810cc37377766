//! The duplicate index checked against itself and the records
//! ([`check`], part of the deep check behind `nlpc-list --check`), and
//! what it takes on disk ([`size`]).

use crate::document::fingerprint::minhash::BANDS;
use crate::error::Result;
use crate::store::record::State;
use crate::store::{Key, Read, Table, KEY_LEN};

use super::{
    bucket, get_doc, member_key, old_band_key, text_key, Doc, Kind, View, DOC, LSH, MAX_BUCKET,
    MEMBER, OLD_BAND, TEXT,
};

/// Checks the index against itself and the records: every mark points to
/// a first copy that lists it, every first copy is under its text, every
/// bucket entry belongs to a page of that band's key, no bucket holds
/// more than [`MAX_BUCKET`], every entry belongs to a record still there
/// (not GONE), and no entry is left over. Returns the problems found.
pub fn check(v: &impl View) -> Result<Vec<String>> {
    // Entry by entry, with point lookups: nothing but the problems is held
    // in memory, however large the index.
    let mut problems = Vec::new();
    let key_at = |b: &[u8], at: usize| {
        b.get(at..at + KEY_LEN)
            .and_then(|s| <[u8; KEY_LEN]>::try_from(s).ok())
            .map(Key)
    };
    v.dups_walk(&[DOC], &mut |k, val| {
        let (Some(key), Some(d)) = (key_at(k, 1), Doc::decode(val)) else {
            problems.push(format!("bad duplicate entry {k:?}"));
            return Ok(true);
        };
        let hex = key.hex();
        match v.record_state(&key)? {
            None => problems.push(format!("duplicate entry {hex}: no such record")),
            Some((State::Gone, url)) => problems.push(format!("{url}: pruned but still indexed")),
            Some(_) => {}
        }
        match d.mark {
            Some(m) => {
                match get_doc(v, &m.first)? {
                    Some(f) if f.mark.is_none() => {}
                    Some(_) => problems.push(format!("{hex}: a duplicate of a duplicate")),
                    None => problems.push(format!("{hex}: a duplicate of a page not indexed")),
                }
                if v.dups_get(&member_key(&m.first, &key))?.is_none() {
                    problems.push(format!("{hex}: missing from its cluster"));
                }
            }
            None => {
                if v.dups_get(&text_key(&d.text))?.as_deref() != Some(&key.0[..]) {
                    problems.push(format!("{hex}: a first copy not found by its text"));
                }
            }
        }
        Ok(true)
    })?;
    let mut last: Option<(Vec<u8>, usize)> = None;
    v.dups_walk(&[LSH], &mut |k, _| {
        let band = usize::from(k.get(1).copied().unwrap_or(u8::MAX));
        let doc = match key_at(k, 6) {
            Some(key) if k.len() == 6 + KEY_LEN => get_doc(v, &key)?,
            _ => None,
        };
        let ok = band < BANDS
            && doc.is_some_and(|d| {
                d.mark.is_none_or(|m| m.kind == Kind::Near)
                    && d.sig
                        .is_some_and(|s| k.get(..6) == Some(&bucket(band, &s)[..]))
            });
        if !ok {
            problems.push(format!("left-over bucket entry {k:?}"));
        }
        let prefix = k.get(..6).unwrap_or(k).to_vec();
        let n = match &last {
            Some((p, n)) if *p == prefix => n + 1,
            _ => 1,
        };
        if n == MAX_BUCKET + 1 {
            problems.push(format!("bucket {prefix:?} holds more than {MAX_BUCKET}"));
        }
        last = Some((prefix, n));
        Ok(true)
    })?;
    v.dups_walk(&[OLD_BAND], &mut |k, _| {
        let band = usize::from(k.get(1).copied().unwrap_or(u8::MAX));
        let doc = match key_at(k, 4) {
            Some(key) => get_doc(v, &key)?,
            None => None,
        };
        let ok = doc.is_some_and(|d| {
            d.sig.is_none() && key_at(k, 4).is_some_and(|key| old_band_key(band, d.old, &key) == k)
        });
        if !ok {
            problems.push(format!("left-over band entry {k:?}"));
        }
        Ok(true)
    })?;
    v.dups_walk(&[TEXT], &mut |k, val| {
        let doc = match Key::from_slice(val) {
            Some(key) => get_doc(v, &key)?,
            None => None,
        };
        if !doc.is_some_and(|d| d.mark.is_none() && k.get(1..) == Some(&d.text[..])) {
            problems.push(format!("left-over text entry {k:?}"));
        }
        Ok(true)
    })?;
    v.dups_walk(&[MEMBER], &mut |k, _| {
        let (first, member) = (key_at(k, 1), key_at(k, 1 + KEY_LEN));
        let doc = match member {
            Some(m) if k.len() == 1 + 2 * KEY_LEN => get_doc(v, &m)?,
            _ => None,
        };
        if first.is_none() || doc.and_then(|d| d.mark).map(|m| m.first) != first {
            problems.push(format!("left-over cluster entry {k:?}"));
        }
        Ok(true)
    })?;
    Ok(problems)
}

/// What the duplicate table takes on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Entries of every kind.
    pub entries: u64,
    /// Bytes of its B-tree pages (branch, leaf and overflow).
    pub bytes: u64,
}

/// The size of [`Table::Dups`] in the snapshot `rd`.
pub fn size(rd: &Read<'_>) -> Result<Size> {
    let (entries, bytes) = rd.table_size(Table::Dups)?;
    Ok(Size { entries, bytes })
}

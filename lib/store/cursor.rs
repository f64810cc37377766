//! Export cursors: what `nlpc-dump --cursor NAME` exported last, kept in
//! the `meta` table under `cursor:NAME`.
//!
//! A cursor holds a time and the versions already exported whose records
//! could still come up again at or after that time (changed since it, or
//! VERIFIED and about to be scanned, which changes nothing of the page):
//! the next export takes records changed at or after the time and skips
//! those versions. Encoded as a format byte, the time (8 bytes, big
//! endian), then entries of a record key and the first 8 bytes of the
//! body's hash.

use rustc_hash::FxHashSet;

use crate::error::{Error, Result};
use crate::store::{Key, Read, Table, Write, KEY_LEN};

/// The key prefix of a cursor in [`Table::Meta`].
pub const CURSOR: &[u8] = b"cursor:";

const FORMAT: u8 = 1;
const ENTRY: usize = KEY_LEN + 8;

/// The longest cursor name.
pub const NAME_MAX: usize = 64;

/// What a cursor remembers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Records changed at or after this time (Unix seconds) are new.
    pub time: u64,
    /// Versions exported already: record key and hash prefix.
    pub seen: FxHashSet<(Key, [u8; 8])>,
}

/// The part of a body hash a cursor keeps.
pub fn hash_prefix(h: &[u8; 32]) -> [u8; 8] {
    let mut p = [0u8; 8];
    p.copy_from_slice(&h[..8]);
    p
}

/// Checks a cursor name: 1 to [`NAME_MAX`] bytes of letters, digits,
/// `-`, `_` and `.`.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.len() > NAME_MAX {
        return Err(format!(
            "{name:?}: a cursor name has 1 to {NAME_MAX} characters"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "{name:?}: {c:?} is not allowed in a cursor name (letters, digits, - _ .)"
        ));
    }
    Ok(())
}

fn key(name: &str) -> Vec<u8> {
    [CURSOR, name.as_bytes()].concat()
}

impl Cursor {
    pub fn encode(&self) -> Vec<u8> {
        let mut seen: Vec<&(Key, [u8; 8])> = self.seen.iter().collect();
        // Sorted, so equal cursors encode alike.
        seen.sort();
        let mut v = Vec::with_capacity(9 + seen.len() * ENTRY);
        v.push(FORMAT);
        v.extend_from_slice(&self.time.to_be_bytes());
        for (k, h) in seen {
            v.extend_from_slice(&k.0);
            v.extend_from_slice(h);
        }
        v
    }

    pub fn decode(b: &[u8]) -> Option<Cursor> {
        let (&f, rest) = b.split_first()?;
        if f != FORMAT || rest.len() < 8 || (rest.len() - 8) % ENTRY != 0 {
            return None;
        }
        let (t, entries) = rest.split_at(8);
        let time = u64::from_be_bytes(t.try_into().ok()?);
        let seen = entries
            .chunks_exact(ENTRY)
            .map(|e| {
                let (k, h) = e.split_at(KEY_LEN);
                Some((Key(k.try_into().ok()?), h.try_into().ok()?))
            })
            .collect::<Option<_>>()?;
        Some(Cursor { time, seen })
    }
}

fn damaged(path: &std::path::Path, name: &str) -> Error {
    Error::Damaged {
        path: path.to_path_buf(),
        why: format!("export cursor {name:?} is not readable; export with another cursor name"),
    }
}

/// The cursor `name` as `rd` sees it; None when there is none yet.
pub fn get(rd: &Read<'_>, name: &str) -> Result<Option<Cursor>> {
    match rd.table_get(Table::Meta, &key(name))? {
        None => Ok(None),
        Some(v) => Cursor::decode(&v)
            .map(Some)
            .ok_or_else(|| damaged(rd.store.path(), name)),
    }
}

/// The cursor `name` as write transaction `w` sees it.
pub fn get_in(w: &Write<'_>, name: &str) -> Result<Option<Cursor>> {
    match w.table_get(Table::Meta, &key(name))? {
        None => Ok(None),
        Some(v) => Cursor::decode(&v)
            .map(Some)
            .ok_or_else(|| damaged(w.store.path(), name)),
    }
}

/// Stores cursor `name`.
pub fn put(w: &mut Write<'_>, name: &str, c: &Cursor) -> Result<()> {
    w.table_put(Table::Meta, &key(name), &c.encode())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes() {
        let mut c = Cursor {
            time: 1_700_000_000,
            ..Cursor::default()
        };
        c.seen.insert((Key([1; KEY_LEN]), [2; 8]));
        c.seen.insert((Key([3; KEY_LEN]), [4; 8]));
        let b = c.encode();
        assert_eq!(b.len(), 9 + 2 * ENTRY);
        assert_eq!(Cursor::decode(&b), Some(c));
        assert_eq!(Cursor::decode(&b[..b.len() - 1]), None);
        assert_eq!(Cursor::decode(&[]), None);
        assert!(check_name("weekly-lv.1").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("a/b").is_err());
        assert!(check_name(&"x".repeat(65)).is_err());
    }
}

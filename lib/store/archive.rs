//! The archive: earlier versions of pages that changed, kept under `-a`,
//! and the history entries that describe them.
//!
//! When a re-fetch brings a body whose hash differs from the stored one,
//! the stored body is first hard-linked into the archive (named by its
//! fetch time and hash, so repeating the step after a crash is harmless),
//! and only then is the cache file replaced.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::{hex, Key, Read, Table, KEY_LEN};

/// One archived version of a record's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// When this version was fetched.
    pub fetched: u64,
    pub hash: [u8; 32],
    pub size: u64,
    pub status: u16,
    pub content_type: String,
    pub charset: String,
}

const HISTORY_VERSION: u8 = 1;

impl Version {
    /// The version a record describes: its current body.
    pub fn of(rec: &crate::store::record::Record) -> Version {
        Version {
            fetched: rec.fetched,
            hash: rec.hash,
            size: rec.size,
            status: rec.status,
            content_type: rec.content_type.clone(),
            charset: rec.charset.clone(),
        }
    }

    /// The history table key: the record key, then the fetch time
    /// big-endian, so one record's versions sort together by time.
    pub fn table_key(key: &Key, fetched: u64) -> Vec<u8> {
        let mut k = Vec::with_capacity(KEY_LEN + 8);
        k.extend_from_slice(&key.0);
        k.extend_from_slice(&fetched.to_be_bytes());
        k
    }

    /// The history table value.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = vec![HISTORY_VERSION];
        v.extend_from_slice(&self.hash);
        v.extend_from_slice(&self.size.to_le_bytes());
        v.extend_from_slice(&self.status.to_le_bytes());
        for s in [&self.content_type, &self.charset] {
            // At most 255 bytes, cut between characters so it decodes.
            let n = (0..=s.len().min(255))
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            v.push(n as u8);
            v.extend_from_slice(&s.as_bytes()[..n]);
        }
        v
    }

    /// Decodes a history entry under table key `k`.
    pub fn decode(k: &[u8], v: &[u8]) -> Option<Version> {
        let fetched = u64::from_be_bytes(k.get(KEY_LEN..KEY_LEN + 8)?.try_into().ok()?);
        if *v.first()? != HISTORY_VERSION {
            return None;
        }
        let hash: [u8; 32] = v.get(1..33)?.try_into().ok()?;
        let size = u64::from_le_bytes(v.get(33..41)?.try_into().ok()?);
        let status = u16::from_le_bytes(v.get(41..43)?.try_into().ok()?);
        let mut at = 43;
        let mut strs = Vec::new();
        for _ in 0..2 {
            let n = *v.get(at)? as usize;
            let s = std::str::from_utf8(v.get(at + 1..at + 1 + n)?).ok()?;
            strs.push(s.to_string());
            at += 1 + n;
        }
        let charset = strs.pop()?;
        let content_type = strs.pop()?;
        Some(Version {
            fetched,
            hash,
            size,
            status,
            content_type,
            charset,
        })
    }
}

/// The archived versions of the record under `key`, oldest first.
pub fn versions(rd: &Read<'_>, key: &Key) -> Result<Vec<Version>> {
    let mut out = Vec::new();
    rd.table_walk(Table::History, &key.0, |k, v| {
        match Version::decode(k, v) {
            Some(ver) => out.push(ver),
            None => {
                return Err(Error::Input(format!(
                    "history entry of record {} cannot be read",
                    key.hex()
                )))
            }
        }
        Ok(true)
    })?;
    Ok(out)
}

/// The archive directory.
#[derive(Clone, Debug)]
pub struct Archive {
    dir: PathBuf,
}

impl Archive {
    pub fn new(dir: impl Into<PathBuf>) -> Archive {
        Archive { dir: dir.into() }
    }

    /// Where the version of `key` fetched at `fetched` with `hash` lives.
    pub fn path(&self, key: &Key, fetched: u64, hash: &[u8; 32]) -> PathBuf {
        let k = key.hex();
        self.dir
            .join(&k[..2])
            .join(&k)
            .join(format!("{fetched}-{}", hex(&hash[..8])))
    }

    /// Keeps the file at `current` (the cache file about to be replaced)
    /// as the version fetched at `fetched`. A version already kept is left
    /// as it is.
    pub fn keep(&self, current: &Path, key: &Key, fetched: u64, hash: &[u8; 32]) -> Result<()> {
        let dest = self.path(key, fetched, hash);
        if dest.exists() {
            return Ok(());
        }
        let dir = dest.parent().unwrap_or(&self.dir);
        fs::create_dir_all(dir)
            .map_err(|e| Error::io(dir, "cannot create archive directory", e))?;
        match fs::hard_link(current, &dest) {
            // The new name must last before the record listing it commits.
            Ok(()) => crate::store::cache::sync_dir(dir),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
            // Another file system: copy through a temporary name instead.
            Err(_) => {
                let body = fs::read(current).map_err(|e| Error::io(current, "cannot read", e))?;
                crate::store::cache::write_atomic(&dest, &body)
            }
        }
    }

    /// Removes temporary files that killed writers left behind (copies
    /// across file systems); returns how many.
    pub fn clean_temporaries(&self) -> Result<usize> {
        crate::store::cache::clean_below(&self.dir, 2)
    }

    /// The body of an archived version.
    pub fn read(&self, key: &Key, v: &Version) -> Result<Vec<u8>> {
        let p = self.path(key, v.fetched, &v.hash);
        fs::read(&p).map_err(|e| Error::io(p, "cannot read archived version", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_round_trip() {
        let key = Key([3; KEY_LEN]);
        let v = Version {
            fetched: 1_700_000_000,
            hash: [9; 32],
            size: 1234,
            status: 200,
            content_type: "text/html".into(),
            charset: "utf-8".into(),
        };
        let k = Version::table_key(&key, v.fetched);
        assert_eq!(Version::decode(&k, &v.encode()), Some(v));
        assert_eq!(Version::decode(&k, &[2]), None);
    }

    #[test]
    fn a_long_content_type_is_cut_between_characters() {
        let key = Key([3; KEY_LEN]);
        // 254 ASCII bytes, then "ū": byte 255 falls inside it.
        let long = format!("{}ū", "x".repeat(254));
        let v = Version {
            fetched: 5,
            hash: [1; 32],
            size: 1,
            status: 200,
            content_type: long,
            charset: "ū".repeat(200),
        };
        let k = Version::table_key(&key, v.fetched);
        let got = Version::decode(&k, &v.encode()).expect("entry decodes");
        assert_eq!(got.content_type, "x".repeat(254));
        assert_eq!(got.charset, "ū".repeat(127));
    }
}

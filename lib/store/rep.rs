//! The REP cache: each origin's robots.txt as the server sent it, one file
//! per origin under the `-r` directory, so an administrator can read what
//! the crawler obeyed.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::cache::write_atomic;
use crate::web::robots::Entry;

const REP_MAGIC: &str = "nlpcrawl-rep 1";

/// The REP cache: one file per origin under the `-r` directory, holding a
/// short header and the body as the server sent it, so an administrator
/// can read what the crawler obeyed.
#[derive(Clone, Debug)]
pub struct RepCache {
    dir: PathBuf,
}

impl RepCache {
    pub fn new(dir: impl Into<PathBuf>) -> RepCache {
        RepCache { dir: dir.into() }
    }

    /// Where the entry of `origin` lives.
    pub fn path(&self, origin: &str) -> PathBuf {
        let h = blake3::hash(origin.as_bytes()).to_hex();
        self.dir.join(&h[..2]).join(format!("{}.robots", &h[..32]))
    }

    /// The cached entry of `origin`, fresh or not; None when absent or
    /// unreadable as an entry (it will be fetched again).
    pub fn load(&self, origin: &str) -> Result<Option<Entry>> {
        let p = self.path(origin);
        let data = match fs::read(&p) {
            Ok(d) => d,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(p, "cannot read robots.txt cache", e)),
        };
        Ok(decode_entry(&data).filter(|e| e.origin == origin))
    }

    /// Stores an entry, atomically.
    pub fn store(&self, e: &Entry) -> Result<()> {
        let mut data = format!(
            "{REP_MAGIC}\norigin: {}\nfetched: {}\nexpires: {}\nstatus: {}\n\n",
            e.origin, e.fetched, e.expires, e.status
        )
        .into_bytes();
        data.extend_from_slice(&e.body);
        write_atomic(&self.path(&e.origin), &data)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn decode_entry(data: &[u8]) -> Option<Entry> {
    let end = data.windows(2).position(|w| w == b"\n\n")?;
    let head = std::str::from_utf8(&data[..end]).ok()?;
    let mut lines = head.lines();
    if lines.next()? != REP_MAGIC {
        return None;
    }
    let mut e = Entry {
        origin: String::new(),
        fetched: 0,
        expires: 0,
        status: 0,
        body: data[end + 2..].to_vec(),
    };
    for l in lines {
        let (k, v) = l.split_once(": ")?;
        match k {
            "origin" => e.origin = v.to_string(),
            "fetched" => e.fetched = v.parse().ok()?,
            "expires" => e.expires = v.parse().ok()?,
            "status" => e.status = v.parse().ok()?,
            _ => {}
        }
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_round_trip() {
        let e = Entry {
            origin: "http://h:81".into(),
            fetched: 5,
            expires: 9,
            status: 200,
            body: b"User-agent: *\n\nDisallow: /x\n".to_vec(),
        };
        let tmp = tempfile::tempdir().unwrap();
        let c = RepCache::new(tmp.path());
        c.store(&e).unwrap();
        assert_eq!(c.load("http://h:81").unwrap(), Some(e));
        assert_eq!(c.load("http://other").unwrap(), None);
    }
}

//! The file cache: the current body of every fetched record, one file per
//! record named by its key, under a two-hex-digit fan-out directory.
//!
//! A body is written to a temporary name and renamed into place, so a crash
//! never leaves a half-written file under a record's name.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Key;

/// Prefix of temporary files; a leftover one is from a killed writer.
const TEMP_PREFIX: &str = ".tmp.";

/// A directory of bodies named by record key.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The root directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the body of `key` lives.
    pub fn path(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir.join(&hex[..2]).join(hex)
    }

    /// The stored body of `key`, or None when there is none.
    pub fn read(&self, key: &Key) -> Result<Option<Vec<u8>>> {
        let p = self.path(key);
        match fs::read(&p) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(p, "cannot read cached body", e)),
        }
    }

    /// Stores `body` as the body of `key`, atomically replacing any old one.
    pub fn write(&self, key: &Key, body: &[u8]) -> Result<()> {
        let p = self.path(key);
        write_atomic(&p, body)
    }

    /// Where the text nlpc-vrfy kept for the body of `key` lives: beside
    /// it (`store::textcache` reads and writes it).
    pub fn text_path(&self, key: &Key) -> PathBuf {
        let mut p = self.path(key).into_os_string();
        p.push(".text");
        PathBuf::from(p)
    }

    /// Removes the body of `key`, and the text nlpc-vrfy kept beside it
    /// (first, so no text outlives its body); absent is fine.
    pub fn remove(&self, key: &Key) -> Result<()> {
        let t = self.text_path(key);
        match fs::remove_file(&t) {
            Err(e) if e.kind() != ErrorKind::NotFound => {
                return Err(Error::io(t, "cannot remove cached text", e));
            }
            _ => {}
        }
        let p = self.path(key);
        match fs::remove_file(&p) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(p, "cannot remove cached body", e)),
        }
    }

    /// Removes temporary files that killed writers left behind; returns how
    /// many. Files of writers still running are left alone.
    pub fn clean_temporaries(&self) -> Result<usize> {
        clean_temporaries(&self.dir)
    }
}

/// Writes `body` to `path` through a temporary file in the same directory
/// and a rename, creating the directory as needed. The file is synced
/// before the rename and the directory after it, so once this returns the
/// body is on disk under its name: a record committed afterwards never
/// points to a missing or partial file, even after a power cut. On an
/// error (a full disk) the temporary file is removed and nothing is
/// renamed.
pub fn write_atomic(path: &Path, body: &[u8]) -> Result<()> {
    write_file(path, body, true)
}

/// [`write_atomic`] without the syncs, for files made again from the
/// store at will (nlpc-dump's text tree), where a sync per file would
/// only slow the export.
pub fn write_export(path: &Path, body: &[u8]) -> Result<()> {
    write_file(path, body, false)
}

fn write_file(path: &Path, body: &[u8], sync: bool) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("body");
    let tmp = dir.join(format!("{TEMP_PREFIX}{name}.{}", std::process::id()));
    // Create the directory only when it is missing: a stat per body adds up.
    let file = match fs::File::create(&tmp) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, "cannot create directory", e))?;
            fs::File::create(&tmp)
        }
        other => other,
    };
    let res = file
        .and_then(|mut f| {
            f.write_all(body)?;
            if sync {
                f.sync_data()?;
            }
            Ok(())
        })
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(path, "cannot store file", e));
    }
    if sync {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Syncs a directory, so the names created or renamed in it last.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, "cannot sync directory", e))
}

/// True when the temporary file `name` belongs to a process that is gone.
fn orphaned(name: &str) -> bool {
    let Some(pid) = name.rsplit('.').next().and_then(|p| p.parse::<i32>().ok()) else {
        return true;
    };
    matches!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Err(nix::errno::Errno::ESRCH)
    )
}

/// Removes orphaned temporary files under `dir`, one level of fan-out deep.
pub fn clean_temporaries(dir: &Path) -> Result<usize> {
    clean_below(dir, 1)
}

/// Removes orphaned temporary files in the directories `depth` levels
/// below `dir` (the cache keeps bodies one level down, the archive two).
pub(crate) fn clean_below(dir: &Path, depth: usize) -> Result<usize> {
    let entries = match fs::read_dir(dir) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(dir, "cannot read directory", e)),
    };
    let mut n = 0;
    for f in entries.flatten() {
        let p = f.path();
        if depth > 0 {
            if p.is_dir() {
                n += clean_below(&p, depth - 1)?;
            }
            continue;
        }
        let name = f.file_name().to_string_lossy().into_owned();
        if name.starts_with(TEMP_PREFIX) && orphaned(&name) {
            fs::remove_file(&p).map_err(|e| Error::io(&p, "cannot remove", e))?;
            n += 1;
        }
    }
    Ok(n)
}

/// Lists temporary files left under `dir` (for tests and checks).
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(top) = fs::read_dir(dir) else {
        return out;
    };
    for sub in top.flatten() {
        let Ok(entries) = fs::read_dir(sub.path()) else {
            continue;
        };
        for f in entries.flatten() {
            if f.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                out.push(f.path());
            }
        }
    }
    out
}

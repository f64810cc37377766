//! The file cache: the current body of every fetched record, one file per
//! record named by its key, under a two-hex-digit fan-out directory.
//!
//! A body is written to a temporary name and renamed into place, so a crash
//! never leaves a half-written file under a record's name.

use std::collections::HashSet;
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
        remove_present(&self.text_path(key), "cannot remove cached text")?;
        remove_present(&self.path(key), "cannot remove cached body")
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
    // A directory made here is an entry in its parent: that is synced too.
    let mut made = HashSet::new();
    let file = match create_in(dir, &tmp, &mut made) {
        Err(CreateError::Dir(e)) => return Err(Error::io(dir, "cannot create directory", e)),
        Err(CreateError::File(e)) => Err(e),
        Ok(f) => Ok(f),
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
        for up in made {
            sync_dir(up)?;
        }
    }
    Ok(())
}

/// How [`write_durable`] makes a batch of files last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// One syncfs(2) after the files are written and one after they are
    /// renamed: few calls, but it also waits for whatever else was written
    /// to the file system.
    FileSystem,
    /// fdatasync(2) of each file, then fsync(2) of each directory.
    Each,
}

/// Writes many files as [`write_atomic`] does each, with fewer syncs: all
/// are written under temporary names, then their data is synced, then all
/// are renamed into place, then the names are synced (see [`Sync`]).
/// Returns how many of `files`, from the first, are durable under their
/// names, and the error that stopped the rest (a full disk); their
/// temporary files are removed.
pub fn write_durable(files: &[(PathBuf, Vec<u8>)], sync: Sync) -> (usize, Result<()>) {
    let pid = std::process::id();
    let mut err = None;
    // Written under temporary names: the first `temps.len()` files.
    let mut temps: Vec<(PathBuf, fs::File)> = Vec::with_capacity(files.len());
    // Directories that get a name; a new one must last in its parent too.
    let mut dirs: HashSet<&Path> = HashSet::new();
    for (i, (path, body)) in files.iter().enumerate() {
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("body");
        // The index keeps two files of one batch apart; the pid stays last
        // for clean_temporaries.
        let tmp = dir.join(format!("{TEMP_PREFIX}{name}.{i}.{pid}"));
        match create_in(dir, &tmp, &mut dirs) {
            Ok(mut f) => match f.write_all(body) {
                Ok(()) => temps.push((tmp, f)),
                Err(e) => {
                    let _ = fs::remove_file(&tmp);
                    err = Some(Error::io(path, "cannot store file", e));
                    break;
                }
            },
            Err(e) => {
                err = Some(e.with_path(path));
                break;
            }
        }
    }
    // Syncing after all are written lets the kernel write them out together.
    let mut synced = temps.len();
    match (sync, temps.first()) {
        (Sync::FileSystem, Some((_, f))) => {
            if let Err(e) = nix::unistd::syncfs(f) {
                err = Some(Error::io(&files[0].0, "cannot sync file system", e.into()));
                synced = 0;
            }
        }
        _ => {
            for (i, (_, f)) in temps.iter().enumerate() {
                if let Err(e) = f.sync_data() {
                    err = Some(Error::io(&files[i].0, "cannot store file", e));
                    synced = i;
                    break;
                }
            }
        }
    }
    let mut renamed = 0;
    for (i, (tmp, _)) in temps.iter().enumerate().take(synced) {
        let path = &files[i].0;
        if let Err(e) = fs::rename(tmp, path) {
            err = Some(Error::io(path, "cannot store file", e));
            break;
        }
        renamed += 1;
        dirs.insert(path.parent().unwrap_or(Path::new(".")));
    }
    for (tmp, _) in temps.iter().skip(renamed) {
        let _ = fs::remove_file(tmp);
    }
    drop(temps);
    // Which names last when a sync fails is not known: none is vouched for.
    if sync == Sync::FileSystem && renamed > 0 {
        let dir = files[0].0.parent().unwrap_or(Path::new("."));
        let synced =
            fs::File::open(dir).and_then(|d| nix::unistd::syncfs(&d).map_err(std::io::Error::from));
        if let Err(e) = synced {
            return (0, Err(Error::io(dir, "cannot sync file system", e)));
        }
        return (renamed, err.map_or(Ok(()), Err));
    }
    for d in dirs {
        if let Err(e) = sync_dir(d) {
            return (0, Err(e));
        }
    }
    (renamed, err.map_or(Ok(()), Err))
}

/// Creates the file `tmp` in `dir`, creating `dir` only when it is
/// missing (a stat per body adds up) and noting its parent to sync.
fn create_in<'p>(
    dir: &'p Path,
    tmp: &Path,
    dirs: &mut HashSet<&'p Path>,
) -> std::result::Result<fs::File, CreateError> {
    match fs::File::create(tmp) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(CreateError::Dir)?;
            if let Some(up) = dir.parent() {
                dirs.insert(up);
            }
            fs::File::create(tmp).map_err(CreateError::File)
        }
        other => other.map_err(CreateError::File),
    }
}

/// Why a temporary file could not be created.
enum CreateError {
    Dir(std::io::Error),
    File(std::io::Error),
}

impl CreateError {
    fn with_path(self, path: &Path) -> Error {
        match self {
            CreateError::Dir(e) => {
                Error::io(path.parent().unwrap_or(path), "cannot create directory", e)
            }
            CreateError::File(e) => Error::io(path, "cannot store file", e),
        }
    }
}

/// Removes the file `p`; absent is fine. `what` names the failure.
pub(crate) fn remove_present(p: &Path, what: &'static str) -> Result<()> {
    match fs::remove_file(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(p, what, e)),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_stored_whole_in_either_mode() {
        for sync in [Sync::FileSystem, Sync::Each] {
            let tmp = tempfile::tempdir().unwrap();
            let files: Vec<(PathBuf, Vec<u8>)> = (0..20)
                .map(|i| {
                    let p = tmp
                        .path()
                        .join(format!("{:02x}", i % 7))
                        .join(format!("f{i}"));
                    (p, format!("body {i}").into_bytes())
                })
                .collect();
            let (n, res) = write_durable(&files, sync);
            assert!(res.is_ok(), "{sync:?}: {res:?}");
            assert_eq!(n, files.len());
            for (p, b) in &files {
                assert_eq!(&fs::read(p).unwrap(), b, "{sync:?}");
            }
            assert!(temporaries(tmp.path()).is_empty(), "{sync:?}");
        }
    }

    #[test]
    fn a_batch_cut_short_keeps_what_came_before_and_no_temporaries() {
        for sync in [Sync::FileSystem, Sync::Each] {
            let tmp = tempfile::tempdir().unwrap();
            // A regular file where the third body's directory should be.
            fs::write(tmp.path().join("zz"), "in the way").unwrap();
            let files: Vec<(PathBuf, Vec<u8>)> = ["aa/one", "bb/two", "zz/three", "cc/four"]
                .iter()
                .map(|n| (tmp.path().join(n), n.as_bytes().to_vec()))
                .collect();
            let (n, res) = write_durable(&files, sync);
            let err = res
                .expect_err("a directory that cannot be made")
                .to_string();
            assert!(err.contains("zz"), "{sync:?}: {err}");
            assert_eq!(n, 2, "{sync:?}");
            assert_eq!(fs::read(&files[0].0).unwrap(), b"aa/one");
            assert_eq!(fs::read(&files[1].0).unwrap(), b"bb/two");
            assert!(
                !files[3].0.exists(),
                "{sync:?}: a body after the error was stored"
            );
            assert!(temporaries(tmp.path()).is_empty(), "{sync:?}");
        }
    }
}

//! The files a dump writes: each under a temporary name, synced and renamed
//! into place when the dump is complete, so an interrupted dump leaves no
//! file that looks whole, and a cursor is advanced only over files that are
//! on disk. `-` is standard output.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A file written under a temporary name and renamed into place by
/// [`Output::commit`].
pub struct Output {
    pub tmp: PathBuf,
    pub dest: PathBuf,
}

impl Output {
    pub fn create(dest: &Path) -> Result<(Output, File)> {
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dump".into());
        let tmp = dest.with_file_name(format!(".{name}.part.{}", std::process::id()));
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, "cannot create", e))?;
        Ok((
            Output {
                tmp,
                dest: dest.to_path_buf(),
            },
            f,
        ))
    }

    /// Syncs the finished file, renames it into place and syncs its
    /// directory, so that what a cursor counts as exported survives a crash.
    pub fn commit(&self) -> Result<()> {
        File::open(&self.tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&self.tmp, "cannot sync", e))?;
        fs::rename(&self.tmp, &self.dest).map_err(|e| Error::io(&self.dest, "cannot store", e))?;
        let dir = match self.dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(dir, "cannot sync directory", e))
    }

    pub fn abandon(&self) {
        let _ = fs::remove_file(&self.tmp);
    }
}

/// A buffered destination of one format: a file, or standard output.
pub struct Dest {
    pub w: BufWriter<Box<dyn Write>>,
    pub out: Option<Output>,
}

impl Dest {
    pub fn open(path: &Path) -> Result<Dest> {
        let (out, file): (Option<Output>, Box<dyn Write>) = if path == Path::new("-") {
            (None, Box::new(io::stdout()))
        } else {
            let (o, f) = Output::create(path)?;
            (Some(o), Box::new(f))
        };
        Ok(Dest {
            w: BufWriter::with_capacity(1 << 20, file),
            out,
        })
    }

    /// The name errors give: the file, or standard output.
    pub fn name(&self) -> PathBuf {
        self.out
            .as_ref()
            .map(|o| o.dest.clone())
            .unwrap_or_else(|| "standard output".into())
    }

    /// The error of a failed write, naming the destination.
    pub fn err(&self, e: io::Error) -> Error {
        Error::io(self.name(), "cannot write", e)
    }

    pub fn write_all(&mut self, b: &[u8]) -> Result<()> {
        self.w.write_all(b).map_err(|e| self.err(e))
    }

    /// Flushes and puts the file in place.
    pub fn finish(self) -> Result<()> {
        let name = self.name();
        let f = self
            .w
            .into_inner()
            .map_err(|e| Error::io(&name, "cannot write", e.into_error()))?;
        let mut f = f;
        f.flush().map_err(|e| Error::io(&name, "cannot write", e))?;
        drop(f);
        match &self.out {
            Some(o) => o.commit(),
            None => Ok(()),
        }
    }

    pub fn abandon(&self) {
        if let Some(o) = &self.out {
            o.abandon();
        }
    }
}

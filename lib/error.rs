//! The library's one error type: every failure names the thing and the reason,
//! so a daemon can print it as a single line and exit.

use std::io;
use std::path::PathBuf;

/// What went wrong, with enough context to act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An LMDB call failed.
    #[error("database {path}: {what}: {source}")]
    Db {
        path: PathBuf,
        what: &'static str,
        source: DbError,
    },
    /// The database was written by another format version.
    #[error("database {path}: format version {found}, this nlpcrawl reads version {expected}; use a matching nlpcrawl or start a new database")]
    Version {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// Opening read-only found no database.
    #[error("database {0}: no nlpcrawl database here (seed one with nlpc-scan)")]
    NoDatabase(PathBuf),
    /// The database files are damaged or missing; nothing was opened or
    /// changed. `why` is one sentence saying what is wrong and what to do.
    #[error("database {path}: {why}")]
    Damaged { path: PathBuf, why: String },
    /// A record could not be decoded.
    #[error("database {path}: corrupt record {key}: {why}")]
    Corrupt {
        path: PathBuf,
        key: String,
        why: &'static str,
    },
    /// A file or directory operation failed.
    #[error("{path}: {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        source: io::Error,
    },
    /// Bad command-line options or option values.
    #[error("{0}")]
    Usage(String),
    /// Bad input that is not an option: a URL, a file's contents.
    #[error("{0}")]
    Input(String),
    /// The search index (tantivy) failed.
    #[error("search index {path}: {what}: {why}")]
    Index {
        path: PathBuf,
        what: &'static str,
        why: String,
    },
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the path it concerns and what was being done.
    pub fn io(path: impl Into<PathBuf>, what: &'static str, source: io::Error) -> Error {
        Error::Io {
            path: path.into(),
            what,
            source,
        }
    }

    /// True when the error means the disk (or the database map) is full,
    /// which every daemon treats as fatal rather than as a bad page.
    pub fn is_full(&self) -> bool {
        match self {
            Error::Db { source, .. } => source.is_full(),
            Error::Io { source, .. } => source.raw_os_error() == Some(libc::ENOSPC),
            _ => false,
        }
    }
}

impl Error {
    /// True when the error concerns one record and not the daemon's
    /// environment: a corrupt record, bad input, a file of that record
    /// that cannot be read. A daemon sets such a record aside and goes on.
    /// A full disk, a database failure, a read-only file system or running
    /// out of descriptors or memory would fail every record alike: those
    /// stop the daemon.
    pub fn concerns_one_record(&self) -> bool {
        match self {
            Error::Corrupt { .. } | Error::Input(_) => true,
            Error::Io { source, .. } => !matches!(
                source.raw_os_error(),
                Some(
                    libc::ENOSPC
                        | libc::EDQUOT
                        | libc::EROFS
                        | libc::EMFILE
                        | libc::ENFILE
                        | libc::ENOMEM
                )
            ),
            Error::Db { .. }
            | Error::Damaged { .. }
            | Error::Version { .. }
            | Error::NoDatabase(_)
            | Error::Index { .. }
            | Error::Usage(_) => false,
        }
    }
}

/// A database failure, described without naming the binding that reported
/// it, so only `store` ever sees LMDB's own types.
#[derive(Debug)]
pub struct DbError {
    message: String,
    full: bool,
}

impl DbError {
    /// A failure that means no room is left (the map or the disk).
    pub fn full(message: impl Into<String>) -> DbError {
        DbError {
            message: message.into(),
            full: true,
        }
    }

    /// Any other failure.
    pub fn other(message: impl Into<String>) -> DbError {
        DbError {
            message: message.into(),
            full: false,
        }
    }

    /// True when the failure means no room is left.
    pub fn is_full(&self) -> bool {
        self.full
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DbError {}

//! Wake-ups beside the database: a daemon idle for want of input learns at
//! once that a commit made records available in one of its input states,
//! instead of finding out at its next look (`--use-interval`).
//!
//! The mechanism is a directory, `wake/` inside the database directory,
//! holding one Unix datagram socket per waiting process, named
//! `PID.MASK`: MASK is the hexadecimal set of the states it waits for
//! (bit N for the state numbered N; bit 31, [`CHANGES`], for the change
//! log nlpc-index follows). After every commit that put a record,
//! unleased, into a state (a new record, a record finished into its next
//! state, a lease reclaimed), or logged a change,
//! [`crate::store::Write::commit`] sends one byte to each socket whose
//! mask names that state (or the log).
//!
//! Sending never blocks and never fails the writer: the socket is
//! non-blocking, a full queue (a wake-up is already pending) and a missing
//! directory are ignored, and a socket nobody listens on any more (its
//! daemon was killed) is removed. A lost wake-up costs latency only: the
//! waiter still looks at its input every `--use-interval`, and it looks at
//! the counters after arming and before sleeping, so a commit is either
//! seen by that look or wakes the sleep. Nothing about a record depends on
//! a wake-up, so kill-safety is that of the database alone.

use std::fs;
use std::io::ErrorKind;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::store::record::State;

/// The directory of wake-up sockets inside the database directory.
pub const DIR: &str = "wake";

/// The set of states in a socket's name: bit N for state number N.
pub fn mask(states: &[State]) -> u32 {
    states.iter().fold(0, |m, s| m | 1 << (*s as u8 as u32))
}

/// The bit of a commit that logged a change for the search index
/// (`store::changes`): no state has a number this high, so it is the
/// change log's own, and nlpc-index waits on it.
pub const CHANGES: u32 = 1 << 31;

/// One process's wake-up socket; removed when dropped.
pub struct Waiter {
    sock: UnixDatagram,
    path: PathBuf,
}

impl Waiter {
    /// Binds the socket of this process for `states` under the database
    /// directory `db`, creating `wake/` if needed. Fails when the directory
    /// cannot be made or the path is too long for a socket address (about
    /// 100 bytes); the caller then polls.
    pub fn bind(db: &Path, states: &[State]) -> std::io::Result<Waiter> {
        Waiter::bind_mask(db, mask(states))
    }

    /// [`Waiter::bind`] for a mask of states and [`CHANGES`].
    pub fn bind_mask(db: &Path, mask: u32) -> std::io::Result<Waiter> {
        let dir = db.join(DIR);
        fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.{mask:x}", std::process::id()));
        // A file under our pid is a dead process's: pids are unique among
        // the living.
        let _ = fs::remove_file(&path);
        let sock = UnixDatagram::bind(&path)?;
        sock.set_nonblocking(true)?;
        Ok(Waiter { sock, path })
    }

    /// The descriptor to poll for reading.
    pub fn fd(&self) -> RawFd {
        self.sock.as_raw_fd()
    }

    /// Reads every pending wake-up; true when there was one.
    pub fn drain(&self) -> bool {
        let mut buf = [0u8; 16];
        let mut any = false;
        while self.sock.recv(&mut buf).is_ok() {
            any = true;
        }
        any
    }

    /// Where the socket is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// The unbound socket this process sends from, made once.
fn sender() -> Option<&'static UnixDatagram> {
    static SENDER: OnceLock<Option<UnixDatagram>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let s = UnixDatagram::unbound().ok()?;
            s.set_nonblocking(true).ok()?;
            Some(s)
        })
        .as_ref()
}

/// Wakes every other process waiting under `db` for one of the states in
/// `added` (a [`mask`]); not this one, which is awake and would only wake
/// itself by giving back records it cannot use yet. Never blocks; every
/// failure is ignored (see the module comment for why that is safe).
pub fn notify(db: &Path, added: u32) {
    notify_but(db, added, std::process::id())
}

/// [`notify`], sparing the process `me`.
fn notify_but(db: &Path, added: u32, me: u32) {
    if added == 0 {
        return;
    }
    let Ok(entries) = fs::read_dir(db.join(DIR)) else {
        return;
    };
    let Some(sock) = sender() else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some((pid, m)) = name
            .to_str()
            .and_then(|n| n.split_once('.'))
            .and_then(|(p, m)| Some((p.parse::<u32>().ok()?, u32::from_str_radix(m, 16).ok()?)))
        else {
            continue;
        };
        if m & added == 0 || pid == me {
            continue;
        }
        let path = e.path();
        match sock.send_to(b"w", &path) {
            // Refused: nobody is bound there any more.
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                let _ = fs::remove_file(&path);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_wakes_only_the_waiters_of_its_states() {
        let dir = tempfile::tempdir().unwrap();
        let w = Waiter::bind(dir.path(), &[State::Ready, State::Dirty]).unwrap();
        assert!(!w.drain());
        notify_but(dir.path(), mask(&[State::Fresh]), 0);
        assert!(!w.drain(), "FRESH is not READY or DIRTY");
        notify_but(dir.path(), mask(&[State::Dirty]), 0);
        assert!(w.drain());
        assert!(!w.drain(), "drained");
        // Its own commits do not wake a process.
        notify(dir.path(), mask(&[State::Dirty]));
        assert!(!w.drain(), "woken by itself");
    }

    #[test]
    fn a_dead_waiters_socket_is_removed_and_the_writer_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let wake = dir.path().join(DIR);
        fs::create_dir_all(&wake).unwrap();
        // A socket file left by a killed process: bound once, then closed
        // without unlinking.
        let stale = wake.join("4000000.2");
        drop(UnixDatagram::bind(&stale).unwrap());
        assert!(stale.exists());
        notify_but(dir.path(), mask(&[State::New]), 0);
        assert!(!stale.exists());
        // A waiter that leaves takes its socket with it.
        let w = Waiter::bind(dir.path(), &[State::New]).unwrap();
        let p = w.path().to_path_buf();
        assert!(p.exists());
        drop(w);
        assert!(!p.exists());
    }

    #[test]
    fn a_full_queue_does_not_block_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let w = Waiter::bind(dir.path(), &[State::New]).unwrap();
        // Far more than any socket queue holds.
        for _ in 0..10_000 {
            notify_but(dir.path(), mask(&[State::New]), 0);
        }
        assert!(w.drain());
    }
}

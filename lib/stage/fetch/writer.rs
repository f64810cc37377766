//! The fetcher's writer: a thread of its own that runs the fetch loop's
//! write transactions (committing results, leasing records, recording the
//! rests addresses are owed) in the order they were asked for.
//!
//! The fetch loop never waits for the database's write lock, which another
//! daemon may hold for a while: its requests leave on time whatever the
//! other daemons commit. Kill-safety is unchanged: a record changes state
//! only in a committed transaction, a result is handed over only after its
//! body is stored, and what a killed fetcher held comes back when its
//! leases expire.

use std::net::IpAddr;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::store::Store;

/// A write to make, with what the loop is to learn of it.
pub(super) type Task<R> = Box<dyn FnOnce(&Store) -> Result<R> + Send + 'static>;

/// What a task tells the loop once committed.
pub(super) enum Reply {
    /// Results committed; these addresses have their next burst recorded
    /// in the store as starting no later than the instant given.
    Committed(Vec<(IpAddr, Instant)>),
    /// A batch from the storer committed, its bodies stored.
    Stored,
    /// Records leased for the queues.
    Leased(super::fill::Leased),
    /// Bursts recorded as starting no later than the instant given.
    Armed(Vec<(IpAddr, Instant)>),
}

/// The loop's end of the writer.
pub(super) struct Writer {
    tasks: Option<Sender<Task<Reply>>>,
    replies: Receiver<Result<Reply>>,
    /// Tasks sent whose reply has not been taken.
    pending: usize,
}

impl Writer {
    /// Starts the writer in `scope`, writing to `store`.
    pub(super) fn start<'s, 'e: 's>(
        scope: &'s std::thread::Scope<'s, 'e>,
        store: &'e Store,
    ) -> Writer {
        let (tx, rx) = channel::<Task<Reply>>();
        let (rtx, rrx) = channel();
        scope.spawn(move || {
            for task in rx {
                let r = task(store);
                let failed = r.is_err();
                if rtx.send(r).is_err() || failed {
                    // The loop is gone, or a write failed: the loop stops on
                    // the error, and what is held comes back by lease expiry
                    // or by the release on its way out.
                    return;
                }
            }
        });
        Writer {
            tasks: Some(tx),
            replies: rrx,
            pending: 0,
        }
    }

    /// Hands `task` to the writer.
    pub(super) fn send(&mut self, task: Task<Reply>) -> Result<()> {
        let sent = self.tasks.as_ref().is_some_and(|t| t.send(task).is_ok());
        if !sent {
            return Err(self.failure().unwrap_or_else(gone));
        }
        self.pending += 1;
        Ok(())
    }

    /// The error of the write that stopped the writer, when its reply is
    /// still waiting: a full disk, say, rather than only that the writer
    /// is gone. The other replies waiting go with it; the loop stops.
    pub(super) fn failure(&mut self) -> Option<Error> {
        while let Ok(r) = self.replies.try_recv() {
            if let Err(e) = r {
                return Some(e);
            }
        }
        None
    }

    /// Another way in for tasks, in the order they arrive (the storer's).
    /// Each task sent through it is announced with [`Writer::expect`].
    pub(super) fn sender(&self) -> Sender<Task<Reply>> {
        // Once closed, a sender whose tasks go nowhere.
        self.tasks.clone().unwrap_or_else(|| channel().0)
    }

    /// Counts a task that is on its way through another sender.
    pub(super) fn expect(&mut self) {
        self.pending += 1;
    }

    /// Tasks whose reply is still to come.
    pub(super) fn pending(&self) -> usize {
        self.pending
    }

    /// The replies in already, without waiting.
    pub(super) fn ready(&mut self) -> Result<Vec<Reply>> {
        let mut out = Vec::new();
        while self.pending > 0 {
            match self.replies.try_recv() {
                Ok(r) => {
                    self.pending -= 1;
                    out.push(r?);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Err(gone()),
            }
        }
        Ok(out)
    }

    /// Waits up to `wait` for the next reply.
    pub(super) fn next(&mut self, wait: Duration) -> Result<Option<Reply>> {
        if self.pending == 0 {
            return Ok(None);
        }
        match self.replies.recv_timeout(wait) {
            Ok(r) => {
                self.pending -= 1;
                Ok(Some(r?))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
        }
    }

    /// Ends the writer once it has done what it was given.
    pub(super) fn close(&mut self) {
        self.tasks = None;
    }
}

fn gone() -> Error {
    Error::Input("nlpc-fetch: the database writer thread stopped".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Options;

    #[test]
    fn a_send_after_a_failed_write_returns_that_writes_error() {
        // The storer's batch meets a full disk: its task fails and the
        // writer stops. The loop's next send finds the writer gone, and
        // must say why, not only that it is gone.
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path(), Options::default()).unwrap();
        std::thread::scope(|scope| {
            let mut w = Writer::start(scope, &store);
            w.send(Box::new(|_| {
                Err(Error::Input("cache: No space left on device".into()))
            }))
            .unwrap();
            // Sends queue until the writer has run the failed task and
            // stopped; then one fails.
            let err = loop {
                match w.send(Box::new(|_| Ok(Reply::Stored))) {
                    Ok(()) => std::thread::yield_now(),
                    Err(e) => break e,
                }
            };
            assert!(err.to_string().contains("No space left on device"), "{err}");
            // Said once: a later send finds only that the writer is gone.
            let again = w.send(Box::new(|_| Ok(Reply::Stored))).unwrap_err();
            assert!(
                again.to_string().contains("writer thread stopped"),
                "{again}"
            );
        });
    }
}

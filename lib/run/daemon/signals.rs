//! Stop signals (SIGTERM, SIGINT, SIGHUP), blocked so that they arrive only
//! where a daemon asks for them: between transactions, never inside one.

use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};

use crate::info;

/// Stop signals, blocked so they arrive only where the daemon asks for them.
pub struct Signals {
    pub(super) set: SigSet,
    stopped: std::cell::Cell<bool>,
    hangup: std::cell::Cell<bool>,
}

impl Signals {
    /// Blocks SIGINT, SIGTERM and SIGHUP in this thread and every thread it
    /// starts later; call before starting threads. SIGHUP stops the loop
    /// too, and [`Signals::hangup`] then tells the caller to start over.
    pub fn block() -> Signals {
        let mut set = SigSet::empty();
        set.add(Signal::SIGINT);
        set.add(Signal::SIGTERM);
        set.add(Signal::SIGHUP);
        // Cannot fail with a valid set and a valid `how`.
        let _ = set.thread_block();
        Signals {
            set,
            stopped: std::cell::Cell::new(false),
            hangup: std::cell::Cell::new(false),
        }
    }

    /// True when the stop was a SIGHUP: reopen the log, read the stored
    /// settings again, and go on.
    pub fn hangup(&self) -> bool {
        self.hangup.get()
    }

    /// Forgets a SIGHUP once it has been acted on.
    pub fn clear_hangup(&self) {
        self.hangup.set(false);
        self.stopped.set(false);
    }

    /// Waits up to `d` for a stop signal; true once one has arrived.
    pub fn wait(&self, d: Duration) -> bool {
        if self.stopped.get() {
            return true;
        }
        let ts = libc::timespec {
            tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        };
        // SAFETY: the set and timespec are valid for the call; a null
        // siginfo pointer is allowed.
        let r = unsafe { libc::sigtimedwait(self.set.as_ref(), std::ptr::null_mut(), &ts) };
        if r == libc::SIGHUP {
            info!("SIGHUP received, starting over");
            self.hangup.set(true);
            self.stopped.set(true);
        } else if r > 0 {
            info!(
                "{} received, stopping",
                Signal::try_from(r).map(|s| s.as_str()).unwrap_or("signal")
            );
            self.hangup.set(false);
            self.stopped.set(true);
        }
        self.stopped.get()
    }

    /// True once a stop signal has arrived; does not wait.
    pub fn stopping(&self) -> bool {
        self.wait(Duration::ZERO)
    }
}

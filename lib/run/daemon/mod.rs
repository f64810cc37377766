//! What every daemon does the same way: open the store, take stop signals
//! only between transactions, reclaim the leases of dead daemons, contain
//! a failure on one record (set it aside as QUARANTINED and go on), and
//! loop over its input until told to stop (or, with `--once`, until it is
//! empty), and start over on SIGHUP. The signals (`signals`), whether a
//! lease's owner lives (`owner`) and the containment of a panic on one
//! record (`contain`) are modules of their own.

mod contain;
mod owner;
mod signals;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::info;
use crate::run::clock;
use crate::run::options::Common;
use crate::store::record::{Lease, Record, State, RECLAIM_LIMIT};
use crate::store::wake::{self, Waiter};
use crate::store::{self, Key, Store};

/// A lease older than this is reclaimed even if its owner still runs: no
/// daemon holds a record that long on purpose.
pub const LEASE_TIMEOUT: u64 = 3600;

pub use contain::{catch_panic, test_escape};
pub use owner::lease_owner_alive;
pub use signals::Signals;

/// A running daemon: its name, options, store and signals.
pub struct Daemon {
    pub name: &'static str,
    pub common: Common,
    pub store: Store,
    pub signals: Signals,
    /// Records in a row whose work failed (see [`Daemon::contain`]).
    failing: Cell<u32>,
    /// The wake-up socket for the states last waited for, and a signalfd
    /// of the stop signals, made at the first wait; None inside when they
    /// could not be made (the daemon then polls).
    wake: RefCell<Option<(u32, Option<Wake>)>>,
    /// Per input state, the key where the last batch ended: the next one
    /// goes on from there (see `Write::lease_from`).
    resume: RefCell<Vec<(State, Key)>>,
}

/// What an idle daemon sleeps on: its wake-up socket and its stop signals.
struct Wake {
    waiter: Waiter,
    signals: std::os::fd::OwnedFd,
}

/// What became of the work on one record.
#[derive(Debug, PartialEq, Eq)]
pub enum Contained<T> {
    /// The work ended; here is its result.
    Done(T),
    /// It failed on this record alone (an error of the record's own, or a
    /// panic): set the record aside as QUARANTINED with this reason. The
    /// failure has been logged with the URL.
    Quarantine(String),
}

/// Failures in a row after which [`Daemon::contain`] stops the daemon
/// instead of quarantining one more record: when every record fails, the
/// fault is more likely the machine's (an unreadable cache, a broken
/// build) than the records', and setting the whole crawl aside would be
/// worse than stopping loudly.
pub const FAILURES_IN_A_ROW: u32 = 8;

impl Daemon {
    /// Blocks stop signals, opens the store (which must exist: only
    /// seeding creates one) and reclaims dead leases.
    pub fn start(name: &'static str, common: Common) -> Result<Daemon> {
        let signals = Signals::block();
        let opts = store::Options {
            create: store::Create::Never,
            ..store::Options::default()
        };
        let store = Store::open(&common.db, opts)?;
        log_overrides(&common);
        let d = Daemon {
            name,
            common,
            store,
            signals,
            failing: Cell::new(0),
            resume: RefCell::new(Vec::new()),
            wake: RefCell::new(None),
        };
        d.reclaim()?;
        Ok(d)
    }

    /// A fresh lease for records this process takes now.
    pub fn lease(&self) -> Lease {
        Lease {
            pid: std::process::id(),
            time: clock::real_now(),
        }
    }

    /// Leases up to `n` records of `state` under a fresh lease, in a
    /// transaction of its own, so the work on them is done outside any
    /// transaction and other daemons are not held up by it.
    pub fn lease_batch(&self, state: State, n: usize) -> Result<(Lease, Vec<(Key, Record)>)> {
        let lease = self.lease();
        let from = self
            .resume
            .borrow()
            .iter()
            .find(|(s, _)| *s == state)
            .map(|(_, k)| *k);
        let mut w = self.store.write()?;
        let batch = w.lease_from(state, n, lease, from.as_ref())?;
        w.commit()?;
        if let Some((k, _)) = batch.last() {
            let mut r = self.resume.borrow_mut();
            r.retain(|(s, _)| *s != state);
            r.push((state, *k));
        }
        Ok((lease, batch))
    }

    /// Returns the records of dead daemons to their input states.
    pub fn reclaim(&self) -> Result<usize> {
        // Each idle daemon comes here after every wake-up. Most times every
        // lease is live: a read transaction tells, and the write lock (which
        // nlpc-fetch's leases wait for) is taken only when one is not. A
        // process is looked up once per lease value, not once per record
        // (nlpc-fetch holds hundreds under a few).
        let seen: RefCell<std::collections::HashMap<(u32, u64), bool>> = RefCell::default();
        let alive = |l: Lease| {
            *seen
                .borrow_mut()
                .entry((l.pid, l.time))
                .or_insert_with(|| lease_owner_alive(l))
        };
        if !self.store.read()?.any_lease(|l| !alive(l))? {
            return Ok(0);
        }
        let mut w = self.store.write()?;
        let n = w.reclaim(alive)?;
        w.commit()?;
        if n > 0 {
            info!("reclaimed {n} records from dead leases");
        }
        Ok(n)
    }

    /// After a panic outside the work on any one record (in a write
    /// transaction, which the unwinding aborted): gives back every record
    /// this process holds, counting the failure against each, and sets aside
    /// those it was held against [`RECLAIM_LIMIT`] times in a row. Returns
    /// the error the daemon stops with.
    pub fn failed(&self, why: String) -> Error {
        let res = self.store.write().and_then(|mut w| {
            let r = w.fail_leases(std::process::id(), clock::now())?;
            w.commit()?;
            Ok(r)
        });
        match res {
            Ok(r) => {
                for u in &r.quarantined {
                    info!(
                        "quarantined {u}: its daemon failed {RECLAIM_LIMIT} times while holding it"
                    );
                }
                Error::Input(format!("{why} (outside the work on any one record)"))
            }
            Err(e) => e,
        }
    }

    /// Runs `work`, the work on the record of `url`, and contains its
    /// failure: an error that concerns this record alone
    /// ([`Error::concerns_one_record`]) or a panic becomes
    /// [`Contained::Quarantine`], logged once with the URL. Any other error
    /// is returned, as is the [`FAILURES_IN_A_ROW`]th failure in a row.
    pub fn contain<T>(&self, url: &str, work: impl FnOnce() -> Result<T>) -> Result<Contained<T>> {
        let why = match catch_panic(url, work) {
            Ok(Ok(v)) => {
                self.failing.set(0);
                return Ok(Contained::Done(v));
            }
            Ok(Err(e)) if !e.concerns_one_record() => return Err(e),
            Ok(Err(e)) => e.to_string(),
            Err(panic) => panic,
        };
        let n = self.failing.get() + 1;
        self.failing.set(n);
        if n >= FAILURES_IN_A_ROW {
            return Err(Error::Input(format!(
                "{url}: {why} ({n} records failed in a row; stopping rather than quarantining them all)"
            )));
        }
        info!("quarantined {url}: {why}");
        Ok(Contained::Quarantine(why))
    }

    /// Runs `step` until a stop signal; `step` returns how many records it
    /// moved, and 0 means the input is empty: then the daemon exits with
    /// `--once`, or waits for work in `inputs` (at most `--use-interval`)
    /// and looks again.
    pub fn run(
        &self,
        inputs: &[State],
        mut step: impl FnMut(&Daemon) -> Result<usize>,
    ) -> Result<()> {
        self.run_on(
            wake::mask(inputs),
            &mut (),
            |_, d| step(d),
            |_, d| d.waiting(inputs),
        )
    }

    /// [`Daemon::run`] for a daemon whose input is what the wake-up `mask`
    /// names (states, or [`wake::CHANGES`]): `step` works on `work`, and
    /// `waiting` says whether input is there, which an idle daemon asks
    /// after arming its wake-up and before sleeping.
    pub fn run_on<T>(
        &self,
        mask: u32,
        work: &mut T,
        mut step: impl FnMut(&mut T, &Daemon) -> Result<usize>,
        waiting: impl Fn(&T, &Daemon) -> Result<bool>,
    ) -> Result<()> {
        info!("started, database {}", self.common.db.display());
        loop {
            if self.signals.stopping() {
                break;
            }
            // A panic that escapes the per-record containment (one in a
            // write transaction) ends the daemon, but counts against the
            // records it held. The step's state is dropped with it.
            let n = match catch_panic("", || step(work, self)) {
                Ok(n) => n?,
                Err(why) => return Err(self.failed(why)),
            };
            if n > 0 {
                continue;
            }
            if self.common.once || self.idle_on(mask, || waiting(work, self))? {
                break;
            }
            self.reclaim()?;
        }
        info!("stopped");
        Ok(())
    }

    /// Waits until a record is waiting in one of `inputs`, `--use-interval`
    /// has passed, or a stop signal came (then true). A commit that adds
    /// records to one of `inputs` wakes the daemon at once (see
    /// [`crate::store::wake`]); where no wake-up socket can be made, it
    /// reads its input's counters every [`WAKE_CHECK`] instead.
    pub fn idle(&self, inputs: &[State]) -> Result<bool> {
        self.idle_on(wake::mask(inputs), || self.waiting(inputs))
    }

    /// [`Daemon::idle`] for the input a wake-up `mask` names, `waiting`
    /// saying whether it is there (0: no input to wait for; the daemon
    /// sleeps `--use-interval`).
    pub fn idle_on(&self, mask: u32, waiting: impl Fn() -> Result<bool>) -> Result<bool> {
        let end = std::time::Instant::now() + self.common.interval;
        if mask != 0 && self.wake_fd_mask(mask).is_some() {
            return self.sleep(&waiting, end);
        }
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            if self.signals.wait(left.min(WAKE_CHECK)) {
                return Ok(true);
            }
            if mask != 0 && waiting()? {
                return Ok(false);
            }
        }
    }

    /// The descriptor that becomes readable when a commit adds records to
    /// one of `inputs`, binding this process's wake-up socket the first
    /// time; None when it cannot be had (said once in the log). Callers
    /// that poll it must look at their input after each wake-up, since
    /// wake-ups are not counted; [`Daemon::drain_wake`] empties it.
    pub fn wake_fd(&self, inputs: &[State]) -> Option<std::os::fd::RawFd> {
        self.wake_fd_mask(wake::mask(inputs))
    }

    /// [`Daemon::wake_fd`] for a wake-up mask.
    fn wake_fd_mask(&self, m: u32) -> Option<std::os::fd::RawFd> {
        let mut slot = self.wake.borrow_mut();
        if slot.as_ref().is_none_or(|(had, _)| *had != m) {
            // Drop the old socket before binding the new one of this pid.
            *slot = None;
            let made = Waiter::bind_mask(&self.common.db, m)
                .map_err(|e| format!("{}: {e}", self.common.db.join(wake::DIR).display()))
                .and_then(|waiter| {
                    // SAFETY: the set is valid; -1 asks for a new descriptor.
                    let fd = unsafe {
                        libc::signalfd(
                            -1,
                            self.signals.set.as_ref(),
                            libc::SFD_NONBLOCK | libc::SFD_CLOEXEC,
                        )
                    };
                    if fd < 0 {
                        return Err(format!("signalfd: {}", std::io::Error::last_os_error()));
                    }
                    // SAFETY: fd was just made and is owned by nothing else.
                    let signals = unsafe {
                        <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd)
                    };
                    Ok(Wake { waiter, signals })
                });
            let wake = match made {
                Ok(w) => Some(w),
                Err(why) => {
                    info!(
                        "no wake-ups ({why}): looking for work every {} ms instead",
                        WAKE_CHECK.as_millis()
                    );
                    None
                }
            };
            *slot = Some((m, wake));
        }
        slot.as_ref()
            .and_then(|(_, w)| w.as_ref())
            .map(|w| w.waiter.fd())
    }

    /// Empties the wake-up socket; true when a wake-up had come.
    pub fn drain_wake(&self) -> bool {
        self.wake
            .borrow()
            .as_ref()
            .and_then(|(_, w)| w.as_ref())
            .is_some_and(|w| w.waiter.drain())
    }

    /// [`Daemon::idle`] with a wake-up socket: sleeps in poll(2) on it and
    /// on the stop signals until `end`.
    fn sleep(&self, waiting: &dyn Fn() -> Result<bool>, end: std::time::Instant) -> Result<bool> {
        // Emptied before looking, so a commit after the look wakes the
        // poll below, and one before it is seen by the look.
        self.drain_wake();
        if waiting()? {
            // Work is there that the step just left (its servers rest, its
            // addresses are taken), or that came meanwhile: look again
            // soon, as without wake-ups, rather than spin or sleep long.
            let left = end.saturating_duration_since(std::time::Instant::now());
            return Ok(self.signals.wait(left.min(WAKE_CHECK)));
        }
        loop {
            if self.signals.stopping() {
                return Ok(true);
            }
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let (sock, sig) = {
                let slot = self.wake.borrow();
                match slot.as_ref().and_then(|(_, w)| w.as_ref()) {
                    Some(w) => (w.waiter.fd(), std::os::fd::AsRawFd::as_raw_fd(&w.signals)),
                    None => return Ok(self.signals.wait(left)),
                }
            };
            let mut fds = [
                libc::pollfd {
                    fd: sock,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: sig,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // Rounded up, so a wait never ends just before `end`.
            let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
            // SAFETY: fds is a valid array of two pollfd for the call.
            let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(Error::Input(format!("waiting for work: poll: {e}")));
                }
            }
            if fds[0].revents != 0 {
                self.drain_wake();
                return Ok(false);
            }
        }
    }

    /// True when an unleased record waits in one of `states`.
    pub fn waiting(&self, states: &[State]) -> Result<bool> {
        let rd = self.store.read()?;
        for s in states {
            if rd.count(*s, false)? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The one line that says which stored settings this run's command line
/// overrides; nothing when none.
pub fn log_overrides(common: &Common) {
    if !common.overridden.is_empty() {
        info!(
            "stored settings overridden for this run: {}",
            common.overridden.join(", ")
        );
    }
}

/// Ends a daemon's run: after a SIGHUP the program runs itself again (the
/// same pid, executable and arguments), so it reads the stored settings
/// and opens everything anew; otherwise it returns.
pub fn finish(d: Daemon) {
    if !d.signals.hangup() {
        return;
    }
    use std::os::unix::process::CommandExt;
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => fail(
            d.name,
            format!("cannot find my own executable to start over: {e}"),
        ),
    };
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let name = d.name;
    // The environment closes before the new image opens it again.
    drop(d);
    // exec returns only on failure.
    let e = std::process::Command::new(&exe).args(args).exec();
    fail(name, format!("{}: cannot start over: {e}", exe.display()))
}

/// How often an idle daemon checks whether work has arrived.
pub const WAKE_CHECK: Duration = Duration::from_millis(10);

/// Prints a fatal error as one log line, control characters escaped, and
/// exits non-zero.
pub fn fail(name: &str, e: impl std::fmt::Display) -> ! {
    crate::run::log::write_line(name, crate::run::log::Level::Error, &e.to_string());
    std::process::exit(1)
}

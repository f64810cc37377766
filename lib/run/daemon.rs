//! What every daemon does the same way: open the store, take stop signals
//! only between transactions, reclaim the leases of dead daemons, and loop
//! over its input until told to stop (or, with `--once`, until it is empty).

use std::fs;
use std::sync::OnceLock;
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};

use crate::error::Result;
use crate::info;
use crate::run::clock;
use crate::run::options::Common;
use crate::store::record::{Lease, Record, State};
use crate::store::{self, Key, Store};

/// A lease older than this is reclaimed even if its owner still runs: no
/// daemon holds a record that long on purpose.
pub const LEASE_TIMEOUT: u64 = 3600;

/// Stop signals, blocked so they arrive only where the daemon asks for them.
pub struct Signals {
    set: SigSet,
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

/// Unix time at which this machine booted, from /proc/stat.
fn boot_time() -> Option<u64> {
    static BOOT: OnceLock<Option<u64>> = OnceLock::new();
    *BOOT.get_or_init(|| {
        let s = fs::read_to_string("/proc/stat").ok()?;
        s.lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse().ok())
    })
}

/// Unix time at which process `pid` started, from /proc/PID/stat.
fn process_start(pid: u32) -> Option<u64> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after
    // the last ')'. starttime is field 22, the 20th after the name.
    let rest = s.get(s.rfind(')')? + 2..)?;
    let ticks: u64 = rest.split(' ').nth(19)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as u64 } else { 100 };
    Some(boot_time()? + ticks / hz)
}

/// True while the process that took `lease` still runs: the pid exists and
/// started no later than the lease (a reused pid started after it), and the
/// lease is younger than [`LEASE_TIMEOUT`].
pub fn lease_owner_alive(lease: Lease) -> bool {
    let now = clock::real_now();
    // The lease comes from the database: a damaged one must not overflow.
    if now > lease.time.saturating_add(LEASE_TIMEOUT) {
        return false;
    }
    // No process has a pid beyond i32, and a negative one would name a
    // process group to kill(2).
    let Ok(raw) = i32::try_from(lease.pid) else {
        return false;
    };
    if fs::metadata("/proc/self/stat").is_ok() {
        return match process_start(lease.pid) {
            Some(start) => start <= lease.time.saturating_add(1),
            None => false,
        };
    }
    let pid = nix::unistd::Pid::from_raw(raw);
    !matches!(
        nix::sys::signal::kill(pid, None),
        Err(nix::errno::Errno::ESRCH)
    )
}

/// A running daemon: its name, options, store and signals.
pub struct Daemon {
    pub name: &'static str,
    pub common: Common,
    pub store: Store,
    pub signals: Signals,
}

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
        let mut w = self.store.write()?;
        let batch = w.lease(state, n, lease)?;
        w.commit()?;
        Ok((lease, batch))
    }

    /// Returns the records of dead daemons to their input states.
    pub fn reclaim(&self) -> Result<usize> {
        let mut w = self.store.write()?;
        let n = w.reclaim(lease_owner_alive)?;
        w.commit()?;
        if n > 0 {
            info!("reclaimed {n} records from dead leases");
        }
        Ok(n)
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
        info!("started, database {}", self.common.db.display());
        loop {
            if self.signals.stopping() {
                break;
            }
            let n = step(self)?;
            if n > 0 {
                continue;
            }
            if self.common.once || self.idle(inputs)? {
                break;
            }
            self.reclaim()?;
        }
        info!("stopped");
        Ok(())
    }

    /// Waits until a record is waiting in one of `inputs`, `--use-interval`
    /// has passed, or a stop signal came (then true). Looking costs one
    /// counter read, so an idle daemon wakes within [`WAKE_CHECK`] of new
    /// work instead of a whole interval later.
    pub fn idle(&self, inputs: &[State]) -> Result<bool> {
        let end = std::time::Instant::now() + self.common.interval;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            if self.signals.wait(left.min(WAKE_CHECK)) {
                return Ok(true);
            }
            if !inputs.is_empty() && self.waiting(inputs)? {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_leases_neither_panic_nor_live() {
        let me = std::process::id();
        // A lease time at the end of time: no overflow; our own process
        // started before it, so the lease still counts as held.
        assert!(lease_owner_alive(Lease {
            pid: me,
            time: u64::MAX
        }));
        // A pid no process can have.
        assert!(!lease_owner_alive(Lease {
            pid: u32::MAX,
            time: clock::real_now()
        }));
    }
}

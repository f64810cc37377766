//! One daemon as nlpcd runs it: its command line, its child process, and
//! the record of its exits and restarts that the monitor shows.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

/// How a daemon is run and how it is doing.
pub struct Daemon {
    pub name: &'static str,
    pub args: Vec<OsString>,
    pub(super) child: Option<Child>,
    pub(super) started: Instant,
    /// Quick deaths in a row (under [`QUICK`] after a start).
    pub(super) streak: u32,
    /// Of those, the failures (an error exit or a crash, not a kill).
    pub(super) failures: u32,
    pub restarts: u32,
    pub(super) restart_at: Option<Instant>,
    pub last_exit: String,
}

/// A death this soon after a start counts toward giving up.
pub const QUICK: Duration = Duration::from_secs(10);
/// Quick failures in a row after which nlpcd gives up.
pub const GIVE_UP: u32 = 5;

impl Daemon {
    pub fn new(name: &'static str, args: Vec<OsString>) -> Daemon {
        Daemon {
            name,
            args,
            child: None,
            started: Instant::now(),
            streak: 0,
            failures: 0,
            restarts: 0,
            restart_at: None,
            last_exit: String::new(),
        }
    }

    /// The running child's pid.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// "running 12s", "restarting in 2s", ...
    pub fn status(&self) -> String {
        match (&self.child, self.restart_at) {
            (Some(_), _) => format!("running {}s", self.started.elapsed().as_secs()),
            (None, Some(t)) => format!(
                "restart in {:.1}s",
                t.saturating_duration_since(Instant::now()).as_secs_f64()
            ),
            (None, None) => "stopped".into(),
        }
    }
}

/// What happened to a child that ended.
pub(super) fn describe(st: ExitStatus) -> (String, bool) {
    match (st.code(), st.signal()) {
        (Some(c), _) => (format!("exited {c}"), c != 0),
        (_, Some(s)) => {
            let name = Signal::try_from(s).map(|s| s.as_str()).unwrap_or("signal");
            // Killed from outside (an operator, the OOM killer, a test):
            // restart, but it says nothing about the daemon's health.
            let crash = !matches!(s, libc::SIGKILL | libc::SIGTERM | libc::SIGINT);
            (format!("killed by {name}"), crash)
        }
        _ => ("ended".into(), true),
    }
}

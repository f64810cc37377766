//! One daemon as nlpcd runs it: its command line, its child process, and
//! the record of its exits and restarts that the monitor shows.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use crate::run::options::Program;

/// How a daemon is run and how it is doing.
pub struct Daemon {
    pub name: &'static str,
    pub args: Vec<OsString>,
    /// Its nice increment over nlpcd's ([`niceness`]).
    pub(super) nice: i32,
    pub(super) child: Option<Child>,
    pub(super) started: Instant,
    /// Deaths in a row, each within [`STABLE`] of a start.
    pub(super) streak: u32,
    /// Of those, the failures (an error exit or a crash, not a kill).
    pub(super) failures: u32,
    pub restarts: u32,
    pub(super) restart_at: Option<Instant>,
    /// How the child last ended, and when it restarts.
    pub last_exit: String,
}

/// How much lower than nlpcd's a daemon's CPU priority is (its nice
/// increment). nlpc-vrfy, nlpc-scan and nlpc-index work through what the
/// others made and may fall behind for a while; nlpc-fetch's timers keep
/// each address's pace, so on a machine whose cores are full they go
/// first.
pub fn niceness(p: Program) -> i32 {
    match p {
        Program::Vrfy | Program::Scan | Program::Index => 10,
        _ => 0,
    }
}

/// A daemon that stayed up this long is healthy again: the back-off
/// starts over at its next death.
pub const STABLE: Duration = Duration::from_secs(300);
/// The wait before the first restart after a failure; it doubles with each
/// further failure in a row, up to [`FAIL_CAP`].
pub const FAIL_FIRST: Duration = Duration::from_secs(1);
/// The longest wait after failures: a daemon that keeps failing is tried
/// again every five minutes, for as long as nlpcd runs.
pub const FAIL_CAP: Duration = Duration::from_secs(300);
/// The wait before a restart after a kill from outside (an operator, the
/// OOM killer), doubling up to [`KILL_CAP`]: a kill says nothing about
/// the daemon's health.
pub const KILL_FIRST: Duration = Duration::from_millis(250);
pub const KILL_CAP: Duration = Duration::from_secs(2);
/// With `--once` only: failures in a row after which nlpcd gives up, loudly,
/// since a run meant to end cannot end while a daemon cannot run. Without
/// `--once` nlpcd never gives up.
pub const GIVE_UP: u32 = 5;

/// `base` doubled `n` times, at most `cap`.
fn backoff(base: Duration, n: u32, cap: Duration) -> Duration {
    base.saturating_mul(1u32 << n.min(20)).min(cap)
}

/// "1st", "2nd", "3rd", "4th", "11th", "21st".
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "4s", or "0.25s" below a second.
fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.2}s", d.as_secs_f64())
    }
}

impl Daemon {
    pub fn new(name: &'static str, args: Vec<OsString>) -> Daemon {
        Daemon {
            name,
            args,
            nice: Program::from_name(name).map_or(0, niceness),
            child: None,
            started: Instant::now(),
            streak: 0,
            failures: 0,
            restarts: 0,
            restart_at: None,
            last_exit: String::new(),
        }
    }

    /// Records that the child ended with `st` at `now` and schedules its
    /// restart: a failure waits [`FAIL_FIRST`] doubling to [`FAIL_CAP`], a
    /// kill from outside [`KILL_FIRST`] doubling to [`KILL_CAP`]; a child
    /// that had stayed up [`STABLE`] starts the back-off over. Returns the
    /// line to log, or, when `give_up` and the child failed [`GIVE_UP`]
    /// times in a row, the reason to give up.
    pub(super) fn ended(
        &mut self,
        st: ExitStatus,
        now: Instant,
        give_up: bool,
    ) -> Result<String, String> {
        self.child = None;
        let (what, failure) = describe(st);
        if now.duration_since(self.started) >= STABLE {
            self.streak = 0;
            self.failures = 0;
        }
        self.streak += 1;
        if failure {
            self.failures += 1;
        }
        if give_up && self.failures >= GIVE_UP {
            self.last_exit = format!("{what}; gave up");
            return Err(format!(
                "{} failed {} times in a row ({what}); giving up",
                self.name, self.failures
            ));
        }
        let delay = if failure {
            backoff(FAIL_FIRST, self.failures - 1, FAIL_CAP)
        } else {
            backoff(KILL_FIRST, self.streak - 1, KILL_CAP)
        };
        self.restart_at = Some(now + delay);
        let nth = ordinal(self.restarts + 1);
        self.last_exit = format!("{what}; {nth} restart after {}", secs(delay));
        Ok(format!(
            "{} {what}; restarting in {} ({nth} restart)",
            self.name,
            secs(delay)
        ))
    }

    /// The running child's pid.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// "running 12s", "restarting in 2s", ...
    pub fn status(&self) -> String {
        match (&self.child, self.restart_at) {
            (Some(_), _) => format!(
                "running {}",
                crate::run::human::duration(self.started.elapsed().as_secs())
            ),
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

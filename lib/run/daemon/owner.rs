//! Whether the process that took a lease still runs: its pid, and when it
//! started (from /proc), against when the lease was taken.

use std::fs;
use std::sync::OnceLock;

use super::LEASE_TIMEOUT;
use crate::run::clock;
use crate::store::record::Lease;

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

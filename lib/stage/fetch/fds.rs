//! File descriptors: each address served holds a connection, and libcurl
//! keeps up to twice `--fetch-hosts` connections open, so a broad crawl
//! needs more descriptors than the usual soft limit of 1,024.

use crate::info;

/// Descriptors kept for everything but connections: the database, the
/// body files being written, the log, the wake-up socket.
const SPARE: u64 = 64;

/// Raises this process's soft limit on open files toward the hard limit
/// as far as `hosts` addresses need, and returns how many addresses fit
/// under the limit it got (`hosts` when all do; said in the log when not).
pub fn fit(hosts: usize) -> usize {
    let want = (hosts as u64).saturating_mul(2).saturating_add(SPARE);
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: lim is a valid rlimit for the call to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return hosts;
    }
    if lim.rlim_cur < want {
        let raised = libc::rlimit {
            rlim_cur: want.min(lim.rlim_max),
            rlim_max: lim.rlim_max,
        };
        // SAFETY: raised is a valid rlimit; the soft limit stays within
        // the hard one, which any process may do.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim.rlim_cur = raised.rlim_cur;
        }
    }
    if lim.rlim_cur >= want {
        return hosts;
    }
    let fit = (lim.rlim_cur.saturating_sub(SPARE) / 2).max(1) as usize;
    info!(
        "--fetch-hosts {hosts} needs about {want} open files, and the limit is {}: serving {fit} addresses at once",
        lim.rlim_cur
    );
    fit.min(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_hosts_fit_and_an_absurd_number_is_cut_to_the_limit() {
        assert_eq!(fit(4), 4);
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
        if lim.rlim_max < u64::MAX / 4 {
            let n = fit(usize::MAX / 4);
            assert!((n as u64) * 2 + SPARE <= lim.rlim_max.max(SPARE + 2), "{n}");
        }
    }
}

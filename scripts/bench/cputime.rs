//! The clock of the benches that time one thread (`vrfy`, `store`).

/// Seconds of CPU time this thread has used: on a shared machine the time
/// others hold the core does not count against the code measured (cache
/// and memory contention still do).
pub fn cpu_secs() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only to the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

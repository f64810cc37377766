//! The last line of defence against a damaged page that the checks at open
//! do not reach (they read the meta pages and the trees' top pages, not
//! every page): LMDB trusts the pages it maps, and on garbage it fails an
//! assertion (abort) or reads past the end of the file (SIGBUS). Either way
//! the process now prints one line naming the database and exits 1 instead
//! of dying by a signal. A SIGBUS outside the database's map goes to the
//! handler that was there before, so other faults are not mislabelled.

use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// The line to print, built at open (a signal handler may not allocate).
static MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);
/// The address range of the database's map.
static MAP_START: AtomicUsize = AtomicUsize::new(0);
static MAP_END: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();
static mut OLD_BUS: Option<libc::sigaction> = None;

/// Prints the line and exits 1; only async-signal-safe calls.
fn bail() -> ! {
    let p = MESSAGE.load(Ordering::Acquire);
    let n = MESSAGE_LEN.load(Ordering::Acquire);
    // SAFETY: p and n describe a leaked, never freed buffer (or are null/0);
    // write and _exit are async-signal-safe.
    unsafe {
        if !p.is_null() {
            libc::write(2, p as *const libc::c_void, n);
        }
        libc::_exit(1)
    }
}

unsafe extern "C" fn on_assert(_env: *mut lmdb_sys::MDB_env, _msg: *const libc::c_char) {
    bail()
}

unsafe extern "C" fn on_bus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    if addr >= MAP_START.load(Ordering::Acquire) && addr < MAP_END.load(Ordering::Acquire) {
        bail()
    }
    // Not the database: do what would have been done without us.
    // SAFETY: OLD_BUS is written once, before this handler is installed.
    let old = unsafe { *std::ptr::addr_of!(OLD_BUS) };
    match old {
        Some(o) if o.sa_flags & libc::SA_SIGINFO != 0 && o.sa_sigaction > libc::SIG_IGN => {
            // SAFETY: an SA_SIGINFO handler has this signature.
            let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(o.sa_sigaction) };
            unsafe { f(sig, info, ctx) }
        }
        _ => {
            // Back to the default action; returning re-runs the faulting
            // access, which then ends the process as it would have.
            // SAFETY: resetting a signal's disposition is always allowed.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// The address range of the mapping of `data` in this process, from
/// /proc/self/maps (Linux); None elsewhere or if not found.
fn map_range(data: &Path) -> Option<(usize, usize)> {
    let want = std::fs::canonicalize(data).ok()?;
    let want = want.to_str()?;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let mut range: Option<(usize, usize)> = None;
    for line in maps.lines() {
        if !line.ends_with(want) {
            continue;
        }
        let (a, b) = line.split(' ').next()?.split_once('-')?;
        let (a, b) = (
            usize::from_str_radix(a, 16).ok()?,
            usize::from_str_radix(b, 16).ok()?,
        );
        // The largest mapping is LMDB's map (the meta reads are smaller).
        if range.is_none_or(|(x, y)| b.saturating_sub(a) > y - x) {
            range = Some((a, b));
        }
    }
    range
}

/// Arms the guard for the environment just opened at `dir`.
pub(super) fn arm(env: &lmdb::Environment, dir: &Path) {
    let prog = std::env::args()
        .next()
        .and_then(|a| {
            Path::new(&a)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "nlpcrawl".into());
    let line = format!(
        "{prog}: database {}: LMDB met a damaged page and cannot go on (run nlpc-list --check; restore the database from a backup)\n",
        dir.display()
    );
    let buf: &'static mut [u8] = Box::leak(line.into_bytes().into_boxed_slice());
    MESSAGE_LEN.store(buf.len(), Ordering::Release);
    MESSAGE.store(buf.as_mut_ptr(), Ordering::Release);
    if let Some((a, b)) = map_range(&dir.join("data.mdb")) {
        MAP_START.store(a, Ordering::Release);
        MAP_END.store(b, Ordering::Release);
    }
    // SAFETY: env is open; the callback lives for the whole program.
    unsafe { lmdb_sys::mdb_env_set_assert(env.env(), Some(on_assert)) };
    INSTALL.call_once(|| {
        // SAFETY: sigaction with a zeroed, then filled, struct; OLD_BUS is
        // written before the new handler can run.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_bus as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old);
            *std::ptr::addr_of_mut!(OLD_BUS) = Some(old);
            libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut());
        }
    });
}

//! Containment of a failure on one record: a panic in the work on it is
//! caught and returned as that record's error, with its message and place,
//! and the test builds' hooks that cause such panics on purpose.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// True while [`catch_panic`] runs work on this thread.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// The message of the panic [`catch_panic`] caught, with its place.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once, a panic hook that keeps the message of a panic that
/// [`catch_panic`] will catch (so it is logged once, with the URL, rather
/// than also as the usual two lines without it) and leaves every other
/// panic to the default hook.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) {
                return default(info);
            }
            let p = info.payload();
            let msg = p
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| p.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("(no message)");
            let msg = match info.location() {
                Some(l) => format!("panic: {msg} at {}:{}", l.file(), l.line()),
                None => format!("panic: {msg}"),
            };
            CAUGHT.with(|c| *c.borrow_mut() = Some(msg));
        }));
    });
}

/// Runs `work`, the work on the record of `url`, catching a panic: the
/// panic's message with its place in the source is returned as the error.
/// Not logged; callers log it with the URL.
///
/// The work is wrapped in `AssertUnwindSafe`: what a panic can leave half
/// done is the caller's state for the batch (a counter, a buffer), which
/// std keeps memory-safe through unwinding, and the caller then treats the
/// record as failed and discards its partial result. No write transaction
/// may be open inside `work`: the callers run it between transactions.
pub fn catch_panic<T>(url: &str, work: impl FnOnce() -> T) -> std::result::Result<T, String> {
    install_hook();
    let was = CATCHING.with(|c| c.replace(true));
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        test_panic(url);
        work()
    }));
    CATCHING.with(|c| c.set(was));
    r.map_err(|_| {
        CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| "panic".into())
    })
}

/// Test builds only: panics on a record whose URL holds the value of
/// `NLPCRAWL_TEST_PANIC_ON`, so tests can show that a defect on one record
/// is contained. Release builds have no such hook.
#[cfg(debug_assertions)]
fn test_panic(url: &str) {
    if let Some(pat) = std::env::var_os("NLPCRAWL_TEST_PANIC_ON") {
        let pat = pat.to_string_lossy();
        if !pat.is_empty() && url.contains(pat.as_ref()) {
            panic!("NLPCRAWL_TEST_PANIC_ON matched {url}");
        }
    }
}

#[cfg(not(debug_assertions))]
fn test_panic(_url: &str) {}

/// Test builds only: panics on a record whose URL holds the value of
/// `NLPCRAWL_TEST_ESCAPE_ON`, where a stage calls it inside its write
/// transaction, outside the per-record containment. Release builds have no
/// such hook.
pub fn test_escape(url: &str) {
    #[cfg(debug_assertions)]
    if let Some(pat) = std::env::var_os("NLPCRAWL_TEST_ESCAPE_ON") {
        let pat = pat.to_string_lossy();
        if !pat.is_empty() && url.contains(pat.as_ref()) {
            panic!("NLPCRAWL_TEST_ESCAPE_ON matched {url}");
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = url;
}

//! One line per event on standard error, prefixed with the program name, as
//! syslog and the systemd journal expect.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::document::escape;

static NAME: OnceLock<&'static str> = OnceLock::new();
static DEBUG: AtomicU8 = AtomicU8::new(0);

/// Sets the program name and debug level (the number of `-d`).
pub fn init(name: &'static str, debug: u8) {
    let _ = NAME.set(name);
    DEBUG.store(debug, Ordering::Relaxed);
}

/// Silences debug lines (the monitor owns the terminal then).
pub fn set_debug(level: u8) {
    DEBUG.store(level, Ordering::Relaxed);
}

/// True when lines at `level` of `-d` are wanted.
pub fn debug_enabled(level: u8) -> bool {
    DEBUG.load(Ordering::Relaxed) >= level
}

/// Writes one line. Control characters in the message (newlines included,
/// so one event stays one line) are escaped: messages carry URLs and
/// header values, and a raw escape would drive the reader's terminal.
pub fn line(args: std::fmt::Arguments<'_>) {
    let name = NAME.get().copied().unwrap_or("nlpcrawl");
    let msg = args.to_string();
    let msg = escape::controls(&msg);
    // One write per line: standard error is unbuffered, and a formatted
    // write would cost a system call per piece.
    let line = format!("{name}: {msg}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Logs an event.
#[macro_export]
macro_rules! info {
    ($($t:tt)*) => { $crate::run::log::line(format_args!($($t)*)) };
}

/// Logs an event only with `-d`.
#[macro_export]
macro_rules! debug {
    ($($t:tt)*) => {
        if $crate::run::log::debug_enabled(1) {
            $crate::run::log::line(format_args!($($t)*))
        }
    };
}

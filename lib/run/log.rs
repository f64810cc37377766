//! One line per event on standard error: a UTC timestamp (left out under
//! the systemd journal, which stamps lines itself and reads the `<N>`
//! priority prefix instead), the program name, the level, the message.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::document::escape;

static NAME: OnceLock<&'static str> = OnceLock::new();
static DEBUG: AtomicU8 = AtomicU8::new(0);
static JOURNAL: OnceLock<bool> = OnceLock::new();

/// How much a line matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Info,
    Debug,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }

    /// The syslog priority the journal reads from a `<N>` prefix.
    fn priority(self) -> u8 {
        match self {
            Level::Error => 3,
            Level::Info => 6,
            Level::Debug => 7,
        }
    }
}

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

/// True when standard error goes to the journal: systemd sets
/// JOURNAL_STREAM to the device and inode of the stream it connects to a
/// service, and the child of a service whose standard error was sent
/// elsewhere (nlpcd's `--log`) inherits the variable but not the stream.
fn journal() -> bool {
    *JOURNAL.get_or_init(|| {
        let Some(v) = std::env::var_os("JOURNAL_STREAM") else {
            return false;
        };
        // SAFETY: fstat fills the zeroed struct or fails; fd 2 may be
        // closed, which it reports.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(2, &mut st) } != 0 {
            return false;
        }
        v.to_str() == Some(&format!("{}:{}", st.st_dev, st.st_ino))
    })
}

/// What goes before the message: `2026-11-24T10:00:00Z nlpc-fetch info: `,
/// or under the journal `<6>nlpc-fetch info: `.
pub fn prefix(name: &str, level: Level) -> String {
    if journal() {
        format!("<{}>{name} {}: ", level.priority(), level.name())
    } else {
        let now = crate::run::clock::real_now();
        format!(
            "{} {name} {}: ",
            crate::run::clock::iso8601(now),
            level.name()
        )
    }
}

/// Writes one line. Control characters in the message (newlines included,
/// so one event stays one line) are escaped: messages carry URLs and
/// header values, and a raw escape would drive the reader's terminal.
pub fn line(level: Level, args: std::fmt::Arguments<'_>) {
    let name = NAME.get().copied().unwrap_or("nlpcrawl");
    write_line(name, level, &args.to_string());
}

/// Writes one line for program `name`, whether or not [`init`] was called.
pub fn write_line(name: &str, level: Level, msg: &str) {
    let msg = redact(msg);
    let msg = escape::controls(&msg);
    // One write per line: standard error is unbuffered, and a formatted
    // write would cost a system call per piece.
    let line = format!("{}{msg}\n", prefix(name, level));
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// `s` with the user information of every URL in it (`scheme://user:secret@host`)
/// replaced by `***`: a password or token written into a URL (a NATS
/// server's, a page's link) never reaches a log line.
pub fn redact(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains("://") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        // The authority ends at the path, query, fragment, or anything
        // that cannot be in one (a blank, a quote, a list's comma).
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | ',' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => {
                out.push_str("***");
                out.push_str(&tail[at..end]);
                changed = true;
            }
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    if !changed {
        return std::borrow::Cow::Borrowed(s);
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Logs an event.
#[macro_export]
macro_rules! info {
    ($($t:tt)*) => { $crate::run::log::line($crate::run::log::Level::Info, format_args!($($t)*)) };
}

/// Logs an error the program goes on after.
#[macro_export]
macro_rules! error {
    ($($t:tt)*) => { $crate::run::log::line($crate::run::log::Level::Error, format_args!($($t)*)) };
}

/// Logs an event only with `-d`.
#[macro_export]
macro_rules! debug {
    ($($t:tt)*) => {
        if $crate::run::log::debug_enabled(1) {
            $crate::run::log::line($crate::run::log::Level::Debug, format_args!($($t)*))
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_information_never_reaches_a_line() {
        assert_eq!(
            redact("cannot connect to nats://node1:s3cr3t@n1:4222,tls://t0k@n2:4222: no"),
            "cannot connect to nats://***@n1:4222,tls://***@n2:4222: no"
        );
        assert_eq!(
            redact("http://a:b@example.lv/x?y=http://c@d/"),
            "http://***@example.lv/x?y=http://***@d/"
        );
        // No user information: the same string, not a copy.
        assert!(matches!(
            redact("nats://n1:4222 and mailto:a@b.lv"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(redact("a://@"), "a://***@");
        assert_eq!(redact("žž://ā:ē@ī"), "žž://***@ī");
    }

    #[test]
    fn the_prefix_is_a_utc_timestamp_the_name_and_the_level() {
        if journal() {
            assert!(prefix("nlpc-up", Level::Error).starts_with("<3>nlpc-up error: "));
            return;
        }
        let p = prefix("nlpc-up", Level::Debug);
        let (ts, rest) = p.split_once(' ').unwrap();
        assert_eq!(rest, "nlpc-up debug: ");
        let b = ts.as_bytes();
        assert_eq!(b.len(), 20, "{ts}");
        for (i, c) in b.iter().enumerate() {
            match i {
                4 | 7 => assert_eq!(*c, b'-'),
                10 => assert_eq!(*c, b'T'),
                13 | 16 => assert_eq!(*c, b':'),
                19 => assert_eq!(*c, b'Z'),
                _ => assert!(c.is_ascii_digit(), "{ts}"),
            }
        }
    }
}

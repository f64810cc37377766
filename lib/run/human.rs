//! Numbers for people: counts (`1.2k`, `3.4M`), rates, bytes (`12 MB`)
//! and durations (`3 h 20 min`), for the monitor and nlpc-stat. Decimal
//! (SI) multiples throughout.

const PREFIXES: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];

/// `v` scaled by thousands: the value and its prefix's index. A value that
/// would print as 1000.0 moves up a prefix.
fn scale(mut v: f64) -> (f64, usize) {
    let mut i = 0;
    while v >= 999.95 && i + 1 < PREFIXES.len() {
        v /= 1000.0;
        i += 1;
    }
    (v, i)
}

/// A count: exact below 10,000, else one decimal and a prefix (`12.3k`,
/// `3.4M`). At most 6 characters.
pub fn count(n: u64) -> String {
    if n < 10_000 {
        return n.to_string();
    }
    let (v, i) = scale(n as f64);
    format!("{v:.1}{}", PREFIXES[i])
}

/// A rate or other fraction-bearing figure: one decimal, with a prefix
/// from 1000 up (`0.5`, `12.3`, `4.5k`).
pub fn rate(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return "0.0".into();
    }
    let (v, i) = scale(x);
    format!("{v:.1}{}", PREFIXES[i])
}

/// Bytes: `512 B`, `1.2 kB`, `12 MB`, `3.4 GB` (one decimal below 10).
pub fn bytes(n: u64) -> String {
    if n < 1000 {
        return format!("{n} B");
    }
    let (v, i) = scale(n as f64);
    if v < 9.95 {
        format!("{v:.1} {}B", PREFIXES[i])
    } else {
        format!("{v:.0} {}B", PREFIXES[i])
    }
}

/// A duration in whole seconds, to its two largest units: `45 s`,
/// `12 min 5 s`, `3 h 20 min`, `2 d 4 h`.
pub fn duration(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d} d {h} h")
    } else if h > 0 {
        format!("{h} h {m} min")
    } else if m > 0 {
        format!("{m} min {s} s")
    } else {
        format!("{s} s")
    }
}

/// Milliseconds: `850 ms`, `2.3 s`, `95 s`.
pub fn millis(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 9950 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", (ms + 500) / 1000)
    }
}

/// A share as a percentage with one decimal, or `-` when there is none.
pub fn percent(share: Option<f64>) -> String {
    match share {
        Some(x) if x.is_finite() => format!("{:.1}%", x * 100.0),
        _ => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_when_short_and_prefixed_when_long() {
        assert_eq!(count(0), "0");
        assert_eq!(count(9_999), "9999");
        assert_eq!(count(10_000), "10.0k");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(count(999_949), "999.9k");
        assert_eq!(count(999_950), "1.0M");
        assert_eq!(count(3_400_000), "3.4M");
        assert_eq!(count(7_250_000_000), "7.2G");
        assert_eq!(count(u64::MAX), "18.4E");
    }

    #[test]
    fn rates_bytes_durations_and_shares() {
        assert_eq!(rate(0.0), "0.0");
        assert_eq!(rate(f64::NAN), "0.0");
        assert_eq!(rate(0.25), "0.2");
        assert_eq!(rate(12.34), "12.3");
        assert_eq!(rate(1234.0), "1.2k");
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_200), "1.2 kB");
        assert_eq!(bytes(12_000_000), "12 MB");
        assert_eq!(bytes(3_400_000_000), "3.4 GB");
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(12 * 60 + 5), "12 min 5 s");
        assert_eq!(duration(3 * 3600 + 20 * 60 + 7), "3 h 20 min");
        assert_eq!(duration(2 * 86_400 + 4 * 3600), "2 d 4 h");
        assert_eq!(millis(850), "850 ms");
        assert_eq!(millis(2_340), "2.3 s");
        assert_eq!(millis(95_400), "95 s");
        assert_eq!(percent(Some(0.4523)), "45.2%");
        assert_eq!(percent(None), "-");
    }
}

//! Wall-clock time: the crawl's notion of "now", ISO 8601 and HTTP dates,
//! and durations with units as users type them.
//!
//! Tests travel in time by setting `NLPCRAWL_TIME_OFFSET` (seconds, may be
//! negative) in a daemon's environment; it shifts every timestamp the crawl
//! records and compares, and nothing else (leases and politeness use real
//! time).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variable that shifts the crawl's clock, for tests.
pub const OFFSET_VAR: &str = "NLPCRAWL_TIME_OFFSET";

/// Real Unix time in seconds.
pub fn real_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Real Unix time in milliseconds, for pacing that outlives a process
/// (rests kept in the store) and is never shifted for tests.
pub fn real_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Real Unix time in milliseconds once `d` from now has passed, rounded
/// up: a rest stored in whole milliseconds (and read back against
/// [`real_now_ms`], which rounds down) never ends before the one kept in
/// memory. Truncating both lost up to 2 ms of a rest.
pub fn real_ms_after(d: Duration) -> u64 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .saturating_add(d);
    ceil_ms(t)
}

/// `t` in whole milliseconds, rounded up.
pub fn ceil_ms(t: Duration) -> u64 {
    let ms = t.as_millis() + u128::from(!t.subsec_nanos().is_multiple_of(1_000_000));
    u64::try_from(ms).unwrap_or(u64::MAX)
}

/// The crawl's Unix time in seconds: real time plus the test offset.
pub fn now() -> u64 {
    // Read once: the offset is fixed for a process, and this is called for
    // every record a daemon touches.
    static OFFSET: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    let offset = *OFFSET.get_or_init(|| {
        std::env::var(OFFSET_VAR)
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0)
    });
    (real_now() as i64).saturating_add(offset).max(0) as u64
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix seconds as `2026-11-21T23:31:44Z`; "-" for 0 (unknown).
pub fn iso8601(t: u64) -> String {
    if t == 0 {
        return "-".into();
    }
    let (y, mo, d) = civil_from_days((t / 86_400) as i64);
    let s = t % 86_400;
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

/// Unix seconds as an HTTP date (RFC 9110 IMF-fixdate).
pub fn http_date(t: u64) -> String {
    let days = (t / 86_400) as i64;
    let (y, mo, d) = civil_from_days(days);
    let s = t % 86_400;
    format!(
        "{}, {d:02} {} {y:04} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[(mo - 1) as usize],
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Parses an HTTP date in any of the three forms RFC 9110 says to accept.
pub fn parse_http_date(s: &str) -> Option<u64> {
    let words: Vec<&str> = s.split([' ', ',', '-']).filter(|w| !w.is_empty()).collect();
    let month = |w: &str| MONTHS.iter().position(|m| m.eq_ignore_ascii_case(w));
    let (day, mon, year, time) = match words.as_slice() {
        // IMF-fixdate and RFC 850: Sun, 06 Nov 1994 08:49:37 GMT / Sunday, 06-Nov-94 08:49:37 GMT
        [_, d, m, y, t, ..] if month(m).is_some() => (*d, *m, *y, *t),
        // asctime: Sun Nov  6 08:49:37 1994
        [_, m, d, t, y] => (*d, *m, *y, *t),
        _ => return None,
    };
    let day: u32 = day.parse().ok()?;
    let mon = month(mon)? as u32 + 1;
    let mut year: i64 = year.parse().ok()?;
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, mi, se] = hms.as_slice() else {
        return None;
    };
    // Years past 9999 are not dates a server means, and would overflow the
    // day count.
    if day == 0 || day > 31 || *h > 23 || *mi > 59 || *se > 60 || !(1970..=9999).contains(&year) {
        return None;
    }
    let days = days_from_civil(year, mon, day);
    Some(days as u64 * 86_400 + h * 3600 + mi * 60 + se)
}

/// Parses a point in time as users give one: Unix seconds, or an RFC 3339
/// date and time (`2026-11-24T13:45:00Z`, `2026-11-24T15:45:00+02:00`; a
/// fraction of a second is ignored). An offset is applied, so the result
/// is UTC.
pub fn parse_time(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse::<u64>()
            .map_err(|_| format!("{s:?} is too large for Unix seconds"));
    }
    let bad =
        || format!("{s:?} is neither Unix seconds nor an RFC 3339 time (2026-11-24T13:45:00Z)");
    // Every field is ASCII; anything else cannot be one, and slicing by
    // byte below is then safe.
    if !t.is_ascii() || t.len() < 20 {
        return Err(bad());
    }
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let f = t.get(r)?;
        f.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| f.parse().ok())?
    };
    let ok_seps = b[4] == b'-'
        && b[7] == b'-'
        && matches!(b[10], b'T' | b't' | b' ')
        && b[13] == b':'
        && b[16] == b':';
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(se)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return Err(bad());
    };
    if !ok_seps
        || !(1970..=9999).contains(&y)
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || se > 60
    {
        return Err(bad());
    }
    let mut rest = &t[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return Err(bad());
        }
        rest = &frac[n..];
    }
    let offset: i64 = match rest {
        "Z" | "z" => 0,
        o if o.len() == 6 && (o.starts_with('+') || o.starts_with('-')) && &o[3..4] == ":" => {
            let (Some(oh), Some(om)) = (
                o[1..3].parse::<i64>().ok().filter(|h| *h <= 23),
                o[4..6].parse::<i64>().ok().filter(|m| *m <= 59),
            ) else {
                return Err(bad());
            };
            let v = oh * 3600 + om * 60;
            if o.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return Err(bad()),
    };
    let days = days_from_civil(y as i64, mo as u32, d as u32);
    let local = days * 86_400 + (h * 3600 + mi * 60 + se) as i64;
    u64::try_from(local - offset).map_err(|_| format!("{s:?} is before 1970"))
}

/// Parses the start of a stretch of time ending `now`: a time (RFC 3339 or
/// Unix seconds, as [`parse_time`]) or a length back from `now` with its
/// unit (`90m`, `6h`, `2d`). A bare number is Unix seconds.
pub fn parse_since(s: &str, now: u64) -> Result<u64, String> {
    let t = s.trim();
    let mut chars = t.chars();
    let unit = chars.next_back();
    let num = chars.as_str();
    if matches!(unit, Some('s' | 'm' | 'h' | 'd' | 'w'))
        && !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        let d = parse_duration(t)?;
        return Ok(now.saturating_sub(d.as_secs()));
    }
    parse_time(t).map_err(|e| format!("{e}, nor a length of time such as 6h"))
}

/// Parses a duration: a number with an optional unit, `s` (the default),
/// `m`, `h`, `d` or `w`; fractions are allowed (`0.5s`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (try 90s, 12h or 10d)"))?;
    let mult = match unit {
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        "w" => 604_800.0,
        _ => {
            return Err(format!(
                "{s:?}: unknown unit {unit:?} (use s, m, h, d or w)"
            ))
        }
    };
    let secs = n * mult;
    if !secs.is_finite() || secs > 1e12 {
        return Err(format!("{s:?} is too long"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_rest_ends_no_earlier_than_the_rest() {
        assert_eq!(ceil_ms(Duration::from_millis(400)), 400);
        assert_eq!(ceil_ms(Duration::from_micros(399_001)), 400);
        assert_eq!(ceil_ms(Duration::from_nanos(1)), 1);
        assert_eq!(ceil_ms(Duration::ZERO), 0);
        assert_eq!(ceil_ms(Duration::MAX), u64::MAX);
        // Read back against real_now_ms (rounded down), as a fetcher that
        // claims the address does: the wait left covers the whole rest.
        for micros in [0, 1, 499, 999, 400_000, 400_999] {
            let rest = Duration::from_micros(micros);
            let before = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            let until = real_ms_after(rest);
            let now_ms = real_now_ms();
            let end = before + rest;
            assert!(
                Duration::from_millis(until) >= end,
                "a rest of {micros} µs stored as ending {:?} early",
                end - Duration::from_millis(until)
            );
            let waited = Duration::from_millis(until.saturating_sub(now_ms));
            let after = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            assert!(after + waited >= end);
        }
    }

    #[test]
    fn since_takes_a_time_or_a_length_back() {
        let now = 1_800_000_000;
        assert_eq!(parse_since("6h", now), Ok(now - 6 * 3600));
        assert_eq!(parse_since("2d", now), Ok(now - 2 * 86_400));
        assert_eq!(parse_since("1700000000", now), Ok(1_700_000_000));
        assert_eq!(parse_since("1970-01-01T00:01:00Z", now), Ok(60));
        assert_eq!(parse_since("99999999999w", 5).ok(), None);
        assert!(parse_since("6x", now).is_err());
        assert!(parse_since("h", now).is_err());
        assert!(parse_since("", now).is_err());
    }

    #[test]
    fn iso_and_http_dates() {
        assert_eq!(iso8601(0), "-");
        assert_eq!(iso8601(784_111_777), "1994-11-06T08:49:37Z");
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn times_as_unix_seconds_or_rfc_3339() {
        let t = 1_764_000_000; // 2025-11-24T16:00:00Z
        assert_eq!(iso8601(t), "2025-11-24T16:00:00Z");
        assert_eq!(parse_time("1764000000"), Ok(t));
        assert_eq!(parse_time("2025-11-24T16:00:00Z"), Ok(t));
        assert_eq!(parse_time("2025-11-24t16:00:00.250z"), Ok(t));
        assert_eq!(parse_time("2025-11-24T18:00:00+02:00"), Ok(t));
        assert_eq!(parse_time("2025-11-24T11:30:00-04:30"), Ok(t));
        for bad in [
            "",
            "yesterday",
            "2025-11-24",
            "2025-11-24T16:00:00",
            "2025-13-24T16:00:00Z",
            "2025-11-24T16:00:00+2:00",
            "2025-11-24T16:00:00.Z",
            "1970-01-01T00:00:00+01:00",
            "2025-11-24T16:0ā:00Z",
            "99999999999999999999999",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn http_dates_in_three_forms() {
        for s in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(s), Some(784_111_777), "{s}");
        }
        assert_eq!(parse_http_date("yesterday"), None);
        assert_eq!(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), None);
        assert_eq!(
            parse_http_date("Fri, 31 Dec 9999 23:59:59 GMT"),
            Some(253_402_300_799)
        );
    }

    #[test]
    fn http_dates_with_huge_years_are_refused() {
        assert_eq!(
            parse_http_date("Sun, 06 Nov 9223372036854775807 08:49:37 GMT"),
            None
        );
        assert_eq!(parse_http_date("Sun, 06 Nov 10000 08:49:37 GMT"), None);
    }

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("12h").unwrap(), Duration::from_secs(43_200));
        assert_eq!(parse_duration("10d").unwrap(), Duration::from_secs(864_000));
        assert_eq!(parse_duration("0.5s").unwrap(), Duration::from_millis(500));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5y").is_err());
        assert!(parse_duration("").is_err());
    }
}

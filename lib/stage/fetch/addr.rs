//! What nlpc-fetch keeps in `Table::Addrs` for each physical address: when
//! its next burst may start, which fetcher serves it, and why and since how
//! many distress answers it pauses; read back by a restarted fetcher, by
//! `nlpc-list --hosts` and by the monitor.

use super::*;

/// What `Table::Addrs` holds for one physical address: when its next burst
/// may start, and which fetcher serves it, so two fetchers never serve one
/// server at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddrEntry {
    /// No burst before this, in Unix ms.
    pub until: u64,
    /// The fetcher serving the address, if any.
    pub owner: Option<Lease>,
    /// Why the address pauses till `until` (a `health::Why` code), 0 when
    /// it only rests; for `nlpc-list --hosts` and a restarted fetcher.
    pub why: u8,
    /// Its distress answers in a row when the pause began.
    pub strikes: u8,
}

/// The longest rest read back from the store: a damaged entry must neither
/// overflow the clock nor bar its address for ever.
const MAX_REST_MS: u64 = 86_400_000;

/// How long to wait for a rest stored as ending at `until` (Unix ms).
pub(super) fn rest_wait(until: u64, now_ms: u64) -> Duration {
    Duration::from_millis(until.saturating_sub(now_ms).min(MAX_REST_MS))
}

impl AddrEntry {
    pub(super) fn encode(&self) -> [u8; 22] {
        let mut v = [0; 22];
        v[..8].copy_from_slice(&self.until.to_le_bytes());
        let o = self.owner.unwrap_or_default();
        v[8..12].copy_from_slice(&o.pid.to_le_bytes());
        v[12..20].copy_from_slice(&o.time.to_le_bytes());
        v[20] = self.why;
        v[21] = self.strikes;
        v
    }

    /// The pause this entry records, if one is under way at `now_ms`:
    /// why, and till when (Unix ms).
    pub fn paused(&self, now_ms: u64) -> Option<(health::Why, u64)> {
        let why = health::Why::from_code(self.why)?;
        (self.until > now_ms).then_some((why, self.until))
    }

    /// Every address pausing at `now_ms`, as `Table::Addrs` holds them.
    pub fn all_paused(
        rd: &crate::store::Read<'_>,
        now_ms: u64,
    ) -> Result<Vec<(String, health::Why, u64)>> {
        let mut out = Vec::new();
        rd.table_walk(Table::Addrs, b"", |k, v| {
            if let Some((why, until)) = AddrEntry::decode(v).paused(now_ms) {
                out.push((String::from_utf8_lossy(k).into_owned(), why, until));
            }
            Ok(true)
        })?;
        Ok(out)
    }

    pub(super) fn decode(v: &[u8]) -> AddrEntry {
        let u64_at = |i: usize| {
            v.get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
        };
        let pid = v
            .get(8..12)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .unwrap_or(0);
        AddrEntry {
            until: u64_at(0).unwrap_or(0),
            owner: (pid != 0).then(|| Lease {
                pid,
                time: u64_at(12).unwrap_or(0),
            }),
            why: v.get(20).copied().unwrap_or(0),
            strikes: v.get(21).copied().unwrap_or(0),
        }
    }

    /// The entry of `addr`.
    pub fn get(w: &crate::store::Write<'_>, addr: &IpAddr) -> Result<AddrEntry> {
        Ok(w.table_get(Table::Addrs, addr.to_string().as_bytes())?
            .map(|v| AddrEntry::decode(&v))
            .unwrap_or_default())
    }

    /// Stores the entry of `addr` (public for the scale bench, which plants
    /// the big frontier's addresses resting).
    pub fn put(&self, w: &mut crate::store::Write<'_>, addr: &IpAddr) -> Result<()> {
        w.table_put(Table::Addrs, addr.to_string().as_bytes(), &self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_its_pause_and_an_older_entry_has_none() {
        let e = AddrEntry {
            until: 5_000,
            owner: Some(Lease { pid: 7, time: 9 }),
            why: health::Why::Unavailable.code(),
            strikes: 2,
        };
        let v = e.encode();
        assert_eq!(AddrEntry::decode(&v), e);
        assert_eq!(e.paused(4_999), Some((health::Why::Unavailable, 5_000)));
        assert_eq!(e.paused(5_000), None, "a pause over is no pause");
        // An entry written before pauses were recorded: 20 bytes.
        let old = AddrEntry::decode(&v[..20]);
        assert_eq!((old.until, old.why, old.strikes), (5_000, 0, 0));
        assert_eq!(old.paused(0), None);
        // A damaged code is no pause either.
        let mut bad = v;
        bad[20] = 200;
        assert_eq!(AddrEntry::decode(&bad).paused(0), None);
    }

    #[test]
    fn a_damaged_rest_waits_a_day_at_most() {
        assert_eq!(rest_wait(1500, 1000), Duration::from_millis(500));
        assert_eq!(rest_wait(500, 1000), Duration::ZERO);
        let w = rest_wait(u64::MAX, 1000);
        assert_eq!(w, Duration::from_millis(MAX_REST_MS));
        // The gate is set at now + wait: this must not overflow.
        assert!(Instant::now().checked_add(w).is_some());
    }
}

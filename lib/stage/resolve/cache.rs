//! The answer for one host as every nlpc-resolve process shares it: what
//! the lookup gave (addresses, or why none), kept in `Table::Hosts` and
//! aged by the answer's TTL and the cache age.

use super::*;

/// What resolving one host name gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The addresses of the family that answered, in the server's order.
    Addrs(Vec<IpAddr>),
    /// The name does not exist.
    NxDomain,
    /// The name exists but has no address of the families asked for.
    NoAddress,
    /// No answer within the timeout, after every retry.
    Timeout,
    /// Any other failure (SERVFAIL, REFUSED, a network error), described.
    Failed(String),
}

impl Outcome {
    /// The address to store, or why the record is UNREACH. The first
    /// address allowed wins; with only refused ones, the first is named.
    pub fn choose(&self, allow_private: bool) -> std::result::Result<IpAddr, String> {
        match self {
            Outcome::Addrs(v) => match v.iter().find(|a| allow_private || !is_private(**a)) {
                Some(a) => Ok(*a),
                None => Err(match v.first() {
                    Some(a) => format!("private address {a}"),
                    None => "no address".into(),
                }),
            },
            Outcome::NxDomain => Err("NXDOMAIN".into()),
            Outcome::NoAddress => Err("no address".into()),
            Outcome::Timeout => Err("DNS timeout".into()),
            Outcome::Failed(why) => Err(why.clone()),
        }
    }

    pub(super) fn kind(&self) -> u8 {
        match self {
            Outcome::Addrs(_) => 0,
            Outcome::NxDomain => 1,
            Outcome::NoAddress => 2,
            Outcome::Timeout => 3,
            Outcome::Failed(_) => 4,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Addrs(v) => {
                for (i, a) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{a}")?;
                }
                Ok(())
            }
            o => f.write_str(&o.choose(true).err().unwrap_or_default()),
        }
    }
}

/// A TTL that the DNS did not give (IP literals, the hosts file, failures
/// without an SOA): only the cache age limits such an entry.
pub const NO_TTL: u32 = u32::MAX;

/// The per-host data nlpc-resolve keeps in [`Table::Hosts`], keyed by the
/// host name. Encoding, version 1, integers little-endian:
///
/// ```text
/// 0      version (1)
/// 1      family mode: 0 any, 4 IPv4 only, 6 IPv6 only
/// 2      outcome: 0 addresses, 1 NXDOMAIN, 2 no address, 3 timeout, 4 failed
/// 3..11  when resolved, Unix milliseconds (real clock)
/// 11..15 TTL in seconds; 0xffffffff when the DNS gave none
/// 15..   UTF-8 text: the addresses, the chosen one first, space-separated;
///        or the failure's description; else empty
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEntry {
    pub family: Family,
    pub outcome: Outcome,
    pub resolved_ms: u64,
    pub ttl: u32,
}

pub(super) const HOST_ENTRY_VERSION: u8 = 1;

impl HostEntry {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(48);
        v.push(HOST_ENTRY_VERSION);
        v.push(self.family.mode());
        v.push(self.outcome.kind());
        v.extend_from_slice(&self.resolved_ms.to_le_bytes());
        v.extend_from_slice(&self.ttl.to_le_bytes());
        match &self.outcome {
            Outcome::Addrs(_) | Outcome::Failed(_) => {
                v.extend_from_slice(self.outcome.to_string().as_bytes())
            }
            _ => {}
        }
        v
    }

    pub fn decode(b: &[u8]) -> std::result::Result<HostEntry, &'static str> {
        if b.len() < 15 {
            return Err("truncated host entry");
        }
        if b[0] != HOST_ENTRY_VERSION {
            return Err("host entry of another version");
        }
        let family = match b[1] {
            0 => Family::Any,
            4 => Family::V4,
            6 => Family::V6,
            _ => return Err("unknown family"),
        };
        let resolved_ms = u64::from_le_bytes(b[3..11].try_into().map_err(|_| "bad time")?);
        let ttl = u32::from_le_bytes(b[11..15].try_into().map_err(|_| "bad TTL")?);
        let text = std::str::from_utf8(&b[15..]).map_err(|_| "text is not UTF-8")?;
        let outcome = match b[2] {
            0 => {
                let v: Vec<IpAddr> = text
                    .split(' ')
                    .map(|a| a.parse().map_err(|_| "bad address"))
                    .collect::<std::result::Result<_, _>>()?;
                if v.is_empty() {
                    return Err("no address");
                }
                Outcome::Addrs(v)
            }
            1 => Outcome::NxDomain,
            2 => Outcome::NoAddress,
            3 => Outcome::Timeout,
            4 => Outcome::Failed(text.to_string()),
            _ => return Err("unknown outcome"),
        };
        Ok(HostEntry {
            family,
            outcome,
            resolved_ms,
            ttl,
        })
    }

    /// How much longer the entry may be used, if at all.
    pub(super) fn remaining(&self, now_ms: u64, cache_age: Duration) -> Option<Duration> {
        let life = (self.ttl as u64 * 1000).min(cache_age.as_millis() as u64);
        let end = self.resolved_ms.saturating_add(life);
        (end > now_ms).then(|| Duration::from_millis(end - now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choosing_an_address() {
        let o = Outcome::Addrs(vec![
            "10.0.0.1".parse().unwrap(),
            "100.128.2.7".parse().unwrap(),
        ]);
        assert_eq!(o.choose(false).unwrap().to_string(), "100.128.2.7");
        assert_eq!(o.choose(true).unwrap().to_string(), "10.0.0.1");
        let p = Outcome::Addrs(vec!["10.0.0.1".parse().unwrap()]);
        assert_eq!(p.choose(false).unwrap_err(), "private address 10.0.0.1");
        assert_eq!(Outcome::NxDomain.choose(false).unwrap_err(), "NXDOMAIN");
        assert_eq!(Outcome::Timeout.choose(true).unwrap_err(), "DNS timeout");
        assert_eq!(Outcome::NoAddress.choose(true).unwrap_err(), "no address");
    }

    #[test]
    fn host_entries_round_trip() {
        for outcome in [
            Outcome::Addrs(vec![
                "192.0.2.1".parse().unwrap(),
                "2001:db8::1".parse().unwrap(),
            ]),
            Outcome::NxDomain,
            Outcome::NoAddress,
            Outcome::Timeout,
            Outcome::Failed("DNS error: SERVFAIL".into()),
        ] {
            let e = HostEntry {
                family: Family::V6,
                outcome,
                resolved_ms: 1_700_000_000_123,
                ttl: 300,
            };
            let b = e.encode();
            assert_eq!(b[0], 1);
            assert_eq!(HostEntry::decode(&b).unwrap(), e);
            for n in 0..15 {
                assert!(HostEntry::decode(&b[..n]).is_err());
            }
        }
        let mut b = HostEntry {
            family: Family::Any,
            outcome: Outcome::NxDomain,
            resolved_ms: 1,
            ttl: 1,
        }
        .encode();
        b[0] = 2;
        assert!(HostEntry::decode(&b).is_err());
    }

    #[test]
    fn host_entries_age_by_ttl_and_cache_age() {
        let e = HostEntry {
            family: Family::Any,
            outcome: Outcome::NxDomain,
            resolved_ms: 10_000,
            ttl: 5,
        };
        let age = Duration::from_secs(120);
        assert_eq!(e.remaining(10_000, age), Some(Duration::from_secs(5)));
        assert_eq!(e.remaining(15_000, age), None);
        let long = HostEntry { ttl: NO_TTL, ..e };
        assert_eq!(
            long.remaining(10_000, Duration::from_secs(2)),
            Some(Duration::from_secs(2))
        );
        assert_eq!(long.remaining(12_000, Duration::from_secs(2)), None);
    }
}

//! Addresses a crawler must not be steered to: every IANA special-purpose
//! range (the IPv4 and IPv6 Special-Purpose Address Registries, RFC 6890
//! and its updates), multicast, and the IPv6 forms that carry an IPv4
//! address inside them. One table, used by nlpc-resolve (answers) and by
//! the admission of URLs (IP-literal hosts).
//!
//! Ranges of the registries that are globally reachable anycast services
//! (AS112, AMT, PCP) are left out: no web server lives there, and nothing
//! is gained by naming them. Transition forms (6to4, Teredo, NAT64) are
//! refused whole: a crawler resolves A records itself, so it never needs
//! to reach an IPv4 server through them, and they would hide the address
//! really reached.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// IPv4 ranges refused: network, prefix length, what it is.
const V4: &[(Ipv4Addr, u8, &str)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8, "\"this network\""),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private (RFC 1918)"),
    (Ipv4Addr::new(100, 64, 0, 0), 10, "shared address space"),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private (RFC 1918)"),
    (Ipv4Addr::new(192, 0, 0, 0), 24, "IETF protocol assignments"),
    (Ipv4Addr::new(192, 0, 2, 0), 24, "documentation"),
    (Ipv4Addr::new(192, 88, 99, 0), 24, "6to4 relay anycast"),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private (RFC 1918)"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking"),
    (Ipv4Addr::new(198, 51, 100, 0), 24, "documentation"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "documentation"),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    // Before 240/4, which holds it: the narrower name wins.
    (Ipv4Addr::new(255, 255, 255, 255), 32, "broadcast"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved"),
];

/// IPv6 ranges refused; the IPv4-mapped range is judged by the IPv4
/// address it carries (see [`refused`]).
const V6: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96, "IPv4-compatible"),
    (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, "NAT64"),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local NAT64",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only",
    ),
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "Teredo"),
    (
        Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        "benchmarking",
    ),
    (Ipv6Addr::new(0x2001, 0x10, 0, 0, 0, 0, 0, 0), 28, "ORCHID"),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation",
    ),
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, "6to4"),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "segment routing",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "unique local",
    ),
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, "site-local"),
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

fn in_v4(a: Ipv4Addr, net: Ipv4Addr, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    u32::from(a) & mask == u32::from(net) & mask
}

fn in_v6(a: Ipv6Addr, net: Ipv6Addr, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    u128::from(a) & mask == u128::from(net) & mask
}

/// What special-purpose range `ip` lies in, or None for a public address.
/// `::1` and `::` are in the IPv4-compatible range and named as loopback
/// and unspecified.
pub fn refused(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(a) => V4
            .iter()
            .find(|(net, len, _)| in_v4(a, *net, *len))
            .map(|(_, _, what)| *what),
        IpAddr::V6(a) if a.is_loopback() => Some("loopback"),
        IpAddr::V6(a) if a.is_unspecified() => Some("unspecified"),
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => refused(IpAddr::V4(v4)),
            None => V6
                .iter()
                .find(|(net, len, _)| in_v6(a, *net, *len))
                .map(|(_, _, what)| *what),
        },
    }
}

/// True for an address a public page must not steer the crawler to.
pub fn is_private(ip: IpAddr) -> bool {
    refused(ip).is_some()
}

/// Parses a `--nameserver` value: an address with an optional port
/// (`192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`).
pub fn parse_nameserver(s: &str) -> std::result::Result<SocketAddr, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty address".into());
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let bare = s.strip_prefix('[').and_then(|x| x.strip_suffix(']'));
    match bare.unwrap_or(s).parse::<IpAddr>() {
        Ok(ip) => Ok(SocketAddr::new(ip, 53)),
        Err(_) => Err(format!("{s:?} is not an address or address:port")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(a: &str) -> Option<&'static str> {
        refused(a.parse().unwrap())
    }

    #[test]
    fn every_range_is_refused_at_its_edges_and_open_just_outside() {
        // (first address, last address, what, the address after the last)
        let cases = [
            ("0.0.0.0", "0.255.255.255", "\"this network\"", "1.0.0.0"),
            (
                "10.0.0.0",
                "10.255.255.255",
                "private (RFC 1918)",
                "11.0.0.0",
            ),
            (
                "100.64.0.0",
                "100.127.255.255",
                "shared address space",
                "100.128.0.0",
            ),
            ("127.0.0.0", "127.255.255.255", "loopback", "128.0.0.0"),
            (
                "169.254.0.0",
                "169.254.255.255",
                "link-local",
                "169.255.0.0",
            ),
            (
                "172.16.0.0",
                "172.31.255.255",
                "private (RFC 1918)",
                "172.32.0.0",
            ),
            (
                "192.0.0.0",
                "192.0.0.255",
                "IETF protocol assignments",
                "192.0.1.0",
            ),
            ("192.0.2.0", "192.0.2.255", "documentation", "192.0.3.0"),
            (
                "192.88.99.0",
                "192.88.99.255",
                "6to4 relay anycast",
                "192.88.100.0",
            ),
            (
                "192.168.0.0",
                "192.168.255.255",
                "private (RFC 1918)",
                "192.169.0.0",
            ),
            ("198.18.0.0", "198.19.255.255", "benchmarking", "198.20.0.0"),
            (
                "198.51.100.0",
                "198.51.100.255",
                "documentation",
                "198.51.101.0",
            ),
            (
                "203.0.113.0",
                "203.0.113.255",
                "documentation",
                "203.0.114.0",
            ),
            (
                "224.0.0.0",
                "239.255.255.255",
                "multicast",
                "223.255.255.255",
            ),
            (
                "240.0.0.0",
                "255.255.255.254",
                "reserved",
                "223.255.255.254",
            ),
            ("255.255.255.255", "255.255.255.255", "broadcast", "1.1.1.1"),
            ("::2", "::ffff:ffff", "IPv4-compatible", "::1:0:0"),
            ("64:ff9b::", "64:ff9b::ffff:ffff", "NAT64", "64:ff9b::1:0:0"),
            (
                "64:ff9b:1::",
                "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
                "local NAT64",
                "64:ff9b:2::",
            ),
            (
                "100::",
                "100::ffff:ffff:ffff:ffff",
                "discard-only",
                "100:0:0:1::",
            ),
            (
                "2001::",
                "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
                "Teredo",
                "2001:1::1",
            ),
            (
                "2001:2::",
                "2001:2:0:ffff:ffff:ffff:ffff:ffff",
                "benchmarking",
                "2001:2:1::",
            ),
            (
                "2001:10::",
                "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff",
                "ORCHID",
                "2001:20::",
            ),
            (
                "2001:db8::",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
                "documentation",
                "2001:db9::",
            ),
            (
                "2002::",
                "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "6to4",
                "2003::",
            ),
            (
                "3fff::",
                "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
                "documentation",
                "3fff:1000::",
            ),
            (
                "5f00::",
                "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "segment routing",
                "5f01::",
            ),
            (
                "fc00::",
                "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "unique local",
                "fbff::",
            ),
            (
                "fe80::",
                "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "link-local",
                "fe7f::",
            ),
            (
                "fec0::",
                "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "site-local",
                "2a00::1",
            ),
            (
                "ff00::",
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "multicast",
                "2a00::2",
            ),
        ];
        for (first, last, what, outside) in cases {
            assert_eq!(why(first), Some(what), "{first}");
            assert_eq!(why(last), Some(what), "{last}");
            assert_eq!(why(outside), None, "{outside} is public");
        }
        assert_eq!(why("::1"), Some("loopback"));
        assert_eq!(why("::"), Some("unspecified"));
    }

    #[test]
    fn ipv4_inside_ipv6_is_judged_by_its_ipv4() {
        // IPv4-mapped: the address it carries decides.
        assert_eq!(why("::ffff:127.0.0.1"), Some("loopback"));
        assert_eq!(why("::ffff:10.0.0.1"), Some("private (RFC 1918)"));
        assert_eq!(why("::ffff:100.128.0.1"), None);
        // IPv4-compatible, NAT64, 6to4 and Teredo carry an IPv4 address
        // too, and are refused whole, whatever they carry.
        assert_eq!(why("::7f00:1"), Some("IPv4-compatible"));
        assert_eq!(why("::a00:1"), Some("IPv4-compatible"));
        assert_eq!(why("64:ff9b::7f00:1"), Some("NAT64"));
        assert_eq!(why("2002:7f00:1::"), Some("6to4"));
        assert_eq!(why("2001:0:4136:e378:8000:63bf:3fff:fdd2"), Some("Teredo"));
    }

    #[test]
    fn public_addresses_pass() {
        for a in ["1.1.1.1", "100.128.0.1", "172.32.0.1", "2a00:1450::1"] {
            assert!(!is_private(a.parse().unwrap()), "{a} counted as private");
        }
    }
}

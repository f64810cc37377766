//! Addresses a crawler must not be steered to: the ranges of IP addresses
//! that are not public hosts.

use std::net::{IpAddr, SocketAddr};

/// True for addresses a public page must not steer the crawler to:
/// loopback, private (RFC 1918, RFC 6598 shared, IPv6 unique local),
/// link-local, multicast, unspecified, broadcast, "this network" (0/8),
/// IPv6 site-local, and IPv4-mapped IPv6 forms of these.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            a.is_loopback()
                || a.is_private()
                || a.is_link_local()
                || a.is_multicast()
                || a.is_unspecified()
                || a.is_broadcast()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
        }
        IpAddr::V6(a) => {
            let s0 = a.segments()[0];
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || (s0 & 0xfe00) == 0xfc00
                || (s0 & 0xffc0) == 0xfe80
                || (s0 & 0xffc0) == 0xfec0
                || a.to_ipv4_mapped()
                    .is_some_and(|v4| is_private(IpAddr::V4(v4)))
        }
    }
}

/// Parses a `--nameserver` value: an address with an optional port
/// (`192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`).
pub fn parse_nameserver(s: &str) -> std::result::Result<SocketAddr, String> {
    let s = s.trim();
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

    #[test]
    fn private_addresses() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.1.1",
            "224.0.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "100.64.0.1",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "fec0::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(a.parse().unwrap()), "{a} counted as public");
        }
        for a in [
            "192.0.2.1",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "2001:db8::1",
            "2a00:1450::1",
            "::ffff:93.184.216.34",
        ] {
            assert!(!is_private(a.parse().unwrap()), "{a} counted as private");
        }
    }
}

//! The partition map of a crawl spread over several machines: which node
//! owns a host. Every node computes the same answer from the host name
//! alone, so a host, its robots.txt and its politeness live on exactly
//! one node, and no node needs to ask another.
//!
//! The key is the host, lower-cased ASCII (the URL's normalised form
//! already is; a name in another script is in its punycode form), not the
//! registered domain: the suite has no public-suffix list, and a list that
//! changes would move hosts between nodes mid-crawl. The host is hashed
//! with BLAKE3 (stable across versions and machines, unlike the standard
//! library's hasher) and its first 8 bytes, taken modulo the partition
//! count, name the partition.

use std::fmt;

/// The largest partition count accepted: far more machines than a crawl
/// of one language needs, and small enough for a subject name.
pub const MAX_PARTITIONS: u32 = 1024;

/// This node's place in the map: partition `node` of `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    pub node: u32,
    pub of: u32,
}

impl Partition {
    /// Parses `I/N` (partition I of N, 0 ≤ I < N ≤ [`MAX_PARTITIONS`]).
    pub fn parse(s: &str) -> Result<Partition, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?}: give the node as I/N, as in 0/3"))?;
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("{s:?}: {t:?} is not a whole number"))
        };
        let (node, of) = (num(i)?, num(n)?);
        if of == 0 || of > MAX_PARTITIONS {
            return Err(format!(
                "{s:?}: the partition count must be 1 to {MAX_PARTITIONS}"
            ));
        }
        if node >= of {
            return Err(format!(
                "{s:?}: partitions are numbered 0 to {}",
                of.saturating_sub(1)
            ));
        }
        Ok(Partition { node, of })
    }

    /// The partition that owns `host`.
    pub fn of_host(&self, host: &str) -> u32 {
        partition_of(host, self.of)
    }

    /// True when `host` is this node's.
    pub fn owns(&self, host: &str) -> bool {
        self.of_host(host) == self.node
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.node, self.of)
    }
}

/// The partition of `of` that owns `host`.
pub fn partition_of(host: &str, of: u32) -> u32 {
    if of <= 1 {
        return 0;
    }
    let mut h = blake3::Hasher::new();
    // Lower-cased here too, so a caller's spelling cannot move a host.
    for b in host.bytes() {
        h.update(&[b.to_ascii_lowercase()]);
    }
    let d = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&d.as_bytes()[..8]);
    (u64::from_le_bytes(first) % u64::from(of)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_is_stable() {
        // Fixed values: a change of hash or of reduction would move every
        // host of a running cluster to another node.
        let got: Vec<u32> = ["example.lv", "www.lsm.lv", "a.b.c", "127.0.0.1"]
            .iter()
            .map(|h| partition_of(h, 7))
            .collect();
        let again: Vec<u32> = ["EXAMPLE.lv", "www.LSM.lv", "A.B.C", "127.0.0.1"]
            .iter()
            .map(|h| partition_of(h, 7))
            .collect();
        assert_eq!(got, again, "case moved a host");
        let want: Vec<u32> = ["example.lv", "www.lsm.lv", "a.b.c", "127.0.0.1"]
            .iter()
            .map(|h| {
                let d = blake3::hash(h.as_bytes());
                (u64::from_le_bytes(d.as_bytes()[..8].try_into().unwrap()) % 7) as u32
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(partition_of("anything", 1), 0);
    }

    #[test]
    fn the_mapping_is_even() {
        let n = 3u32;
        let hosts = 30_000;
        let mut per = vec![0u32; n as usize];
        for i in 0..hosts {
            per[partition_of(&format!("host{i}.example.lv"), n) as usize] += 1;
        }
        let mean = hosts / n;
        for c in &per {
            // Within 3% of the mean: a binomial spread is about 0.5% here.
            assert!(c.abs_diff(mean) < mean * 3 / 100, "uneven: {per:?}");
        }
    }

    #[test]
    fn node_options_parse_and_refuse() {
        assert_eq!(
            Partition::parse("1/3").unwrap(),
            Partition { node: 1, of: 3 }
        );
        assert_eq!(Partition::parse("1/3").unwrap().to_string(), "1/3");
        for bad in ["3/3", "0/0", "1", "a/3", "1/x", "0/5000", "-1/3"] {
            assert!(Partition::parse(bad).is_err(), "{bad} accepted");
        }
        let p = Partition { node: 2, of: 3 };
        assert_eq!(p.owns("h.lv"), partition_of("h.lv", 3) == 2);
    }
}

//! nlpc-resolve: moves NEW records to READY by resolving their host names to
//! physical addresses with hickory-resolver, politely.
//!
//! Politeness towards DNS servers, per server: at most `burst` queries, then
//! `pause` of rest; at most `concurrency` queries in flight; and a run-time
//! cache whose entries age out after `cache_age` (sooner when the answer's
//! TTL says so), so many records of one host cost one query.
//!
//! hickory picks among a pool's servers by itself, so every configured server
//! gets a resolver of its own, with hickory's retries, UDP retransmissions
//! and cache kept out of the way: every query we count is one query the
//! server sees, and we choose the server. The rest of the suite is synchronous; the resolvers run on a
//! current-thread tokio runtime driven only while a batch is being resolved.
//!
//! Per-host results also go to [`Table::Hosts`] (see [`HostEntry`]), which
//! serves as a second cache level shared by every nlpc-resolve process and
//! kept across restarts, with the same ageing rule.
//!
//! This file is the stage (batches of NEW records, their outcomes
//! committed); `dns` is the client (one resolver per server, pacing, the
//! run-time cache); `cache` is the per-host answer kept in the store.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ProtocolConfig, ResolveHosts, ResolverConfig, ResolverOpts,
    ServerOrderingStrategy,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::tcp::TcpClientStream;
use hickory_resolver::net::udp::UdpClientStream;
use hickory_resolver::net::xfer::DnsExchange;
use hickory_resolver::net::{DnsError, NetError, NoRecords};
use hickory_resolver::proto::op::{Query, ResponseCode};
use hickory_resolver::proto::rr::{Name, RData, RecordType};
use hickory_resolver::{ConnectionProvider, Hosts, PoolContext};

use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::daemon::Daemon;
use crate::store::record::{Lease, Record, State};
use crate::store::{Key, Store, Table};
use crate::web::address::is_private;
use crate::web::politeness::{Gate, Policy};
use crate::{debug, info};

mod cache;
mod dns;
pub mod figures;

pub use cache::{HostEntry, Outcome, NO_TTL};
pub use dns::{parse_nameserver, servers_from_resolv_conf, Resolver, Stats};
use dns::{target, Cached, Inner, Target};

/// Default queries to one server per burst: with [`DEFAULT_PAUSE`], 256
/// queries a second at most, well under the per-client limits public
/// recursive resolvers state (about a thousand a second and more), and
/// enough that names do not hold back a broad crawl of 512 addresses.
pub const DEFAULT_BURST: u32 = 256;

/// Default rest of a server after a burst.
pub const DEFAULT_PAUSE: Duration = Duration::from_secs(1);

/// Default queries in flight to one server.
pub const DEFAULT_CONCURRENCY: usize = 16;

/// Default age after which a cached answer is asked again.
pub const DEFAULT_CACHE_AGE: Duration = Duration::from_secs(120);

/// Default wait for one answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Default further tries of a query that timed out or failed.
pub const DEFAULT_RETRIES: u32 = 2;

/// Default records taken per transaction.
pub const DEFAULT_BATCH: usize = 1000;

/// The hosts file read by default.
pub const DEFAULT_HOSTS_FILE: &str = "/etc/hosts";

/// Where the system's name servers are configured.
pub const RESOLV_CONF: &str = "/etc/resolv.conf";

/// How often a resolving batch looks for a stop signal.
const STOP_TICK: Duration = Duration::from_millis(100);

/// Which address families to ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// The family the machine can reach first, the other if it has none.
    Any,
    /// Only IPv4 (`-4`).
    V4,
    /// Only IPv6 (`-6`).
    V6,
}

impl Family {
    /// The byte stored in [`HostEntry`], so that a process asking for
    /// another family does not take this one's answers.
    fn mode(self) -> u8 {
        match self {
            Family::Any => 0,
            Family::V4 => 4,
            Family::V6 => 6,
        }
    }
}

/// How nlpc-resolve works.
#[derive(Clone, Debug)]
pub struct Config {
    pub family: Family,
    /// `--allow-private`: accept loopback, private, link-local, multicast
    /// and unspecified addresses.
    pub allow_private: bool,
    /// `--dns-burst`: queries to one server before it rests.
    pub burst: u32,
    /// `--dns-pause`: how long a server rests after a burst.
    pub pause: Duration,
    /// `--dns-concurrency`: queries in flight to one server.
    pub concurrency: usize,
    /// `--dns-cache-age`: the longest an answer is used without asking again.
    pub cache_age: Duration,
    /// `--dns-timeout`: the wait for one answer.
    pub timeout: Duration,
    /// `--dns-retries`: further tries after a timeout or a server failure.
    pub retries: u32,
    /// `--nameserver`: the servers to ask; empty means those of
    /// /etc/resolv.conf.
    pub nameservers: Vec<SocketAddr>,
    /// `--hosts-file`: names answered without DNS.
    pub hosts_file: PathBuf,
    /// Records taken per transaction.
    pub batch: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            family: Family::Any,
            allow_private: false,
            burst: DEFAULT_BURST,
            pause: DEFAULT_PAUSE,
            concurrency: DEFAULT_CONCURRENCY,
            cache_age: DEFAULT_CACHE_AGE,
            timeout: DEFAULT_TIMEOUT,
            retries: DEFAULT_RETRIES,
            nameservers: Vec::new(),
            hosts_file: DEFAULT_HOSTS_FILE.into(),
            batch: DEFAULT_BATCH,
        }
    }
}

impl Config {
    /// nlpc-resolve's configuration from its options.
    pub fn from_options(o: &crate::run::options::Parsed) -> Result<Config> {
        let family = match (o.flag("4"), o.flag("6")) {
            (true, true) => return Err(Error::Usage("-4 and -6 exclude each other".into())),
            (true, false) => Family::V4,
            (false, true) => Family::V6,
            (false, false) => Family::Any,
        };
        Ok(Config {
            family,
            allow_private: o.flag("allow-private"),
            burst: o.int("dns-burst")?,
            pause: o.duration("dns-pause")?,
            concurrency: o.int("dns-concurrency")?,
            cache_age: o.duration("dns-cache-age")?,
            timeout: o.duration("dns-timeout")?,
            retries: o.int("dns-retries")?,
            nameservers: o.addresses("nameserver")?,
            hosts_file: o.required_path("hosts-file")?,
            batch: DEFAULT_BATCH,
        })
    }
}

/// True when /proc/net/ipv6_route (given as text) holds a usable default
/// route that does not go through loopback: then the machine can reach the
/// IPv6 Internet, and IPv6 is the preferred family.
pub fn has_ipv6_default_route(ipv6_route: &str) -> bool {
    const RTF_UP: u32 = 0x0001;
    const RTF_REJECT: u32 = 0x0200;
    ipv6_route.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 10 {
            return false;
        }
        let flags = u32::from_str_radix(f[8], 16).unwrap_or(0);
        f[0].bytes().all(|b| b == b'0')
            && f[1] == "00"
            && f[9] != "lo"
            && flags & RTF_UP != 0
            && flags & RTF_REJECT == 0
    })
}

/// True when /proc/net/if_inet6 (given as text) lists a global unicast
/// IPv6 address (2000::/3): unique local and link-local ones reach no
/// public server.
pub fn has_global_ipv6_address(if_inet6: &str) -> bool {
    if_inet6.lines().any(|l| {
        let a = l.split_whitespace().next().unwrap_or("");
        a.len() == 32 && matches!(a.as_bytes()[0], b'2' | b'3')
    })
}

/// The family this machine prefers: IPv6 when it has a global IPv6
/// address and an IPv6 default route, IPv4 otherwise.
pub fn preferred_family() -> Family {
    let read = |p| std::fs::read_to_string(p).unwrap_or_default();
    if has_global_ipv6_address(&read("/proc/net/if_inet6"))
        && has_ipv6_default_route(&read("/proc/net/ipv6_route"))
    {
        Family::V6
    } else {
        Family::V4
    }
}

/// One NEW → READY/UNREACH step over up to `cfg.batch` records, in the
/// daemon `d`; returns how many records were moved.
pub fn step(d: &Daemon, r: &mut Resolver) -> Result<usize> {
    run_batch(&d.store, d.lease(), r, &|| d.signals.stopping())
}

/// What one batch found for one host.
struct HostResult {
    outcome: Outcome,
    /// Resolved in this batch, so the per-host table is to be written.
    fresh: Option<u32>,
}

/// One batch: lease NEW records, resolve their hosts (cache, literal, hosts
/// file, per-host table, then DNS outside any transaction), and store the
/// results in one transaction. Records whose host stayed unresolved (a stop
/// signal, or servers resting) go back to NEW unchanged.
pub fn run_batch(
    store: &Store,
    lease: Lease,
    r: &mut Resolver,
    stop: &dyn Fn() -> bool,
) -> Result<usize> {
    let inner = &mut r.inner;
    let now = Instant::now();
    inner.prune(now);
    let mode = inner.cfg.family;
    let mut results: HashMap<String, HostResult> = HashMap::new();
    let mut need: Vec<String> = Vec::new();
    let batch = {
        let mut w = store.write()?;
        let batch = w.lease_from(State::New, inner.cfg.batch, lease, inner.resume.as_ref())?;
        if let Some((k, _)) = batch.last() {
            inner.resume = Some(*k);
        }
        let now_ms = clock::real_now_ms();
        let mut asking: HashSet<&str> = HashSet::new();
        for (_, rec) in &batch {
            let host = rec.host();
            if results.contains_key(host) || asking.contains(host) {
                continue;
            }
            if let Some((o, new)) = inner.known(host, now) {
                if !new {
                    inner.stats.cache_hits += 1;
                }
                results.insert(
                    host.to_string(),
                    HostResult {
                        outcome: o,
                        // Literals and hosts-file answers are written to
                        // the per-host table once per cache age too.
                        fresh: new.then_some(NO_TTL),
                    },
                );
                continue;
            }
            // Another process, or an earlier run, may have asked already.
            let entry = w
                .table_get(Table::Hosts, host.as_bytes())?
                .and_then(|v| HostEntry::decode(&v).ok())
                .filter(|e| e.family == mode);
            match entry.and_then(|e| e.remaining(now_ms, inner.cfg.cache_age).map(|t| (e, t))) {
                Some((e, left)) => {
                    inner.stats.cache_hits += 1;
                    inner.cache.insert(
                        host.to_string(),
                        Cached {
                            outcome: e.outcome.clone(),
                            expires: now + left,
                        },
                    );
                    results.insert(
                        host.to_string(),
                        HostResult {
                            outcome: e.outcome,
                            fresh: None,
                        },
                    );
                }
                None => {
                    asking.insert(host);
                    need.push(host.to_string());
                }
            }
        }
        w.commit()?;
        batch
    };
    if batch.is_empty() {
        return Ok(0);
    }
    if !need.is_empty() {
        debug!("{} hosts to ask of the name servers", need.len());
        let eager = !results.is_empty();
        let asked = r.resolve(need, stop, eager);
        let inner = &mut r.inner;
        let now = Instant::now();
        for (host, outcome, ttl) in asked {
            inner.remember(&host, outcome.clone(), ttl, now);
            results.insert(
                host,
                HostResult {
                    outcome,
                    fresh: Some(ttl),
                },
            );
        }
    }
    finish_batch(store, lease, &mut r.inner, &batch, &results)
}

fn finish_batch(
    store: &Store,
    lease: Lease,
    inner: &mut Inner,
    batch: &[(Key, Record)],
    results: &HashMap<String, HostResult>,
) -> Result<usize> {
    let allow = inner.cfg.allow_private;
    let changed = clock::now();
    let now_ms = clock::real_now_ms();
    let mut per_host: HashMap<&str, usize> = HashMap::new();
    let (mut moved, mut released) = (0, 0);
    let mut w = store.write()?;
    for (key, rec) in batch {
        let Some(res) = results.get(rec.host()) else {
            // Unresolved: back to NEW, as it was.
            w.finish(key, rec, lease)?;
            released += 1;
            continue;
        };
        let mut done = rec.clone();
        done.changed = changed;
        match res.outcome.choose(allow) {
            Ok(a) => {
                done.state = State::Ready;
                done.addr = a.to_string();
                done.reason.clear();
            }
            Err(why) => {
                done.state = State::Unreach;
                done.addr.clear();
                done.reason = why;
            }
        }
        if !w.finish(key, &done, lease)? {
            debug!("{}: lease lost, skipped", rec.url);
            continue;
        }
        if done.state == State::Unreach {
            inner.stats.unreach += 1;
        }
        debug!("{} {} {}{}", done.state, rec.url, done.addr, done.reason);
        *per_host.entry(rec.host()).or_default() += 1;
        moved += 1;
    }
    for (host, res) in results {
        let Some(ttl) = res.fresh else { continue };
        if matches!(target(host), Target::Bad) {
            continue;
        }
        let chosen = res.outcome.choose(allow);
        let outcome = match (&res.outcome, &chosen) {
            // The chosen address first, the others after it.
            (Outcome::Addrs(v), Ok(a)) => {
                let mut o = vec![*a];
                o.extend(v.iter().filter(|x| *x != a));
                Outcome::Addrs(o)
            }
            (o, _) => o.clone(),
        };
        let entry = HostEntry {
            family: inner.cfg.family,
            outcome,
            resolved_ms: now_ms,
            ttl,
        };
        w.table_put(Table::Hosts, host.as_bytes(), &entry.encode())?;
        let n = per_host.get(host.as_str()).copied().unwrap_or(0);
        let records = if n == 1 { "record" } else { "records" };
        match chosen {
            Ok(a) => info!("{host}: {a} ({n} {records})"),
            Err(why) => info!("{host}: {why} ({n} {records})"),
        }
    }
    w.commit()?;
    if released > 0 {
        debug!("{released} records returned to NEW for later");
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_default_route_detection() {
        let lo_only = "\
00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000001 00000000 00000001       lo
00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo
";
        assert!(!has_ipv6_default_route(lo_only));
        let global = "\
20010db8000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0
";
        assert!(has_ipv6_default_route(global));
        assert!(!has_ipv6_default_route(""));
        let ula = "\
fe8000000000000000fc00fffe000001 04 40 20 80     eth0
00000000000000000000000000000001 01 80 10 80       lo
fd000000000000000000000000000002 04 40 00 82     eth0
";
        assert!(!has_global_ipv6_address(ula));
        assert!(has_global_ipv6_address(
            "20010db8000000000000000000000002 04 40 00 80     eth0\n"
        ));
    }
}

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

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
use crate::{debug, info};

/// Default queries to one server per burst.
pub const DEFAULT_BURST: u32 = 64;
/// Default rest of a server after a burst.
pub const DEFAULT_PAUSE: Duration = Duration::from_secs(5);
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

/// The name servers of a resolv.conf text, on port 53.
pub fn servers_from_resolv_conf(text: &[u8]) -> std::result::Result<Vec<SocketAddr>, String> {
    let (conf, _) =
        hickory_resolver::system_conf::parse_resolv_conf(text).map_err(|e| e.to_string())?;
    let mut out: Vec<SocketAddr> = Vec::new();
    for ns in conf.name_servers() {
        let port = ns
            .connections
            .iter()
            .find(|c| c.protocol == ProtocolConfig::Udp)
            .map_or(53, |c| c.port);
        let a = SocketAddr::new(ns.ip, port);
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

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

    fn kind(&self) -> u8 {
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

const HOST_ENTRY_VERSION: u8 = 1;

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
    fn remaining(&self, now_ms: u64, cache_age: Duration) -> Option<Duration> {
        let life = (self.ttl as u64 * 1000).min(cache_age.as_millis() as u64);
        let end = self.resolved_ms.saturating_add(life);
        (end > now_ms).then(|| Duration::from_millis(end - now_ms))
    }
}

fn real_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// One server's politeness state: the current burst, its rest, and the
/// queries in flight. Times are passed in so that tests can drive it.
#[derive(Debug)]
pub struct Pacer {
    burst: u32,
    pause: Duration,
    concurrency: usize,
    /// Queries sent in the current burst.
    sent: u32,
    inflight: usize,
    /// While resting, when the rest ends.
    rest_until: Option<Instant>,
    /// When the last query in flight finished.
    idle_since: Instant,
}

impl Pacer {
    pub fn new(burst: u32, pause: Duration, concurrency: usize, now: Instant) -> Pacer {
        Pacer {
            burst: burst.max(1),
            pause,
            concurrency: concurrency.max(1),
            sent: 0,
            inflight: 0,
            rest_until: None,
            idle_since: now,
        }
    }

    /// True when a query may be sent now.
    pub fn ready(&mut self, now: Instant) -> bool {
        if let Some(t) = self.rest_until {
            if now < t {
                return false;
            }
            self.rest_until = None;
            self.sent = 0;
        }
        // A server left idle for a whole pause has rested as much as a pause
        // would rest it: a new burst begins.
        if self.inflight == 0 && self.sent > 0 && now >= self.idle_since + self.pause {
            self.sent = 0;
        }
        self.inflight < self.concurrency && self.sent < self.burst
    }

    /// A query was sent.
    pub fn sent(&mut self) {
        self.sent += 1;
        self.inflight += 1;
    }

    /// A query finished (answered, failed or abandoned). The rest after a
    /// full burst starts when its last query is done, so the server sees at
    /// least a pause between the bursts.
    pub fn done(&mut self, now: Instant) {
        self.inflight = self.inflight.saturating_sub(1);
        if self.inflight == 0 {
            self.idle_since = now;
            if self.sent >= self.burst {
                self.rest_until = Some(now + self.pause);
            }
        }
    }

    /// When a resting server may be asked again.
    pub fn wake(&self) -> Option<Instant> {
        self.rest_until
    }
}

/// hickory's own connection provider, except that a UDP query is sent once:
/// its retransmissions would be queries we do not count. Retries are ours
/// (`--dns-retries`), each one counted against the burst.
#[derive(Clone, Default)]
struct OneShot(TokioRuntimeProvider);

type BoxConn = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = std::result::Result<DnsExchange<TokioRuntimeProvider>, NetError>,
            > + Send,
    >,
>;

impl ConnectionProvider for OneShot {
    type Conn = DnsExchange<TokioRuntimeProvider>;
    type FutureConn = BoxConn;
    type RuntimeProvider = TokioRuntimeProvider;

    fn new_connection(
        &self,
        ip: IpAddr,
        config: &ConnectionConfig,
        cx: &PoolContext,
    ) -> std::result::Result<BoxConn, NetError> {
        let remote = SocketAddr::new(ip, config.port);
        let (provider, timeout, bind) = (self.0.clone(), cx.options.timeout, config.bind_addr);
        #[allow(unreachable_patterns)]
        match config.protocol {
            ProtocolConfig::Udp => Ok(Box::pin(async move {
                Ok(UdpClientStream::builder(remote, provider)
                    .with_timeout(Some(timeout))
                    .with_max_retries(1)
                    .with_bind_addr(bind)
                    .exchange())
            })),
            // Only for answers too large for UDP.
            ProtocolConfig::Tcp => Ok(Box::pin(TcpClientStream::exchange(
                remote,
                bind,
                timeout,
                Some(cx.options.max_active_requests),
                provider,
            ))),
            _ => Err(NetError::from(
                "only UDP and TCP name servers are supported",
            )),
        }
    }

    fn runtime_provider(&self) -> &TokioRuntimeProvider {
        &self.0
    }
}

type Dns = hickory_resolver::Resolver<OneShot>;

/// One configured name server.
struct Server {
    addr: SocketAddr,
    dns: Dns,
    pacer: Pacer,
}

fn build_dns(addr: SocketAddr, cfg: &Config) -> Result<Dns> {
    let conn = |mut c: ConnectionConfig| {
        c.port = addr.port();
        c
    };
    let ns = NameServerConfig::new(
        addr.ip(),
        true,
        vec![conn(ConnectionConfig::udp()), conn(ConnectionConfig::tcp())],
    );
    let mut opts = ResolverOpts::default();
    opts.timeout = cfg.timeout;
    // No retries and no cache inside hickory: both are ours, counted. (Its
    // cache cannot be switched off; it is kept empty, see `resolve`. Its TTL
    // bounds are left alone, since they rewrite the answers' TTLs.)
    opts.attempts = 0;
    opts.cache_size = 0;
    // The hosts file is read once by us, before any query.
    opts.use_hosts_file = ResolveHosts::Never;
    opts.num_concurrent_reqs = 1;
    opts.max_active_requests = cfg.concurrency.max(32);
    opts.server_ordering_strategy = ServerOrderingStrategy::UserProvidedOrder;
    hickory_resolver::Resolver::builder_with_config(
        ResolverConfig::from_name_servers(vec![ns]),
        OneShot::default(),
    )
    .with_options(opts)
    .build()
    .map_err(|e| Error::Usage(format!("name server {addr}: {e}")))
}

/// A cached outcome and when it ages out.
struct Cached {
    outcome: Outcome,
    expires: Instant,
}

/// One host's resolution in progress: which family is being asked and how
/// many tries it has had.
struct Job {
    host: String,
    name: Name,
    families: Vec<RecordType>,
    next_family: usize,
    attempt: u32,
    last_server: Option<usize>,
}

/// What the resolver did, for logs and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Queries sent to name servers.
    pub queries: u64,
    /// Hosts answered from the run-time cache or the per-host table.
    pub cache_hits: u64,
    /// Hosts resolved by DNS.
    pub resolved: u64,
}

/// The resolving engine: servers, their pacing, the hosts file and the
/// run-time cache. One per process; it lives across batches.
pub struct Resolver {
    rt: tokio::runtime::Runtime,
    inner: Inner,
}

struct Inner {
    cfg: Config,
    /// The families to ask for, in order.
    families: Vec<RecordType>,
    servers: Vec<Server>,
    next_server: usize,
    hosts: Hosts,
    cache: HashMap<String, Cached>,
    next_prune: Instant,
    stats: Stats,
}

impl Resolver {
    /// Sets up the servers (`cfg.nameservers`, or those of resolv.conf),
    /// reads the hosts file and decides the family order.
    pub fn new(cfg: Config) -> Result<Resolver> {
        let mut servers = cfg.nameservers.clone();
        if servers.is_empty() {
            let text = std::fs::read(RESOLV_CONF)
                .map_err(|e| Error::io(RESOLV_CONF, "cannot read name servers", e))?;
            servers = servers_from_resolv_conf(&text)
                .map_err(|e| Error::Input(format!("{RESOLV_CONF}: {e}")))?;
        }
        let mut hosts = Hosts::default();
        match std::fs::File::open(&cfg.hosts_file) {
            Ok(f) => hosts
                .read_hosts_conf(f)
                .map_err(|e| Error::io(&cfg.hosts_file, "cannot read hosts file", e))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&cfg.hosts_file, "cannot read hosts file", e)),
        }
        let families = match cfg.family {
            Family::V4 => vec![RecordType::A],
            Family::V6 => vec![RecordType::AAAA],
            Family::Any => match preferred_family() {
                Family::V6 => vec![RecordType::AAAA, RecordType::A],
                _ => vec![RecordType::A, RecordType::AAAA],
            },
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::io("tokio", "cannot start the DNS runtime", e))?;
        let now = Instant::now();
        let servers = {
            // hickory spawns its connection tasks on the current runtime.
            let _guard = rt.enter();
            servers
                .iter()
                .map(|a| {
                    Ok(Server {
                        addr: *a,
                        dns: build_dns(*a, &cfg)?,
                        pacer: Pacer::new(cfg.burst, cfg.pause, cfg.concurrency, now),
                    })
                })
                .collect::<Result<Vec<_>>>()?
        };
        let names: Vec<String> = servers.iter().map(|s| s.addr.to_string()).collect();
        debug!("name servers {}", names.join(" "));
        Ok(Resolver {
            rt,
            inner: Inner {
                cfg,
                families,
                servers,
                next_server: 0,
                hosts,
                cache: HashMap::new(),
                next_prune: now,
                stats: Stats::default(),
            },
        })
    }

    /// What the resolver has done so far.
    pub fn stats(&self) -> Stats {
        self.inner.stats
    }

    /// Resolves host names by DNS, politely; `stop` is polled while waiting.
    /// Returns the outcomes with their TTLs. Hosts missing from the result
    /// are unresolved: `stop` said so, or every server that could take them
    /// rests and waiting would hold up other results (some hosts resolved
    /// already, or `eager`: the caller has other results to store).
    fn resolve(
        &mut self,
        hosts: Vec<String>,
        stop: &dyn Fn() -> bool,
        eager: bool,
    ) -> Vec<(String, Outcome, u32)> {
        let Resolver { rt, inner } = self;
        rt.block_on(inner.resolve(hosts, stop, eager))
    }
}

/// The host of a record's URL as a DNS name, or an IP literal.
enum Target {
    Literal(IpAddr),
    Name(Name),
    Bad,
}

fn target(host: &str) -> Target {
    if host.is_empty() {
        return Target::Bad;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse().map_or(Target::Bad, Target::Literal);
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Target::Literal(ip);
    }
    // Hosts are normalised already (lowercase, IDNA ASCII); fully qualified
    // so that no search domain is ever appended.
    match Name::from_ascii(host) {
        Ok(mut n) => {
            n.set_fqdn(true);
            Target::Name(n)
        }
        Err(_) => Target::Bad,
    }
}

/// Addresses and the least TTL of the answers of the asked type.
fn addrs_of(lookup: &hickory_resolver::lookup::Lookup, rtype: RecordType) -> (Vec<IpAddr>, u32) {
    let mut v = Vec::new();
    let mut ttl = NO_TTL;
    for r in lookup.answers() {
        ttl = ttl.min(r.ttl);
        match (&r.data, rtype) {
            (RData::A(a), RecordType::A) => v.push(IpAddr::V4(a.0)),
            (RData::AAAA(a), RecordType::AAAA) => v.push(IpAddr::V6(a.0)),
            _ => {}
        }
    }
    (v, ttl)
}

fn describe(e: &NetError) -> String {
    match e {
        NetError::Dns(DnsError::ResponseCode(rc)) => match rc {
            ResponseCode::ServFail => "DNS error: SERVFAIL".into(),
            ResponseCode::Refused => "DNS error: REFUSED".into(),
            rc => format!("DNS error: {rc}"),
        },
        NetError::Io(io) => format!("DNS error: {io}"),
        e => format!("DNS error: {e}"),
    }
}

impl Inner {
    /// The outcome for `host` without asking any server: the cache, an IP
    /// literal, or the hosts file; true when it was not cached (it is now).
    fn known(&mut self, host: &str, now: Instant) -> Option<(Outcome, bool)> {
        if let Some(c) = self.cache.get(host) {
            if c.expires > now {
                return Some((c.outcome.clone(), false));
            }
        }
        let found = match target(host) {
            Target::Literal(ip) => Some(Outcome::Addrs(vec![ip])),
            Target::Bad => Some(Outcome::Failed("bad host name".into())),
            Target::Name(name) => self.special_use(host).or_else(|| self.in_hosts_file(name)),
        }?;
        self.remember(host, found.clone(), NO_TTL, now);
        Some((found, true))
    }

    /// Special-use names (RFC 6761, RFC 7686) that no server is asked
    /// about: localhost is the loopback address; .invalid and .onion names
    /// do not exist in the DNS.
    fn special_use(&self, host: &str) -> Option<Outcome> {
        let host = host.trim_end_matches('.');
        let under =
            |zone: &str| host == zone || host.strip_suffix(zone).is_some_and(|h| h.ends_with('.'));
        if under("localhost") {
            let ip = match self.families.first() {
                Some(RecordType::AAAA) => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
                _ => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            };
            return Some(Outcome::Addrs(vec![ip]));
        }
        (under("invalid") || under("onion")).then_some(Outcome::NxDomain)
    }

    fn in_hosts_file(&self, name: Name) -> Option<Outcome> {
        for t in &self.families {
            let q = Query::query(name.clone(), *t);
            if let Some(l) = self.hosts.lookup_static_host(&q) {
                let (v, _) = addrs_of(&l, *t);
                if !v.is_empty() {
                    return Some(Outcome::Addrs(v));
                }
            }
        }
        None
    }

    fn remember(&mut self, host: &str, outcome: Outcome, ttl: u32, now: Instant) {
        let life = Duration::from_secs(ttl as u64).min(self.cfg.cache_age);
        self.cache.insert(
            host.to_string(),
            Cached {
                outcome,
                expires: now + life,
            },
        );
    }

    /// Drops aged entries now and then, so the cache holds about one cache
    /// age worth of hosts.
    fn prune(&mut self, now: Instant) {
        if now >= self.next_prune {
            self.cache.retain(|_, c| c.expires > now);
            self.next_prune = now + self.cfg.cache_age.max(Duration::from_secs(1));
        }
    }

    /// The next server to ask, round-robin among those ready, avoiding
    /// `avoid` (the server that just failed) when another is ready.
    fn pick(&mut self, now: Instant, avoid: Option<usize>) -> Option<usize> {
        let n = self.servers.len();
        let mut fallback = None;
        for k in 0..n {
            let i = (self.next_server + k) % n;
            if self.servers[i].pacer.ready(now) {
                if avoid == Some(i) && n > 1 {
                    fallback = Some(i);
                    continue;
                }
                self.next_server = (i + 1) % n;
                return Some(i);
            }
        }
        fallback
    }

    async fn resolve(
        &mut self,
        hosts: Vec<String>,
        stop: &dyn Fn() -> bool,
        eager: bool,
    ) -> Vec<(String, Outcome, u32)> {
        let mut done = Vec::new();
        let mut queue = VecDeque::new();
        for host in hosts {
            match target(&host) {
                Target::Name(name) => queue.push_back(Job {
                    host,
                    name,
                    families: self.families.clone(),
                    next_family: 0,
                    attempt: 0,
                    last_server: None,
                }),
                Target::Literal(ip) => done.push((host, Outcome::Addrs(vec![ip]), NO_TTL)),
                Target::Bad => done.push((host, Outcome::Failed("bad host name".into()), 0)),
            }
        }
        let mut set = tokio::task::JoinSet::new();
        let mut flying: HashMap<tokio::task::Id, (Job, usize)> = HashMap::new();
        loop {
            let now = Instant::now();
            while let Some(job) = queue.front() {
                let Some(si) = self.pick(now, job.last_server) else {
                    break;
                };
                let Some(job) = queue.pop_front() else { break };
                let server = &mut self.servers[si];
                server.pacer.sent();
                self.stats.queries += 1;
                let (dns, name) = (server.dns.clone(), job.name.clone());
                let rtype = job.families[job.next_family];
                // Whatever hickory cached would answer without a query.
                dns.clear_lookup_cache(name.clone(), rtype);
                debug!("asking {} for {} {rtype}", server.addr, job.host);
                let h = set.spawn(async move { dns.lookup(name, rtype).await });
                flying.insert(h.id(), (job, si));
            }
            if set.is_empty() && (queue.is_empty() || eager || !done.is_empty()) {
                break;
            }
            if stop() {
                break;
            }
            let mut until = now + STOP_TICK;
            if let Some(w) = self.servers.iter().filter_map(|s| s.pacer.wake()).min() {
                until = until.min(w);
            }
            if set.is_empty() {
                // Every server that could take the queue rests.
                tokio::time::sleep_until(until.into()).await;
                continue;
            }
            let joined = match tokio::time::timeout_at(until.into(), set.join_next_with_id()).await
            {
                Ok(Some(j)) => j,
                Ok(None) | Err(_) => continue,
            };
            let (id, result) = match joined {
                Ok((id, r)) => (id, Ok(r)),
                Err(e) => (e.id(), Err(e)),
            };
            let Some((mut job, si)) = flying.remove(&id) else {
                continue;
            };
            self.servers[si].pacer.done(Instant::now());
            let rtype = job.families[job.next_family];
            let err = match result {
                Ok(Ok(lookup)) => {
                    let (v, ttl) = addrs_of(&lookup, rtype);
                    if !v.is_empty() {
                        done.push((job.host, Outcome::Addrs(v), ttl));
                        continue;
                    }
                    // An answer of only a CNAME is no data for this type.
                    NetError::from(NoRecords::new(
                        lookup.query().clone(),
                        ResponseCode::NoError,
                    ))
                }
                Ok(Err(e)) => e,
                Err(join) => NetError::from(format!("resolver task failed: {join}")),
            };
            if let NetError::Dns(DnsError::NoRecordsFound(nr)) = &err {
                let ttl = nr.negative_ttl.unwrap_or(NO_TTL);
                if nr.response_code == ResponseCode::NXDomain {
                    done.push((job.host, Outcome::NxDomain, ttl));
                } else if job.next_family + 1 < job.families.len() {
                    job.next_family += 1;
                    job.attempt = 0;
                    job.last_server = None;
                    queue.push_back(job);
                } else {
                    done.push((job.host, Outcome::NoAddress, ttl));
                }
                continue;
            }
            if job.attempt < self.cfg.retries {
                debug!("{}: {err}; trying again", job.host);
                job.attempt += 1;
                job.last_server = Some(si);
                queue.push_back(job);
                continue;
            }
            let outcome = match err {
                NetError::Timeout => Outcome::Timeout,
                e => Outcome::Failed(describe(&e)),
            };
            done.push((job.host, outcome, NO_TTL));
        }
        // Queries abandoned on a stop no longer count as in flight.
        let now = Instant::now();
        for (_, (_, si)) in flying.drain() {
            self.servers[si].pacer.done(now);
        }
        set.abort_all();
        self.stats.resolved += done.len() as u64;
        done
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
        let batch = w.lease(State::New, inner.cfg.batch, lease)?;
        let now_ms = real_now_ms();
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
    finish_batch(store, lease, &r.inner, &batch, &results)
}

fn finish_batch(
    store: &Store,
    lease: Lease,
    inner: &Inner,
    batch: &[(Key, Record)],
    results: &HashMap<String, HostResult>,
) -> Result<usize> {
    let allow = inner.cfg.allow_private;
    let changed = clock::now();
    let now_ms = real_now_ms();
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

    #[test]
    fn choosing_an_address() {
        let o = Outcome::Addrs(vec![
            "10.0.0.1".parse().unwrap(),
            "192.0.2.7".parse().unwrap(),
        ]);
        assert_eq!(o.choose(false).unwrap().to_string(), "192.0.2.7");
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

    #[test]
    fn nameserver_arguments() {
        assert_eq!(
            parse_nameserver("192.0.2.53").unwrap(),
            "192.0.2.53:53".parse().unwrap()
        );
        assert_eq!(
            parse_nameserver("127.0.0.1:5353").unwrap(),
            "127.0.0.1:5353".parse().unwrap()
        );
        assert_eq!(
            parse_nameserver("2001:db8::53").unwrap(),
            "[2001:db8::53]:53".parse().unwrap()
        );
        assert_eq!(
            parse_nameserver("[2001:db8::53]:5353").unwrap(),
            "[2001:db8::53]:5353".parse().unwrap()
        );
        assert!(parse_nameserver("dns.example").is_err());
        assert!(parse_nameserver("192.0.2.53:x").is_err());
    }

    #[test]
    fn resolv_conf_servers() {
        let v = servers_from_resolv_conf(
            b"# comment\nsearch example.lv\nnameserver 192.0.2.53\nnameserver 2001:db8::53\noptions ndots:2\n",
        )
        .unwrap();
        assert_eq!(
            v,
            [
                "192.0.2.53:53".parse::<SocketAddr>().unwrap(),
                "[2001:db8::53]:53".parse().unwrap()
            ]
        );
        assert!(servers_from_resolv_conf(b"search example.lv\n").is_err());
    }

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

    #[test]
    fn pacer_bursts_rests_and_limits_concurrency() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut p = Pacer::new(3, Duration::from_millis(500), 2, t0);
        assert!(p.ready(t0));
        p.sent();
        assert!(p.ready(t0));
        p.sent();
        // Two in flight: the concurrency limit.
        assert!(!p.ready(t0));
        p.done(ms(10));
        assert!(p.ready(ms(10)));
        p.sent();
        // The burst is full; no rest until the last query is done.
        assert!(!p.ready(ms(20)));
        assert_eq!(p.wake(), None);
        p.done(ms(30));
        assert!(!p.ready(ms(40)));
        p.done(ms(50));
        assert_eq!(p.wake(), Some(ms(550)));
        assert!(!p.ready(ms(549)));
        assert!(p.ready(ms(550)));
        p.sent();
        p.done(ms(560));
        // Idle for a whole pause: a fresh burst of three.
        assert!(p.ready(ms(1100)));
        for _ in 0..3 {
            assert!(p.ready(ms(1100)));
            p.sent();
            p.done(ms(1100));
        }
        assert!(!p.ready(ms(1100)));
        assert_eq!(p.wake(), Some(ms(1600)));
    }

    #[test]
    fn targets() {
        assert!(matches!(target("192.0.2.1"), Target::Literal(_)));
        assert!(matches!(target("[2001:db8::1]"), Target::Literal(_)));
        assert!(matches!(target("xn--ka-vma.lv"), Target::Name(n) if n.is_fqdn()));
        assert!(matches!(target(""), Target::Bad));
        assert!(matches!(target("[nonsense]"), Target::Bad));
    }
}

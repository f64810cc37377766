//! The DNS client: one hickory resolver per name server, each query sent
//! once and counted against that server's pacing, the hosts file, and the
//! run-time cache of answers.

use super::*;

pub use crate::web::address::parse_nameserver;

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

/// hickory's own connection provider, except that a UDP query is sent once:
/// its retransmissions would be queries we do not count. Retries are ours
/// (`--dns-retries`), each one counted against the burst.
#[derive(Clone, Default)]
pub(super) struct OneShot(TokioRuntimeProvider);

pub(super) type BoxConn = std::pin::Pin<
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

pub(super) type Dns = hickory_resolver::Resolver<OneShot>;

/// One configured name server.
pub(super) struct Server {
    pub(super) addr: SocketAddr,
    pub(super) dns: Dns,
    /// The server's bursts and rests, paced like a fetched address.
    pub(super) gate: Gate,
}

pub(super) fn build_dns(addr: SocketAddr, cfg: &Config) -> Result<Dns> {
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
pub(super) struct Cached {
    pub(super) outcome: Outcome,
    pub(super) expires: Instant,
}

/// One host's resolution in progress: which family is being asked and how
/// many tries it has had.
pub(super) struct Job {
    pub(super) host: String,
    pub(super) name: Name,
    pub(super) families: Vec<RecordType>,
    pub(super) next_family: usize,
    pub(super) attempt: u32,
    pub(super) last_server: Option<usize>,
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
    /// Records set UNREACH because their host did not resolve.
    pub unreach: u64,
}

/// The resolving engine: servers, their pacing, the hosts file and the
/// run-time cache. One per process; it lives across batches.
pub struct Resolver {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) inner: Inner,
}

pub(super) struct Inner {
    pub(super) cfg: Config,
    /// Where the last batch of NEW records ended (`Write::lease_from`).
    pub(super) resume: Option<crate::store::Key>,
    /// The bursts, rests and concurrency each server gets.
    pub(super) pacing: Policy,
    /// The families to ask for, in order.
    pub(super) families: Vec<RecordType>,
    pub(super) servers: Vec<Server>,
    pub(super) next_server: usize,
    pub(super) hosts: Hosts,
    pub(super) cache: HashMap<String, Cached>,
    pub(super) next_prune: Instant,
    pub(super) stats: Stats,
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
                        gate: Gate::new(a.ip(), now),
                    })
                })
                .collect::<Result<Vec<_>>>()?
        };
        let names: Vec<String> = servers.iter().map(|s| s.addr.to_string()).collect();
        debug!("name servers {}", names.join(" "));
        // Every server is paced by the same rule, made once from the options.
        let pacing = Policy {
            burst: usize::try_from(cfg.burst).unwrap_or(usize::MAX).max(1),
            polite: cfg.pause,
            pipeline: cfg.concurrency.max(1),
        };
        Ok(Resolver {
            rt,
            inner: Inner {
                cfg,
                pacing,
                families,
                servers,
                next_server: 0,
                hosts,
                cache: HashMap::new(),
                next_prune: now,
                resume: None,
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
    pub(super) fn resolve(
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
pub(super) enum Target {
    Literal(IpAddr),
    Name(Name),
    Bad,
}

pub(super) fn target(host: &str) -> Target {
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
pub(super) fn addrs_of(
    lookup: &hickory_resolver::lookup::Lookup,
    rtype: RecordType,
) -> (Vec<IpAddr>, u32) {
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

pub(super) fn describe(e: &NetError) -> String {
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
    pub(super) fn known(&mut self, host: &str, now: Instant) -> Option<(Outcome, bool)> {
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
    pub(super) fn special_use(&self, host: &str) -> Option<Outcome> {
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

    pub(super) fn in_hosts_file(&self, name: Name) -> Option<Outcome> {
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

    pub(super) fn remember(&mut self, host: &str, outcome: Outcome, ttl: u32, now: Instant) {
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
    pub(super) fn prune(&mut self, now: Instant) {
        if now >= self.next_prune {
            self.cache.retain(|_, c| c.expires > now);
            self.next_prune = now + self.cfg.cache_age.max(Duration::from_secs(1));
        }
    }

    /// The next server to ask, round-robin among those ready, avoiding
    /// `avoid` (the server that just failed) when another is ready.
    pub(super) fn pick(&mut self, now: Instant, avoid: Option<usize>) -> Option<usize> {
        let n = self.servers.len();
        let mut fallback = None;
        for k in 0..n {
            let i = (self.next_server + k) % n;
            if self.servers[i].gate.may_send(&self.pacing, now) {
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

    pub(super) async fn resolve(
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
                server.gate.sent(&self.pacing, now);
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
            if let Some(w) = self
                .servers
                .iter()
                .filter_map(|s| s.gate.rest_until(now))
                .min()
            {
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
            self.servers[si]
                .gate
                .finished(&self.pacing, Instant::now(), true);
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
            self.servers[si].gate.finished(&self.pacing, now, true);
        }
        set.abort_all();
        self.stats.resolved += done.len() as u64;
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn targets() {
        assert!(matches!(target("192.0.2.1"), Target::Literal(_)));
        assert!(matches!(target("[2001:db8::1]"), Target::Literal(_)));
        assert!(matches!(target("xn--ka-vma.lv"), Target::Name(n) if n.is_fqdn()));
        assert!(matches!(target(""), Target::Bad));
        assert!(matches!(target("[nonsense]"), Target::Bad));
    }
}

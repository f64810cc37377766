//! nlpc-resolve: resolve the host names of NEW records; NEW → READY.

use nlpcrawl::run::daemon::{self, Daemon};
use nlpcrawl::run::log;
use nlpcrawl::run::options::Parser;
use nlpcrawl::stage::resolve::{self, Config, Family, Resolver};
use nlpcrawl::store::record::State;

const NAME: &str = "nlpc-resolve";

fn main() {
    let mut p = Parser::new(NAME, "");
    p.opts()
        .optflag("4", "", "ask for IPv4 addresses only")
        .optflag("6", "", "ask for IPv6 addresses only")
        .optflag(
            "",
            "allow-private",
            "accept loopback, private, link-local and multicast addresses",
        )
        .optmulti(
            "",
            "nameserver",
            "ask this server (repeatable; default: those of /etc/resolv.conf)",
            "addr[:port]",
        )
        .optopt(
            "",
            "hosts-file",
            "names answered without DNS (default /etc/hosts)",
            "path",
        )
        .optopt(
            "",
            "dns-burst",
            "queries to one server before it rests (default 64)",
            "n",
        )
        .optopt(
            "",
            "dns-pause",
            "rest of a server after a burst (default 5s)",
            "time",
        )
        .optopt(
            "",
            "dns-concurrency",
            "queries in flight to one server (default 16)",
            "n",
        )
        .optopt(
            "",
            "dns-cache-age",
            "longest an answer is used without asking again (default 120s)",
            "time",
        )
        .optopt(
            "",
            "dns-timeout",
            "wait for one answer (default 5s)",
            "time",
        )
        .optopt(
            "",
            "dns-retries",
            "further tries after a timeout or server failure (default 2)",
            "n",
        );
    let o = p.parse_env();
    log::init(NAME, o.common.debug);
    if !o.free().is_empty() {
        o.usage_error(format!("unexpected operand {:?}", o.free()[0]))
            .exit();
    }
    let d = Config::default();
    let family = match (o.matches.opt_present("4"), o.matches.opt_present("6")) {
        (true, true) => o.usage_error("-4 and -6 exclude each other").exit(),
        (true, false) => Family::V4,
        (false, true) => Family::V6,
        (false, false) => Family::Any,
    };
    let mut nameservers = Vec::new();
    for s in o.list("nameserver", "") {
        match resolve::parse_nameserver(&s) {
            Ok(a) => nameservers.push(a),
            Err(e) => o.usage_error(format!("--nameserver: {e}")).exit(),
        }
    }
    let positive = |opt: &str, v: u64| {
        if v == 0 {
            o.usage_error(format!("--{opt}: must be at least 1")).exit()
        }
        v
    };
    let cfg = Config {
        family,
        allow_private: o.matches.opt_present("allow-private"),
        burst: positive(
            "dns-burst",
            o.value("dns-burst", d.burst as u64)
                .unwrap_or_else(|e| e.exit()),
        )
        .min(u32::MAX as u64) as u32,
        pause: o
            .duration("dns-pause", d.pause)
            .unwrap_or_else(|e| e.exit()),
        concurrency: positive(
            "dns-concurrency",
            o.value("dns-concurrency", d.concurrency as u64)
                .unwrap_or_else(|e| e.exit()),
        )
        .min(4096) as usize,
        cache_age: o
            .duration("dns-cache-age", d.cache_age)
            .unwrap_or_else(|e| e.exit()),
        timeout: o
            .duration("dns-timeout", d.timeout)
            .unwrap_or_else(|e| e.exit()),
        retries: o
            .value("dns-retries", d.retries)
            .unwrap_or_else(|e| e.exit()),
        nameservers,
        hosts_file: o
            .matches
            .opt_str("hosts-file")
            .map(Into::into)
            .unwrap_or(d.hosts_file),
        batch: d.batch,
    };
    if cfg.timeout.is_zero() {
        o.usage_error("--dns-timeout: must be longer than 0").exit();
    }

    let d = Daemon::start(NAME, o.common.clone()).unwrap_or_else(|e| daemon::fail(NAME, e));
    // After Daemon::start, so the runtime's threads inherit the blocked
    // stop signals.
    let mut r = Resolver::new(cfg).unwrap_or_else(|e| daemon::fail(NAME, e));
    if let Err(e) = d.run(&[State::New], |d| resolve::step(d, &mut r)) {
        daemon::fail(NAME, e);
    }
    let s = r.stats();
    nlpcrawl::debug!(
        "{} queries, {} hosts resolved, {} cache hits",
        s.queries,
        s.resolved,
        s.cache_hits
    );
}

//! nlpc-resolve throughput: records moved NEW → READY per second with a warm
//! cache, and the queries the DNS server saw, against the test DNS server
//! on a loopback port.
//!
//! cargo bench --bench resolve [-- N HOSTS]   (default 100000 records, 1000 hosts)

#[path = "../../tests/common/dns.rs"]
mod dns;

use std::time::{Duration, Instant};

use nlpcrawl::stage::resolve::{self, Config, Family, Resolver};
use nlpcrawl::store::record::{Lease, Record, State};
use nlpcrawl::store::{self, Store};

fn seed(st: &Store, urls: impl Iterator<Item = String>) {
    let recs: Vec<Record> = urls.map(|u| Record::new(&u, 1_700_000_000)).collect();
    for chunk in recs.chunks(100_000) {
        let mut w = st.write().expect("write");
        w.insert_batch(chunk).expect("insert");
        w.commit().expect("commit");
    }
}

/// Runs batches until NEW is empty; returns the records moved.
fn drain(st: &Store, r: &mut Resolver) -> usize {
    let lease = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let mut moved = 0;
    loop {
        let n = resolve::run_batch(st, lease, r, &|| false).expect("batch");
        if n == 0 {
            return moved;
        }
        moved += n;
    }
}

fn main() {
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = nums.first().copied().unwrap_or(100_000);
    let hosts = nums.get(1).copied().unwrap_or(1000).max(1);
    let server = dns::DnsServer::start();
    for i in 0..hosts {
        server.a(
            &format!("host{i}.example.test"),
            &[&dns::test_addr(i).to_string()],
            3600,
        );
    }
    let tmp = tempfile::tempdir().expect("temporary directory");
    let st = Store::open(&tmp.path().join("db"), store::Options::default()).expect("open");
    // The politeness limits are lifted for the warm-up only, against our
    // own loopback server; with the defaults it would take hosts/64 * 5 s.
    let cfg = Config {
        family: Family::V4,
        nameservers: vec![server.addr()],
        hosts_file: tmp.path().join("hosts"),
        burst: u32::MAX,
        pause: Duration::ZERO,
        concurrency: 64,
        ..Config::default()
    };
    let mut r = Resolver::new(cfg).expect("resolver");

    let t = Instant::now();
    seed(
        &st,
        (0..hosts).map(|i| format!("http://host{i}.example.test/")),
    );
    let warm = drain(&st, &mut r);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "cold: {warm} records over {hosts} hosts: {secs:.2} s, {:.0} records/s, {} queries seen by the server",
        warm as f64 / secs,
        server.total()
    );

    let before = server.total();
    seed(
        &st,
        (0..n).map(|j| {
            format!(
                "http://host{}.example.test/section/{}/page-{j}.html",
                j % hosts,
                j % 97
            )
        }),
    );
    let t = Instant::now();
    let moved = drain(&st, &mut r);
    let secs = t.elapsed().as_secs_f64();
    let rd = st.read().expect("read");
    assert_eq!(rd.count(State::New, false).expect("count"), 0);
    println!(
        "warm: {moved} records over {hosts} hosts NEW -> READY: {secs:.2} s, {:.0} records/s, {} queries seen by the server",
        moved as f64 / secs,
        server.total() - before
    );
    let s = r.stats();
    println!(
        "resolver: {} queries sent, {} hosts resolved by DNS, {} cache hits",
        s.queries, s.resolved, s.cache_hits
    );
}

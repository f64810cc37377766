//! nlpc-resolve against a real DNS server on a loopback port: answers,
//! NXDOMAIN, silence, one query for many records, bursts and pauses
//! measured at the server, cache ageing, the private-address refusal, the
//! hosts file, IDNA, and kills mid-run that lose nothing.

mod common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::dns::{arrivals, test_addr, Answer, DnsServer};
use common::*;
use nlpcrawl::stage::resolve::{Family, HostEntry, Outcome};
use nlpcrawl::stage::scan::seed;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{Store, Table};
use nlpcrawl::web::admit::Filter;

/// Seeds `urls` as NEW records. Private IP literals are admitted: what
/// the resolver makes of them is under test here.
fn plant(c: &Crawl, urls: &[String]) {
    let st = c.store();
    let lines = urls
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, u)| (i + 1, Ok(u)));
    let f = Filter {
        allow_private: true,
        ..Filter::default()
    };
    let rep = seed(&st, &f, lines).unwrap();
    assert_eq!(rep.bad, 0);
}

fn urls(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// nlpc-resolve asking `servers`, with this crawl's (empty) hosts file and
/// a timeout short enough for tests yet long for a loopback server.
fn resolver(c: &Crawl, servers: &[&DnsServer], extra: &[&str]) -> Command {
    let mut cmd = c.cmd("nlpc-resolve");
    for s in servers {
        cmd.arg("--nameserver").arg(s.arg());
    }
    cmd.arg("--hosts-file").arg(c.tmp.path().join("hosts"));
    if !extra.contains(&"--dns-timeout") {
        cmd.args(["--dns-timeout", "1s"]);
    }
    cmd.args(extra);
    cmd
}

fn once(c: &Crawl, servers: &[&DnsServer], extra: &[&str]) -> Output {
    let o = resolver(c, servers, extra)
        .arg("--once")
        .output()
        .expect("run nlpc-resolve");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

fn record(st: &Store, url: &str) -> Record {
    st.read()
        .unwrap()
        .lookup(url)
        .unwrap()
        .unwrap_or_else(|| panic!("{url} not stored"))
        .1
}

fn host_entry(st: &Store, host: &str) -> HostEntry {
    let v = st
        .read()
        .unwrap()
        .table_get(Table::Hosts, host.as_bytes())
        .unwrap()
        .unwrap_or_else(|| panic!("no per-host data for {host}"));
    HostEntry::decode(&v).unwrap()
}

fn assert_ready(st: &Store, url: &str, addr: &str) {
    let r = record(st, url);
    assert_eq!(
        (r.state, r.addr.as_str(), r.reason.as_str()),
        (State::Ready, addr, ""),
        "{url}"
    );
}

fn assert_unreach(st: &Store, url: &str, reason: &str) {
    let r = record(st, url);
    assert_eq!(
        (r.state, r.reason.as_str(), r.addr.as_str()),
        (State::Unreach, reason, ""),
        "{url}"
    );
}

fn moved(st: &Store) -> u64 {
    let rd = st.read().unwrap();
    rd.count(State::Ready, false).unwrap() + rd.count(State::Unreach, false).unwrap()
}

#[test]
fn names_resolve_to_ready_with_their_address() {
    let dns = DnsServer::start();
    dns.a("a.test", &["100.128.2.1"], 300)
        .addrs("v6only.test", &[], &["2a01:db8::6"], 300)
        .addrs("both.test", &["100.128.2.2"], &["2a01:db8::2"], 300);
    let c = Crawl::new();
    plant(
        &c,
        &urls(&[
            "http://a.test/x",
            "https://A.TEST:8443/y",
            "http://v6only.test/",
            "http://both.test/",
            "http://100.128.2.44:8080/lit",
            "http://[2a01:db8::44]/lit6",
        ]),
    );
    let o = once(&c, &[&dns], &[]);
    let st = c.store();
    assert_ready(&st, "http://a.test/x", "100.128.2.1");
    assert_ready(&st, "https://a.test:8443/y", "100.128.2.1");
    // A name with addresses of one family only is found either way.
    assert_ready(&st, "http://v6only.test/", "2a01:db8::6");
    let both = record(&st, "http://both.test/").addr;
    assert!(both == "100.128.2.2" || both == "2a01:db8::2", "{both}");
    // IP literals skip DNS.
    assert_ready(&st, "http://100.128.2.44:8080/lit", "100.128.2.44");
    assert_ready(&st, "http://[2a01:db8::44]/lit6", "2a01:db8::44");
    assert!(dns.queries().iter().all(|q| q.name.ends_with(".test")));
    assert_eq!(dns.count("a.test"), 1, "{:?}", dns.queries());
    assert!(dns.count("v6only.test") <= 2 && dns.count("both.test") == 1);
    // The host's data is kept for later and for other processes.
    let e = host_entry(&st, "a.test");
    assert_eq!(
        e.outcome,
        Outcome::Addrs(vec!["100.128.2.1".parse().unwrap()])
    );
    assert_eq!((e.family, e.ttl), (Family::Any, 300));
    assert!(
        stderr(&o).contains("a.test: 100.128.2.1 (2 records)"),
        "{}",
        stderr(&o)
    );
    assert_consistent(&st, true);
    drop(st);

    // -4 and -6 force one family.
    for (flag, both_addr, missing) in [
        ("-4", "100.128.2.2", "http://v6only.test/"),
        ("-6", "2a01:db8::2", "http://a.test/x"),
    ] {
        let c = Crawl::new();
        plant(
            &c,
            &urls(&[
                "http://a.test/x",
                "http://v6only.test/",
                "http://both.test/",
            ]),
        );
        once(&c, &[&dns], &[flag]);
        let st = c.store();
        assert_ready(&st, "http://both.test/", both_addr);
        assert_unreach(&st, missing, "no address");
        assert_consistent(&st, true);
    }
}

#[test]
fn nxdomain_and_server_failures_go_to_unreach() {
    let dns = DnsServer::start();
    dns.set("servfail.test", Answer::ServFail)
        .a("fine.test", &["100.128.2.3"], 60);
    let c = Crawl::new();
    plant(
        &c,
        &urls(&[
            "http://nx.test/a",
            "http://nx.test/b",
            "http://servfail.test/",
            "http://fine.test/",
        ]),
    );
    once(&c, &[&dns], &["--dns-retries", "1"]);
    let st = c.store();
    assert_unreach(&st, "http://nx.test/a", "NXDOMAIN");
    assert_unreach(&st, "http://nx.test/b", "NXDOMAIN");
    assert_unreach(&st, "http://servfail.test/", "DNS error: SERVFAIL");
    assert_ready(&st, "http://fine.test/", "100.128.2.3");
    // NXDOMAIN is final (no retry, no other family); a failure is tried
    // once more.
    assert_eq!(dns.count("nx.test"), 1);
    assert_eq!(dns.count("servfail.test"), 2);
    assert_eq!(host_entry(&st, "nx.test").outcome, Outcome::NxDomain);
    assert_consistent(&st, true);
}

#[test]
fn a_silent_server_times_out_after_retries() {
    let dns = DnsServer::start();
    dns.set("quiet.test", Answer::Silent)
        .a("loud.test", &["100.128.2.4"], 60);
    let c = Crawl::new();
    plant(&c, &urls(&["http://quiet.test/", "http://loud.test/"]));
    let t = Instant::now();
    once(
        &c,
        &[&dns],
        &["-4", "--dns-timeout", "0.2s", "--dns-retries", "2"],
    );
    assert!(t.elapsed() >= Duration::from_millis(600));
    let st = c.store();
    assert_unreach(&st, "http://quiet.test/", "DNS timeout");
    assert_ready(&st, "http://loud.test/", "100.128.2.4");
    // One query and two retries, each after a timeout: hickory's own
    // retransmissions are off, so the server sees exactly these. (The
    // timeout starts before the datagram leaves, hence some slack.)
    let q: Vec<Instant> = arrivals(
        &dns.queries()
            .into_iter()
            .filter(|q| q.name == "quiet.test")
            .collect::<Vec<_>>(),
    );
    assert_eq!(q.len(), 3, "{q:?}");
    for w in q.windows(2) {
        assert!(w[1] - w[0] >= Duration::from_millis(150), "{q:?}");
    }
    drop(st);

    // A server that answers nothing at all.
    let mute = DnsServer::start();
    mute.set_silent(true);
    let c = Crawl::new();
    plant(&c, &urls(&["http://a.test/", "http://b.test/"]));
    once(
        &c,
        &[&mute],
        &["-6", "--dns-timeout", "0.2s", "--dns-retries", "0"],
    );
    let st = c.store();
    assert_unreach(&st, "http://a.test/", "DNS timeout");
    assert_unreach(&st, "http://b.test/", "DNS timeout");
    assert_eq!(mute.total(), 2);
    assert_consistent(&st, true);
}

#[test]
fn many_records_of_one_host_cost_one_query() {
    let dns = DnsServer::start();
    dns.a("shared.test", &["100.128.2.10"], 300);
    for i in 0..5 {
        dns.a(&format!("h{i}.test"), &[&test_addr(i).to_string()], 300);
    }
    let c = Crawl::new();
    let mut v: Vec<String> = (0..2500)
        .map(|i| format!("http://shared.test/p{i}"))
        .collect();
    v.extend((0..50).map(|i| format!("http://h{}.test/q{i}", i % 5)));
    plant(&c, &v);
    once(&c, &[&dns], &["-4"]);
    let st = c.store();
    assert_eq!(urls_in(&st, State::Ready).len(), 2550);
    assert_eq!(dns.count("shared.test"), 1, "over several batches");
    assert_eq!(dns.total(), 6);
    drop(st);

    // A later process takes the answers from the per-host table while they
    // are young enough, so it asks nothing either.
    plant(
        &c,
        &urls(&["http://shared.test/later", "http://h3.test/later"]),
    );
    once(&c, &[&dns], &["-4"]);
    let st = c.store();
    assert_ready(&st, "http://shared.test/later", "100.128.2.10");
    assert_eq!(dns.total(), 6);
    // ... unless it asks for another family: those answers are not its own.
    drop(st);
    plant(&c, &urls(&["http://shared.test/v6"]));
    once(&c, &[&dns], &["-6"]);
    assert_eq!(dns.count("shared.test"), 2);
    assert_unreach(&c.store(), "http://shared.test/v6", "no address");
}

/// Asserts that no window shorter than `pause` holds more than `burst`
/// queries: query i and query i+burst are at least a pause apart.
fn assert_paced(times: &[Instant], burst: usize, pause: Duration) {
    for i in 0..times.len().saturating_sub(burst) {
        let gap = times[i + burst] - times[i];
        assert!(
            gap >= pause,
            "queries {i} and {} only {gap:?} apart",
            i + burst
        );
    }
}

#[test]
fn bursts_and_pauses_measured_at_the_server() {
    let pause = Duration::from_millis(300);
    let (a, b) = (DnsServer::start(), DnsServer::start());
    let hosts = 20;
    for i in 0..hosts {
        for s in [&a, &b] {
            s.a(&format!("b{i}.test"), &[&test_addr(i).to_string()], 300);
        }
    }
    let v: Vec<String> = (0..hosts).map(|i| format!("http://b{i}.test/")).collect();

    // One server: bursts of 5, then 0.3 s of rest.
    let c = Crawl::new();
    plant(&c, &v);
    let t = Instant::now();
    once(
        &c,
        &[&a],
        &[
            "-4",
            "--dns-burst",
            "5",
            "--dns-pause",
            "0.3s",
            "--dns-concurrency",
            "2",
        ],
    );
    assert!(t.elapsed() >= pause * 3);
    let times = arrivals(&a.queries());
    assert_eq!(times.len(), hosts);
    assert_paced(&times, 5, pause);
    // A burst goes out without waiting a pause inside it.
    assert!(times[4] - times[0] < pause, "{:?}", times[4] - times[0]);
    assert_eq!(urls_in(&c.store(), State::Ready).len(), hosts);

    // Two servers: the limits are per server, and both are used.
    let (a0, b0) = (a.total(), b.total());
    let c = Crawl::new();
    plant(&c, &v);
    once(
        &c,
        &[&a, &b],
        &["-4", "--dns-burst", "5", "--dns-pause", "0.3s"],
    );
    let (ta, tb) = (arrivals(&a.queries()[a0..]), arrivals(&b.queries()[b0..]));
    assert_eq!(ta.len() + tb.len(), hosts);
    assert!(ta.len() >= 5 && tb.len() >= 5, "{} {}", ta.len(), tb.len());
    assert_paced(&ta, 5, pause);
    assert_paced(&tb, 5, pause);
    assert_eq!(urls_in(&c.store(), State::Ready).len(), hosts);
}

#[test]
fn cache_entries_age_out() {
    let dns = DnsServer::start();
    dns.a("aged.test", &["100.128.2.20"], 3600);
    dns.a("short.test", &["100.128.2.21"], 2);
    let c = Crawl::new();
    drop(c.store());

    // In a running daemon: the cache age (1 s here) caps a long TTL.
    let mut child = spawn({
        let mut cmd = resolver(
            &c,
            &[&dns],
            &["-4", "--dns-cache-age", "1s", "--use-interval", "0.02s"],
        );
        cmd.arg("-d");
        cmd
    });
    let st = c.store();
    let ready = |st: &Store, url: &str| {
        let url = url.to_string();
        let st: &Store = st;
        wait_until(Duration::from_secs(10), &url.clone(), move || {
            st.read()
                .unwrap()
                .lookup(&url)
                .unwrap()
                .is_some_and(|(_, r)| r.state == State::Ready)
        });
    };
    plant(&c, &urls(&["http://aged.test/1"]));
    ready(&st, "http://aged.test/1");
    let first = dns.queries()[0].at;
    plant(&c, &urls(&["http://aged.test/2"]));
    ready(&st, "http://aged.test/2");
    assert!(first.elapsed() < Duration::from_secs(1), "too slow to test");
    assert_eq!(dns.count("aged.test"), 1);
    wait_until(Duration::from_secs(5), "the cache age", || {
        first.elapsed() > Duration::from_millis(1050)
    });
    plant(&c, &urls(&["http://aged.test/3"]));
    ready(&st, "http://aged.test/3");
    assert_eq!(dns.count("aged.test"), 2);
    child.kill().unwrap();
    child.wait().unwrap();

    // Across processes, through the per-host table: a TTL of 2 s caps the
    // default cache age of 120 s.
    plant(&c, &urls(&["http://short.test/1"]));
    once(&c, &[&dns], &["-4"]);
    let first = dns.queries().last().unwrap().at;
    plant(&c, &urls(&["http://short.test/2"]));
    once(&c, &[&dns], &["-4"]);
    assert!(first.elapsed() < Duration::from_secs(2), "too slow to test");
    assert_eq!(dns.count("short.test"), 1);
    wait_until(Duration::from_secs(5), "the TTL", || {
        first.elapsed() > Duration::from_millis(2050)
    });
    plant(&c, &urls(&["http://short.test/3"]));
    once(&c, &[&dns], &["-4"]);
    assert_eq!(dns.count("short.test"), 2);
    assert_ready(&st, "http://short.test/3", "100.128.2.21");
    assert_consistent(&st, true);
}

#[test]
fn private_addresses_are_refused_unless_allowed() {
    let dns = DnsServer::start();
    dns.a("intranet.test", &["10.0.0.1"], 60)
        .a("loop.test", &["127.0.0.1"], 60)
        .a("mixed.test", &["10.0.0.2", "100.128.2.5"], 60)
        .addrs("ll.test", &[], &["fe80::1"], 60);
    let v = urls(&[
        "http://intranet.test/",
        "http://loop.test/",
        "http://mixed.test/",
        "http://ll.test/",
        "http://127.0.0.1:8080/",
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/",
        "http://www.localhost/",
        "http://hidden.onion/",
    ]);
    let c = Crawl::new();
    plant(&c, &v);
    once(&c, &[&dns], &[]);
    let st = c.store();
    assert_unreach(&st, "http://intranet.test/", "private address 10.0.0.1");
    assert_unreach(&st, "http://loop.test/", "private address 127.0.0.1");
    assert_ready(&st, "http://mixed.test/", "100.128.2.5");
    assert_unreach(&st, "http://ll.test/", "private address fe80::1");
    assert_unreach(&st, "http://127.0.0.1:8080/", "private address 127.0.0.1");
    assert_unreach(&st, "http://[::1]/", "private address ::1");
    assert_unreach(
        &st,
        "http://169.254.169.254/latest/meta-data/",
        "private address 169.254.169.254",
    );
    // Special-use names are answered without a query (RFC 6761, 7686).
    for u in ["http://localhost/", "http://www.localhost/"] {
        let why = record(&st, u).reason;
        assert!(
            why == "private address 127.0.0.1" || why == "private address ::1",
            "{u}: {why}"
        );
    }
    assert_unreach(&st, "http://hidden.onion/", "NXDOMAIN");
    assert!(dns
        .queries()
        .iter()
        .all(|q| !q.name.contains("localhost") && !q.name.contains("onion")));
    assert_consistent(&st, true);

    let c = Crawl::new();
    plant(&c, &v);
    once(&c, &[&dns], &["--allow-private"]);
    let st = c.store();
    assert_ready(&st, "http://intranet.test/", "10.0.0.1");
    assert_ready(&st, "http://loop.test/", "127.0.0.1");
    assert_ready(&st, "http://mixed.test/", "10.0.0.2");
    assert_ready(&st, "http://ll.test/", "fe80::1");
    assert_ready(&st, "http://127.0.0.1:8080/", "127.0.0.1");
    assert_ready(&st, "http://[::1]/", "::1");
    assert_eq!(record(&st, "http://localhost/").state, State::Ready);
    assert_consistent(&st, true);
}

#[test]
fn the_hosts_file_is_honoured() {
    let dns = DnsServer::start();
    dns.a("intranet.test", &["100.128.2.1"], 60)
        .a("public.test", &["100.128.2.2"], 60);
    let c = Crawl::new();
    std::fs::write(
        c.tmp.path().join("hosts"),
        "# comment\n100.128.2.77 intranet.test alias.test\n10.1.1.1 private.test\n",
    )
    .unwrap();
    plant(
        &c,
        &urls(&[
            "http://intranet.test/",
            "http://alias.test/",
            "http://private.test/",
            "http://public.test/",
        ]),
    );
    once(&c, &[&dns], &[]);
    let st = c.store();
    assert_ready(&st, "http://intranet.test/", "100.128.2.77");
    assert_ready(&st, "http://alias.test/", "100.128.2.77");
    assert_unreach(&st, "http://private.test/", "private address 10.1.1.1");
    assert_ready(&st, "http://public.test/", "100.128.2.2");
    assert_eq!(dns.count("intranet.test") + dns.count("private.test"), 0);
}

#[test]
fn idna_names_are_asked_in_ascii() {
    let dns = DnsServer::start();
    dns.a("xn--ka-vma.test", &["100.128.2.30"], 60);
    let c = Crawl::new();
    plant(&c, &urls(&["http://Ēka.test/lapa"]));
    once(&c, &[&dns], &["-4"]);
    assert_ready(&c.store(), "http://xn--ka-vma.test/lapa", "100.128.2.30");
    let q = dns.queries();
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].name, "xn--ka-vma.test");
}

#[test]
fn sigkill_mid_run_loses_no_record() {
    let dns = DnsServer::start();
    let hosts = 400;
    for i in 0..hosts {
        // Every tenth host does not exist.
        if i % 10 != 9 {
            dns.a(&format!("k{i}.test"), &[&test_addr(i).to_string()], 3600);
        }
    }
    let n = 2000;
    let v: Vec<String> = (0..n)
        .map(|j| format!("http://k{}.test/p{j}", j % hosts))
        .collect();
    let c = Crawl::new();
    plant(&c, &v);
    let args = ["-4", "--dns-burst", "10", "--dns-pause", "0.02s"];
    let mut leased_at_kill = 0;
    for round in 0..4u64 {
        let mut child = spawn({
            let mut cmd = resolver(&c, &[&dns], &args);
            cmd.args(["--use-interval", "1s"]);
            cmd
        });
        let st = c.store();
        let target = (round + 1) * 300;
        // Kill it while it holds records, past some progress.
        wait_until(Duration::from_secs(60), "resolve progress", || {
            moved(&st) >= target && st.read().unwrap().count(State::New, true).unwrap() > 0
        });
        child.kill().unwrap();
        child.wait().unwrap();
        leased_at_kill += st.read().unwrap().count(State::New, true).unwrap();
    }
    // The kills came while records were taken, which the next run reclaims.
    assert!(leased_at_kill > 0);
    once(&c, &[&dns], &args);
    let st = c.store();
    assert_eq!(urls_in(&st, State::New), Vec::<String>::new());
    let rd = st.read().unwrap();
    let mut seen = 0;
    for s in [State::Ready, State::Unreach] {
        rd.walk_state(s, false, |_, r| {
            let i: usize = r.host()[1..r.host().len() - 5].parse().unwrap();
            if i % 10 == 9 {
                assert_eq!((r.state, r.reason.as_str()), (State::Unreach, "NXDOMAIN"));
            } else {
                assert_eq!(r.state, State::Ready, "{}", r.url);
                assert_eq!(r.addr, test_addr(i).to_string());
            }
            seen += 1;
            Ok(true)
        })
        .unwrap();
    }
    drop(rd);
    assert_eq!(seen, n);
    assert_consistent(&st, true);
    // Answers committed before a kill are not asked again.
    for i in 0..hosts {
        assert!(dns.count(&format!("k{i}.test")) <= 5);
    }
}

#[test]
fn sigterm_during_a_pause_stops_cleanly() {
    let dns = DnsServer::start();
    for i in 0..10 {
        dns.a(&format!("t{i}.test"), &[&test_addr(i).to_string()], 60);
    }
    let c = Crawl::new();
    plant(
        &c,
        &(0..10)
            .map(|i| format!("http://t{i}.test/"))
            .collect::<Vec<_>>(),
    );
    let mut child = spawn(resolver(
        &c,
        &[&dns],
        &["-4", "--dns-burst", "2", "--dns-pause", "1h"],
    ));
    let st = c.store();
    wait_until(Duration::from_secs(10), "the first burst", || {
        moved(&st) == 2
    });
    let t = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(dns.total(), 2);
    // The records still waiting went back to NEW, unleased.
    assert_eq!(urls_in(&st, State::New).len(), 8);
    assert_consistent(&st, true);
}

#[test]
fn bad_options_print_usage_and_fail() {
    let c = Crawl::new();
    for args in [
        vec!["--dns-burst", "0"],
        vec!["--dns-burst", "many"],
        vec!["--dns-concurrency", "0"],
        vec!["--dns-pause", "soon"],
        vec!["--dns-timeout", "0"],
        vec!["--nameserver", "dns.example"],
        vec!["--nameserver", ""],
        vec!["--nameserver", " , "],
        vec!["-4", "-6"],
        vec!["http://a.test/"],
    ] {
        let o = c.run("nlpc-resolve", &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).contains("usage: nlpc-resolve"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // An empty --nameserver is one line naming the option, not the
    // default servers in silence.
    let o = c.run("nlpc-resolve", &["--nameserver", ""]);
    assert!(
        stderr(&o).contains("--nameserver: empty value"),
        "{}",
        stderr(&o)
    );
    let o = c.run("nlpcd", &["--nameserver", "", "http://a.test/"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--nameserver: empty value"),
        "{}",
        stderr(&o)
    );
    let o = c.run("nlpc-resolve", &["-h"]);
    assert_eq!(o.status.code(), Some(0));
    for opt in [
        "--dns-burst",
        "--dns-pause",
        "--dns-cache-age",
        "--dns-concurrency",
        "--dns-timeout",
        "--dns-retries",
        "--nameserver",
        "--allow-private",
        "--hosts-file",
    ] {
        assert!(stdout(&o).contains(opt), "{opt} missing from -h");
    }
    // An empty NEW state with --once is a quick, clean exit (in a database
    // that exists: a daemon never creates one).
    drop(c.store());
    let o = c.run("nlpc-resolve", &["--once", "--nameserver", "127.0.0.1:9"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_waiting_resolver_is_woken_by_a_commit_not_its_interval() {
    let dns = DnsServer::start();
    dns.a("woken.test", &["100.128.3.1"], 60);
    let c = Crawl::new();
    drop(c.store());
    // An interval far longer than the test may take: only a wake-up can
    // bring the record through in time.
    let mut child = spawn(resolver(&c, &[&dns], &["-4", "--use-interval", "60s"]));
    let sock = c.db().join(nlpcrawl::store::wake::DIR).join(format!(
        "{}.{:x}",
        child.id(),
        1u32 << State::New as u8
    ));
    wait_until(
        Duration::from_secs(10),
        "the resolver's wake-up socket",
        || sock.exists(),
    );
    let st = c.store();
    let t = Instant::now();
    plant(&c, &urls(&["http://woken.test/"]));
    wait_until(Duration::from_secs(10), "the record to be resolved", || {
        record(&st, "http://woken.test/").state == State::Ready
    });
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_ready(&st, "http://woken.test/", "100.128.3.1");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    // It stopped promptly while asleep, and took its socket with it.
    assert!(!sock.exists());
    assert_consistent(&st, true);
}

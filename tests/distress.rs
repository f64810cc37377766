//! nlpc-fetch hearing servers in distress, each its own loopback address
//! with a log of when each request arrived: 503 with Retry-After, 429
//! without, a slow server, one that refuses connections for a while and
//! one that times out. Asserted from the servers' logs: no request inside
//! a pause, pauses that double and are forgiven, no record lost or
//! failed, every page fetched once the servers recover.

mod common;

use std::time::{Duration, Instant};

use common::http::{Hit, Reply, Server};
use common::*;
use nlpcrawl::store::record::State;

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Plants `n` pages of `srv` (host `host`), each answering 200.
fn pages(c: &Crawl, srv: &Server, host: &str, n: usize) -> Vec<String> {
    let st = c.store();
    (0..n)
        .map(|i| {
            let path = format!("/p{i}.html");
            srv.route(&path, Reply::html(format!("<p>{host} {i}</p>")));
            let u = srv.url(host, &path);
            plant_ready(&st, &u, &srv.ip());
            u
        })
        .collect()
}

/// The options of the test web: short pauses, so the test is quick.
const SHORT: &[&str] = &[
    "--once",
    "--fetch-polite",
    "0.05s",
    "--fetch-burst",
    "2",
    "--fetch-pause",
    "0.4s",
    "--fetch-pause-max",
    "1.6s",
    "--fetch-max-retry-after",
    "3s",
    "--fetch-timeout",
    "1s",
];

/// Every record of `urls` FRESH, none failed.
fn all_fresh(c: &Crawl, urls: &[String]) {
    let st = c.store();
    for u in urls {
        let r = record(&st, u);
        assert_eq!((r.state, r.reason.as_str()), (State::Fresh, ""), "{u}");
    }
}

/// The time from the first page request whose index is `i` (0-based, in
/// the server's page log) to the next request of any kind.
fn gap_after(hits: &[Hit], page_hits: &[Hit], i: usize) -> Duration {
    let at = page_hits[i].at;
    let next = hits
        .iter()
        .find(|h| h.at > at)
        .unwrap_or_else(|| panic!("no request after page request {i}"));
    next.at.duration_since(at)
}

#[test]
fn servers_in_distress_are_paused_and_every_page_is_fetched_when_they_recover() {
    let c = Crawl::new();
    // 503 with Retry-After: 2 s, then one asking for a day (capped at 3 s).
    let unavailable = Server::start("127.0.0.61");
    let u1 = pages(&c, &unavailable, "busy.test", 4);
    unavailable.script(vec![
        Reply::new(503, "text/html", "busy").header("Retry-After", "2"),
        Reply::new(503, "text/html", "busy").header("Retry-After", "86400"),
    ]);
    // 429 without a header three times (pauses of 0.4, 0.8, 1.6 s), three
    // answers that forgive, then once more: 0.4 s again.
    let many = Server::start("127.0.0.62");
    let u2 = pages(&c, &many, "many.test", 10);
    let too_many = || Reply::new(429, "text/html", "slow down");
    let ok = || Reply::html("<p>ok</p>");
    many.script(vec![
        too_many(),
        too_many(),
        too_many(),
        ok(),
        ok(),
        ok(),
        too_many(),
    ]);
    // Answers after 0.4 s: rests of about twice that.
    let slow = Server::start("127.0.0.63");
    let u3 = pages(&c, &slow, "slow.test", 6);
    let delay = Duration::from_millis(400);
    slow.route(
        "/robots.txt",
        Reply::new(404, "text/html", "none").delayed(delay),
    );
    for i in 0..6 {
        slow.route(
            &format!("/p{i}.html"),
            Reply::html(format!("<p>slow {i}</p>")).delayed(delay),
        );
    }
    // Times out (--fetch-timeout 1s) twice.
    let silent = Server::start("127.0.0.65");
    let u5 = pages(&c, &silent, "silent.test", 3);
    let late = || Reply::html("late").delayed(Duration::from_millis(2500));
    silent.script(vec![late(), late()]);
    // Refuses connections for the first 1.5 s: its port is free till then.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.64:0").expect("bind");
        l.local_addr().expect("address").port()
    };
    let st = c.store();
    let mut u4 = Vec::new();
    for i in 0..3 {
        let u = format!("http://closed.test:{port}/p{i}.html");
        plant_ready(&st, &u, "127.0.0.64");
        u4.push(u);
    }
    drop(st);
    let started = Instant::now();
    let opening = std::thread::spawn(move || {
        // The scenario, not a synchronisation: the server is down this long.
        std::thread::sleep(Duration::from_millis(1500));
        let s = Server::start_at("127.0.0.64", port);
        for i in 0..3 {
            s.route(&format!("/p{i}.html"), Reply::html(format!("<p>{i}</p>")));
        }
        (s, Instant::now())
    });

    let o = c.run("nlpc-fetch", SHORT);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let (closed, opened) = opening.join().expect("the late server");

    // Nothing lost, nothing failed: every page fetched, 0 errors.
    for u in [&u1, &u2, &u3, &u4, &u5] {
        all_fresh(&c, u);
    }
    assert!(err.contains(" 0 errors"), "{err}");
    assert_consistent(&c.store(), true);

    // 503: no request inside the Retry-After (2 s), nor inside the one
    // capped by --fetch-max-retry-after (3 s).
    let (hits, ph) = (unavailable.hits(), unavailable.page_hits());
    assert_eq!(
        ph.len(),
        4 + 2,
        "{:?}",
        ph.iter().map(|h| &h.path).collect::<Vec<_>>()
    );
    let g0 = gap_after(&hits, &ph, 0);
    let g1 = gap_after(&hits, &ph, 1);
    assert!(
        g0 >= Duration::from_secs(2),
        "{:.3}s after a Retry-After of 2",
        secs(g0)
    );
    assert!(
        g1 >= Duration::from_secs(3) && g1 < Duration::from_secs(4),
        "{:.3}s after a Retry-After of a day capped at 3s",
        secs(g1)
    );
    assert!(err.contains("paused 127.0.0.61 for 2.0s"), "{err}");
    assert!(err.contains("as Retry-After asked"), "{err}");

    // 429: pauses of 0.4, 0.8, 1.6 s (±10%), then forgiven: 0.4 s again.
    let (hits, ph) = (many.hits(), many.page_hits());
    assert_eq!(ph.len(), 10 + 4);
    for (i, nominal) in [(0, 0.4), (1, 0.8), (2, 1.6), (6, 0.4)] {
        let g = secs(gap_after(&hits, &ph, i));
        assert!(
            g >= nominal * 0.9 && g < nominal * 1.1 + 0.5,
            "after 429 number {i}: {g:.3}s, the pause was {nominal}s"
        );
    }
    assert!(
        secs(gap_after(&hits, &ph, 6)) < 0.8 * 0.9,
        "the strikes were not forgiven"
    );

    // The slow server: two answers of 0.4 s, then a rest of about twice
    // the response time, not --fetch-polite's 0.05 s.
    let hits = slow.hits();
    assert_eq!(hits.len(), 7);
    for w in hits.windows(3) {
        let span = w[2].at.duration_since(w[0].at);
        assert!(
            span >= Duration::from_millis(800 + 700),
            "three requests to the slow server within {:.3}s",
            secs(span)
        );
    }

    // Refused, then up: nothing arrived before it listened, all after.
    let ph = closed.page_hits();
    assert_eq!(ph.len(), 3);
    assert!(ph.iter().all(|h| h.at >= opened));
    assert!(opened.duration_since(started) >= Duration::from_millis(1500));
    assert!(err.contains("paused 127.0.0.64"), "{err}");
    assert!(err.contains(": cannot connect, "), "{err}");

    // Timeouts: after each, a pause (0.4 then 0.8 s) past the timeout.
    let (hits, ph) = (silent.hits(), silent.page_hits());
    assert_eq!(ph.len(), 3 + 2);
    for (i, nominal) in [(0, 0.4), (1, 0.8)] {
        let g = secs(gap_after(&hits, &ph, i));
        assert!(
            g >= 1.0 + nominal * 0.9,
            "{g:.3}s after timeout {i}: the timeout and a pause of {nominal}s"
        );
    }
    assert!(err.contains("deferred http://silent.test"), "{err}");
    assert!(err.contains("resumed 127.0.0.65"), "{err}");
}

#[test]
fn a_long_retry_after_leaves_the_record_ready_and_the_address_listed_as_paused() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.66");
    let urls = pages(&c, &srv, "later.test", 2);
    srv.script(vec![
        Reply::new(503, "text/html", "maintenance").header("Retry-After", "120")
    ]);
    let o = c.run(
        "nlpc-fetch",
        &["--once", "--fetch-polite", "0.05s", "--fetch-burst", "2"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // --once leaves, saying what waits and why; the records are READY,
    // unleased and unfailed.
    assert!(
        err.contains("left 2 records of address 127.0.0.66 waiting 120s: paused for HTTP 503"),
        "{err}"
    );
    let st = c.store();
    for u in &urls {
        let r = record(&st, u);
        assert_eq!(
            (r.state, r.reason.as_str(), r.status),
            (State::Ready, "", 0),
            "{u}"
        );
    }
    assert_consistent(&st, true);
    drop(st);
    let listed = stdout(&c.run("nlpc-list", &["--hosts"]));
    let line = listed
        .lines()
        .find(|l| l.starts_with("PAUSED\t127.0.0.66\tHTTP 503\t"))
        .unwrap_or_else(|| panic!("no paused address in:\n{listed}"));
    let until = line.rsplit('\t').next().unwrap_or("");
    let until = nlpcrawl::run::clock::parse_time(until).expect("a time");
    let now = nlpcrawl::run::clock::real_now();
    assert!(until > now + 100 && until <= now + 121, "{line}");
    let json = stdout(&c.run("nlpc-list", &["--hosts", "--json"]));
    assert!(json.contains(r#""paused":"127.0.0.66""#), "{json}");
    // A second fetcher keeps the pause: nothing more reaches the server.
    let before = srv.hits().len();
    let o = c.run(
        "nlpc-fetch",
        &["--once", "--fetch-polite", "0.05s", "--fetch-burst", "2"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(srv.hits().len(), before, "a request inside the Retry-After");
}

#[test]
fn pause_options_are_bounded() {
    let c = Crawl::new();
    for opt in [
        "--fetch-pause",
        "--fetch-pause-max",
        "--fetch-max-retry-after",
    ] {
        let o = c.run("nlpc-fetch", &["--once", opt, "2d"]);
        assert_eq!(o.status.code(), Some(1), "{opt}");
        let err = stderr(&o);
        assert!(err.contains(opt) && err.lines().count() <= 2, "{err}");
    }
}

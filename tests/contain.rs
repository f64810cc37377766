//! Containment: a daemon that fails on one record sets it aside as
//! QUARANTINED and goes on; a record whose daemon keeps failing while
//! holding it is set aside too; nlpcd restarts a daemon that keeps failing, with a
//! growing wait, and does not give up.
//!
//! The panics are real panics, raised in test builds by
//! NLPCRAWL_TEST_PANIC_ON (inside the work on the record whose URL holds its
//! value) and NLPCRAWL_TEST_ESCAPE_ON (in nlpc-scan's write transaction);
//! release builds ignore both.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::store::record::{Lease, State, RECLAIM_LIMIT};
use nlpcrawl::store::{Key, Store};

const PANIC_ENV: &str = "NLPCRAWL_TEST_PANIC_ON";

fn page(links: &[&str]) -> Vec<u8> {
    let a: String = links
        .iter()
        .map(|l| format!("<a href=\"{l}\">x</a>"))
        .collect();
    format!("<html><body><p>Rīga</p>{a}</body></html>").into_bytes()
}

/// A log line without its timestamp and level: "2026-11-24T10:00:00Z
/// nlpc-scan info: x" reads "nlpc-scan: x", so the assertions speak of
/// what was said.
fn message(line: &str) -> String {
    match log_line(line) {
        Some((name, _, said)) => format!("{name}: {said}"),
        None => line.to_string(),
    }
}

/// Standard error as messages (see [`message`]).
fn messages(err: &str) -> String {
    err.lines().map(message).collect::<Vec<_>>().join("\n")
}

/// Messages of `err` that mention `url`.
fn lines_with(err: &str, url: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.contains(url))
        .map(message)
        .collect()
}

#[test]
fn a_panic_in_nlpc_scan_quarantines_one_record_and_the_batch_goes_on() {
    let c = Crawl::new();
    let st = c.store();
    let boom = "http://site.test/boom.html";
    let mut good = Vec::new();
    for i in 0..6 {
        let u = format!("http://site.test/ok{i}.html");
        c.plant(
            &st,
            &u,
            State::Verified,
            "text/html",
            &page(&[&format!("/from{i}.html")]),
        );
        good.push(u);
    }
    c.plant(
        &st,
        boom,
        State::Verified,
        "text/html",
        &page(&["/from-boom.html"]),
    );
    drop(st);
    let o = c
        .cmd("nlpc-scan")
        .arg("--once")
        .env(PANIC_ENV, "boom")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // Logged once, with the URL and the panic's message; the default
    // hook's lines (without the URL) are not printed besides.
    let said = lines_with(&err, boom);
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].starts_with(&format!(
            "nlpc-scan: quarantined {boom}: panic: NLPCRAWL_TEST_PANIC_ON matched {boom} at "
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let st = c.store();
    let r = record(&st, boom);
    assert_eq!(r.state, State::Quarantined);
    assert!(r
        .reason
        .starts_with("panic: NLPCRAWL_TEST_PANIC_ON matched"));
    assert!(r.lease.is_none());
    // The rest of the batch was scanned, their links found; the panicking
    // record's links were not.
    for (i, u) in good.iter().enumerate() {
        assert_eq!(record(&st, u).state, State::Scanned, "{u}");
        assert_eq!(
            record(&st, &format!("http://site.test/from{i}.html")).state,
            State::New
        );
    }
    assert!(st
        .read()
        .unwrap()
        .lookup("http://site.test/from-boom.html")
        .unwrap()
        .is_none());
    assert_consistent(&st, true);
    drop(st);

    // nlpc-list shows it with its error, and counts it.
    let o = c.run("nlpc-list", &["-s", "quarantined"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with(&format!("QUARANTINED\t{boom}\t")), "{out}");
    assert!(
        out.contains(&format!(
            "\tpanic: NLPCRAWL_TEST_PANIC_ON matched {boom} at "
        )),
        "{out}"
    );
    let o = c.run("nlpc-list", &["-c"]);
    let out = stdout(&o);
    assert!(out.lines().any(|l| l == "QUARANTINED\t1"), "{out}");
    assert!(out.lines().any(|l| l == "SCANNED\t6"), "{out}");

    // A plain --force-rev leaves it alone; named, it goes back to NEW.
    let o = c.run("nlpc-up", &["--force-rev"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(record(&c.store(), boom).state, State::Quarantined);
    let o = c.run("nlpc-up", &["--force-rev", "-s", "quarantined"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = record(&c.store(), boom);
    assert_eq!((r.state, r.reason.as_str()), (State::New, ""));
}

#[test]
fn nlpc_vrfy_quarantines_an_unreadable_body_and_a_panic_and_judges_the_rest() {
    let c = Crawl::new();
    let st = c.store();
    let body = "<html><body><p>Rīga ir Latvijas galvaspilsēta.</p></body></html>";
    let plain = "http://site.test/plain.html";
    let boom = "http://site.test/boom.html";
    let broken = "http://site.test/broken.html";
    c.plant(&st, plain, State::Fresh, "text/html", body.as_bytes());
    c.plant(&st, boom, State::Fresh, "text/html", body.as_bytes());
    let k = c.plant(&st, broken, State::Fresh, "text/html", body.as_bytes());
    // The body of one record cannot be read: a directory stands in its
    // place (EISDIR), a fault of that record's file alone.
    let p = c.cache().path(&k);
    std::fs::remove_file(&p).unwrap();
    std::fs::create_dir(&p).unwrap();
    drop(st);
    let o = c
        .cmd("nlpc-vrfy")
        .arg("--once")
        .env(PANIC_ENV, "boom")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let st = c.store();
    let r = record(&st, broken);
    assert_eq!(r.state, State::Quarantined, "{err}");
    assert!(r.reason.contains("cannot read cached body"), "{}", r.reason);
    assert_eq!(lines_with(&err, broken).len(), 1, "{err}");
    let r = record(&st, boom);
    assert_eq!(r.state, State::Quarantined, "{err}");
    assert!(r.reason.starts_with("panic: "), "{}", r.reason);
    assert_eq!(lines_with(&err, boom).len(), 1, "{err}");
    let s = record(&st, plain).state;
    assert!(matches!(s, State::Verified | State::Rejected), "{s}");
    assert_consistent(&st, true);
}

#[test]
fn a_panic_in_nlpc_fetch_quarantines_one_record_and_the_others_are_fetched() {
    let srv = Server::start("127.0.0.123");
    let c = Crawl::new();
    let st = c.store();
    let mut urls = Vec::new();
    for name in ["a", "boom", "b"] {
        let path = format!("/{name}.html");
        srv.route(&path, Reply::html(page(&[])));
        let u = srv.url("fetch.test", &path);
        plant_ready(&st, &u, &srv.ip());
        urls.push(u);
    }
    drop(st);
    let o = c
        .cmd("nlpc-fetch")
        .args(["--once", "--fetch-polite", "0"])
        .env(PANIC_ENV, "boom")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let st = c.store();
    let r = record(&st, &urls[1]);
    assert_eq!(r.state, State::Quarantined, "{err}");
    assert!(r.reason.starts_with("panic: "), "{}", r.reason);
    assert_eq!(
        lines_with(&err, &urls[1])
            .iter()
            .filter(|l| l.contains("quarantined"))
            .count(),
        1,
        "{err}"
    );
    for u in [&urls[0], &urls[2]] {
        assert_eq!(record(&st, u).state, State::Fresh, "{u}: {err}");
    }
    assert_consistent(&st, true);
}

#[test]
fn a_daemon_on_which_every_record_fails_stops_instead_of_quarantining_all() {
    let c = Crawl::new();
    let st = c.store();
    for i in 0..12 {
        c.plant(
            &st,
            &format!("http://site.test/boom{i}.html"),
            State::Verified,
            "text/html",
            &page(&[]),
        );
    }
    drop(st);
    let o = c
        .cmd("nlpc-scan")
        .arg("--once")
        .env(PANIC_ENV, "boom")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("8 records failed in a row; stopping rather than quarantining them all"),
        "{err}"
    );
    let st = c.store();
    assert_eq!(urls_in(&st, State::Quarantined).len(), 7);
    assert_eq!(urls_in(&st, State::Verified).len(), 5);
    assert_consistent(&st, true);
}

/// The pid of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

/// Leases the record under `k` to a process that has ended.
fn lease_to_the_dead(st: &Store, k: &Key, state: State) {
    let lease = Lease {
        pid: dead_pid(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let mut w = st.write().unwrap();
    assert!(w.lease_key(k, state, lease).unwrap().is_some());
    w.commit().unwrap();
}

#[test]
fn a_panic_in_the_fetch_loop_ends_nlpc_fetch_and_gives_its_records_back() {
    // Outside the per-record containment (where fetched records are
    // queued): the loop's thread unwound while the writer's and storer's
    // threads waited on channels it no longer served, and the process
    // hung, SIGTERM unheard. It now stops as a batch daemon does.
    let c = Crawl::new();
    let srv = Server::start("127.0.0.58");
    let st = c.store();
    let u = srv.url("site.test", "/deadly.html");
    srv.route("/deadly.html", Reply::html(page(&[])));
    plant_ready(&st, &u, &srv.ip());
    drop(st);
    let mut child = spawn({
        let mut cmd = c.cmd("nlpc-fetch");
        cmd.args(["--once", "--fetch-polite", "0"])
            .env("NLPCRAWL_TEST_ESCAPE_ON", "deadly");
        cmd
    });
    let mut status = None;
    wait_until(Duration::from_secs(60), "nlpc-fetch to end", || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let err = messages(&err);
    assert_eq!(status.unwrap().code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "nlpc-fetch: panic: NLPCRAWL_TEST_ESCAPE_ON matched {u} at "
        )) && err.contains("(outside the work on any one record)"),
        "{err}"
    );
    let st = c.store();
    let r = record(&st, &u);
    assert_eq!((r.state, r.lease, r.reclaims), (State::Ready, None, 1));
    assert_consistent(&st, true);
}

#[test]
fn a_record_whose_daemon_fails_three_times_holding_it_is_quarantined() {
    assert_eq!(RECLAIM_LIMIT, 3);
    let c = Crawl::new();
    let st = c.store();
    let u = "http://site.test/deadly.html";
    c.plant(&st, u, State::Verified, "text/html", &page(&[]));
    // A panic in the write transaction, outside the per-record
    // containment: nlpc-scan stops, giving back what it held and counting
    // the failure against it.
    for round in 1..=3u8 {
        let o = c
            .cmd("nlpc-scan")
            .arg("--once")
            .env("NLPCRAWL_TEST_ESCAPE_ON", "deadly")
            .output()
            .unwrap();
        let err = messages(&stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!(
                "nlpc-scan: panic: NLPCRAWL_TEST_ESCAPE_ON matched {u} at "
            )) && err.contains("(outside the work on any one record)"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        let r = record(&st, u);
        assert!(r.lease.is_none(), "round {round}");
        assert_eq!(r.reclaims, round);
        if round < 3 {
            assert_eq!(r.state, State::Verified, "round {round}");
        } else {
            assert_eq!(r.state, State::Quarantined);
            assert_eq!(
                r.reason,
                "its daemon failed 3 times while holding it (in VERIFIED)"
            );
            assert!(
                err.contains(&format!(
                    "nlpc-scan: quarantined {u}: its daemon failed 3 times while holding it"
                )),
                "{err}"
            );
        }
    }
    assert_consistent(&st, true);
    let o = c.run("nlpc-list", &["-s", "quarantined"]);
    assert!(
        stdout(&o).contains("\tits daemon failed 3 times while holding it (in VERIFIED)"),
        "{}",
        stdout(&o)
    );
    // Nothing else is in the way: the next scan has nothing to do.
    let o = c.run("nlpc-scan", &["--once"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn leases_of_dead_daemons_are_returned_without_counting_against_the_record() {
    // A daemon killed from outside (SIGKILL) cannot be told from one that
    // crashed, so its leases are returned as they were, however often.
    let c = Crawl::new();
    let st = c.store();
    let u = "http://site.test/unlucky.html";
    let k = c.plant(&st, u, State::Fresh, "text/html", &page(&[]));
    for _ in 0..5 {
        lease_to_the_dead(&st, &k, State::Fresh);
        let o = c.run("nlpc-scan", &["--once"]);
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains("reclaimed 1 records from dead leases"),
            "{err}"
        );
        let r = record(&st, u);
        assert_eq!((r.state, r.reclaims, r.lease), (State::Fresh, 0, None));
    }
    assert_consistent(&st, true);
}

#[test]
fn a_daemon_that_gives_a_record_back_clears_its_failure_count() {
    let c = Crawl::new();
    let st = c.store();
    let u = "http://site.test/unlucky.html";
    let k = c.plant(&st, u, State::Fresh, "text/html", &page(&[]));
    let fail_once = |st: &Store| {
        let pid = dead_pid();
        let lease = Lease {
            pid,
            time: nlpcrawl::run::clock::real_now(),
        };
        let mut w = st.write().unwrap();
        assert!(w.lease_key(&k, State::Fresh, lease).unwrap().is_some());
        let r = w.fail_leases(pid, 1).unwrap();
        w.commit().unwrap();
        r
    };
    for _ in 0..2 {
        let r = fail_once(&st);
        assert_eq!((r.returned, r.quarantined.len()), (1, 0));
    }
    assert_eq!(record(&st, u).reclaims, 2);
    // A daemon takes it and gives it back: the failures before were not
    // the record's doing.
    let lease = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let mut w = st.write().unwrap();
    let rec = w.lease_key(&k, State::Fresh, lease).unwrap().unwrap();
    assert!(w.finish(&k, &rec, lease).unwrap());
    w.commit().unwrap();
    let r = record(&st, u);
    assert_eq!((r.state, r.reclaims), (State::Fresh, 0));
    // One more failure is then the first, not the third.
    let r = fail_once(&st);
    assert_eq!((r.returned, r.quarantined.len()), (1, 0));
    assert_eq!(record(&st, u).state, State::Fresh);
    // Two more make three in a row.
    fail_once(&st);
    let r = fail_once(&st);
    assert_eq!(r.quarantined, vec![u.to_string()]);
    assert_eq!(record(&st, u).state, State::Quarantined);
    assert_consistent(&st, true);
}

/// Reads a pipe line by line into a shared list, each line with the time
/// it arrived.
fn collect(pipe: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<(Instant, String)>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let out = Arc::clone(&lines);
    std::thread::spawn(move || {
        for l in BufReader::new(pipe).lines() {
            let Ok(l) = l else { break };
            out.lock().unwrap().push((Instant::now(), l));
        }
    });
    lines
}

#[test]
fn nlpcd_restarts_a_failing_daemon_with_growing_waits_and_does_not_give_up() {
    let c = Crawl::new();
    // A dictionary nlpcd can open (it checks that much before it starts)
    // but nlpc-vrfy cannot load, not being UTF-8: nlpc-vrfy exits 1 at
    // every start.
    let missing = c.tmp.path().join("bad-dictionary");
    std::fs::write(&missing, b"labs\nsl\xefkts\n").unwrap();
    let mut child = c
        .cmd("nlpcd")
        .args(["-m", "--nameserver", "127.0.0.124:53", "--filter-dict"])
        .arg(&missing)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = collect(child.stderr.take().unwrap());
    let out = collect(child.stdout.take().unwrap());
    let text = |l: &Arc<Mutex<Vec<(Instant, String)>>>| {
        l.lock()
            .unwrap()
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The fifth failure in a row is where nlpcd used to give up; now it
    // waits 16 s and tries again.
    wait_until(Duration::from_secs(60), "the fifth restart", || {
        text(&err).contains("nlpc-vrfy exited 1; restarting in 16s (5th restart)")
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "nlpcd exited: {}",
        text(&err)
    );
    let log = err.lock().unwrap().clone();
    let mut waits = Vec::new();
    for (i, (at, l)) in log.iter().enumerate() {
        let l = message(l);
        let Some(rest) = l.strip_prefix("nlpcd: nlpc-vrfy exited 1; restarting in ") else {
            continue;
        };
        let (secs, nth) = rest.split_once("s (").unwrap();
        let secs: u64 = secs.parse().unwrap();
        waits.push((secs, nth.to_string()));
        // The restart came no sooner than announced (and not much later),
        // measured from when the lines arrived.
        if let Some((started, _)) = log[i..]
            .iter()
            .find(|(_, s)| message(s).starts_with("nlpcd: started nlpc-vrfy"))
        {
            let took = started.duration_since(*at);
            assert!(
                took >= Duration::from_millis(secs * 1000 - 100)
                    && took < Duration::from_millis(secs * 1000 + 1500),
                "announced {secs}s, restarted after {took:?}"
            );
        }
    }
    assert_eq!(
        waits,
        vec![
            (1, "1st restart)".to_string()),
            (2, "2nd restart)".to_string()),
            (4, "3rd restart)".to_string()),
            (8, "4th restart)".to_string()),
            (16, "5th restart)".to_string()),
        ],
        "{}",
        text(&err)
    );
    // With -m the daemons' own lines go to DBPATH/nlpcd.log.
    let daemons = std::fs::read_to_string(c.db().join("nlpcd.log")).unwrap();
    assert!(
        daemons.contains("bad-dictionary") && daemons.contains("not UTF-8"),
        "{daemons}"
    );
    // The monitor counts the restarts.
    wait_until(Duration::from_secs(5), "the monitor's count", || {
        text(&out).contains("restarts=4")
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let start = Instant::now();
    let st = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "nlpcd did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(st.code(), Some(0), "{}", text(&err));
}

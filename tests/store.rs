//! The store against real LMDB environments: dedup, collisions, versions,
//! leases and their reclaim after the owner is killed.

mod common;

use std::process::Command;

use common::*;
use nlpcrawl::run::daemon::lease_owner_alive;
use nlpcrawl::stage::scan::seed;
use nlpcrawl::store::record::{Lease, Record, State};
use nlpcrawl::store::{self, Inserted, Store, Table};
use nlpcrawl::web::admit::Filter;
use nlpcrawl::Error;

fn lines(v: &[&str]) -> Vec<nlpcrawl::stage::scan::Seed> {
    v.iter()
        .enumerate()
        .map(|(i, s)| (i + 1, Ok(s.to_string())))
        .collect()
}

#[test]
fn seeding_dedups_normalised_urls() {
    let c = Crawl::new();
    let st = c.store();
    let rep = seed(
        &st,
        &Filter::default(),
        lines(&[
            "http://example.lv/a",
            "HTTP://EXAMPLE.LV:80/a#top",
            "http://example.lv/%7Eb",
            "http://example.lv/~b",
            "not a url",
            "ftp://example.lv/",
        ]),
    )
    .unwrap();
    assert_eq!((rep.added, rep.known, rep.bad), (2, 2, 2));
    // Each record keeps the spelling it was first seeded with (the request
    // form); the other spelling finds it.
    assert_eq!(
        urls_in(&st, State::New),
        ["http://example.lv/%7Eb", "http://example.lv/a"]
    );
    assert_eq!(
        st.read()
            .unwrap()
            .lookup("http://example.lv/~b")
            .unwrap()
            .map(|(_, r)| r.url),
        Some("http://example.lv/%7Eb".to_string())
    );
    // Seeding again changes nothing, and a known record keeps its state.
    let key = st
        .read()
        .unwrap()
        .lookup("http://example.lv/a")
        .unwrap()
        .unwrap()
        .0;
    let mut w = st.write().unwrap();
    let mut r = w.get(&key).unwrap().unwrap();
    r.state = State::Scanned;
    w.update(&key, &r).unwrap();
    w.commit().unwrap();
    let rep = seed(&st, &Filter::default(), lines(&["http://example.lv/a"])).unwrap();
    assert_eq!((rep.added, rep.known), (0, 1));
    assert_eq!(
        st.read().unwrap().get(&key).unwrap().unwrap().state,
        State::Scanned
    );
    assert_consistent(&st, true);
}

fn colliding(_: &[u8]) -> [u8; 16] {
    [0xab; 16]
}

#[test]
fn hash_collisions_keep_both_urls() {
    let c = Crawl::new();
    let opts = store::Options {
        hasher: colliding,
        ..store::Options::default()
    };
    let st = Store::open(&c.db(), opts).unwrap();
    let urls: Vec<String> = (0..20).map(|i| format!("http://h{i}.lv/")).collect();
    let mut keys = Vec::new();
    let mut w = st.write().unwrap();
    for u in &urls {
        match w.insert(&Record::new(u, 5)).unwrap() {
            Inserted::New(k) => keys.push(k),
            other => panic!("{u}: {other:?}"),
        }
    }
    // Inserting them again finds each under its own key.
    for (u, k) in urls.iter().zip(&keys) {
        assert_eq!(
            w.insert(&Record::new(u, 6)).unwrap(),
            Inserted::Known(*k, State::New)
        );
    }
    w.commit().unwrap();
    let mut distinct = keys.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), urls.len(), "colliding URLs share a key");
    let rd = st.read().unwrap();
    for u in &urls {
        let (_, r) = rd.lookup(u).unwrap().unwrap();
        assert_eq!(&r.url, u);
    }
    assert!(rd.lookup("http://other.lv/").unwrap().is_none());
    assert_eq!(rd.count(State::New, false).unwrap(), 20);
    drop(rd);
    assert_consistent(&st, true);
}

#[test]
fn a_database_of_another_version_is_refused() {
    let c = Crawl::new();
    {
        let st = c.store();
        st.force_format_version(99).unwrap();
    }
    match Store::open(&c.db(), store::Options::default()) {
        Err(e @ Error::Version { found: 99, .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("format version 99"), "{msg}");
            assert!(msg.contains(&c.db().display().to_string()), "{msg}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("version 99 accepted"),
    }
    // The executables say so in one line and exit non-zero.
    for (bin, args) in [
        ("nlpc-list", vec![]),
        ("nlpc-scan", vec!["--once"]),
        (
            "nlpc-resolve",
            vec!["--once", "--nameserver", "127.0.0.1:9"],
        ),
    ] {
        let o = c.run(bin, &args);
        assert_eq!(o.status.code(), Some(1), "{bin}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{bin}: {err}");
        assert!(err.contains("format version 99"), "{bin}: {err}");
    }
}

#[test]
fn listing_an_absent_database_is_a_clear_error() {
    let c = Crawl::new();
    let o = c.run("nlpc-list", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no nlpcrawl database"),
        "{}",
        stderr(&o)
    );
    assert!(!c.db().exists(), "a read-only listing created the database");
}

fn seed_n(st: &Store, n: usize) {
    let urls: Vec<nlpcrawl::stage::scan::Seed> = (0..n)
        .map(|i| (i, Ok(format!("http://h{}.lv/p{i}", i % 7))))
        .collect();
    let rep = seed(st, &Filter::default(), urls).unwrap();
    assert_eq!(rep.added, n);
}

#[test]
fn leases_hide_records_and_finish_checks_ownership() {
    let c = Crawl::new();
    let st = c.store();
    seed_n(&st, 10);
    let mine = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let mut w = st.write().unwrap();
    let got = w.lease(State::New, 4, mine).unwrap();
    assert_eq!(got.len(), 4);
    // Leased records are not handed out twice.
    let more = w.lease(State::New, 100, mine).unwrap();
    assert_eq!(more.len(), 6);
    assert!(got.iter().all(|(k, _)| more.iter().all(|(m, _)| m != k)));
    w.commit().unwrap();
    assert_eq!(st.read().unwrap().count(State::New, true).unwrap(), 10);

    // A finish under someone else's lease does nothing.
    let (k, r) = &got[0];
    let mut done = r.clone();
    done.state = State::Ready;
    let other = Lease {
        pid: mine.pid,
        time: mine.time + 1,
    };
    let mut w = st.write().unwrap();
    assert!(!w.finish(k, &done, other).unwrap());
    assert!(w.finish(k, &done, mine).unwrap());
    assert!(!w.finish(k, &done, mine).unwrap(), "finished twice");
    w.commit().unwrap();
    let rd = st.read().unwrap();
    assert_eq!(rd.count(State::Ready, false).unwrap(), 1);
    assert_eq!(rd.count(State::New, true).unwrap(), 9);
    drop(rd);
    assert_consistent(&st, false);
}

#[test]
fn leases_of_a_killed_process_are_reclaimed() {
    let c = Crawl::new();
    let st = c.store();
    seed_n(&st, 50);
    // A real process owns the leases, then is killed with SIGKILL.
    let mut child = Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("spawn sleep");
    let lease = Lease {
        pid: child.id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    assert!(lease_owner_alive(lease), "a running owner counted as dead");
    let mut w = st.write().unwrap();
    assert_eq!(w.lease(State::New, 30, lease).unwrap().len(), 30);
    w.commit().unwrap();

    // While the owner lives, nothing is reclaimed.
    let mut w = st.write().unwrap();
    assert_eq!(w.reclaim(lease_owner_alive).unwrap(), 0);
    w.commit().unwrap();

    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!lease_owner_alive(lease));
    let mut w = st.write().unwrap();
    assert_eq!(w.reclaim(lease_owner_alive).unwrap(), 30);
    w.commit().unwrap();
    let rd = st.read().unwrap();
    assert_eq!(rd.count(State::New, false).unwrap(), 50);
    drop(rd);
    assert_consistent(&st, true);
}

/// A daemon's look before it reclaims (`Daemon::reclaim`): a read
/// transaction finds a dead lease among live ones, in any state, and
/// finds none while every owner lives.
#[test]
fn a_read_finds_whether_any_lease_is_dead() {
    let c = Crawl::new();
    let st = c.store();
    seed_n(&st, 20);
    let mine = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let mut w = st.write().unwrap();
    assert_eq!(w.lease(State::New, 10, mine).unwrap().len(), 10);
    w.commit().unwrap();
    let dead = |l: Lease| !lease_owner_alive(l);
    assert!(!st.read().unwrap().any_lease(dead).unwrap());

    // One record of another state, leased by a process that is gone.
    let mut child = Command::new("true").spawn().expect("spawn true");
    let gone = Lease {
        pid: child.id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    child.wait().unwrap();
    let k = plant_ready(&st, "http://gone.test/", "127.0.0.1");
    let mut w = st.write().unwrap();
    assert!(w.lease_key(&k, State::Ready, gone).unwrap().is_some());
    w.commit().unwrap();
    assert!(st.read().unwrap().any_lease(dead).unwrap());
    // And the write that follows gives back that one alone.
    let mut w = st.write().unwrap();
    assert_eq!(w.reclaim(lease_owner_alive).unwrap(), 1);
    w.commit().unwrap();
    assert!(!st.read().unwrap().any_lease(dead).unwrap());
}

#[test]
fn a_lease_from_before_the_pid_existed_is_dead() {
    // Our own pid, but a lease taken before this process started: the pid
    // was reused, so the owner is gone.
    let l = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now() - 600,
    };
    assert!(!lease_owner_alive(l));
    let l = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    assert!(lease_owner_alive(l));
    let l = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now() - 2 * nlpcrawl::run::daemon::LEASE_TIMEOUT,
    };
    assert!(!lease_owner_alive(l));
}

#[test]
fn an_aborted_transaction_changes_nothing() {
    let c = Crawl::new();
    let st = c.store();
    seed_n(&st, 5);
    {
        let mut w = st.write().unwrap();
        w.insert(&Record::new("http://x.lv/", 1)).unwrap();
        let l = Lease { pid: 1, time: 1 };
        w.lease(State::New, 3, l).unwrap();
        // Dropped without commit.
    }
    let rd = st.read().unwrap();
    assert_eq!(rd.count(State::New, false).unwrap(), 5);
    assert!(rd.lookup("http://x.lv/").unwrap().is_none());
    drop(rd);
    assert_consistent(&st, true);
}

#[test]
fn spellings_of_one_resource_share_a_record_that_keeps_the_first() {
    let c = Crawl::new();
    let st = c.store();
    let mut w = st.write().unwrap();
    let first = match w
        .insert(&Record::new("http://h.lv/%7Euser/a%zz", 5))
        .unwrap()
    {
        Inserted::New(k) => k,
        other => panic!("{other:?}"),
    };
    // Decoded "~", lowercase hex, and the stray "%" encoded: the same key.
    for other in [
        "http://h.lv/~user/a%zz",
        "http://h.lv/%7euser/a%25zz",
        "http://h.lv/~user/a%25zz",
    ] {
        assert_eq!(
            w.insert(&Record::new(other, 6)).unwrap(),
            Inserted::Known(first, State::New),
            "{other}"
        );
    }
    // An encoded "/" is another resource than a plain one.
    assert!(matches!(
        w.insert(&Record::new("http://h.lv/%7Euser%2Fa%zz", 6)).unwrap(),
        Inserted::New(k) if k != first
    ));
    w.commit().unwrap();
    let rd = st.read().unwrap();
    let (k, r) = rd.lookup("http://h.lv/~user/a%25zz").unwrap().unwrap();
    assert_eq!((k, r.url.as_str()), (first, "http://h.lv/%7Euser/a%zz"));
    drop(rd);
    assert_consistent(&st, true);
}

#[test]
fn spellings_are_one_record_even_when_hashes_collide() {
    let c = Crawl::new();
    let opts = store::Options {
        hasher: colliding,
        ..store::Options::default()
    };
    let st = Store::open(&c.db(), opts).unwrap();
    let mut w = st.write().unwrap();
    let a = w.insert(&Record::new("http://h.lv/a", 1)).unwrap();
    let b = w.insert(&Record::new("http://h.lv/%7Eb", 1)).unwrap();
    let (Inserted::New(_), Inserted::New(kb)) = (a, b) else {
        panic!("{a:?} {b:?}");
    };
    assert_eq!(
        w.insert(&Record::new("http://h.lv/~b", 1)).unwrap(),
        Inserted::Known(kb, State::New)
    );
    w.commit().unwrap();
    let rd = st.read().unwrap();
    assert_eq!(rd.lookup("http://h.lv/~b").unwrap().unwrap().0, kb);
}

#[test]
fn a_batch_goes_on_where_the_last_one_ended_and_wraps_around() {
    // A stage leases its next batch from where the last one ended, so a
    // record late in key order is reached while earlier ones keep coming.
    let c = Crawl::new();
    let st = c.store();
    let mut keys: Vec<store::Key> = (0..10)
        .map(|i| plant_ready(&st, &format!("http://wrap.test/{i}"), "127.0.0.1"))
        .collect();
    keys.sort();
    let lease = Lease { pid: 1, time: 1 };
    let taken = |from: Option<&store::Key>, n: usize| -> Vec<store::Key> {
        let mut w = st.write().unwrap();
        let b = w.lease_from(State::Ready, n, lease, from).unwrap();
        w.commit().unwrap();
        b.into_iter().map(|(k, _)| k).collect()
    };
    assert_eq!(taken(Some(&keys[5]), 3), keys[5..8].to_vec());
    // Past the end it goes on from the start, and stops short of where
    // it began.
    assert_eq!(
        taken(Some(&keys[8]), 10),
        [&keys[8..10], &keys[0..5]].concat()
    );
    assert!(taken(Some(&keys[3]), 10).is_empty());
}

#[test]
fn walks_and_entries_through_one_cursor() {
    // Each walk sees only its prefix's entries, in order; an entry is put
    // after each walk its visitor did not stop, whether it sorts before,
    // among or after what was walked, or where nothing was.
    let c = Crawl::new();
    let st = c.store();
    let mut w = st.write().unwrap();
    for k in ["pa1", "pa2", "pb1", "pc1", "pe1", "pe2", "q"] {
        w.table_put(Table::Dups, k.as_bytes(), b"v").unwrap();
    }
    let walks = [("pa", "pa3"), ("pb", "pb0"), ("pd", "pd1"), ("pe", "pe9")];
    let mut seen = Vec::new();
    w.table_walk_enter(Table::Dups, &walks, |i, k| {
        seen.push((i, String::from_utf8_lossy(k).into_owned()));
        Ok(!(i == 3 && k == b"pe1"))
    })
    .unwrap();
    let at = |i, k: &str| (i, k.to_string());
    assert_eq!(
        seen,
        [at(0, "pa1"), at(0, "pa2"), at(1, "pb1"), at(3, "pe1")]
    );
    // A visitor's error ends the walks.
    let err = w.table_walk_enter(Table::Dups, &[("pa", "pa0"), ("pb", "pb9")], |_, _| {
        Err(Error::Usage("stop".into()))
    });
    assert!(matches!(err, Err(Error::Usage(_))), "{err:?}");
    w.commit().unwrap();
    let rd = st.read().unwrap();
    let mut all = Vec::new();
    rd.table_walk(Table::Dups, b"", |k, v| {
        all.push((String::from_utf8_lossy(k).into_owned(), v.len()));
        Ok(true)
    })
    .unwrap();
    let entry = |k: &str, v| (k.to_string(), v);
    assert_eq!(
        all,
        [
            entry("pa1", 1),
            entry("pa2", 1),
            entry("pa3", 0),
            entry("pb0", 0),
            entry("pb1", 1),
            entry("pc1", 1),
            entry("pd1", 0),
            entry("pe1", 1),
            entry("pe2", 1),
            entry("q", 1),
        ]
    );
}

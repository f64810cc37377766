//! nlpc-fetch's storing of bodies off its loop: a record is FRESH only once
//! its body is on disk under its final name, and the bytes of bodies
//! waiting to be stored stay under --fetch-store-cap.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::State;
use nlpcrawl::store::Store;

/// Keys of every FRESH record whose body is in the cache under its final
/// name with the hash the record gives; panics on one whose body is not.
fn fresh_with_bodies(st: &Store, cache: &Cache) -> HashSet<String> {
    let rd = st.read().expect("read");
    let mut seen = HashSet::new();
    for leased in [false, true] {
        rd.walk_state(State::Fresh, leased, |k, r| {
            let body = cache
                .read(&k)
                .expect("read cache")
                .unwrap_or_else(|| panic!("{} is FRESH without its body", r.url));
            assert_eq!(
                *blake3::hash(&body).as_bytes(),
                r.hash,
                "{} is FRESH with another body than its own",
                r.url
            );
            seen.insert(r.url);
            Ok(true)
        })
        .expect("walk");
    }
    seen
}

#[test]
fn a_record_is_fresh_only_once_its_body_is_on_disk() {
    fresh_only_with_body(30, &[]);
}

#[test]
fn a_record_is_fresh_only_once_its_body_is_on_disk_synced_file_by_file() {
    fresh_only_with_body(40, &["--fetch-sync-each"]);
}

/// Fetches 400 pages from four servers on 127.0.0.`first`.. with `args`,
/// reading the store and the cache all along.
fn fresh_only_with_body(first: u8, args: &[&str]) {
    let c = Crawl::new();
    let servers: Vec<Server> = (first..first + 4)
        .map(|i| Server::start(&format!("127.0.0.{i}")))
        .collect();
    let st = c.store();
    let mut urls = Vec::new();
    for (i, srv) in servers.iter().enumerate() {
        for j in 0..100 {
            let path = format!("/p{j}");
            // 20 KB each, every one different.
            let body = format!("<p>server {i} page {j}</p>{}", "x".repeat(20_000));
            srv.route(&path, Reply::html(body).delayed(Duration::from_millis(2)));
            let u = srv.url(&format!("s{i}.test"), &path);
            plant_ready(&st, &u, &srv.ip());
            urls.push(u);
        }
    }
    let mut child = spawn({
        let mut cmd = c.cmd("nlpc-fetch");
        cmd.args(["--once", "--fetch-polite", "0"]).args(args);
        cmd
    });
    // The cache is read while records commit: every FRESH record seen at
    // any moment already has its whole body under its name.
    let cache = c.cache();
    let mut looks_mid_run = 0;
    loop {
        let exited = child.try_wait().expect("wait").is_some();
        let seen = fresh_with_bodies(&st, &cache);
        if !exited && !seen.is_empty() && seen.len() < urls.len() {
            looks_mid_run += 1;
        }
        if exited {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let out = child.wait_with_output().expect("output");
    assert_eq!(out.status.code(), Some(0), "nlpc-fetch: {}", stderr(&out));
    assert!(
        looks_mid_run > 0,
        "the cache was never read while some records were FRESH and others not"
    );
    let mut fresh: Vec<String> = fresh_with_bodies(&st, &cache).into_iter().collect();
    fresh.sort();
    urls.sort();
    assert_eq!(fresh, urls);
    assert_consistent(&st, true);
    assert!(
        nlpcrawl::store::cache::temporaries(&c.cache_dir()).is_empty(),
        "temporary files left in the cache"
    );
}

/// The most bytes of bodies the fetcher held waiting, from its last line.
fn most_waiting(log: &str) -> u64 {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("stopped:"))
        .unwrap_or_else(|| panic!("no stopped: line in {log}"));
    let after = line
        .split("at most ")
        .nth(1)
        .unwrap_or_else(|| panic!("no figure in {line}"));
    after
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no figure in {line}"))
}

#[test]
fn the_cap_on_waiting_bodies_holds_with_large_bodies() {
    const MB: usize = 1 << 20;
    let c = Crawl::new();
    let servers: Vec<Server> = (34..38)
        .map(|i| Server::start(&format!("127.0.0.{i}")))
        .collect();
    let st = c.store();
    let mut urls = Vec::new();
    for (i, srv) in servers.iter().enumerate() {
        for j in 0..8 {
            let path = format!("/big{j}");
            let mut body = format!("<p>server {i} page {j}</p>").into_bytes();
            body.resize(MB, b'y');
            srv.route(&path, Reply::html(body));
            let u = srv.url(&format!("b{i}.test"), &path);
            plant_ready(&st, &u, &srv.ip());
            urls.push(u);
        }
    }
    drop(st);
    let o = c.run(
        "nlpc-fetch",
        &[
            "--once",
            "--fetch-polite",
            "0",
            "--fetch-max-size",
            "2M",
            "--fetch-store-cap",
            "1M",
        ],
    );
    let log = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "nlpc-fetch: {log}");
    let most = most_waiting(&log);
    // Once a megabyte waits no request starts; what was in flight then
    // (one request per address over HTTP/1.1) may still arrive.
    let bound = (MB + servers.len() * MB) as u64;
    assert!(most >= MB as u64, "no body was counted waiting: {most}");
    assert!(
        most <= bound,
        "{most} bytes of bodies waited, more than the cap and one body per address ({bound})"
    );
    let st = c.store();
    let mut fresh: Vec<String> = fresh_with_bodies(&st, &c.cache()).into_iter().collect();
    fresh.sort();
    urls.sort();
    assert_eq!(fresh, urls);
}

#[test]
fn a_cap_of_nothing_is_refused() {
    let c = Crawl::new();
    let o = c.run("nlpc-fetch", &["--once", "--fetch-store-cap", "0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--fetch-store-cap: 0 would let no request start"),
        "{}",
        stderr(&o)
    );
}

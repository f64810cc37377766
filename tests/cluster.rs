//! Several machines: nodes of one crawl, each with its own database, and
//! nlpc-relay carrying links between them over a real 3-server NATS
//! cluster with JetStream on loopback (tests/common/nats.rs), over the
//! test web of scripts/testweb (nginx and dnsmasq on loopback).
//!
//! The single-node crawl of the same generated web verifies exactly the
//! generator's ground truth (tests/testweb.rs asserts that), so the nodes'
//! union is compared with that truth here. The three-node crawl runs over a
//! cluster secured as on an open network (TLS with client certificates, a
//! password for each node's user); on another such cluster, a node
//! without credentials is refused in one line, and a publisher with
//! credentials of its own injects bad links and counters rows, none of
//! which becomes a record or a row.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::process::Child;
use std::time::Duration;
use std::time::Instant;

use common::nats::Nats;
use common::web::{diff, Web};
use common::*;
use nlpcrawl::cluster::relay::{Config, Relay};
use nlpcrawl::store::outbox;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{self, scope, Inserted, Store};
use nlpcrawl::web::admit::Filter;
use nlpcrawl::web::partition::{partition_of, Partition};
use nlpcrawl::web::url;

fn create(path: &std::path::Path) -> Store {
    Store::open(path, store::Options::default()).expect("create store")
}

/// A host that partition `p` of `of` owns.
fn host_of_partition(p: u32, of: u32) -> String {
    (0..)
        .map(|i| format!("h{i}.lv"))
        .find(|h| partition_of(h, of) == p)
        .expect("some host")
}

#[test]
fn a_link_goes_through_the_outbox_and_arrives_once() {
    let nats = Nats::start(3);
    let (a, b) = (Crawl::new(), Crawl::new());
    let (sa, sb) = (create(&a.db()), create(&b.db()));
    let (pa, pb) = (Partition { node: 0, of: 2 }, Partition { node: 1, of: 2 });
    outbox::set_map(&sa, pa).unwrap();
    outbox::set_map(&sb, pb).unwrap();
    // A database keeps its partition.
    assert!(outbox::set_map(&sa, pb).is_err());

    let theirs = format!("http://{}/page", host_of_partition(1, 2));
    let ours = format!("http://{}/page", host_of_partition(0, 2));
    let f = Filter::default();
    let mut rec = Record::new(&theirs, 10);
    rec.depth = 4;
    // In the caller's transaction: aborted, nothing stays.
    {
        let mut w = sa.write().unwrap();
        assert_eq!(
            scope::insert(&mut w, &rec, &f).unwrap(),
            Ok(Inserted::Forwarded(1))
        );
        assert_eq!(outbox::len(&w_read(&sa)).unwrap(), 0, "seen before commit");
    }
    assert_eq!(outbox::len(&sa.read().unwrap()).unwrap(), 0);
    let mut w = sa.write().unwrap();
    assert_eq!(
        scope::insert(&mut w, &rec, &f).unwrap(),
        Ok(Inserted::Forwarded(1))
    );
    assert!(matches!(
        scope::insert(&mut w, &Record::new(&ours, 10), &f).unwrap(),
        Ok(Inserted::New(_))
    ));
    w.commit().unwrap();
    let rd = sa.read().unwrap();
    assert_eq!(outbox::len(&rd).unwrap(), 1);
    assert!(
        rd.lookup(&theirs).unwrap().is_none(),
        "a foreign record here"
    );
    let e = &outbox::peek(&rd, 10).unwrap()[0];
    assert_eq!(
        (e.partition, e.depth, e.url.as_str()),
        (1, 4, theirs.as_str())
    );
    drop(rd);

    let cfg = |p| Config {
        stat_every: Duration::from_secs(3600),
        ..Config::plain(nats.urls().split(',').map(str::to_string).collect(), p)
    };
    let mut ra = Relay::connect(cfg(pa), f.clone(), |_| false).expect("relay A");
    let mut rb = Relay::connect(cfg(pb), f.clone(), |_| false).expect("relay B");
    // The cluster has 2 partitions now: a node of 3 is refused.
    let other = Relay::connect(cfg(Partition { node: 2, of: 3 }), f.clone(), |_| false);
    match other {
        Err(nlpcrawl::Error::Usage(why)) => assert!(why.contains("has 2 partitions"), "{why}"),
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a node of another partition map was let in"),
    }
    let wait = Duration::from_millis(100);
    assert_eq!(ra.round(&sa, wait).unwrap().sent, 1);
    assert_eq!(outbox::len(&sa.read().unwrap()).unwrap(), 0, "sent, kept");
    // The same link found again and sent again: the stream's duplicate
    // window drops the copy (same record hash, same message id).
    let mut w = sa.write().unwrap();
    scope::insert(&mut w, &rec, &f).unwrap().unwrap();
    w.commit().unwrap();
    assert_eq!(ra.round(&sa, wait).unwrap().sent, 1);

    let mut got = Vec::new();
    wait_until(Duration::from_secs(30), "the link at node B", || {
        got.push(rb.round(&sb, wait).unwrap());
        got.iter().map(|r| r.received).sum::<usize>() >= 1
    });
    // And delivered twice after all (a relay that died after its commit
    // and before its acknowledgement): B inserts it once.
    let mut w = sa.write().unwrap();
    scope::insert(&mut w, &rec, &f).unwrap().unwrap();
    w.commit().unwrap();
    let copy = outbox::peek(&sa.read().unwrap(), 1).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let first = nats.urls().split(',').next().unwrap().to_string();
        let c = async_nats::connect(first).await.unwrap();
        let js = async_nats::jetstream::new(c);
        // No message id: the engine keeps it, as a redelivery would come.
        js.publish("nlpcrawl.links.1", copy[0].encode().into())
            .await
            .unwrap()
            .await
            .unwrap();
    });
    wait_until(Duration::from_secs(30), "the copy at node B", || {
        got.push(rb.round(&sb, wait).unwrap());
        got.iter().map(|r| r.received).sum::<usize>() >= 2
    });
    let received: usize = got.iter().map(|r| r.received).sum();
    let new: usize = got.iter().map(|r| r.new).sum();
    assert_eq!((received, new), (2, 1), "rounds: {got:?}");
    let rd = sb.read().unwrap();
    let (_, r) = rd.lookup(&theirs).unwrap().expect("the link at B");
    assert_eq!((r.state, r.depth), (State::New, 4));
    assert_eq!(rd.count(State::New, false).unwrap(), 1);
    assert_consistent(&sb, true);
}

fn w_read(s: &Store) -> nlpcrawl::store::Read<'_> {
    s.read().unwrap()
}

/// One crawl node: its directories and its nlpcd.
struct Node {
    crawl: Crawl,
    child: Option<Child>,
}

fn start_node(n: &mut Node, i: u32, nats: &Nats, web: &Web, seeds: &[String]) {
    let mut cmd = n.crawl.cmd("nlpcd");
    cmd.args(web.nlpcd_args())
        .args(["--nats", &nats.urls(), "--node", &format!("{i}/3")])
        .args(
            nats.secure
                .as_ref()
                .map(|x| x.args(Some(&format!("node{i}"))))
                .unwrap_or_default(),
        )
        // Rejected pages queued for nlpc-scan are looked at every
        // --use-interval, not on a wake-up: keep the settling short.
        .args(["--use-interval", "0.5s", "--stat-every", "1s"])
        .arg("--log")
        .arg(n.crawl.tmp.path().join("nlpcd.log"))
        .args(seeds)
        // Its own process group, so the test can kill it with its daemons.
        .process_group(0);
    n.child = Some(spawn(cmd));
}

fn kill_group(n: &mut Node) {
    if let Some(mut c) = n.child.take() {
        // SAFETY: kill(2) on the group of a child this test started.
        unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
        let _ = c.wait();
    }
}

fn stop(n: &mut Node) {
    if let Some(mut c) = n.child.take() {
        // SAFETY: kill(2) on a child this test started.
        unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
        let _ = c.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        kill_group(self);
    }
}

fn open_ro(n: &Node) -> Option<Store> {
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    n.crawl
        .db()
        .join("data.mdb")
        .exists()
        .then(|| Store::open(&n.crawl.db(), opts).ok())
        .flatten()
}

/// The verified pages of every node, outside the calendar trap.
fn union(nodes: &[Node], web: &Web) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for n in nodes {
        if let Some(st) = open_ro(n) {
            all.extend(urls_in(&st, State::Verified));
            all.extend(urls_in(&st, State::Scanned));
        }
    }
    all.into_iter()
        .filter(|u| !u.starts_with(&web.trap.0))
        .collect()
}

/// True when no node has work left or links to send.
fn settled(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| {
        open_ro(n).is_some_and(|st| {
            nlpcrawl::launch::supervisor::active_records(&st).ok() == Some(0)
                && outbox::len(&st.read().unwrap()).ok() == Some(0)
        })
    })
}

fn logs(nodes: &[Node]) -> String {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let counts = open_ro(n).map(|st| {
                let rd = st.read().unwrap();
                let c = nlpcrawl::store::series::state_counts(&rd).unwrap();
                let c: Vec<String> = c
                    .into_iter()
                    .filter(|(_, v)| *v > 0)
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect();
                format!("{} outbox {}", c.join(", "), outbox::len(&rd).unwrap())
            });
            let l =
                std::fs::read_to_string(n.crawl.tmp.path().join("nlpcd.log")).unwrap_or_default();
            let tail: Vec<&str> = l.lines().rev().take(40).collect();
            format!(
                "--- node {i}: {counts:?}\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every node holds records of its own partition only.
fn assert_own_partitions(nodes: &[Node]) {
    for (i, n) in nodes.iter().enumerate() {
        let st = open_ro(n).expect("node database");
        let rd = st.read().unwrap();
        rd.walk_all(|_, r| {
            let host = url::host_of(&r.url);
            assert_eq!(
                partition_of(host, 3),
                i as u32,
                "node {i} holds {} of another node",
                r.url
            );
            Ok(true)
        })
        .unwrap();
    }
}

/// Waits until the nodes' union is the truth and no node has work left;
/// fails with the nodes' logs.
fn wait_crawl(nodes: &[Node], web: &Web) {
    let start = Instant::now();
    let mut found: Option<Duration> = None;
    while !(union(nodes, web) == web.verified && settled(nodes)) {
        if found.is_none() && union(nodes, web) == web.verified {
            found = Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "every page verified after {:.1} s, every node settled after {:.1} s",
        found.unwrap_or_else(|| start.elapsed()).as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
}

fn three_nodes(web: &Web, nats: &Nats) -> Vec<Node> {
    let mut nodes: Vec<Node> = (0..3)
        .map(|_| Node {
            crawl: Crawl::new(),
            child: None,
        })
        .collect();
    // Every seed goes to node 0: the others' arrive through the outbox.
    for (i, n) in nodes.iter_mut().enumerate() {
        let seeds = if i == 0 {
            web.seeds.clone()
        } else {
            Vec::new()
        };
        start_node(n, i as u32, nats, web, &seeds);
    }
    nodes
}

/// The users of a secured test cluster: one a node, and one publisher
/// who is no node.
const USERS: [&str; 4] = ["node0", "node1", "node2", "outsider"];

#[test]
fn three_nodes_crawl_the_test_web_as_one_node_does() {
    let web = Web::start(200);
    let nats = Nats::start_secure(3, &USERS);
    let mut parts: BTreeMap<u32, usize> = BTreeMap::new();
    for u in &web.verified {
        *parts.entry(partition_of(url::host_of(u), 3)).or_default() += 1;
    }
    assert!(
        parts.len() >= 2,
        "the web's hosts fall on one node: {parts:?}"
    );
    let mut nodes = three_nodes(&web, &nats);
    wait_crawl(&nodes, &web);
    // Every node's counters reach the others (the monitor's view).
    wait_until(
        Duration::from_secs(30),
        "every node's counters at node 0",
        || {
            open_ro(&nodes[0])
                .is_some_and(|st| nlpcrawl::cluster::relay::nodes(&st).unwrap().len() == 3)
        },
    );
    for n in &mut nodes {
        stop(n);
    }
    let got = union(&nodes, &web);
    assert!(
        got == web.verified,
        "the nodes' verified pages differ from one node's:\n{}\n{}",
        diff(&got, &web.verified),
        logs(&nodes)
    );
    assert_own_partitions(&nodes);
    // No page was fetched by two nodes, nor twice.
    let mut times: BTreeMap<String, usize> = BTreeMap::new();
    for h in web.hits() {
        if !h.url.ends_with("/robots.txt") {
            *times.entry(h.url).or_default() += 1;
        }
    }
    let twice: Vec<_> = times.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:#?}");
    // And exactly the requests of one correct crawl (robots.txt, the trap's
    // bound by link depth, carried with each link, included).
    let requested: BTreeSet<String> = times.into_keys().collect();
    assert!(
        requested == web.requested,
        "the requests differ from those of one node:\n{}",
        diff(&requested, &web.requested)
    );
    for n in &nodes {
        let st = open_ro(n).unwrap();
        assert_consistent(&st, true);
    }
    let st = open_ro(&nodes[0]).unwrap();
    let seen = nlpcrawl::cluster::relay::nodes(&st).unwrap();
    assert_eq!(
        seen.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        vec![0, 1, 2],
        "node 0 has counters of {seen:?}"
    );
    // The monitor's rows: a heading and one row a node.
    let rows = nlpcrawl::cluster::relay::rows(&st).unwrap();
    assert_eq!(rows.len(), 5, "{rows:#?}");
    assert!(
        rows[2].starts_with("0/3 ") && rows[4].starts_with("2/3 "),
        "{rows:#?}"
    );
}

#[test]
fn a_killed_node_and_server_lose_no_link() {
    let web = Web::start(210);
    let mut nats = Nats::start(3);
    let mut nodes = three_nodes(&web, &nats);
    // Mid-crawl: some pages verified, not all.
    wait_until(Duration::from_secs(120), "the crawl to get going", || {
        !union(&nodes, &web).is_empty()
    });
    kill_group(&mut nodes[1]);
    nats.kill(2);
    assert!(
        union(&nodes, &web) != web.verified,
        "the crawl ended before the kill; the test web is too small"
    );
    nats.restart(2);
    let seeds: Vec<String> = Vec::new();
    start_node(&mut nodes[1], 1, &nats, &web, &seeds);
    wait_crawl(&nodes, &web);
    for n in &mut nodes {
        stop(n);
    }
    let got = union(&nodes, &web);
    assert!(
        got == web.verified,
        "a link was lost:\n{}\n{}",
        diff(&got, &web.verified),
        logs(&nodes)
    );
    assert_own_partitions(&nodes);
}

/// A node that lacks what the cluster asks for is refused in one line,
/// by nlpcd before it starts anything and by nlpc-relay alone, with the
/// password never in it.
#[test]
fn a_node_without_credentials_is_refused_in_one_line() {
    let nats = Nats::start_secure(3, &USERS);
    let x = nats.secure.as_ref().unwrap();
    let c = Crawl::new();
    let _ = c.store();
    let wrong = c.tmp.path().join("wrong.password");
    std::fs::write(&wrong, "not-the-password\n").unwrap();
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "nlpcd",
            x.args(None),
            "asks for credentials this node does not have",
        ),
        (
            "nlpc-relay",
            x.args(None),
            "asks for credentials this node does not have",
        ),
        (
            "nlpc-relay",
            [
                x.args(None),
                vec![
                    "--nats-user".into(),
                    "node0".into(),
                    "--nats-password".into(),
                    wrong.display().to_string(),
                ],
            ]
            .concat(),
            "refuses this node's credentials",
        ),
        // No CA: the servers' certificate cannot be checked.
        (
            "nlpc-relay",
            vec![
                "--nats-user".into(),
                "node0".into(),
                "--nats-password".into(),
                x.password_file("node0").display().to_string(),
            ],
            "TLS failed",
        ),
    ];
    for (bin, args, want) in cases {
        let t = Instant::now();
        let o = c
            .cmd(bin)
            .args(["--nats", &nats.urls(), "--node", "0/3", "--once"])
            .args(&args)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{bin} {args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{bin} {args:?}: {err}");
        assert!(err.contains(want), "{bin} {args:?}: {err}");
        for (_, pw, _) in &x.users {
            assert!(!err.contains(pw.as_str()), "a password in {err}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{bin} took {:?}",
            t.elapsed()
        );
    }
    // No secret on the command line: a password in a URL is refused, and
    // not shown.
    let o = c
        .cmd("nlpc-relay")
        .args([
            "--nats",
            "nats://node0:hunter2@127.0.0.1:4222",
            "--node",
            "0/3",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no credentials in a server URL"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
}

/// An nkey seed in a file signs a node in as a password does; a seed the
/// servers do not know is refused in one line, and no seed is shown.
#[test]
fn a_node_signs_in_with_an_nkey_seed_file() {
    let nats = Nats::start_secure(3, &USERS);
    let x = nats.secure.as_ref().unwrap();
    let c = Crawl::new();
    let _ = c.store();
    let relay = |seed: &std::path::Path| {
        c.cmd("nlpc-relay")
            .args(["--nats", &nats.urls(), "--node", "0/3", "--once"])
            .args(x.args(None))
            .arg("--nats-nkey")
            .arg(seed)
            .output()
            .unwrap()
    };
    let o = relay(&x.nkey.1);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = relay(&x.stranger_nkey.1);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("refuses this node's credentials"), "{err}");
    assert!(!err.contains(&x.stranger_nkey.0), "a seed in {err}");
    let known = std::fs::read_to_string(&x.nkey.1).unwrap();
    assert!(!stderr(&relay(&x.nkey.1)).contains(known.trim()));
}

/// Hosts of partition `p` of 3 among names made by `name`.
fn hosts_of(p: u32, name: impl Fn(usize) -> String, n: usize) -> Vec<String> {
    (0..)
        .map(name)
        .filter(|h| partition_of(h, 3) == p)
        .take(n)
        .collect()
}

/// A publisher with credentials of its own injects links and counters
/// rows that break each of node 1's rules: not one becomes a record or a
/// row, and each refusal is counted by its cause. A link and a row that
/// keep the rules, sent among them, are taken: the checks refuse what
/// they should, not everything.
#[test]
fn links_and_rows_injected_by_a_stranger_are_refused_and_counted() {
    use nlpcrawl::cluster::nats::{Auth, Tls};
    use nlpcrawl::web::admit::Deny;
    let nats = Nats::start_secure(3, &USERS);
    let x = nats.secure.as_ref().unwrap();
    let node = Crawl::new();
    let st = create(&node.db());
    let me = Partition { node: 1, of: 3 };
    outbox::set_map(&st, me).unwrap();
    let denied = hosts_of(1, |i| format!("aizliegts{i}.lv"), 1).remove(0);
    let filter = Filter {
        deny: vec![Deny::parse(&denied).unwrap()],
        link_depth: Some(3),
        max_depth: 6,
        ..Filter::default()
    };
    let cfg = Config {
        stat_every: Duration::from_secs(3600),
        auth: Auth::User {
            name: "node1".into(),
            password: x.password_file("node1").to_path_buf(),
        },
        tls: Tls {
            ca: Some(x.ca.clone()),
            cert: Some((x.cert.clone(), x.key.clone())),
        },
        ..Config::plain(nats.urls().split(',').map(str::to_string).collect(), me)
    };
    let mut relay = Relay::connect(cfg, filter, |_| false).expect("node 1's relay");

    let ours = |i: usize| hosts_of(1, |j| format!("labs{j}.lv"), i + 1).remove(i);
    let private = hosts_of(1, |j| format!("10.0.{}.{}", j / 250, j % 250 + 1), 1).remove(0);
    let entry = |partition: u32, depth: u16, url: &str| {
        outbox::Entry {
            hash: [0; 16],
            partition,
            depth,
            url: url.to_string(),
        }
        .encode()
    };
    let good = format!("http://{}/labs", ours(0));
    // (payload, the cause node 1 refuses it for)
    let bad: Vec<(Vec<u8>, &str)> = vec![
        (entry(1, 1, &format!("http://{denied}/x")), "host denied"),
        (
            entry(1, 1, &format!("http://{private}/admin")),
            "private address not allowed",
        ),
        (
            entry(1, 1, &format!("http://{}/{}", ours(1), "a".repeat(2000))),
            "message too large",
        ),
        (
            entry(1, 1, &format!("http://{}/{}", ours(1), "ž".repeat(500))),
            "URL too long",
        ),
        (
            entry(1, 9, &format!("http://{}/deep", ours(2))),
            "too many links from the seeds",
        ),
        (
            entry(1, 1, &format!("http://{}/{}", ours(3), "d/".repeat(20))),
            "path too deep",
        ),
        (
            entry(1, 1, &format!("gopher://{}/", ours(4))),
            "scheme not allowed",
        ),
        (b"junk".to_vec(), "not a link message"),
        (
            vec![1, 0, 0, 0, 1, 0, 0xff, 0xfe, 0xfd],
            "not a link message",
        ),
        (
            entry(0, 1, &format!("http://{}/", ours(5))),
            "sent for another node",
        ),
        (
            entry(
                1,
                1,
                &format!("http://{}/", hosts_of(0, |j| format!("cits{j}.lv"), 1)[0]),
            ),
            "host of another node",
        ),
    ];
    let good_row = serde_json::json!({"node": 0, "of": 3, "time": 7, "outbox": 2, "states": {"NEW": 5}, "extra": "dropped"});
    let bad_rows: Vec<(String, Vec<u8>)> = vec![
        (
            "nlpcrawl.stats.0".into(),
            br#"{"node":0,"of":3,"time":1,"outbox":0,"states":{"EVIL":1}}"#.to_vec(),
        ),
        ("nlpcrawl.stats.0".into(), b"not json".to_vec()),
        (
            "nlpcrawl.stats.2".into(),
            br#"{"node":0,"of":3,"time":1,"outbox":0,"states":{}}"#.to_vec(),
        ),
        (
            "nlpcrawl.stats.1".into(),
            br#"{"node":1,"of":3,"time":1,"outbox":0,"states":{}}"#.to_vec(),
        ),
        (
            "nlpcrawl.stats.99".into(),
            br#"{"node":99,"of":3,"time":1,"outbox":0,"states":{}}"#.to_vec(),
        ),
        (
            "nlpcrawl.stats.0".into(),
            format!(r#"{{"pad":"{}"}}"#, "x".repeat(20_000)).into_bytes(),
        ),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = async_nats::ConnectOptions::new()
            .user_and_password("outsider".into(), x.users[3].1.clone())
            .add_root_certificates(x.ca.clone())
            .add_client_certificate(x.cert.clone(), x.key.clone())
            .require_tls(true)
            .connect(nats.urls().split(',').next().unwrap())
            .await
            .expect("the outsider's connection");
        let js = async_nats::jetstream::new(c.clone());
        // The rows first: the acknowledgements of the links after them
        // say the servers have them.
        for (subject, row) in &bad_rows {
            c.publish(subject.clone(), row.clone().into())
                .await
                .unwrap();
        }
        c.publish("nlpcrawl.stats.0", good_row.to_string().into())
            .await
            .unwrap();
        for (payload, _) in bad.iter().chain([(entry(1, 1, &good), "")].iter()) {
            let mut h = async_nats::HeaderMap::new();
            h.insert("Nlpc-Node", "0");
            js.publish_with_headers("nlpcrawl.links.1", h, payload.clone().into())
                .await
                .unwrap()
                .await
                .unwrap();
        }
        c.flush().await.unwrap();
    });
    let want = bad.len() + bad_rows.len();
    let mut got = Vec::new();
    let start = Instant::now();
    while !(got
        .iter()
        .map(|r: &nlpcrawl::cluster::relay::Round| r.refused)
        .sum::<usize>()
        >= want
        && got.iter().map(|r| r.new).sum::<usize>() >= 1)
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "not every message came: {:?} {:?}\n{}",
            got.iter()
                .filter(|r| **r != Default::default())
                .collect::<Vec<_>>(),
            relay.refused.by_cause,
            nats.log(0)
        );
        got.push(relay.round(&st, Duration::from_millis(100)).unwrap());
    }
    let refused: usize = got.iter().map(|r| r.refused).sum();
    assert_eq!(refused, want, "rounds: {got:?}");
    // Only the good link became a record, as nlpc-scan would insert it.
    let rd = st.read().unwrap();
    let mut records = Vec::new();
    rd.walk_all(|_, r| {
        records.push((r.url.clone(), r.depth, r.state));
        Ok(true)
    })
    .unwrap();
    assert_eq!(records, vec![(good.clone(), 1, State::New)]);
    drop(rd);
    // Only the good row was filed (and this node's own), made again from
    // its fields.
    let rows = nlpcrawl::cluster::relay::nodes(&st).unwrap();
    let numbers: Vec<u32> = rows.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, vec![0, 1], "{rows:?}");
    assert_eq!(rows[0].1["states"], serde_json::json!({"NEW": 5}));
    assert!(rows[0].1.get("extra").is_none(), "{rows:?}");
    // Each refusal counted by its cause, in the relay and in its figures.
    let mut causes: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, c) in &bad {
        *causes.entry(c).or_default() += 1;
    }
    causes.insert("counters row not valid", bad_rows.len() as u64);
    let counted: BTreeMap<&str, u64> = relay
        .refused
        .by_cause
        .iter()
        .map(|(k, v)| (*k, *v))
        .collect();
    assert_eq!(counted, causes);
    let figures: serde_json::Value = serde_json::from_slice(
        &st.read()
            .unwrap()
            .table_get(
                nlpcrawl::store::Table::Stats,
                nlpcrawl::cluster::relay::STATS_KEY.as_bytes(),
            )
            .unwrap()
            .expect("the relay's figures"),
    )
    .unwrap();
    assert_eq!(figures["refused"], want as u64, "{figures}");
    assert_eq!(figures["refused_by_cause"]["host denied"], 1, "{figures}");
    // And the stream is bounded, with the limits' defaults.
    rt.block_on(async {
        let c = async_nats::ConnectOptions::new()
            .user_and_password("outsider".into(), x.users[3].1.clone())
            .add_root_certificates(x.ca.clone())
            .add_client_certificate(x.cert.clone(), x.key.clone())
            .require_tls(true)
            .connect(nats.urls().split(',').next().unwrap())
            .await
            .unwrap();
        let js = async_nats::jetstream::new(c);
        let mut s = js.get_stream("NLPCRAWL_LINKS").await.unwrap();
        let cfg = s.info().await.unwrap().config.clone();
        assert_eq!(cfg.max_bytes, 1 << 30);
        assert_eq!(cfg.max_message_size, 8 << 10);
        assert_eq!(cfg.max_age, Duration::from_secs(30 * 86_400));
        assert_eq!(
            cfg.discard,
            async_nats::jetstream::stream::DiscardPolicy::New
        );
        // A message past the stream's size limit is refused by the servers.
        let big = vec![b'x'; 9 << 10];
        let r = js
            .publish("nlpcrawl.links.1", big.into())
            .await
            .unwrap()
            .await;
        assert!(r.is_err(), "a 9 KB message was stored");
    });
}

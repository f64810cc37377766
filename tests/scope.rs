//! The scope options and the yield rule, end to end: small webs served by
//! tests/common's HTTP server on 127.0.0.16x, crawled by the daemons
//! themselves (each run with --once, in the order records flow, round
//! after round, so what the crawl knows when it decides is the same every
//! run), and checked against the server's request log.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::stage::vrfy;
use nlpcrawl::store::record::State;

fn text(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lang")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A page of `text` with links to `links`.
fn page(text: &str, links: &[String]) -> String {
    let mut s = format!("<html><body><p>{text}</p>");
    for l in links {
        s.push_str(&format!("<a href=\"{l}\">x</a>"));
    }
    s.push_str("</body></html>");
    s
}

/// A crawl of `srv` whose host names resolve through a hosts file.
struct Run {
    c: Crawl,
    hosts: PathBuf,
}

impl Run {
    fn new(srv: &Server, names: &[&str]) -> Run {
        let c = Crawl::new();
        let hosts = c.tmp.path().join("hosts");
        let lines: String = names
            .iter()
            .map(|n| format!("{} {n}\n", srv.ip()))
            .collect();
        std::fs::write(&hosts, lines).unwrap();
        Run { c, hosts }
    }

    /// Seeds with `args` (settings stored for every daemon), then stores
    /// `set` (NAME=VALUE) with nlpc-list --set.
    fn seed(&self, args: &[&str], set: &[&str]) -> String {
        let mut a = vec!["--allow-private"];
        a.extend_from_slice(args);
        let o = self.c.run("nlpc-scan", &a);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let mut s = vec!["--set", "fetch-polite=0"];
        for x in set {
            s.extend(["--set", x]);
        }
        let l = self.c.run("nlpc-list", &s);
        assert_eq!(l.status.code(), Some(0), "{}", stderr(&l));
        stderr(&o)
    }

    /// Records that can still move, and rejected pages waiting for
    /// nlpc-scan's tunnelling.
    fn active(&self) -> u64 {
        let st = self.c.store();
        let rd = st.read().unwrap();
        let mut n = 0;
        for s in [
            State::New,
            State::Ready,
            State::Dirty,
            State::Fresh,
            State::Verified,
        ] {
            n += rd.count(s, false).unwrap() + rd.count(s, true).unwrap();
        }
        n + nlpcrawl::store::tunnel::queued(&rd, 1).unwrap().len() as u64
    }

    /// Rounds of scan, resolve, fetch, vrfy until nothing can move; the
    /// standard error of every nlpc-scan run (with -d: link refusals).
    fn crawl(&self) -> String {
        self.crawl_logs().0
    }

    /// [`Run::crawl`], with the standard error of every daemon run too.
    fn crawl_logs(&self) -> (String, String) {
        let hosts = self.hosts.display().to_string();
        let mut scan_log = String::new();
        let mut all_log = String::new();
        for _ in 0..40 {
            for (bin, extra) in [
                ("nlpc-scan", vec!["--once", "-d"]),
                (
                    "nlpc-resolve",
                    vec![
                        "--once",
                        "--hosts-file",
                        &hosts,
                        "--nameserver",
                        "127.0.0.169:9",
                    ],
                ),
                ("nlpc-fetch", vec!["--once"]),
                ("nlpc-vrfy", vec!["--once"]),
            ] {
                let o = self.c.run(bin, &extra);
                assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
                if bin == "nlpc-scan" {
                    scan_log.push_str(&stderr(&o));
                }
                all_log.push_str(&stderr(&o));
            }
            if self.active() == 0 {
                return (scan_log, all_log);
            }
        }
        panic!("the crawl did not settle in 40 rounds");
    }
}

/// host + path of every page request, robots.txt aside.
fn asked(srv: &Server) -> BTreeSet<String> {
    srv.page_hits()
        .into_iter()
        .map(|h| {
            let host = h.host.split(':').next().unwrap_or("").to_string();
            format!("{host}{}", h.path)
        })
        .collect()
}

#[test]
fn denied_excluded_too_deep_and_over_quota_pages_are_never_requested() {
    let srv = Server::start("127.0.0.160");
    let lv = text("lv-long.txt");
    let u = |h: &str, p: &str| srv.url(h, p);
    let quota_pages: Vec<String> = (1..=6).map(|i| u("q.test", &format!("/{i}"))).collect();
    let mut seed_links = vec![
        u("a.test", "/d1"),
        u("a.test", "/skip/x"),
        u("a.test", "/f.pdf"),
        u("a.test", "/login"),
        u("deny.test", "/"),
        u("sub.deny.test", "/p"),
    ];
    seed_links.extend(quota_pages.iter().cloned());
    srv.route_host("a.test", "/", Reply::html(page(&lv, &seed_links)));
    srv.route_host(
        "a.test",
        "/d1",
        Reply::html(page(&lv, &[u("a.test", "/d2")])),
    );
    srv.route_host(
        "a.test",
        "/d2",
        Reply::html(page(&lv, &[u("a.test", "/d3")])),
    );
    for p in ["/d3", "/skip/x", "/f.pdf", "/login"] {
        srv.route_host("a.test", p, Reply::html(page(&lv, &[])));
    }
    srv.route_host("deny.test", "/", Reply::html(page(&lv, &[])));
    srv.route_host("sub.deny.test", "/p", Reply::html(page(&lv, &[])));
    for i in 1..=6 {
        srv.route_host("q.test", &format!("/{i}"), Reply::html(page(&lv, &[])));
    }
    let names = ["a.test", "deny.test", "sub.deny.test", "q.test"];
    let run = Run::new(&srv, &names);
    let seed = u("a.test", "/");
    run.seed(
        &[
            "--filter-deny",
            "deny.test,*/login*",
            "--filter-exclude",
            "*/skip/*",
            "--filter-exclude",
            "*.pdf",
            "--filter-depth",
            "2",
            "--filter-quota",
            "3",
            &seed,
        ],
        &[],
    );
    let log = run.crawl();
    let asked = asked(&srv);
    let want: BTreeSet<String> = ["a.test/", "a.test/d1", "a.test/d2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let a_asked: BTreeSet<String> = asked
        .iter()
        .filter(|h| h.starts_with("a.test/"))
        .cloned()
        .collect();
    assert_eq!(a_asked, want, "all requests: {asked:#?}");
    for never in ["deny.test/", "sub.deny.test/p"] {
        assert!(!asked.contains(never), "{never} requested");
    }
    let q: Vec<_> = asked.iter().filter(|h| h.starts_with("q.test/")).collect();
    assert_eq!(q.len(), 3, "quota 3, asked {q:?}");
    // Each refusal is said once with its reason.
    for (what, why) in [
        (u("deny.test", "/"), "host denied (deny.test)".to_string()),
        (
            u("sub.deny.test", "/p"),
            "host denied (sub.deny.test)".to_string(),
        ),
        (
            u("a.test", "/login"),
            "URL denied (pattern */login*)".into(),
        ),
        (
            u("a.test", "/skip/x"),
            "URL excluded (pattern */skip/*)".into(),
        ),
        (u("a.test", "/f.pdf"), "URL excluded (pattern *.pdf)".into()),
        (
            u("a.test", "/d3"),
            "too many links from the seeds (3 links, limit 2)".into(),
        ),
    ] {
        let said = log
            .lines()
            .filter(|l| l.contains(&format!("skip {what}: {why}")))
            .count();
        assert_eq!(said, 1, "{what}: {why}\n{log}");
    }
    let over: Vec<_> = log
        .lines()
        .filter(|l| l.contains("host quota reached (q.test: 3 pages)"))
        .collect();
    assert_eq!(over.len(), 3, "{log}");
    // Nothing refused became a record.
    let st = run.c.store();
    let rd = st.read().unwrap();
    let mut n = 0;
    rd.walk_all(|_, r| {
        assert!(
            !r.url.contains("deny.test") && !r.url.contains("/skip/") && !r.url.ends_with(".pdf"),
            "{}",
            r.url
        );
        n += 1;
        Ok(true)
    })
    .unwrap();
    assert_eq!(n, 6, "a.test /, /d1, /d2 and three q.test pages");
    assert_eq!(
        nlpcrawl::store::scope::count_read(&rd, "q.test").unwrap(),
        3
    );
    assert_eq!(
        nlpcrawl::store::scope::count_read(&rd, "a.test").unwrap(),
        3
    );
}

#[test]
fn a_seed_out_of_scope_is_refused_with_its_reason() {
    let c = Crawl::new();
    let o = c.run(
        "nlpc-scan",
        &[
            "--filter-deny",
            "deny.test",
            "--filter-include",
            "http://ok.test/*",
            "--filter-quota",
            "1",
            "http://deny.test/",
            "http://other.test/",
            "http://ok.test/1",
            "http://ok.test/2",
            "http://ok.test/1",
        ],
    );
    // Bad seeds: exit status 2.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for l in [
        "line 1: http://deny.test/: host denied (deny.test)",
        "line 2: http://other.test/: URL not included (no --filter-include pattern matches)",
        // Seeds go in key order: which of the two is refused is the
        // hash's choice.
        ": host quota reached (ok.test: 1 pages)",
        "seeded 1 new, 1 known, 3 bad",
    ] {
        assert_eq!(
            err.lines().filter(|x| x.ends_with(l)).count(),
            1,
            "{l:?} in\n{err}"
        );
    }
}

/// lv.test: a chain of `n` Latvian pages, page i linking page i+1 and
/// lt.test's page i (Lithuanian, linking nothing).
fn chain(srv: &Server, n: usize) -> (Vec<String>, Vec<String>) {
    let lv = text("lv-long.txt");
    let lt = text("lt-long.txt");
    let mut lv_bodies = Vec::new();
    let mut lt_bodies = Vec::new();
    for i in 1..=n {
        let mut links = vec![srv.url("lt.test", &format!("/{i}"))];
        if i < n {
            links.push(srv.url("lv.test", &format!("/{}", i + 1)));
        }
        let b = page(&format!("{lv} {i}"), &links);
        srv.route_host("lv.test", &format!("/{i}"), Reply::html(b.clone()));
        lv_bodies.push(b);
        let b = page(&format!("{lt} {i}"), &[]);
        srv.route_host("lt.test", &format!("/{i}"), Reply::html(b.clone()));
        lt_bodies.push(b);
    }
    (lv_bodies, lt_bodies)
}

fn hits_of(srv: &Server, host: &str) -> usize {
    srv.page_hits()
        .iter()
        .filter(|h| h.host.split(':').next() == Some(host))
        .count()
}

#[test]
fn a_host_in_another_language_stops_being_fetched_after_the_sample() {
    const N: usize = 10;
    // The rule on: lt.test is judged on 3 pages, then set aside.
    let srv = Server::start("127.0.0.161");
    let (lv_bodies, lt_bodies) = chain(&srv, N);
    let run = Run::new(&srv, &["lv.test", "lt.test"]);
    let seed = srv.url("lv.test", "/1");
    run.seed(
        &[&seed],
        &["filter-lang=lv", "yield-sample=3", "yield-min=0.1"],
    );
    run.crawl();
    assert_eq!(
        hits_of(&srv, "lv.test"),
        N,
        "the Latvian host is crawled whole"
    );
    assert_eq!(hits_of(&srv, "lt.test"), 3, "only the sample of lt.test");
    let st = run.c.store();
    for i in 1..=N {
        let r = record(&st, &srv.url("lt.test", &format!("/{i}")));
        if i <= 3 {
            assert_eq!(r.state, State::Rejected, "{}", r.url);
        } else {
            assert_eq!(
                (r.state, r.reason.as_str()),
                (
                    State::Excluded,
                    "low yield (0 of 3 pages accepted, below 0.1)"
                ),
                "{}",
                r.url
            );
        }
    }
    drop(st);

    // nlpc-list --hosts: the figures, exact. Downloaded bytes are the
    // bodies; accepted text is the main text nlpc-vrfy judged each on.
    let cfg = vrfy::Config::default();
    let main_text = |url: String, body: &str| {
        let mut r = nlpcrawl::store::record::Record::new(&url, 1);
        r.content_type = "text/html".into();
        vrfy::verify(&cfg, &r, Some(body.as_bytes())).text
    };
    let lv_bytes: u64 = lv_bodies.iter().map(|b| b.len() as u64).sum();
    let lv_text: u64 = lv_bodies
        .iter()
        .enumerate()
        .map(|(i, b)| main_text(srv.url("lv.test", &format!("/{}", i + 1)), b))
        .sum();
    assert!(lv_text > 0 && lv_text < lv_bytes);
    let lt_bytes: u64 = lt_bodies[..3].iter().map(|b| b.len() as u64).sum();
    let o = run.c.run("nlpc-list", &["--hosts"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = |a: u64, b: u64| format!("{:.3}", a as f64 / b as f64);
    let want = format!(
        "lv.test\t{N}\t{N}\t1.000\t{}\nlt.test\t3\t0\t0.000\t0.000\nTOTAL\t{}\t{N}\t{}\t{}\n",
        r(lv_text, lv_bytes),
        N + 3,
        r(N as u64, N as u64 + 3),
        r(lv_text, lv_bytes + lt_bytes),
    );
    assert_eq!(stdout(&o), want);
    let o = run
        .c
        .run("nlpc-list", &["--hosts", "--json", "--auth", "lt.test"]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{}", stdout(&o));
    assert_eq!(lines[0]["host"], "lt.test");
    assert_eq!(lines[0]["bytes"], lt_bytes);
    assert_eq!(lines[0]["accepted"], 0);
    let o = run.c.run("nlpc-list", &["--hosts", "-s", "verified"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--hosts takes no other option but --auth and --json"),
        "{}",
        stderr(&o)
    );
    // The library function the monitor shows.
    let st = run.c.store();
    let rep = nlpcrawl::store::harvest::report(&st.read().unwrap()).unwrap();
    assert_eq!(rep.hosts[0].0, "lv.test");
    assert_eq!(
        (rep.total.fetched, rep.total.accepted),
        (N as u64 + 3, N as u64)
    );
    assert_eq!(rep.harvest(), N as f64 / (N as f64 + 3.0));

    // The rule off (the default): every lt.test page is fetched.
    let srv = Server::start("127.0.0.162");
    chain(&srv, N);
    let run = Run::new(&srv, &["lv.test", "lt.test"]);
    run.seed(
        &[&srv.url("lv.test", "/1")],
        &["filter-lang=lv", "yield-sample=3"],
    );
    run.crawl();
    assert_eq!(hits_of(&srv, "lv.test"), N);
    assert_eq!(hits_of(&srv, "lt.test"), N);
}

#[test]
fn tunnelling_follows_rejected_pages_only_as_far_as_allowed() {
    let lv = text("lv-long.txt");
    let lt = text("lt-long.txt");
    // lv.test/ → lt.test/a (rejected) → lv.test/found, lt.test/b
    // (rejected) → lv.test/deep.
    let web = |ip: &str| {
        let srv = Server::start(ip);
        let u = |h: &str, p: &str| srv.url(h, p);
        srv.route_host(
            "lv.test",
            "/",
            Reply::html(page(&lv, &[u("lt.test", "/a")])),
        );
        srv.route_host(
            "lt.test",
            "/a",
            Reply::html(page(&lt, &[u("lv.test", "/found"), u("lt.test", "/b")])),
        );
        srv.route_host(
            "lt.test",
            "/b",
            Reply::html(page(&lt, &[u("lv.test", "/deep")])),
        );
        srv.route_host("lv.test", "/found", Reply::html(page(&lv, &[])));
        srv.route_host("lv.test", "/deep", Reply::html(page(&lv, &[])));
        srv
    };
    let want = |list: &[&str]| -> BTreeSet<String> { list.iter().map(|s| s.to_string()).collect() };
    for (tunnel, ip, expected) in [
        ("0", "127.0.0.163", want(&["lv.test/", "lt.test/a"])),
        (
            "1",
            "127.0.0.164",
            want(&["lv.test/", "lt.test/a", "lv.test/found", "lt.test/b"]),
        ),
        (
            "2",
            "127.0.0.165",
            want(&[
                "lv.test/",
                "lt.test/a",
                "lv.test/found",
                "lt.test/b",
                "lv.test/deep",
            ]),
        ),
    ] {
        let srv = web(ip);
        let run = Run::new(&srv, &["lv.test", "lt.test"]);
        let seed = srv.url("lv.test", "/");
        run.seed(&["--filter-tunnel", tunnel, &seed], &["filter-lang=lv"]);
        run.crawl();
        assert_eq!(asked(&srv), expected, "--filter-tunnel {tunnel}");
        let st = run.c.store();
        if tunnel != "0" {
            assert_eq!(
                record(&st, &srv.url("lv.test", "/found")).state,
                State::Scanned
            );
        }
        // Nothing is left on the tunnelling queue.
        assert!(nlpcrawl::store::tunnel::queued(&st.read().unwrap(), 1)
            .unwrap()
            .is_empty());
    }
}

#[test]
fn a_calendar_trap_gets_no_more_requests_than_its_query_variants() {
    let srv = Server::start("127.0.0.164");
    let lv = text("lv-long.txt");
    // An endless calendar: every day links the next two days and a sort
    // order of itself; the cap allows 6 queries of /cal and of /list.
    let day = |d: usize| srv.url("cal.test", &format!("/cal?day={d}"));
    for d in 0..40 {
        let links = [
            day(d + 1),
            day(d + 2),
            srv.url("cal.test", &format!("/list?day={d}&sort=up")),
        ];
        srv.route_host(
            "cal.test",
            &format!("/cal?day={d}"),
            Reply::html(page(&format!("{lv} {d}"), &links)),
        );
        srv.route_host(
            "cal.test",
            &format!("/list?day={d}&sort=up"),
            Reply::html(page(&format!("{lv} saraksts {d}"), &[])),
        );
    }
    srv.route_host(
        "cal.test",
        "/",
        Reply::html(page(&lv, &[day(0), srv.url("cal.test", "/cal")])),
    );
    srv.route_host("cal.test", "/cal", Reply::html(page(&lv, &[day(5)])));
    let run = Run::new(&srv, &["cal.test"]);
    // Stored as a setting: every later nlpc-scan and nlpc-fetch, each a
    // process of its own, reads it and the counts from the database.
    run.seed(
        &["--filter-query-variants", "6", &srv.url("cal.test", "/")],
        &[],
    );
    let log = run.crawl();
    let asked = asked(&srv);
    let cal: Vec<_> = asked
        .iter()
        .filter(|h| h.starts_with("cal.test/cal?"))
        .collect();
    let list: Vec<_> = asked
        .iter()
        .filter(|h| h.starts_with("cal.test/list?"))
        .collect();
    assert_eq!(cal.len(), 6, "{cal:?}");
    assert_eq!(list.len(), 6, "{list:?}");
    // The path itself is no variant of it.
    assert!(asked.contains("cal.test/cal"), "{asked:?}");
    let refused = log
        .lines()
        .filter(|l| l.ends_with("too many query variants (cal.test/cal: limit 6)"))
        .count();
    assert!(refused > 0, "{log}");
    let st = run.c.store();
    let rd = st.read().unwrap();
    assert_eq!(
        nlpcrawl::store::scope::variants_read(&rd, &day(0)).unwrap(),
        6
    );
    let mut n = 0;
    rd.walk_all(|_, r| {
        n += usize::from(r.url.contains("/cal?"));
        Ok(true)
    })
    .unwrap();
    assert_eq!(n, 6, "records of /cal with a query");
}

/// Every byte of a gzip-member file, decompressed.
fn gunzip(p: &std::path::Path) -> String {
    use std::io::Read;
    let f = std::fs::File::open(p).unwrap();
    let mut out = String::new();
    flate2::read::MultiGzDecoder::new(f)
        .read_to_string(&mut out)
        .unwrap();
    out
}

#[test]
fn userinfo_in_a_seed_a_link_or_a_redirect_leaves_no_trace() {
    let srv = Server::start("127.0.0.165");
    // Three pages in Latvian, distinct so none is a duplicate of
    // another, each with the word the index is asked for.
    let lv = |f: &str| format!("{} pārbaude", text(f));
    let port = srv.port();
    let cred = |who: &str, path: &str| format!("http://{who}user:{who}secret@u.test:{port}{path}");
    srv.route_host(
        "u.test",
        "/",
        Reply::html(page(
            &lv("lv-long.txt"),
            &[cred("link", "/l"), srv.url("u.test", "/r")],
        )),
    );
    srv.route_host(
        "u.test",
        "/l",
        Reply::html(page(&lv("lv-culture.txt"), &[])),
    );
    srv.route_host("u.test", "/r", Reply::redirect(302, &cred("redir", "/t")));
    srv.route_host("u.test", "/t", Reply::html(page(&lv("lv-forum.txt"), &[])));
    let run = Run::new(&srv, &["u.test"]);
    let mut logs = run.seed(&[&cred("seed", "/")], &[]);
    let (_, all) = run.crawl_logs();
    logs.push_str(&all);
    let traces = |what: &str, text: &str| {
        for t in ["secret", "seeduser", "linkuser", "rediruser", "@u.test"] {
            assert!(!text.contains(t), "{t:?} in {what}:\n{text}");
        }
    };
    // The server: every page asked for, none with credentials.
    let hits = srv.page_hits();
    let paths: BTreeSet<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["/", "/l", "/r", "/t"].into(), "{hits:#?}");
    for h in srv.hits() {
        assert!(!h.headers.contains_key("authorization"), "{h:?}");
        traces("a request's headers", &format!("{:?}", h.headers));
    }
    // The logs of seeding and of every daemon (nlpc-scan's with -d).
    assert!(
        logs.contains(&format!("redirect to http://u.test:{port}/t")),
        "{logs}"
    );
    traces("the logs", &logs);
    // The database.
    let o = run.c.run("nlpc-list", &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = stdout(&o);
    assert_eq!(listed.lines().count(), 4, "{listed}");
    traces("nlpc-list", &listed);
    // The WARC file, its request records naming the host and port only.
    let warc = run.c.tmp.path().join("u.warc.gz");
    let o = run.c.run("nlpc-dump", &["--warc", warc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    traces("nlpc-dump's log", &stderr(&o));
    let w = gunzip(&warc);
    assert_eq!(
        w.matches(&format!("\r\nHost: u.test:{port}\r\n")).count(),
        3,
        "a request record for each page stored"
    );
    // The page's own bytes are archived as the server sent them, the link
    // it wrote with them; nothing else may hold a trace.
    let served = cred("link", "/l");
    assert_eq!(w.matches(&served).count(), 1);
    traces("the WARC file", &w.replace(&served, ""));
    // The index: the pages are found, under URLs without credentials.
    let index = run.c.tmp.path().join("index");
    let o = run
        .c
        .cmd("nlpc-index")
        .args(["--once", "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run
        .c
        .cmd("nlpc-search")
        .arg("--index")
        .arg(&index)
        .args(["--limit", "0", "pārbaude"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let found = stdout(&o);
    assert_eq!(found.lines().count(), 3, "{found}");
    traces("nlpc-search", &found);
}

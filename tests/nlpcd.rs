//! nlpcd over the test web of scripts/testweb (tests/common/web.rs): a
//! whole crawl checked against the generator's ground truth, the same crawl
//! while a chaos loop SIGKILLs random daemons, the lock, the monitor, a
//! daemon that keeps failing, and a disk that fills up.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::http::{Reply, Server};
use common::web::{diff, Web};
use common::*;
use nlpcrawl::store::record::State;

/// Waits for a child to exit, failing the test after `limit`.
fn wait_exit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("nlpcd did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn nlpcd(c: &Crawl, web: &Web, extra: &[&str]) -> std::process::Command {
    let mut cmd = c.cmd("nlpcd");
    cmd.args(web.nlpcd_args())
        .args(["--with", "resolve:--dns-pause=0.1s"])
        .args(extra);
    cmd
}

/// URL → stored body of every VERIFIED or SCANNED record.
fn corpus(c: &Crawl) -> BTreeMap<String, Vec<u8>> {
    let st = c.store();
    let rd = st.read().unwrap();
    let mut out = BTreeMap::new();
    for s in [State::Verified, State::Scanned] {
        for leased in [false, true] {
            rd.walk_state(s, leased, |k, r| {
                let body = c.cache().read(&k).unwrap().unwrap_or_default();
                assert_eq!(
                    *blake3::hash(&body).as_bytes(),
                    r.hash,
                    "{}: body and hash differ",
                    r.url
                );
                out.insert(r.url, body);
                Ok(true)
            })
            .unwrap();
        }
    }
    out
}

/// `nlpc-list -c` agrees with a full walk of the records.
fn assert_counts_agree(c: &Crawl) {
    let out = stdout(&c.run("nlpc-list", &["-c"]));
    let total: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("TOTAL\t"))
        .and_then(|n| n.parse().ok())
        .expect("TOTAL line");
    let mut walked = 0;
    c.store()
        .read()
        .unwrap()
        .walk_all(|_, _| {
            walked += 1;
            Ok(true)
        })
        .unwrap();
    assert_eq!(
        total, walked,
        "nlpc-list -c says {total}, a walk finds {walked}"
    );
}

fn assert_clean(c: &Crawl, web: &Web) {
    let st = c.store();
    assert_consistent(&st, true);
    assert!(
        nlpcrawl::store::cache::temporaries(&c.cache_dir()).is_empty(),
        "temporary files left"
    );
    assert_counts_agree(c);
    // Nothing robots.txt disallows, nothing a correct crawl would not ask
    // for (such as a link on a page in another language).
    let asked = web.requests();
    for f in &web.forbidden {
        assert!(!asked.contains(f), "{f:?} was requested");
    }
    let extra: Vec<_> = asked.difference(&web.requested).collect();
    assert!(
        extra.is_empty(),
        "requests a correct crawl does not make: {extra:#?}"
    );
}

#[test]
fn a_whole_crawl_and_the_same_crawl_under_chaos_agree() {
    let web = Web::start(50);
    // Undisturbed.
    let quiet = Crawl::new();
    let mut child = nlpcd(&quiet, &web, &["--once", web.seed()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let _ = pipe.read_to_string(&mut err);
        err
    });
    let st = wait_exit(&mut child, Duration::from_secs(180));
    let log = reader.join().unwrap();
    assert!(st.success(), "nlpcd failed: {log}");
    let truth = corpus(&quiet);
    // The calendar trap is bounded; everything else is the ground truth.
    let (prefix, max) = (web.trap.0.as_str(), web.trap.1);
    let trapped = truth.keys().filter(|u| u.starts_with(prefix)).count();
    assert!(
        (1..=max).contains(&trapped),
        "{trapped} trap pages verified; a bounded crawl verifies 1 to {max}"
    );
    let outside: BTreeSet<String> = truth
        .keys()
        .filter(|u| !u.starts_with(prefix))
        .cloned()
        .collect();
    assert!(
        outside == web.verified,
        "verified set differs from the ground truth:\n{}\n{log}",
        diff(&outside, &web.verified)
    );
    assert_clean(&quiet, &web);
    let asked = web.requests();
    assert!(
        asked == web.requested,
        "the requests differ from those of a correct crawl:\n{}",
        diff(&asked, &web.requested)
    );
    // Every refusal the generator can name: unknown names, robots.txt,
    // redirects, charsets, languages.
    let s = quiet.store();
    for o in &web.outcomes {
        let r = record(&s, &o.url);
        assert_eq!(r.state.to_string(), o.state, "{}: {}", o.url, r.reason);
        assert!(
            r.reason.contains(&o.reason),
            "{}: reason {:?}, not {:?}",
            o.url,
            r.reason,
            o.reason
        );
    }
    // This web has every kind the test is about.
    for (state, reason) in [
        ("UNREACH", ""),
        ("EXCLUDED", ""),
        ("REJECTED", "charset koi8-r"),
        ("REJECTED", "language"),
    ] {
        assert!(
            web.outcomes
                .iter()
                .any(|o| o.state == state && o.reason.contains(reason)),
            "the test web has no {state} {reason:?} page"
        );
    }
    drop(s);

    // The same crawl while a random daemon is killed every few hundred ms.
    let chaos = Crawl::new();
    let mut child = nlpcd(&chaos, &web, &["--once", web.seed()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut kills = 0;
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "chaos crawl did not finish"
        );
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        // The chaos cadence: a kill every 150-400 ms.
        std::thread::sleep(Duration::from_millis(150 + rng % 250));
        let kids = children_of(child.id());
        if !kids.is_empty() {
            let victim = kids[(rng >> 8) as usize % kids.len()];
            if nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(victim as i32),
                nix::sys::signal::Signal::SIGKILL,
            )
            .is_ok()
            {
                kills += 1;
            }
        }
    };
    assert!(status.success(), "nlpcd under chaos failed: {status:?}");
    assert!(kills >= 5, "only {kills} kills: the chaos did not bite");
    let after = corpus(&chaos);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        truth.keys().collect::<Vec<_>>()
    );
    assert!(after == truth, "stored bodies differ after the chaos run");
    assert_clean(&chaos, &web);
    eprintln!("chaos run: {kills} daemons killed");
}

/// The nice value of process `pid` (the 19th field of /proc/PID/stat).
fn nice_of(pid: u32) -> i64 {
    stat_fields(pid).unwrap()[16].parse().unwrap()
}

#[test]
fn a_second_nlpcd_is_refused_and_sigterm_stops_every_daemon() {
    let web = Web::start(60);
    let c = Crawl::new();
    let mut first = nlpcd(&c, &web, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Every daemon of the crawl (six, with nlpc-index).
    let n = nlpcrawl::run::options::Program::DAEMONS.len();
    // Each past its exec (named as itself, no longer nlpcd's fork).
    let comm = |k: &u32| std::fs::read_to_string(format!("/proc/{k}/comm")).unwrap_or_default();
    wait_until(Duration::from_secs(30), "every daemon", || {
        let kids = children_of(first.id());
        kids.len() == n && kids.iter().all(|k| comm(k).starts_with("nlpc-"))
    });
    let kids = children_of(first.id());
    // The daemons that work through what others made run at a lower CPU
    // priority than nlpcd, the others at its own.
    let own = nice_of(first.id());
    let mut lowered = Vec::new();
    for k in &kids {
        let name = comm(k);
        let name = name.trim();
        let program = nlpcrawl::run::options::Program::from_name(name).unwrap();
        let want = own + i64::from(nlpcrawl::launch::child::niceness(program));
        assert_eq!(nice_of(*k), want.min(19), "{name}'s nice value");
        if want > own {
            lowered.push(name.to_string());
        }
    }
    lowered.sort();
    assert_eq!(lowered, ["nlpc-index", "nlpc-scan", "nlpc-vrfy"]);
    let o = nlpcd(&c, &web, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("another nlpcd") && err.contains(&first.id().to_string()),
        "{err}"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let st = wait_exit(&mut first, Duration::from_secs(30));
    assert_eq!(st.code(), Some(0));
    for k in kids {
        assert!(!alive(k), "daemon {k} outlived nlpcd");
    }
    // The lock is free again.
    let o = nlpcd(&c, &web, &["--once"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_daemon_that_keeps_failing_makes_nlpcd_give_up() {
    let web = Web::start(70);
    let c = Crawl::new();
    // A dictionary nlpcd can open (it checks that much before it starts)
    // but nlpc-vrfy cannot load: not UTF-8.
    let bad = c.tmp.path().join("bad-dictionary");
    std::fs::write(&bad, b"labs\nsl\xefkts\n").unwrap();
    let o = nlpcd(
        &c,
        &web,
        &["--once", "--filter-dict", bad.to_str().unwrap(), web.seed()],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("nlpc-vrfy failed 5 times"), "{err}");
    assert!(err.contains("giving up"), "{err}");
    assert!(
        err.contains("bad-dictionary") && err.contains("not UTF-8"),
        "the daemon's own error is not shown: {err}"
    );
}

#[test]
fn the_monitor_prints_a_line_a_second_off_a_terminal() {
    let web = Web::start(80);
    let c = Crawl::new();
    let log = c.tmp.path().join("daemons.log");
    let o = nlpcd(
        &c,
        &web,
        &["-m", "--once", "--log", log.to_str().unwrap(), web.seed()],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines.is_empty(), "no monitor output");
    for l in &lines {
        assert!(l.starts_with("nlpcd: ") && l.contains("pages/s="), "{l}");
        assert!(l.contains(" yield="), "{l}");
        assert!(!l.contains('\x1b'), "escape codes off a terminal: {l:?}");
    }
    assert!(out.contains("SCANNED="), "{out}");
    // The daemons' lines went to the log, not to the monitor.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("nlpc-fetch info: fetched"), "{logged}");
}

/// Mounts a small tmpfs at `dir` for the life of the value.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &std::path::Path, size: &str) -> SmallDisk {
        std::fs::create_dir_all(dir).unwrap();
        let st = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(
            st.success(),
            "cannot mount a small tmpfs at {} (the full-disk test needs root)",
            dir.display()
        );
        SmallDisk(dir.to_path_buf())
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_stops_the_crawl_and_loses_nothing_committed() {
    let srv = Server::start("127.0.0.90");
    let c = Crawl::new();
    let _disk = SmallDisk::mount(&c.cache_dir(), "400k");
    let st = c.store();
    let mut urls = Vec::new();
    for i in 0..40 {
        let path = format!("/big{i}.html");
        let body = format!(
            "<html><body><p>{}</p></body></html>",
            format!("Lapa {i}. Rīga ir Latvijas galvaspilsēta. ").repeat(800)
        );
        srv.route(&path, Reply::html(body));
        let u = srv.url("disk.test", &path);
        plant_ready(&st, &u, &srv.ip());
        urls.push(u);
    }
    drop(st);
    let o = c
        .cmd("nlpcd")
        .args(["--once", "--fetch-polite", "0", "--allow-private"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("nlpc-fetch failed 5 times"), "{err}");
    let st = c.store();
    assert_consistent(&st, true);
    assert!(
        nlpcrawl::store::cache::temporaries(&c.cache_dir()).is_empty(),
        "temporary files left"
    );
    // Every record that made it past fetching has its whole body.
    let mut stored = 0;
    for u in &urls {
        let (k, r) = st.read().unwrap().lookup(u).unwrap().unwrap();
        if r.state == State::Ready {
            continue;
        }
        let body = c
            .cache()
            .read(&k)
            .unwrap()
            .expect("body of a fetched record");
        assert_eq!(*blake3::hash(&body).as_bytes(), r.hash, "{u}");
        stored += 1;
    }
    assert!(
        stored > 0 && stored < urls.len(),
        "{stored} of {} stored",
        urls.len()
    );
}

#[test]
fn the_terminal_monitor_fits_80_by_24() {
    use nlpcrawl::launch::child::Daemon;
    use nlpcrawl::launch::monitor::Monitor;
    use nlpcrawl::launch::supervisor::Supervisor;
    let c = Crawl::new();
    let st = c.store();
    let long = format!("http://{}.test/", "x".repeat(200));
    plant_ready(&st, &long, "127.0.0.1");
    // Every state non-zero.
    for (i, s) in State::ALL.iter().enumerate() {
        for j in 0..=i {
            let mut r = nlpcrawl::store::record::Record::new(&format!("http://s{i}.test/{j}"), 1);
            r.state = *s;
            insert_new(&st, &r);
        }
    }
    // What nlpc-fetch publishes, with a host and an error too long for a line.
    let fetch = serde_json::json!({
        "pages": 10, "bytes": 1000, "errors": 1, "in_flight": 2, "queued": 3,
        "addresses": 4, "resting": 1, "top": [[long.clone(), 7]], "recent": [format!("{long}: timeout")],
    });
    let mut w = st.write().unwrap();
    w.table_put(
        nlpcrawl::store::Table::Stats,
        nlpcrawl::stage::fetch::STATS_KEY,
        fetch.to_string().as_bytes(),
    )
    .unwrap();
    // And nlpc-resolve: hosts that did not resolve.
    w.table_put(
        nlpcrawl::store::Table::Stats,
        nlpcrawl::stage::resolve::figures::STATS_KEY.as_bytes(),
        br#"{"unreach": 4}"#,
    )
    .unwrap();
    w.commit().unwrap();
    let daemons = [
        "nlpc-scan",
        "nlpc-resolve",
        "nlpc-fetch",
        "nlpc-vrfy",
        "nlpc-up",
    ]
    .iter()
    .map(|n| Daemon::new(n, Vec::new()))
    .collect();
    let sup = Supervisor::new(daemons, None);
    let mut m = Monitor::new(true);
    let screen = m.render(&st, &sup.daemons).unwrap();
    let body = screen
        .strip_prefix("\x1b[H\x1b[2J")
        .expect("the screen is cleared first");
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines.len() <= 23, "{} lines", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 80, "line too wide: {l}");
    }
    for (i, s) in State::ALL.iter().enumerate() {
        // READY has the long URL's record too.
        let n = i + 1 + usize::from(*s == State::Ready);
        let cell = format!("{:<11} {n:>6}", s.name());
        assert!(body.contains(&cell), "{cell} missing or cut in\n{body}");
    }
    for want in [
        "READY",
        "in flight 2",
        "queued 3",
        "4 served, 1 resting",
        "errors 5 ",
        "DNS 4",
        "nlpc-fetch",
        "recent errors",
    ] {
        assert!(body.contains(want), "{want} missing from\n{body}");
    }
}

#[test]
fn nlpcd_gives_the_fetcher_its_admission_filters() {
    let srv = Server::start("127.0.0.91");
    let inside = srv.url("127.0.0.91", "/inside.html");
    srv.route("/away", Reply::redirect(301, "http://elsewhere.test/"));
    srv.route("/in", Reply::redirect(301, &inside));
    srv.route("/inside.html", Reply::html("<p>iekšā</p>"));
    srv.route(
        "/robots.txt",
        Reply::new(
            200,
            "text/plain",
            "Sitemap: http://elsewhere.test/map.xml\n",
        ),
    );
    let c = Crawl::new();
    let st = c.store();
    let away = srv.url("ok.test", "/away");
    let inn = srv.url("ok.test", "/in");
    plant_ready(&st, &away, &srv.ip());
    plant_ready(&st, &inn, &srv.ip());
    drop(st);
    let o = c
        .cmd("nlpcd")
        .args(["--once", "--fetch-polite", "0", "--allow-private"])
        .args(["--filter-auth", "ok.test 127.0.0.91"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = c.store();
    let r = record(&st, &away);
    assert_eq!(
        (r.state, r.reason.as_str()),
        (
            State::Rejected,
            "redirect to a URL not admitted: host not allowed (elsewhere.test)"
        )
    );
    // --allow-private reached the fetcher too: the redirect to an address
    // inside was admitted (and, with nlpc-resolve allowing it, fetched).
    assert_eq!(record(&st, &inn).state, State::Redirect);
    assert_ne!(record(&st, &inside).state, State::New);
    let rd = st.read().unwrap();
    for u in ["http://elsewhere.test/", "http://elsewhere.test/map.xml"] {
        assert!(rd.lookup(u).unwrap().is_none(), "{u} became a record");
    }
}

/// A pseudo-terminal for nlpcd's standard output: the master end, to read,
/// and the slave end, to give.
fn pty() -> (std::fs::File, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: both pointers are valid for the call; name, termios and
    // window size may be null.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty returned two open descriptors that nothing else owns.
    unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    }
}

#[test]
fn the_terminal_monitor_of_a_running_crawl_fits_and_ends_with_the_final_counts() {
    let web = Web::start(174);
    let c = Crawl::new();
    let log = c.tmp.path().join("daemons.log");
    let (mut master, slave) = pty();
    let mut cmd = nlpcd(
        &c,
        &web,
        &["-m", "--once", "--log", log.to_str().unwrap(), web.seed()],
    );
    cmd.stdout(slave.try_clone().unwrap());
    let mut child = cmd.spawn().unwrap();
    // Only the child holds the slave now: reading ends when it exits.
    drop(slave);
    drop(cmd);
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        // EIO once the last holder of the slave closed it.
        let _ = master.read_to_end(&mut out);
        out
    });
    let st = wait_exit(&mut child, Duration::from_secs(120));
    assert!(st.success(), "nlpcd failed: {st}");
    let out = String::from_utf8(reader.join().unwrap()).unwrap();
    // The terminal turns each newline into CR LF.
    let out = out.replace("\r\n", "\n");
    let screens: Vec<&str> = out
        .split("\x1b[H\x1b[2J")
        .filter(|s| !s.is_empty())
        .collect();
    assert!(!screens.is_empty(), "no screen in {out:?}");
    for s in &screens {
        let lines: Vec<&str> = s.lines().collect();
        assert!(lines.len() <= 23, "{} lines:\n{s}", lines.len());
        for l in &lines {
            assert!(l.chars().count() <= 80, "too wide: {l}");
        }
        for st in State::ALL {
            assert!(s.contains(st.name()), "{} missing from\n{s}", st.name());
        }
    }
    // The last screen, drawn after every daemon stopped, shows the counts
    // the database holds.
    let last = screens.last().unwrap();
    let store = c.store();
    let rd = store.read().unwrap();
    for st in State::ALL {
        let n = rd.count(st, false).unwrap() + rd.count(st, true).unwrap();
        let cell = format!("{:<11} {:>6}", st.name(), nlpcrawl::run::human::count(n));
        assert!(last.contains(&cell), "{cell} missing from\n{last}");
    }
    assert!(rd.count(State::Scanned, false).unwrap() > 0);
    for want in [
        "fetched ",
        "/s last min",
        "/s since start",
        "harvest ",
        "errors ",
        "slowest (last min):",
        " pages: harvest ",
        ", yield ",
        "nlpc-fetch",
    ] {
        assert!(last.contains(want), "{want} missing from\n{last}");
    }
}

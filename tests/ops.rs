//! Weeks-long operation: where the crawl lives by default, the crawl's
//! stored settings, nlpcd's supervision (its daemons die with it; SIGHUP
//! reopens its log), and the form and size of the log lines.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::http::{Reply, Server};
use common::web::Web;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use nlpcrawl::store::record::State;
use nlpcrawl::store::{self, Store};

/// A command for `bin` with no path options and a clean environment for
/// the crawl directory: only what `env` sets.
fn bare(bin: &str, env: &[(&str, &Path)]) -> Command {
    let mut c = Command::new(exe(bin));
    c.env_remove("NLPCRAWL_DIR").env_remove("XDG_STATE_HOME");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn open(db: &Path) -> Store {
    let opts = store::Options {
        create: store::Create::Never,
        ..store::Options::default()
    };
    Store::open(db, opts).unwrap_or_else(|e| panic!("{}: {e}", db.display()))
}

#[test]
fn the_crawl_lives_under_xdg_state_home_or_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let home = tmp.path().join("home");
    let o = bare("nlpc-scan", &[("XDG_STATE_HOME", &state), ("HOME", &home)])
        .arg("http://a.test/")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = open(&state.join("nlpcrawl/db"));
    assert_eq!(record(&st, "http://a.test/").state, State::New);
    drop(st);
    // Without XDG_STATE_HOME: under HOME.
    let o = bare("nlpc-scan", &[("HOME", &home)])
        .arg("http://b.test/")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = open(&home.join(".local/state/nlpcrawl/db"));
    assert_eq!(record(&st, "http://b.test/").state, State::New);
    drop(st);

    // --dir D: every path follows. nlpc-scan seeds D/db, nlpc-fetch
    // fetches into D/cache and D/rep, and a re-fetch archives into D/data.
    let srv = Server::start("127.0.0.140");
    srv.route("/p.html", Reply::html("<p>teksts</p>"));
    srv.route(
        "/robots.txt",
        Reply::new(200, "text/plain", "User-agent: *\n"),
    );
    let url = srv.url("127.0.0.140", "/p.html");
    let d = tmp.path().join("crawl");
    let o = bare("nlpc-scan", &[])
        .args(["--dir", d.to_str().unwrap(), "http://seed.test/"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    plant_ready(&open(&d.join("db")), &url, &srv.ip());
    let fetch = |what: &str| {
        let o = bare("nlpc-fetch", &[])
            .args([
                "--dir",
                d.to_str().unwrap(),
                "--once",
                "--fetch-polite",
                "0",
            ])
            .arg("--allow-private")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
    };
    fetch("first fetch");
    let files = |sub: &str| walk(&d.join(sub));
    assert!(files("cache") >= 1, "nothing in DIR/cache");
    assert!(files("rep") >= 1, "nothing in DIR/rep");
    {
        // Due again, as nlpc-up makes it.
        let st = open(&d.join("db"));
        let mut w = st.write().unwrap();
        let (key, mut r) = w.lookup(&url).unwrap().unwrap();
        assert_eq!(r.state, State::Fresh);
        r.state = State::Dirty;
        w.update(&key, &r).unwrap();
        w.commit().unwrap();
    }
    srv.route("/p.html", Reply::html("<p>cits teksts</p>"));
    fetch("re-fetch");
    assert!(files("data") >= 1, "nothing archived in DIR/data");
}

/// Regular files under `dir`, recursively (0 when it does not exist).
fn walk(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let t = e.file_type().unwrap();
        if t.is_dir() {
            n += walk(&e.path());
        } else if t.is_file() {
            n += 1;
        }
    }
    n
}

#[test]
fn the_crawls_settings_are_stored_and_every_daemon_reads_them() {
    let srv = Server::start("127.0.0.141");
    srv.route("/away", Reply::redirect(301, "http://elsewhere.test/"));
    srv.route(
        "/robots.txt",
        Reply::new(200, "text/plain", "User-agent: *\n"),
    );
    let c = Crawl::new();
    // The crawl begins with nlpc-scan's seeding: its settings are stored.
    let o = c.run(
        "nlpc-scan",
        &["--filter-auth", "ok.test, a.test", "http://ok.test/"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stored settings: --filter-auth=ok.test a.test"),
        "{}",
        stderr(&o)
    );
    let o = c.run("nlpc-list", &["--config"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let config = stdout(&o);
    assert!(
        config.lines().any(|l| l == "filter-auth=ok.test a.test"),
        "{config}"
    );
    assert!(
        config.lines().any(|l| l == "# fetch-burst=2 (default)"),
        "{config}"
    );

    // nlpc-fetch started by hand without --filter-auth: the stored filter
    // refuses the redirect away.
    let st = c.store();
    let away = srv.url("ok.test", "/away");
    plant_ready(&st, &away, &srv.ip());
    drop(st);
    let o = c.run(
        "nlpc-fetch",
        &["--once", "--fetch-polite", "0", "--allow-private"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("overridden"),
        "nothing was overridden: {}",
        stderr(&o)
    );
    let r = record(&c.store(), &away);
    assert_eq!(
        (r.state, r.reason.as_str()),
        (
            State::Rejected,
            "redirect to a URL not admitted: host not allowed (elsewhere.test)"
        )
    );

    // The command line overrides a stored setting for one run, and says so
    // in one line.
    let o = c.run(
        "nlpc-fetch",
        &["--once", "--filter-auth", "b.test", "--fetch-burst", "2"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("overridden")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        logged(lines[0]).ends_with(
            "stored settings overridden for this run: --filter-auth=b.test (stored ok.test a.test)"
        ),
        "{err}"
    );

    // --set changes a setting (logged), an empty value removes it.
    let o = c.run(
        "nlpc-list",
        &["--set", "filter-auth=lv", "--set", "fetch-burst=4"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("setting filter-auth changed: ok.test a.test -> lv"),
        "{err}"
    );
    assert!(
        err.contains("setting fetch-burst changed: (default) -> 4"),
        "{err}"
    );
    let config = stdout(&c.run("nlpc-list", &["--config"]));
    assert!(config.lines().any(|l| l == "filter-auth=lv"), "{config}");
    assert!(config.lines().any(|l| l == "fetch-burst=4"), "{config}");
    let o = c.run("nlpc-list", &["--set", "fetch-burst="]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let config = stdout(&c.run("nlpc-list", &["--config"]));
    assert!(
        config.lines().any(|l| l == "# fetch-burst=2 (default)"),
        "{config}"
    );
    // What is not a setting, or not a valid value, is refused by name.
    for (bad, want) in [
        ("ttexp=3d", "\"ttexp\" is not a setting"),
        (
            "fetch-burst=many",
            "fetch-burst=many: --fetch-burst: \"many\" is not a whole number",
        ),
        ("filter-auth", "is not NAME=VALUE"),
    ] {
        let o = c.run("nlpc-list", &["--set", bad]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        assert!(stderr(&o).contains(want), "{bad}: {}", stderr(&o));
    }
    let config = stdout(&c.run("nlpc-list", &["--config"]));
    assert!(config.lines().any(|l| l == "filter-auth=lv"), "{config}");
}

/// Waits up to `limit` for every pid in `pids` to be gone from /proc (or
/// a zombie), polling; fails the test naming those left.
fn wait_gone(pids: &[u32], limit: Duration) {
    wait_until(limit, "the daemons to exit", || {
        pids.iter().all(|p| !alive(*p))
    });
}

/// An idle nlpcd over a new, empty crawl: its daemons wait for work.
/// The name server is a loopback port nothing answers (there is nothing
/// to ask it anyway).
/// The daemons nlpcd runs (six, with nlpc-index).
const DAEMONS: usize = nlpcrawl::run::options::Program::DAEMONS.len();

fn idle_nlpcd(c: &Crawl, extra: &[&str]) -> Child {
    c.cmd("nlpcd")
        .args(["--nameserver", "127.0.0.142:9", "--use-interval", "1s"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn the_daemons_die_with_a_killed_nlpcd_and_free_its_lock() {
    let c = Crawl::new();
    let mut first = idle_nlpcd(&c, &[]);
    wait_until(Duration::from_secs(30), "every daemon", || {
        children_of(first.id()).len() == DAEMONS
    });
    let kids = children_of(first.id());
    // While its daemons run, a second nlpcd is refused, naming the first.
    let o = c.cmd("nlpcd").arg("--once").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("another nlpcd (pid {})", first.id())),
        "{}",
        stderr(&o)
    );
    kill(Pid::from_raw(first.id() as i32), Signal::SIGKILL).unwrap();
    first.wait().unwrap();
    wait_gone(&kids, Duration::from_secs(30));
    // With its daemons gone, so is the lock: a new nlpcd runs.
    let o = c
        .cmd("nlpcd")
        .args(["--once", "--nameserver", "127.0.0.142:9"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn sighup_makes_nlpcd_reopen_its_log() {
    let c = Crawl::new();
    let log = c.tmp.path().join("crawl.log");
    let mut d = idle_nlpcd(&c, &["--log", log.to_str().unwrap()]);
    let started = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(" info: started, database "))
            .count()
    };
    wait_until(Duration::from_secs(30), "every daemon logging", || {
        started(&log) == DAEMONS
    });
    let old = c.tmp.path().join("crawl.log.1");
    std::fs::rename(&log, &old).unwrap();
    kill(Pid::from_raw(d.id() as i32), Signal::SIGHUP).unwrap();
    // The daemons start over and log to a new file of the old name.
    wait_until(
        Duration::from_secs(30),
        "every daemon in the new log",
        || started(&log) == DAEMONS,
    );
    assert_eq!(started(&old), DAEMONS, "the old log got new lines");
    assert_eq!(children_of(d.id()).len(), DAEMONS);
    kill(Pid::from_raw(d.id() as i32), Signal::SIGTERM).unwrap();
    let st = d.wait().unwrap();
    assert_eq!(st.code(), Some(0));
}

#[test]
fn sighup_makes_a_daemon_start_over_with_the_stored_settings() {
    let c = Crawl::new();
    let o = c.run("nlpc-scan", &["--filter-auth", "a.test", "http://a.test/"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut d = c
        .cmd("nlpc-scan")
        .args(["--filter-auth", "b.test"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = d.id();
    // Read standard error in a thread, so the test can wait for lines.
    let err = d.stderr.take().unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let l2 = lines.clone();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            l2.lock().unwrap().push(l);
        }
    });
    let count = |what: &str| {
        lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(what))
            .count()
    };
    wait_until(Duration::from_secs(30), "nlpc-scan started", || {
        count("started, database") == 1
    });
    let o = c.run("nlpc-list", &["--set", "filter-auth=b.test"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    kill(Pid::from_raw(pid as i32), Signal::SIGHUP).unwrap();
    wait_until(Duration::from_secs(30), "nlpc-scan started again", || {
        count("started, database") == 2
    });
    kill(Pid::from_raw(pid as i32), Signal::SIGTERM).unwrap();
    assert_eq!(d.wait().unwrap().code(), Some(0));
    reader.join().unwrap();
    let lines = lines.lock().unwrap();
    // The same process; the first run overrode the stored a.test, the
    // second found b.test stored and overrode nothing.
    let over: Vec<&String> = lines.iter().filter(|l| l.contains("overridden")).collect();
    assert_eq!(over.len(), 1, "{lines:#?}");
    assert!(
        over[0].contains("--filter-auth=b.test (stored a.test)"),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("SIGHUP received")),
        "{lines:#?}"
    );
    for l in lines.iter() {
        assert!(log_line(l).is_some(), "not a log line: {l:?}");
    }
}

#[test]
fn log_lines_carry_time_and_level_and_stay_small() {
    let web = Web::start(150);
    let c = Crawl::new();
    let log = c.tmp.path().join("crawl.log");
    let o = c
        .cmd("nlpcd")
        .args(web.nlpcd_args())
        .args(["--with", "resolve:--dns-pause=0.1s", "--once"])
        .args(["--log", log.to_str().unwrap(), web.seed()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // nlpcd's own lines and the daemons' are all of one form.
    let text = std::fs::read_to_string(&log).unwrap();
    let own = stderr(&o);
    let mut levels = std::collections::BTreeSet::new();
    for l in text.lines().chain(own.lines()) {
        let (name, level, _) = log_line(l).unwrap_or_else(|| panic!("not a log line: {l:?}"));
        assert!(name.starts_with("nlpc"), "{l}");
        levels.insert(level.to_string());
    }
    assert!(levels.contains("info"), "{levels:?}");
    // Lines about one record name its URL.
    assert!(
        text.lines()
            .any(|l| l.contains(" nlpc-fetch info: fetched ") && l.contains("http://")),
        "{text}"
    );
    let pages = web.hits().len();
    assert!(pages > 20, "only {pages} requests");
    let per_page = text.len() / pages;
    eprintln!(
        "log: {} bytes for {pages} requests, {per_page} bytes a page",
        text.len()
    );
    assert!(per_page <= 400, "{per_page} bytes of log a page");
}

#[test]
fn under_the_journal_lines_carry_a_priority_and_no_timestamp() {
    use std::os::unix::fs::MetadataExt;
    let c = Crawl::new();
    let o = c.run("nlpc-scan", &["http://a.test/"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let set = |stream: &dyn Fn(&Path) -> String| -> String {
        let path = c.tmp.path().join("stderr");
        let f = std::fs::File::create(&path).unwrap();
        let o = c
            .cmd("nlpc-list")
            .args(["--set", "fetch-burst=3"])
            .env("JOURNAL_STREAM", stream(&path))
            .stderr(f)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        std::fs::read_to_string(&path).unwrap()
    };
    // Standard error is the stream systemd named: the journal's form.
    let journal = set(&|p| {
        let m = std::fs::metadata(p).unwrap();
        format!("{}:{}", m.dev(), m.ino())
    });
    assert_eq!(
        journal.trim_end(),
        "<6>nlpc-list info: setting fetch-burst changed: (default) -> 3"
    );
    // Another stream (the variable inherited, standard error elsewhere):
    // a timestamp.
    let other = set(&|_| "1:1".to_string());
    let l = other.trim_end();
    assert_eq!(
        log_line(l),
        Some(("nlpc-list", "info", "setting fetch-burst changed: 3 -> 3")),
        "{l}"
    );
}

//! Helpers shared by the integration tests: temporary crawl directories,
//! the built executables, and records planted straight into a real store.
#![allow(dead_code)]

pub mod dns;
pub mod http;
pub mod langset;
pub mod nats;
pub mod nginx;
pub mod web;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{self, Inserted, Key, Store};

/// A crawl's directories under one temporary directory.
pub struct Crawl {
    pub tmp: tempfile::TempDir,
}

impl Crawl {
    pub fn new() -> Crawl {
        Crawl {
            tmp: tempfile::tempdir().expect("temporary directory"),
        }
    }
    pub fn db(&self) -> PathBuf {
        self.tmp.path().join("db")
    }
    pub fn cache_dir(&self) -> PathBuf {
        self.tmp.path().join("cache")
    }
    pub fn cache(&self) -> Cache {
        Cache::new(self.cache_dir())
    }
    pub fn store(&self) -> Store {
        Store::open(&self.db(), store::Options::default()).expect("open store")
    }
    /// The path options every daemon takes, pointing into this crawl.
    pub fn paths(&self) -> Vec<String> {
        let p = self.tmp.path();
        vec![
            "-p".into(),
            p.join("db").display().to_string(),
            "-f".into(),
            p.join("cache").display().to_string(),
            "-a".into(),
            p.join("archive").display().to_string(),
            "-r".into(),
            p.join("rep").display().to_string(),
        ]
    }
    /// A command for executable `bin` with this crawl's paths.
    pub fn cmd(&self, bin: &str) -> Command {
        let mut c = Command::new(exe(bin));
        c.args(self.paths());
        c
    }
    /// Runs `bin` with `args` to completion.
    pub fn run(&self, bin: &str, args: &[&str]) -> Output {
        self.cmd(bin).args(args).output().expect("run executable")
    }
    /// Runs `bin --once ARGS` with the crawl's clock `ahead` seconds on,
    /// failing the test unless it exits 0; its log.
    pub fn once_ahead(&self, ahead: u64, bin: &str, args: &[&str]) -> String {
        let o = self
            .cmd(bin)
            .env(nlpcrawl::run::clock::OFFSET_VAR, ahead.to_string())
            .arg("--once")
            .args(args)
            .output()
            .expect("run executable");
        assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
        stderr(&o)
    }
    /// Plants a record in `state` with `body` in the file cache.
    pub fn plant(
        &self,
        st: &Store,
        url: &str,
        state: State,
        content_type: &str,
        body: &[u8],
    ) -> Key {
        let mut r = Record::new(url, 1);
        r.state = state;
        r.content_type = content_type.into();
        r.status = 200;
        r.size = body.len() as u64;
        let key = insert_new(st, &r);
        self.cache().write(&key, body).expect("cache write");
        key
    }
}

/// The Python that has warcio: `$NLPCRAWL_PYTHON` (the Makefile sets it),
/// else the virtual environment `make venv` makes, else python3.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("NLPCRAWL_PYTHON").filter(|p| !p.is_empty()) {
        return p.into();
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/venv/bin/python3");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// Bytes this thread has handed to write calls (/proc/thread-self/io):
/// LMDB writes every page a transaction dirtied at its commit, with write
/// calls of the committing thread, so a difference over a commit counts
/// the pages it dirtied (and its meta page).
pub fn written_by_this_thread() -> u64 {
    let io = std::fs::read_to_string("/proc/thread-self/io").expect("/proc/thread-self/io");
    io.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("wchar in /proc/thread-self/io")
}

/// Inserts records `make(0..n)`, 10,000 a transaction, as a large
/// frontier is planted.
pub fn insert_many(st: &Store, n: usize, make: impl Fn(usize) -> Record) {
    for start in (0..n).step_by(10_000) {
        let recs: Vec<Record> = (start..(start + 10_000).min(n)).map(&make).collect();
        let mut w = st.write().expect("write");
        w.insert_batch(&recs).expect("insert");
        w.commit().expect("commit");
    }
}

/// Inserts a record the test plants, failing the test if its URL is known.
pub fn insert_new(st: &Store, r: &Record) -> Key {
    let mut w = st.write().expect("write");
    let key = match w.insert(r).expect("insert") {
        Inserted::New(k) => k,
        other => panic!("{} planted twice: {other:?}", r.url),
    };
    w.commit().expect("commit");
    key
}

/// Plants a READY record for `url` whose host resolved to `addr`.
pub fn plant_ready(st: &Store, url: &str, addr: &str) -> Key {
    let mut r = Record::new(url, 1);
    r.state = State::Ready;
    r.addr = addr.to_string();
    insert_new(st, &r)
}

/// The record of `url`.
pub fn record(st: &Store, url: &str) -> Record {
    st.read()
        .expect("read")
        .lookup(url)
        .expect("lookup")
        .unwrap_or_else(|| panic!("{url} not in the database"))
        .1
}

/// The path of a built executable of this package.
pub fn exe(name: &str) -> PathBuf {
    let p = match name {
        "nlpc-scan" => env!("CARGO_BIN_EXE_nlpc-scan"),
        "nlpc-list" => env!("CARGO_BIN_EXE_nlpc-list"),
        "nlpc-fetch" => env!("CARGO_BIN_EXE_nlpc-fetch"),
        "nlpc-resolve" => env!("CARGO_BIN_EXE_nlpc-resolve"),
        "nlpc-vrfy" => env!("CARGO_BIN_EXE_nlpc-vrfy"),
        "nlpcd" => env!("CARGO_BIN_EXE_nlpcd"),
        "nlpc-up" => env!("CARGO_BIN_EXE_nlpc-up"),
        "nlpc-dump" => env!("CARGO_BIN_EXE_nlpc-dump"),
        "nlpc-index" => env!("CARGO_BIN_EXE_nlpc-index"),
        "nlpc-search" => env!("CARGO_BIN_EXE_nlpc-search"),
        "nlpc-stat" => env!("CARGO_BIN_EXE_nlpc-stat"),
        "nlpc-relay" => env!("CARGO_BIN_EXE_nlpc-relay"),
        other => panic!("unknown executable {other}"),
    };
    PathBuf::from(p)
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Polls `cond` until it holds, failing the test after `limit`. This waits
/// for an observable state, not for a guessed amount of time.
pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every URL in `state`, sorted.
pub fn urls_in(st: &Store, state: State) -> Vec<String> {
    let rd = st.read().expect("read");
    let mut v = Vec::new();
    for leased in [false, true] {
        rd.walk_state(state, leased, |_, r| {
            v.push(r.url);
            Ok(true)
        })
        .expect("walk");
    }
    v.sort();
    v
}

/// Asserts the store is consistent: every record in exactly its index,
/// counters exact, and (when `no_leases`) nothing leased.
pub fn assert_consistent(st: &Store, no_leases: bool) {
    let rd = st.read().expect("read");
    let problems = rd.check().expect("check");
    assert!(problems.is_empty(), "store problems: {problems:#?}");
    if no_leases {
        for s in State::ALL {
            assert_eq!(rd.count(s, true).expect("count"), 0, "leases left in {s}");
        }
    }
}

/// Spawns a child with piped stdio.
pub fn spawn(mut c: Command) -> std::process::Child {
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

pub fn read_fixture(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A log line `2026-11-24T10:00:00Z nlpc-fetch info: message` as
/// (name, level, message); None when the line is not of that form (the
/// timestamp RFC 3339 in UTC, the level one of error, info, debug).
pub fn log_line(l: &str) -> Option<(&str, &str, &str)> {
    let (ts, rest) = l.split_once(' ')?;
    let b = ts.as_bytes();
    let stamp = b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
    if !stamp {
        return None;
    }
    let (name, rest) = rest.split_once(' ')?;
    let (level, msg) = rest.split_once(": ")?;
    ["error", "info", "debug"]
        .contains(&level)
        .then_some((name, level, msg))
}

/// A log line as `name: message`, after checking its form (see
/// [`log_line`]); panics on a line of another form.
pub fn logged(l: &str) -> String {
    let (name, _, msg) = log_line(l).unwrap_or_else(|| panic!("not a log line: {l:?}"));
    format!("{name}: {msg}")
}

/// The fields of /proc/PID/stat after the process's name (which is in
/// parentheses and may hold spaces): its state (the 3rd field), its
/// parent (the 4th), and so on; None once the process is gone.
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    Some(rest.split(' ').map(str::to_string).collect())
}

/// The pids of `parent`'s children, from /proc.
pub fn children_of(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Some(fields) = stat_fields(pid) else {
            continue;
        };
        let ppid = fields.get(1).and_then(|p| p.parse::<u32>().ok());
        let zombie = fields.first().is_some_and(|s| s == "Z");
        if ppid == Some(parent) && !zombie {
            out.push(pid);
        }
    }
    out
}

/// True while `pid` runs (not gone, not a zombie).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

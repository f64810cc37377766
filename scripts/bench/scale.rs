//! Scale: a frontier of 10 k, 100 k and 1 M records (10 M with
//! SCALE_MAX=10000000), planted through the store, and at each size:
//!
//! - bytes of database (data.mdb) per record, due index included;
//! - `nlpc-up --once` with 1% of the records due: wall time, wall and CPU
//!   time and database bytes written per due record, its peak file-backed
//!   and anonymous memory; then again with nothing due;
//! - `nlpc-fetch --once` re-fetching 20,000 DIRTY records (SCALE_PAGES) from
//!   a loopback server (20 hosts on 4 addresses, politeness 0): pages/s,
//!   CPU time and database bytes written a page, peak memory;
//! - then the focused round: `nlpc-fetch --once --filter-lang lv` (focus
//!   on) over 20,000 READY records on the same server, with the same
//!   figures, in a second table. Its hosts' standing is planted through
//!   the store's harvest and tunnel tables (`plant_focus`): nine in ten
//!   records on hosts judged good, one in ten on hosts not judged (one
//!   first look each, the rest exploring, reached through rejected pages),
//!   so the fill classes every record it walks, reading each host's
//!   standing once a pass and an exploring record's hops, and holds
//!   exploration to `--fetch-explore`; nlpc-vrfy does not run, so no host
//!   not judged keeps a second page of the first-look class, which would
//!   leave the round's tail at one look a fill.
//!
//! Every size is planted first; then the sizes take their rounds in turn
//! (the DIRTY round, then the focused one), so that the machine's
//! changing pace falls on all of them alike.
//!
//! The big frontier is SCANNED but for 1% due (expired by nlpc-up, set
//! back to SCANNED before the rounds) and one in ten READY
//! (`READY_EVERY`), on addresses planted resting for a day, as nlpc-fetch
//! records a rest between bursts: so a fill walks a READY index that grows with the
//! size (1,000 to 1 M records) and skips those records by their address,
//! as it skips a real frontier's resting servers, and no request leaves
//! the machine. Both rounds walk it (READY first); at the end --once walks
//! it once more to see that only resting records are left.
//!
//! The daemons are the release executables, run as child processes whose
//! /proc/PID/status is read every millisecond for the peak file-backed
//! resident memory (RssFile: the database's mapped pages, the page cache's,
//! shared, each fault mapping the cached pages around it, on ext4 since
//! Linux 6.16 the whole folio, up to 2 MB) and the peak anonymous memory
//! (RssAnon, the process's own); CPU time and page faults come from wait4,
//! and the bytes the process handed to write calls from /proc/PID/io once
//! it has exited: less its log and the files it stored, what its commits
//! wrote to the database. Times include each process's start
//! and the opening of the database; the times per due record do not (the
//! run with nothing due is taken off). The database is on the temporary
//! directory's disk; the file cache, archive and robots.txt cache on
//! /dev/shm when there is one. Each size also prints a line of
//! diagnostics (faults per due record and per page) to stderr.
//!
//! cargo bench --bench scale         (prints the table, writes nothing)
//! SCALE_MAX=10000000 cargo bench --bench scale -- --record
//! SCALE_DB_SHM=1 ... cargo bench --bench scale -- --record
//!
//! `-- --record` writes the table to scripts/bench/scale.txt (with
//! SCALE_DB_SHM=1, scale-shm.txt), the record doc/BENCHMARKS.md quotes;
//! `-- --out FILE` writes it to FILE instead; without either nothing is
//! written. For analysis (these runs record nothing): SCALE_SIZES=100000,1000000
//! runs those sizes only; SCALE_COMPACT=1 runs the daemons on the planted
//! frontier's compacted copy (no free pages); SCALE_STRACE=DIR runs
//! nlpc-fetch under strace, its writes and syncs logged with how long each
//! took to DIR/fetch-N.txt (its times and memory are then strace's);
//! SCALE_PERF=DIR runs it under
//! `perf record -g`, to DIR/fetch-N.data (the focused round's to
//! DIR/focus-N.data, and strace's likewise; the idle round runs
//! without either); SCALE_EVICT=1 drops the
//! database file's page cache before nlpc-fetch starts; SCALE_REWARM=1 drops
//! it and reads the file back a 4 KB page at a time (the cache then holds
//! small folios, as commits leave it, not the planting's large ones);
//! SCALE_REPEAT=N runs N rounds of each kind at each size (5);
//! SCALE_NO_FOCUS=1 runs the focused round with `--fetch-no-focus`, to
//! tell what focus costs from what the READY walk does;
//! SCALE_LOG=DIR keeps each daemon's log, as DIR/MS.log (MS its end's
//! Unix time in ms);
//! SCALE_DB_SHM=1 puts the database on /dev/shm, so no commit waits for a
//! disk, and records to scripts/bench/scale-shm.txt instead. Each size's
//! diagnostics also give the trees' depths and leaf pages, nlpc-fetch's
//! commits (from the environment's transaction numbers) and pages written a
//! commit, and what the database's disk wrote while nlpc-fetch ran and how
//! much of that time it was busy.

use std::io::{BufRead, BufReader, Write as _};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nlpcrawl::stage::fetch::AddrEntry;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{self, harvest, tunnel, Key, Store};

const DAY: u64 = 86_400;
/// Records re-fetched in the fetch phase, at every size, unless
/// SCALE_PAGES says otherwise. A run of 1,000 pages lasted a few tenths of
/// a second, in which the process's start, the robots.txt requests and the
/// last commit weighed; 5,000 take about a second, 20,000 about four.
/// Even so one round of one size moves by a fifth from run to run, hence
/// [`REPEAT`].
const LIVE: usize = 20_000;
/// Rounds of the fetch phase at each size, unless SCALE_REPEAT says
/// otherwise: the table gives the median round and the range.
const REPEAT: usize = 5;
const LIVE_HOSTS: usize = 20;
/// The focused round's hosts judged good, and not judged.
const GOOD_HOSTS: usize = 20;
const NEW_HOSTS: usize = 20;
/// One in this many records of the big frontier is READY, on a resting
/// address (the rest SCANNED).
const READY_EVERY: usize = 10;
const LIVE_ADDRS: [&str; 4] = ["127.0.0.71", "127.0.0.72", "127.0.0.73", "127.0.0.74"];

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// Peak memory and resources of one daemon run.
#[derive(Clone, Copy, Default)]
struct Mem {
    /// Largest resident set (VmHWM): includes the pages of the database's
    /// memory map that the process touched, which the kernel shares with
    /// the page cache and can drop at will.
    hwm: u64,
    /// Largest file-backed resident memory (RssFile) seen: mostly the
    /// database's mapped pages. A fault maps the pages around the one
    /// touched that are in the page cache too (the kernel's fault-around),
    /// so this overstates what the process read.
    file: u64,
    /// Largest anonymous resident memory (RssAnon) seen: the process's own
    /// heap and stacks, what a long crawl must keep flat.
    anon: u64,
    /// CPU seconds, user and system, from wait4.
    cpu: f64,
    /// Of those, the system's.
    sys: f64,
    /// Page faults, minor and major, from wait4: about the pages the
    /// process touched for the first time, its own and the map's.
    faults: u64,
    /// Blocks written (512 bytes), from wait4: the page cache's count of
    /// what the process dirtied, a whole folio for each page written into
    /// one (on ext4 since Linux 6.16 a folio of a file written in large
    /// pieces holds up to 2 MB), so this overstates the database's writes
    /// many times over; see `wchar`.
    written: u64,
    /// Bytes handed to write calls (/proc/PID/io, read once the process
    /// has exited and before it is reaped): the database's pages each
    /// commit writes, its log and the files it stores.
    wchar: u64,
    /// Bytes of its log (stderr).
    log: u64,
}

/// Reads a "Name:   N kB" line of /proc/PID/status, in bytes.
fn status_field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Runs `cmd` to its end; returns its wall time and peak memory, read from
/// /proc/PID/status every millisecond while it runs, and its CPU time,
/// page faults and writes from wait4. (Not wait4's peak resident set: a
/// child's starts at its parent's at the fork, and this process holds the
/// planted frontier.)
fn measure(mut cmd: Command) -> (Duration, Mem) {
    // A file, not a pipe: a daemon logs a line per page, more than a pipe
    // holds while nobody reads it.
    let log = tempfile::tempfile().expect("log file");
    let t = Instant::now();
    // Reaped below by wait4, which also gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = cmd
        .stderr(log.try_clone().expect("log file"))
        .spawn()
        .expect("start daemon");
    let pid = child.id() as libc::pid_t;
    let status_path = format!("/proc/{pid}/status");
    let mut mem = Mem::default();
    let code = loop {
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            mem.hwm = mem.hwm.max(status_field(&s, "VmHWM:").unwrap_or(0));
            mem.file = mem.file.max(status_field(&s, "RssFile:").unwrap_or(0));
            mem.anon = mem.anon.max(status_field(&s, "RssAnon:").unwrap_or(0));
        }
        // SAFETY: an all-zero siginfo is a valid value for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our child; WNOWAIT leaves it to be reaped below,
        // so its /proc entry (and its I/O counts) stay till then.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        assert!(
            r >= 0,
            "wait for daemon: {}",
            std::io::Error::last_os_error()
        );
        // SAFETY: waitid filled info or left it zeroed (no child exited).
        if unsafe { info.si_pid() } == pid {
            if let Ok(io) = std::fs::read_to_string(format!("/proc/{pid}/io")) {
                mem.wchar = io
                    .lines()
                    .find_map(|l| l.strip_prefix("wchar:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
            }
            let mut code: libc::c_int = 0;
            // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: pid is our child, exited and not yet reaped; the
            // pointers are to locals that outlive the call.
            let r = unsafe { libc::wait4(pid, &mut code, 0, &mut ru) };
            assert!(r == pid, "reap daemon: {}", std::io::Error::last_os_error());
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            mem.cpu = secs(ru.ru_utime) + secs(ru.ru_stime);
            mem.sys = secs(ru.ru_stime);
            mem.faults = (ru.ru_minflt + ru.ru_majflt) as u64;
            mem.written = ru.ru_oublock as u64;
            break code;
        }
        // A sampling period, not a synchronisation: the loop ends on
        // the child's exit.
        std::thread::sleep(Duration::from_millis(1));
    };
    let wall = t.elapsed();
    let mut err = String::new();
    {
        use std::io::{Read as _, Seek as _};
        let mut log = log;
        let _ = log.rewind();
        let _ = log.read_to_string(&mut err);
    }
    mem.log = err.len() as u64;
    if let Some(dir) = analysis_dir("SCALE_LOG") {
        let name = dir.join(format!("{}.log", now_ms()));
        std::fs::write(&name, &err).expect("write log");
    }
    assert!(
        libc::WIFEXITED(code) && libc::WEXITSTATUS(code) == 0,
        "daemon failed: {err}"
    );
    (wall, mem)
}

struct Crawl {
    dir: PathBuf,
    /// Where the file cache, archive and robots.txt cache go: tmpfs when
    /// there is one, so the figures are the scheduler's and not the
    /// disk's fsync (each stored body is synced).
    files: PathBuf,
    /// SCALE_STRACE: the directory of nlpc-fetch's strace logs.
    strace: Option<PathBuf>,
    /// SCALE_PERF: the directory of nlpc-fetch's perf records.
    perf: Option<PathBuf>,
    /// The size, for the names of those files.
    n: usize,
}

/// The directory an analysis switch names, made if missing: perf and
/// strace given a path in a missing one exit without a word.
fn analysis_dir(var: &str) -> Option<PathBuf> {
    let d = PathBuf::from(std::env::var_os(var)?);
    if let Err(e) = std::fs::create_dir_all(&d) {
        panic!("{var}={}: cannot make the directory: {e}", d.display());
    }
    Some(d)
}

impl Crawl {
    /// The command running `bin`, with `--once` but for nlpc-fetch's
    /// "idle" round; `round` names nlpc-fetch's round ("fetch", "focus"
    /// or "idle") in the analysis files. The idle round is never run
    /// under perf or strace: its CPU is read from the process's /proc
    /// and it is stopped by SIGTERM, which the wrapper would take.
    fn cmd(&self, bin: &str, round: &str) -> Command {
        let exe = match bin {
            "nlpc-up" => env!("CARGO_BIN_EXE_nlpc-up"),
            _ => env!("CARGO_BIN_EXE_nlpc-fetch"),
        };
        let n = self.n;
        let analysed = if round == "idle" { "" } else { bin };
        let mut c = match (&self.strace, &self.perf, analysed) {
            (_, Some(dir), "nlpc-fetch") => {
                let mut c = Command::new("perf");
                c.args(["record", "-g", "-q", "-o"])
                    .arg(dir.join(format!("{round}-{n}.data")))
                    .arg("--")
                    .arg(exe);
                c
            }
            (Some(dir), _, "nlpc-fetch") => {
                let mut c = Command::new("strace");
                c.args([
                    "-f",
                    "-y",
                    "-T",
                    "-e",
                    "trace=pwrite64,pwritev,fdatasync,fsync",
                ])
                .arg("-o")
                .arg(dir.join(format!("{round}-{n}.txt")))
                .arg(exe);
                c
            }
            _ => Command::new(exe),
        };
        c.arg("-p").arg(self.dir.join("db"));
        for (opt, sub) in [("-f", "cache"), ("-a", "archive"), ("-r", "rep")] {
            c.arg(opt).arg(self.files.join(sub));
        }
        if round != "idle" {
            c.arg("--once");
        }
        c
    }
}

/// Drops `file`'s pages from the page cache, so that the next process
/// reads them again a fault at a time rather than finding the large folios
/// the planting's long writes left.
fn evict(file: &Path) {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(file).expect("database file");
    f.sync_data().expect("sync database file");
    // SAFETY: the descriptor is open for the call's duration.
    let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(rc, 0, "posix_fadvise DONTNEED");
}

/// Drops `file`'s pages from the page cache and reads it back a 4 KB page
/// at a time with read-ahead off, so the cache holds it in small folios,
/// as it does a file that commits wrote a page at a time, rather than in
/// the large folios of the planting's long writes.
fn rewarm(file: &Path) {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    evict(file);
    let f = std::fs::File::open(file).expect("database file");
    // SAFETY: the descriptor is open for the call's duration.
    let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
    assert_eq!(rc, 0, "posix_fadvise RANDOM");
    let len = f.metadata().expect("database file").len();
    let mut page = [0u8; 4096];
    let mut at = 0;
    while at < len {
        f.read_at(&mut page, at).expect("read database file");
        at += page.len() as u64;
    }
}

/// The block device under `path`: its sectors written and the milliseconds
/// it was busy (/sys/dev/block/MAJ:MIN/stat), None on tmpfs.
fn disk(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let stat = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    let f: Vec<u64> = stat
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    Some((*f.get(6)?, *f.get(9)?))
}

/// Bytes of the files under `dir`, at any depth.
fn files_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => files_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

fn db_bytes(db: &Path) -> u64 {
    std::fs::metadata(db.join("data.mdb"))
        .map(|m| m.len())
        .unwrap_or(0)
}

/// A loopback HTTP/1.1 server on every address of `LIVE_ADDRS` at one
/// port: small pages, 404 for robots.txt, keep-alive.
fn serve() -> u16 {
    'again: for _ in 0..20 {
        let first = TcpListener::bind((LIVE_ADDRS[0], 0)).expect("bind");
        let port = first.local_addr().expect("port").port();
        let mut ls = vec![first];
        for a in &LIVE_ADDRS[1..] {
            match TcpListener::bind((*a, port)) {
                Ok(l) => ls.push(l),
                Err(_) => continue 'again,
            }
        }
        for l in ls {
            std::thread::spawn(move || {
                for s in l.incoming().flatten() {
                    std::thread::spawn(move || answer(s));
                }
            });
        }
        return port;
    }
    panic!("no port free on every loopback address");
}

fn answer(s: TcpStream) {
    let mut w = match s.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut r = BufReader::new(s);
    let body = "<html><head><title>p</title></head><body><p>Rīga ir Latvijas galvaspilsēta.</p></body></html>";
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h == "\r\n" || h == "\n" {
                break;
            }
        }
        let reply = if path == "/robots.txt" {
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_string()
        } else {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        if w.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

struct Row {
    n: usize,
    plant_s: f64,
    bytes_per_record: f64,
    compact_per_record: f64,
    due: usize,
    up_s: f64,
    up_idle_ms: f64,
    up_rss: Mem,
    up_idle: Mem,
    pages: usize,
    /// The median round's.
    fetch_pages_s: f64,
    /// Every round's, slowest first.
    fetch_all: Vec<f64>,
    fetch_rss: Mem,
    /// Bytes the fetch run's commits wrote to the database.
    fetch_db: u64,
    /// READY records of the big frontier, on resting addresses.
    ready_n: usize,
    /// The focused round's median.
    focus: Round,
    /// CPU seconds a second of nlpc-fetch left running (no `--once`)
    /// once only the resting records are left: what its fills cost
    /// walking past them.
    idle_cpu: f64,
}

/// The median round of a kind and the range.
#[derive(Default)]
struct Round {
    pages_s: f64,
    /// Every round's pages/s, slowest first.
    all: Vec<f64>,
    rss: Mem,
    /// Bytes its commits wrote to the database.
    db: u64,
}

/// One size's frontier, planted and measured by nlpc-up, waiting for its
/// rounds of nlpc-fetch.
struct Planted {
    /// The directories, removed when it is dropped.
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    c: Crawl,
    db: PathBuf,
    live_keys: Vec<Key>,
    live: Vec<Record>,
    /// The focused round's records and their READY form.
    focus_keys: Vec<Key>,
    focus: Vec<Record>,
    /// Its row, the fetch's columns still empty.
    row: Row,
    /// Each DIRTY round's pages/s, resources and database bytes written.
    runs: Vec<(f64, Mem, u64)>,
    /// Each focused round's.
    focus_runs: Vec<(f64, Mem, u64)>,
}

fn plant(n: usize, live_n: usize, port: u16) -> Planted {
    let shm = Path::new("/dev/shm");
    let tmp = if std::env::var_os("SCALE_DB_SHM").is_some() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("temporary directory");
    let files = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("temporary directory");
    let c = Crawl {
        dir: tmp.path().to_path_buf(),
        files: files.path().to_path_buf(),
        strace: analysis_dir("SCALE_STRACE"),
        perf: analysis_dir("SCALE_PERF"),
        n,
    };
    let db = c.dir.join("db");
    let t0 = now();
    let st = Store::open(&db, store::Options::default()).expect("open");
    // 1% due: fetched 20 days ago; the rest an hour ago.
    let started = Instant::now();
    let mut due = 0;
    let mut ready_n = 0;
    for start in (0..n).step_by(100_000) {
        let recs: Vec<Record> = (start..(start + 100_000).min(n))
            .map(|i| {
                let mut r = Record::new(
                    &format!(
                        "http://host{}.example.lv/s/{}/page-{i}.html",
                        i % 5000,
                        i % 97
                    ),
                    t0 - 30 * DAY,
                );
                r.addr = format!("192.0.2.{}", i % 250 + 1);
                if i % READY_EVERY == READY_EVERY / 2 {
                    // Never fetched: its address rests (see below).
                    r.state = State::Ready;
                    ready_n += 1;
                    return r;
                }
                r.state = State::Scanned;
                r.status = 200;
                r.hash = [1; 32];
                r.size = 20_000;
                r.content_type = "text/html".into();
                r.fetched = if i % 100 == 0 {
                    due += 1;
                    t0 - 20 * DAY
                } else {
                    t0 - 3600
                };
                r.changed = r.fetched;
                r
            })
            .collect();
        let mut w = st.write().expect("write");
        w.insert_batch(&recs).expect("insert");
        w.commit().expect("commit");
    }
    // The frontier's addresses rest for a day, as nlpc-fetch records a
    // rest between bursts: no request goes to them (nor off the machine),
    // but each fill walks their READY records in the READY index.
    let mut w = st.write().expect("write");
    let rest = AddrEntry {
        until: (t0 + DAY) * 1000,
        ..AddrEntry::default()
    };
    for a in 1..=250 {
        let a: IpAddr = format!("192.0.2.{a}").parse().expect("address");
        rest.put(&mut w, &a).expect("rest");
    }
    w.commit().expect("commit");
    let plant_s = started.elapsed().as_secs_f64();
    let bytes_per_record = db_bytes(&db) as f64 / n as f64;
    let compact = st.backup(&c.dir.join("copy")).expect("compacted copy") as f64 / n as f64;
    drop(st);
    if std::env::var_os("SCALE_COMPACT").is_some() {
        std::fs::rename(c.dir.join("copy/data.mdb"), db.join("data.mdb")).expect("compacted copy");
    }
    let _ = std::fs::remove_dir_all(c.dir.join("copy"));

    let (up, up_rss) = measure(c.cmd("nlpc-up", ""));
    let st = Store::open(&db, store::Options::default()).expect("open");
    let dirty = st
        .read()
        .expect("read")
        .count(State::Dirty, false)
        .expect("count");
    assert_eq!(dirty as usize, due, "every due record expired");
    let (idle, up_idle) = measure(c.cmd("nlpc-up", ""));

    // The fetch phase: the expired records go back to SCANNED (their
    // addresses are not routed), and LIVE due ones on loopback hosts are
    // planted and expired by nlpc-up.
    let mut keys: Vec<Key> = Vec::new();
    st.read()
        .expect("read")
        .walk_keys(State::Dirty, false, None, |k| {
            keys.push(k);
            Ok(true)
        })
        .expect("walk");
    for chunk in keys.chunks(10_000) {
        let mut w = st.write().expect("write");
        for k in chunk {
            let mut r = w.get(k).expect("get").expect("record");
            r.state = State::Scanned;
            r.fetched = t0;
            w.update(k, &r).expect("update");
        }
        w.commit().expect("commit");
    }
    let live: Vec<Record> = (0..live_n)
        .map(|i| {
            let h = i % LIVE_HOSTS;
            let mut r = Record::new(&format!("http://live{h}.test:{port}/p/{i}"), t0 - 30 * DAY);
            r.state = State::Scanned;
            r.addr = LIVE_ADDRS[h % LIVE_ADDRS.len()].into();
            r.status = 200;
            r.hash = [1; 32];
            r.fetched = t0 - 20 * DAY;
            r.changed = r.fetched;
            r
        })
        .collect();
    let mut w = st.write().expect("write");
    let live_keys = insert_new(&mut w, &live, "live");
    w.commit().expect("commit");
    let (focus_keys, focus) = plant_focus(&st, live_n, port, t0);
    drop(st);
    let row = Row {
        n,
        plant_s,
        bytes_per_record,
        compact_per_record: compact,
        due,
        up_s: up.as_secs_f64(),
        up_idle_ms: idle.as_secs_f64() * 1e3,
        up_rss,
        up_idle,
        pages: live_n,
        fetch_pages_s: 0.0,
        fetch_all: Vec::new(),
        fetch_rss: Mem::default(),
        fetch_db: 0,
        ready_n,
        focus: Round::default(),
        idle_cpu: 0.0,
    };
    Planted {
        _dirs: (tmp, files),
        db,
        c,
        live_keys,
        live,
        focus_keys,
        focus,
        row,
        runs: Vec::new(),
        focus_runs: Vec::new(),
    }
}

/// Inserts `recs`, each new (`what` names them if one is not), and
/// returns their keys in order.
fn insert_new(w: &mut store::Write<'_>, recs: &[Record], what: &str) -> Vec<Key> {
    w.insert_batch(recs)
        .expect("insert")
        .into_iter()
        .map(|i| match i {
            store::Inserted::New(k) => k,
            other => panic!("{what} record not new: {other:?}"),
        })
        .collect()
}

/// Plants the focused round's `count` records, READY on the loopback
/// hosts, as FRESH (the DIRTY round must not fetch them; each focused
/// round makes them READY again), and their hosts' standing: returns
/// their keys and their READY form. Nine in ten are on [`GOOD_HOSTS`]
/// hosts judged good, one in nine of those reached through a rejected page
/// (the class of a good host's page does not read it); one in ten on
/// [`NEW_HOSTS`] hosts not judged, each with one page reached from an
/// accepted one (its first look) and the others through one or two
/// rejected pages: exploring, their hops read for each, held to
/// `--fetch-explore` while better records wait. No host not judged has a
/// second page of class 1, so the round's tail is not one look a fill.
fn plant_focus(st: &Store, count: usize, port: u16, t0: u64) -> (Vec<Key>, Vec<Record>) {
    let mut w = st.write().expect("write");
    for h in 0..GOOD_HOSTS {
        let mut r = Record::new(&format!("http://good{h}.test:{port}/"), t0 - 30 * DAY);
        r.state = State::Verified;
        r.addr = LIVE_ADDRS[h % LIVE_ADDRS.len()].into();
        r.status = 200;
        r.fetched = t0 - DAY;
        let k = match w.insert(&r).expect("insert") {
            store::Inserted::New(k) => k,
            other => panic!("judged page not new: {other:?}"),
        };
        harvest::judged(&mut w, &k, &r, 1000).expect("judged");
    }
    let mut hops = Vec::with_capacity(count);
    let ready: Vec<Record> = (0..count)
        .map(|i| {
            let (url, a) = if i % 10 == 9 {
                let j = (i / 10) % NEW_HOSTS;
                // The first of each new host's pages: no hops.
                hops.push(if i / 10 < NEW_HOSTS {
                    0
                } else {
                    1 + (i / 10 / NEW_HOSTS % 2) as u8
                });
                (format!("http://new{j}.test:{port}/f/{i}"), j)
            } else {
                let h = i % GOOD_HOSTS;
                hops.push(u8::from(i % 10 == 0));
                (format!("http://good{h}.test:{port}/f/{i}"), h)
            };
            let mut r = Record::new(&url, t0 - 30 * DAY);
            r.state = State::Ready;
            r.addr = LIVE_ADDRS[a % LIVE_ADDRS.len()].into();
            r
        })
        .collect();
    let fresh: Vec<Record> = ready
        .iter()
        .map(|r| {
            let mut f = r.clone();
            f.state = State::Fresh;
            f.status = 200;
            f.hash = [1; 32];
            f.fetched = t0;
            f.changed = t0;
            f
        })
        .collect();
    let keys = insert_new(&mut w, &fresh, "focused");
    for (k, h) in keys.iter().zip(&hops) {
        if *h > 0 {
            tunnel::reached(&mut w, k, *h).expect("tunnel");
        }
    }
    w.commit().expect("commit");
    (keys, ready)
}

/// A round of nlpc-fetch on `p`: after the first, the live records are
/// planted again (so each round fetches the same pages the same way, none
/// of them unchanged) and the stored bodies removed, so what is written
/// is measured again.
fn round(p: &mut Planted) {
    if !p.runs.is_empty() {
        replant(p, &p.live_keys, &p.live);
    }
    measure(p.c.cmd("nlpc-up", ""));
    let run = fetch_round(p, false);
    p.runs.push(run);
    // The focused round: its records READY again, the stored bodies gone.
    replant(p, &p.focus_keys, &p.focus);
    let run = fetch_round(p, true);
    p.focus_runs.push(run);
    if p.focus_runs.len() == 1 {
        p.row.idle_cpu = idle_round(p);
    }
}

/// How long nlpc-fetch runs in [`idle_round`] before its CPU is counted:
/// its start, and the walks that find every record resting.
const IDLE_SETTLE: Duration = Duration::from_secs(5);
/// How long its CPU is counted for.
const IDLE: Duration = Duration::from_secs(10);

/// CPU seconds (user and system) of process `pid` so far, from
/// /proc/PID/stat.
fn cpu_of(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read stat");
    // The fields after the command, which is in parentheses and may hold
    // spaces: utime and stime are the 12th and 13th of them.
    let rest = &stat[stat.rfind(')').expect("stat's command") + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().expect("utime") + f[12].parse::<f64>().expect("stime");
    // SAFETY: sysconf has no preconditions.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// nlpc-fetch, focused, left running once only the resting READY records
/// are left: its CPU seconds a second over [`IDLE`], after
/// [`IDLE_SETTLE`].
fn idle_round(p: &Planted) -> f64 {
    let mut f = p.c.cmd("nlpc-fetch", "idle");
    f.args(["--fetch-polite", "0", "--filter-lang", "lv"])
        .stderr(std::process::Stdio::null());
    let mut child = f.spawn().expect("start nlpc-fetch");
    // Measurement periods, not synchronisation: the daemon runs on.
    std::thread::sleep(IDLE_SETTLE);
    let before = cpu_of(child.id());
    std::thread::sleep(IDLE);
    let cpu_s = (cpu_of(child.id()) - before) / IDLE.as_secs_f64();
    // SAFETY: the child is ours and not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let st = child.wait().expect("wait for nlpc-fetch");
    assert!(st.success(), "nlpc-fetch left running: {st}");
    eprintln!(
        "{}: nlpc-fetch left running over {} resting READY records: {:.1} ms of CPU a second",
        p.row.n,
        p.row.ready_n,
        cpu_s * 1e3
    );
    cpu_s
}

/// Puts `recs` back under `keys` as planted, and removes the stored
/// bodies, so that a round fetches and writes them again.
fn replant(p: &Planted, keys: &[Key], recs: &[Record]) {
    let st = Store::open(&p.db, store::Options::default()).expect("open");
    for (keys, recs) in keys.chunks(10_000).zip(recs.chunks(10_000)) {
        let mut w = st.write().expect("write");
        for (k, r) in keys.iter().zip(recs) {
            w.update(k, r).expect("update");
        }
        w.commit().expect("commit");
    }
    drop(st);
    for sub in ["cache", "archive", "rep"] {
        let _ = std::fs::remove_dir_all(p.c.files.join(sub));
    }
}

/// The median of `runs` by pages/s, and every round's pages/s, slowest
/// first.
fn median(mut runs: Vec<(f64, Mem, u64)>) -> Round {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|a, b| runs[*a].0.total_cmp(&runs[*b].0));
    let all = order.iter().map(|i| runs[*i].0).collect();
    let (pages_s, rss, db) = runs.swap_remove(order[order.len() / 2]);
    Round {
        pages_s,
        all,
        rss,
        db,
    }
}

/// The row of `p` after its rounds: the median round by pages/s stands
/// for the size; the others are printed beside it.
fn row(mut p: Planted) -> Row {
    let m = median(std::mem::take(&mut p.runs));
    (p.row.fetch_pages_s, p.row.fetch_all) = (m.pages_s, m.all);
    (p.row.fetch_rss, p.row.fetch_db) = (m.rss, m.db);
    p.row.focus = median(std::mem::take(&mut p.focus_runs));
    p.row
}

/// One round of `nlpc-fetch --once` over the DIRTY live records, or with
/// `focus` over the READY focused ones with `--filter-lang lv`: its
/// pages/s, its resources and the bytes its commits wrote to the database.
fn fetch_round(p: &Planted, focus: bool) -> (f64, Mem, u64) {
    let (c, db, n) = (&p.c, p.db.as_path(), p.row.n);
    let (live_n, round) = if focus {
        (p.focus.len(), "focus")
    } else {
        (p.live.len(), "fetch")
    };
    let before = Store::open(db, store::Options::default())
        .and_then(|s| s.shape())
        .expect("shape");
    if std::env::var_os("SCALE_EVICT").is_some() {
        evict(&db.join("data.mdb"));
    } else if std::env::var_os("SCALE_REWARM").is_some() {
        let t = Instant::now();
        rewarm(&db.join("data.mdb"));
        eprintln!(
            "{n}: database read back in small folios in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    let mut f = c.cmd("nlpc-fetch", round);
    f.args(["--fetch-polite", "0"]);
    if focus {
        f.args(["--filter-lang", "lv"]);
        if std::env::var_os("SCALE_NO_FOCUS").is_some() {
            f.arg("--fetch-no-focus");
        }
    }
    let disk_before = disk(db);
    let (fetch, fetch_rss) = measure(f);
    // The whole device's: on a quiet machine, what nlpc-fetch's commits
    // made the disk do.
    if let (Some((s0, b0)), Some((s1, b1))) = (disk_before, disk(db)) {
        let w = fetch.as_secs_f64();
        let (sectors, busy_ms) = (s1.saturating_sub(s0), b1.saturating_sub(b0));
        eprintln!(
            "{n}: while nlpc-fetch's {round} round ran ({w:.2} s) the database's disk wrote {:.1} MB ({:.1} MB/s, {:.1} KB a page) and was busy {:.0}% of the time",
            sectors as f64 * 512.0 / 1e6,
            sectors as f64 * 512.0 / 1e6 / w,
            sectors as f64 * 512.0 / 1e3 / live_n as f64,
            busy_ms as f64 / 10.0 / w,
        );
    }
    let st = Store::open(db, store::Options::default()).expect("open");
    let after = st.shape().expect("shape");
    let trees: Vec<String> = after
        .trees
        .iter()
        .map(|t| format!("{} depth {} {} leaves", t.name, t.depth, t.leaf))
        .collect();
    let commits = after.last_txn.saturating_sub(before.last_txn).max(1);
    // What its commits wrote: its write calls less its log and the bodies
    // and robots.txt files it stored.
    let fetch_db = fetch_rss
        .wchar
        .saturating_sub(fetch_rss.log)
        .saturating_sub(files_bytes(&c.files));
    eprintln!(
        "{n}: {}; {} free pages of {}; nlpc-fetch made {commits} commits, {:.1} pages written a commit ({:.3} commits a page); the page cache counted {:.1} KB dirtied a page",
        trees.join(", "),
        after.free_pages,
        after.last_page,
        fetch_db as f64 / 4096.0 / commits as f64,
        commits as f64 / live_n as f64,
        fetch_rss.written as f64 / 2.0 / live_n as f64,
    );
    let rd = st.read().expect("read");
    let count = |s| rd.count(s, false).expect("count") as usize;
    assert_eq!(
        count(State::Fresh),
        p.live.len() + p.focus.len(),
        "every live and focused record fetched"
    );
    assert_eq!(count(State::Ready), p.row.ready_n, "only the resting left");
    assert_eq!(count(State::Dirty), 0, "nothing DIRTY left");
    let pages_s = live_n as f64 / fetch.as_secs_f64();
    eprintln!("{n}: nlpc-fetch's {round} round: {live_n} pages at {pages_s:.0} pages/s");
    (pages_s, fetch_rss, fetch_db)
}

fn main() {
    let max: usize = std::env::var("SCALE_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let live_n: usize = std::env::var("SCALE_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(LIVE);
    let sizes: Option<Vec<usize>> = std::env::var("SCALE_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect());
    let analysis = sizes.is_some()
        || std::env::var_os("SCALE_COMPACT").is_some()
        || std::env::var_os("SCALE_STRACE").is_some()
        || std::env::var_os("SCALE_PERF").is_some()
        || std::env::var_os("SCALE_EVICT").is_some()
        || std::env::var_os("SCALE_REWARM").is_some()
        || std::env::var_os("SCALE_LOG").is_some()
        || std::env::var_os("SCALE_NO_FOCUS").is_some()
        || std::env::var_os("SCALE_REPEAT").is_some();
    let shm = std::env::var_os("SCALE_DB_SHM").is_some();
    let sizes = sizes.unwrap_or_else(|| {
        std::iter::successors(Some(10_000usize), |n| n.checked_mul(10))
            .take_while(|n| *n <= max)
            .collect()
    });
    let repeat: usize = std::env::var("SCALE_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(REPEAT)
        .max(1);
    let port = serve();
    // Every size planted first and its rounds taken in turn with the
    // others', so that a machine slower in one minute than another slows
    // every size alike instead of the last ones.
    let mut planted: Vec<Planted> = sizes.iter().map(|n| plant(*n, live_n, port)).collect();
    for _ in 0..repeat {
        for p in &mut planted {
            round(p);
        }
    }
    let mut rows = Vec::new();
    for r in planted.into_iter().map(row) {
        let n = r.n;
        let d = r.due as f64;
        let u = &r.up_rss;
        let f = &r.fetch_rss;
        let p = r.pages as f64;
        eprintln!(
            "{n}: nlpc-up {:.3} s CPU, {:.1} µs CPU and {:.1} faults per due record (idle run {:.3} s, {} faults), RSS file {:.1} MB anon {:.1} MB, {:.0} KB counted dirtied by the page cache; nlpc-fetch's median round {} pages {:.0} pages/s, {:.3} s CPU ({:.3} s system) = {:.0} µs a page, {:.1} faults and {:.1} KB written a page, RSS file {:.1} MB anon {:.1} MB",
            u.cpu,
            (u.cpu - r.up_idle.cpu) * 1e6 / d,
            (u.faults as f64 - r.up_idle.faults as f64) / d,
            r.up_idle.cpu,
            r.up_idle.faults,
            u.file as f64 / 1e6,
            u.anon as f64 / 1e6,
            u.written as f64 / 2.0,
            r.pages,
            r.fetch_pages_s,
            f.cpu,
            f.sys,
            f.cpu * 1e6 / p,
            f.faults as f64 / p,
            f.written as f64 / 2.0 / p,
            f.file as f64 / 1e6,
            f.anon as f64 / 1e6,
        );
        let fo = &r.focus.rss;
        let fp = live_n as f64;
        eprintln!(
            "{n}: nlpc-fetch's median focused round {live_n} pages {:.0} pages/s, {:.3} s CPU ({:.3} s system) = {:.0} µs a page, {:.1} faults a page, RSS file {:.1} MB anon {:.1} MB",
            r.focus.pages_s,
            fo.cpu,
            fo.sys,
            fo.cpu * 1e6 / fp,
            fo.faults as f64 / fp,
            fo.file as f64 / 1e6,
            fo.anon as f64 / 1e6,
        );
        eprintln!("{n} records planted in {:.1} s", r.plant_s);
        rows.push(r);
    }
    let mut out = String::new();
    out.push_str(&format!(
        "| records | DB bytes/record: file / compacted | nlpc-up --once, 1% due | per due record: wall / CPU | nlpc-up --once, nothing due | nlpc-up peak RSS: file / anonymous | nlpc-up DB written a due record | nlpc-fetch --once, {live_n} DIRTY: median round (range) | CPU a page | DB written a page | nlpc-fetch peak RSS: file / anonymous |\n"
    ));
    out.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &rows {
        out.push_str(&format!(
            "| {} | {:.0} / {:.0} | {:.2} s ({} due) | {:.1} / {:.1} µs | {:.0} ms | {:.1} / {:.1} MB | {:.1} KB | {:.0} pages/s ({:.0}–{:.0}) | {:.0} µs | {:.1} KB | {:.1} / {:.1} MB |\n",
            r.n,
            r.bytes_per_record,
            r.compact_per_record,
            r.up_s,
            r.due,
            // Less the run with nothing due: the process's start and the
            // opening of the database.
            (r.up_s - r.up_idle_ms / 1e3).max(0.0) * 1e6 / r.due as f64,
            (r.up_rss.cpu - r.up_idle.cpu).max(0.0) * 1e6 / r.due as f64,
            r.up_idle_ms,
            r.up_rss.file as f64 / 1e6,
            r.up_rss.anon as f64 / 1e6,
            // nlpc-up writes no files; less the run with nothing due.
            (r.up_rss.wchar.saturating_sub(r.up_rss.log) as f64
                - r.up_idle.wchar.saturating_sub(r.up_idle.log) as f64)
                .max(0.0)
                / 1e3
                / r.due as f64,
            r.fetch_pages_s,
            r.fetch_all.first().copied().unwrap_or(0.0),
            r.fetch_all.last().copied().unwrap_or(0.0),
            r.fetch_rss.cpu * 1e6 / r.pages as f64,
            r.fetch_db as f64 / 1e3 / r.pages as f64,
            r.fetch_rss.file as f64 / 1e6,
            r.fetch_rss.anon as f64 / 1e6,
        ));
    }
    out.push_str(&format!(
        "\n| records | READY (resting) | nlpc-fetch --once --filter-lang lv, {live_n} READY focused: median round (range) | CPU a page | DB written a page | nlpc-fetch peak RSS: file / anonymous | nlpc-fetch left running over the resting: CPU a second (10 s, after 5) |\n"
    ));
    out.push_str("|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &rows {
        let f = &r.focus;
        out.push_str(&format!(
            "| {} | {} | {:.0} pages/s ({:.0}–{:.0}) | {:.0} µs | {:.1} KB | {:.1} / {:.1} MB | {:.1} ms |\n",
            r.n,
            r.ready_n,
            f.pages_s,
            f.all.first().copied().unwrap_or(0.0),
            f.all.last().copied().unwrap_or(0.0),
            f.rss.cpu * 1e6 / live_n as f64,
            f.db as f64 / 1e3 / live_n as f64,
            f.rss.file as f64 / 1e6,
            f.rss.anon as f64 / 1e6,
            r.idle_cpu * 1e3,
        ));
    }
    print!("{out}");
    if analysis {
        eprintln!("an analysis run: nothing recorded");
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let out_file = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let file = match out_file {
        Some(f) => f,
        None if args.iter().any(|a| a == "--record") => {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(if shm {
                "scripts/bench/scale-shm.txt"
            } else {
                "scripts/bench/scale.txt"
            })
        }
        None => return,
    };
    let mut settings = Vec::new();
    if max > 1_000_000 {
        settings.push(format!("SCALE_MAX={max}"));
    }
    if shm {
        settings.push("SCALE_DB_SHM=1".into());
    }
    let header = format!(
        "# {}cargo bench --bench scale ({} cores)\n",
        settings.iter().map(|s| s.clone() + " ").collect::<String>(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    std::fs::write(&file, header + &out).expect("write results");
    eprintln!("written to {}", file.display());
}

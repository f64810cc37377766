//! nlpcd's supervision: one lock per database, the daemons as child
//! processes, restarts with backoff, a clean stop, and the end of a
//! `--once` run when no record can advance.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::error::{Error, Result};
use crate::info;
use crate::launch::child::{describe, Daemon};
use crate::launch::monitor::Monitor;
use crate::run::clock;
use crate::store::record::State;
use crate::store::series;
use crate::store::Store;

/// The states a record can advance from without the clock's help.
pub const ACTIVE: [State; 5] = [
    State::New,
    State::Ready,
    State::Dirty,
    State::Fresh,
    State::Verified,
];

/// How often nlpcd tends its daemons.
const LOOK: Duration = Duration::from_millis(200);

/// How often, with `--once`, it also looks whether the crawl has ended:
/// the crawl's wall time includes the wait from the last record settling
/// to the second look that finds nothing, 0.2 to 0.4 s of a crawl of a few
/// seconds at [`LOOK`] (`scripts/bench/compare`), 10 to 20 ms at this.
/// A look is one read transaction of a few counters.
const ONCE_LOOK: Duration = Duration::from_millis(10);

/// Records that can still advance, leased or not.
pub fn active_records(store: &Store) -> Result<u64> {
    let rd = store.read()?;
    let mut n = 0;
    for s in ACTIVE {
        n += rd.count(s, false)? + rd.count(s, true)?;
    }
    // Rejected pages waiting for nlpc-scan's tunnelling are work too, and
    // in a cluster the links not yet sent to their nodes.
    n += crate::store::tunnel::queued(&rd, 1)?.len() as u64;
    n += crate::store::outbox::len(&rd)?;
    Ok(n)
}

/// The advisory lock that keeps a second nlpcd off a database.
pub struct Lock {
    _flock: nix::fcntl::Flock<File>,
    path: PathBuf,
}

impl Lock {
    /// Takes `DB/nlpcd.lock`, or says who holds it.
    pub fn take(db: &Path) -> Result<Lock> {
        fs::create_dir_all(db).map_err(|e| Error::io(db, "cannot create database directory", e))?;
        let path = db.join("nlpcd.lock");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, "cannot open lock file", e))?;
        match nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock) {
            Ok(mut f) => {
                let _ = f.set_len(0);
                let _ = writeln!(f, "{}", std::process::id());
                Ok(Lock { _flock: f, path })
            }
            Err((_, _)) => {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                // The daemons an nlpcd starts hold its lock too, so a
                // killed nlpcd's lock frees once they have stopped (they
                // are sent SIGTERM when it dies).
                let gone = holder
                    .parse::<i32>()
                    .is_ok_and(|p| kill(Pid::from_raw(p), None) == Err(nix::errno::Errno::ESRCH));
                let who = if gone {
                    format!("the daemons of another nlpcd (pid {holder}, now dead) are still stopping; try again in a moment")
                } else {
                    format!("another nlpcd (pid {holder}) is crawling this database")
                };
                Err(Error::Input(format!("{}: {who}", db.display())))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file's descriptor, which the daemons inherit.
    pub fn fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self._flock.as_raw_fd()
    }
}

/// Opens nlpcd's `--log` file for appending.
fn open_log(p: &Path) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .map_err(|e| Error::io(p, "cannot open log", e))
}

/// The children and where their executables are.
pub struct Supervisor {
    pub daemons: Vec<Daemon>,
    bindir: PathBuf,
    log: Option<File>,
    /// nlpcd's lock, handed to every daemon so that it stays held while
    /// any of them runs.
    lock_fd: Option<std::os::fd::RawFd>,
}

impl Supervisor {
    /// Daemons are looked for beside nlpcd's own executable, then on PATH.
    pub fn new(daemons: Vec<Daemon>, log: Option<File>) -> Supervisor {
        let bindir = std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        Supervisor {
            daemons,
            bindir,
            log,
            lock_fd: None,
        }
    }

    /// Hands `lock`'s descriptor to every daemon started from now on.
    pub fn share_lock(&mut self, lock: &Lock) {
        self.lock_fd = Some(lock.fd());
    }

    /// SIGHUP: the daemons' lines go to `log` (the log file opened anew),
    /// and every daemon starts over, reading the stored settings again.
    pub fn reload(&mut self, log: Option<File>, grace: Duration) -> Result<()> {
        self.log = log;
        self.stop_all(grace);
        self.start_all()
    }

    fn command(&self, d: &Daemon) -> Command {
        let local = self.bindir.join(d.name);
        let mut c = if local.exists() {
            Command::new(local)
        } else {
            Command::new(d.name)
        };
        c.args(&d.args).stdin(Stdio::null());
        let parent = nix::unistd::getpid();
        let lock_fd = self.lock_fd;
        let nice = d.nice;
        // SAFETY: between fork and exec the closure makes only
        // async-signal-safe system calls and allocates nothing.
        unsafe {
            use std::os::unix::process::CommandExt;
            c.pre_exec(move || {
                // The daemon gets SIGTERM when nlpcd dies, however it dies,
                // so no daemon outlives its supervisor.
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGTERM as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                // nlpcd died before the signal was armed: stop here.
                if libc::getppid() != parent.as_raw() {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                if nice > 0 {
                    // Lowering one's own priority is always allowed; were it
                    // refused, the daemon would only run at nlpcd's.
                    libc::nice(nice);
                }
                if let Some(fd) = lock_fd {
                    // Keep the lock's descriptor open across exec.
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        if let Some(f) = &self.log {
            if let (Ok(a), Ok(b)) = (f.try_clone(), f.try_clone()) {
                c.stdout(a).stderr(b);
            }
        }
        c
    }

    fn spawn(&mut self, i: usize) -> Result<()> {
        let mut cmd = self.command(&self.daemons[i]);
        let d = &mut self.daemons[i];
        let child = cmd
            .spawn()
            .map_err(|e| Error::io(d.name, "cannot start", e))?;
        info!("started {} (pid {})", d.name, child.id());
        d.child = Some(child);
        d.started = Instant::now();
        d.restart_at = None;
        Ok(())
    }

    /// Starts every daemon.
    pub fn start_all(&mut self) -> Result<()> {
        for i in 0..self.daemons.len() {
            self.spawn(i)?;
        }
        Ok(())
    }

    /// Reaps dead children and restarts them when their backoff is over
    /// (see [`Daemon::ended`]). An error means nlpcd must stop: a child
    /// cannot be waited for or started, or, with `once`, a daemon keeps
    /// failing.
    pub fn tend(&mut self, once: bool) -> Result<()> {
        let now = Instant::now();
        for i in 0..self.daemons.len() {
            let d = &mut self.daemons[i];
            if let Some(c) = d.child.as_mut() {
                let st = match c.try_wait() {
                    Ok(Some(st)) => st,
                    Ok(None) => continue,
                    Err(e) => return Err(Error::io(d.name, "cannot wait for", e)),
                };
                match d.ended(st, now, once) {
                    Ok(line) => info!("{line}"),
                    Err(why) => return Err(Error::Input(why)),
                }
            }
            if d.child.is_none() && d.restart_at.is_some_and(|t| t <= now) {
                d.restarts += 1;
                self.spawn(i)?;
            }
        }
        Ok(())
    }

    /// Asks every daemon to stop (SIGTERM), waits up to `grace`, then kills
    /// what is left.
    pub fn stop_all(&mut self, grace: Duration) {
        for d in &self.daemons {
            if let Some(pid) = d.pid() {
                let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
            }
        }
        let deadline = Instant::now() + grace;
        for d in &mut self.daemons {
            d.restart_at = None;
            let Some(mut c) = d.child.take() else {
                continue;
            };
            loop {
                match c.try_wait() {
                    Ok(Some(st)) => {
                        info!("{} stopped ({})", d.name, describe(st).0);
                        break;
                    }
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        info!("{} did not stop in time; killed", d.name);
                        break;
                    }
                }
            }
        }
    }
}

/// What nlpcd is to do.
pub struct Launch {
    pub db: PathBuf,
    /// Seed URLs as (line, text), read as they are inserted.
    pub seeds: Box<dyn Iterator<Item = crate::stage::scan::Seed>>,
    pub filter: crate::web::admit::Filter,
    pub daemons: Vec<Daemon>,
    /// Run until no record can advance, then stop.
    pub once: bool,
    /// `--create`: start a new database over an empty or lost one.
    pub create: bool,
    pub monitor: bool,
    /// How often the counts per state go into the statistics history.
    pub stat_every: Duration,
    /// Where the daemons' lines go; None leaves them on standard error.
    pub log: Option<PathBuf>,
    /// The settings given on the command line, stored if the crawl begins.
    pub settings: Vec<(&'static crate::run::options::Opt, String)>,
    /// In a cluster: this node's partition (`store::outbox`).
    pub partition: Option<crate::web::partition::Partition>,
}

/// Runs the crawl: takes the lock, seeds, starts and tends the daemons,
/// and stops them all on SIGINT or SIGTERM, or (with `once`) when nothing
/// is left to do.
pub fn run(cfg: Launch) -> Result<()> {
    use std::io::IsTerminal;
    let signals = crate::run::daemon::Signals::block();
    // The store first: a damaged database is refused before anything is
    // written beside it (the lock file).
    let create = if cfg.create {
        crate::store::Create::Force
    } else {
        crate::store::Create::IfAbsent
    };
    let opts = crate::store::Options {
        create,
        ..crate::store::Options::default()
    };
    let store = Store::open(&cfg.db, opts)?;
    let lock = Lock::take(&cfg.db)?;
    if store.created() {
        crate::run::options::settings::store_all(&store, &cfg.settings)?;
        if !cfg.settings.is_empty() {
            info!(
                "stored settings: {}",
                crate::run::options::settings::describe(&cfg.settings)
            );
        }
    }
    if let Some(p) = cfg.partition {
        crate::store::outbox::set_map(&store, p)?;
    }
    let mut seeds = cfg.seeds.peekable();
    if seeds.peek().is_some() {
        let rep = crate::stage::scan::seed(&store, &cfg.filter, seeds)?;
        info!(
            "seeded {} new, {} known, {} bad",
            rep.added, rep.known, rep.bad
        );
    }
    let log = cfg.log.as_deref().map(open_log).transpose()?;
    let mut sup = Supervisor::new(cfg.daemons, log);
    sup.share_lock(&lock);
    info!(
        "crawling {} (lock {})",
        cfg.db.display(),
        lock.path().display()
    );
    sup.start_all()?;
    let mut monitor = cfg
        .monitor
        .then(|| Monitor::new(std::io::stdout().is_terminal()));
    let mut shown = Instant::now() - Duration::from_secs(1);
    // Records per state go into the statistics history now, once a
    // minute, and at the end.
    let mut charted: Option<Instant> = None;
    let mut idle_checks = 0;
    let res = loop {
        if signals.wait(if cfg.once { ONCE_LOOK } else { LOOK }) {
            if !signals.hangup() {
                break Ok(());
            }
            // SIGHUP: a new log file (after rotation), and daemons that
            // read the stored settings again.
            signals.clear_hangup();
            let log = match cfg.log.as_deref().map(open_log).transpose() {
                Ok(l) => l,
                Err(e) => break Err(e),
            };
            if let Err(e) = sup.reload(log, Duration::from_secs(15)) {
                break Err(e);
            }
            info!("log reopened and daemons restarted");
        }
        if let Err(e) = sup.tend(cfg.once) {
            break Err(e);
        }
        if cfg.once {
            // Two looks in a row with nothing left: every record in work
            // is leased, so nothing is between two daemons.
            if active_records(&store)? == 0 {
                idle_checks += 1;
                if idle_checks >= 2 {
                    info!("no record can advance; stopping");
                    break Ok(());
                }
            } else {
                idle_checks = 0;
            }
        }
        if charted.is_none_or(|t| t.elapsed() >= cfg.stat_every) {
            if let Err(e) = series::record_states(&store, clock::real_now()) {
                break Err(e);
            }
            charted = Some(Instant::now());
        }
        if let Some(m) = monitor.as_mut() {
            if shown.elapsed() >= Duration::from_secs(1) {
                let screen = m.render(&store, &sup.daemons)?;
                let mut o = std::io::stdout().lock();
                let _ = o.write_all(screen.as_bytes());
                let _ = o.flush();
                shown = Instant::now();
            }
        }
    };
    sup.stop_all(Duration::from_secs(15));
    // After the daemons stopped: the counts they leave, in the history
    // and on a last screen.
    let last = series::record_states(&store, clock::real_now());
    if let Some(m) = monitor.as_mut() {
        let screen = m.render(&store, &sup.daemons)?;
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(screen.as_bytes());
        let _ = o.flush();
    }
    res.and(last)
}

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
use crate::store::record::State;
use crate::store::Store;

/// The states a record can advance from without the clock's help.
pub const ACTIVE: [State; 5] = [
    State::New,
    State::Ready,
    State::Dirty,
    State::Fresh,
    State::Verified,
];

/// Records that can still advance, leased or not.
pub fn active_records(store: &Store) -> Result<u64> {
    let rd = store.read()?;
    let mut n = 0;
    for s in ACTIVE {
        n += rd.count(s, false)? + rd.count(s, true)?;
    }
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
                Err(Error::Input(format!(
                    "{}: another nlpcd (pid {}) is crawling this database",
                    db.display(),
                    holder.trim()
                )))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The children and where their executables are.
pub struct Supervisor {
    pub daemons: Vec<Daemon>,
    bindir: PathBuf,
    log: Option<File>,
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
        }
    }

    fn command(&self, d: &Daemon) -> Command {
        let local = self.bindir.join(d.name);
        let mut c = if local.exists() {
            Command::new(local)
        } else {
            Command::new(d.name)
        };
        c.args(&d.args).stdin(Stdio::null());
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
                        std::thread::sleep(Duration::from_millis(20))
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
    /// Where the daemons' lines go; None leaves them on standard error.
    pub log: Option<PathBuf>,
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
    let mut seeds = cfg.seeds.peekable();
    if seeds.peek().is_some() {
        let rep = crate::stage::scan::seed(&store, &cfg.filter, seeds)?;
        info!(
            "seeded {} new, {} known, {} bad",
            rep.added, rep.known, rep.bad
        );
    }
    let log = match &cfg.log {
        Some(p) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| Error::io(p, "cannot open log", e))?,
        ),
        None => None,
    };
    let mut sup = Supervisor::new(cfg.daemons, log);
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
    let mut idle_checks = 0;
    let res = loop {
        if signals.wait(Duration::from_millis(200)) {
            break Ok(());
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
    res
}

//! The option parser every small daemon shares: the common options of the
//! suite (paths, debug, help, version, polling, --once) plus each daemon's
//! own, read with getopts.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::run::clock::parse_duration;

/// Default database path.
pub const DEFAULT_DB: &str = "/tmp/nlpcrawl/db";
/// Default file cache: the current body of every fetched page.
pub const DEFAULT_CACHE: &str = "/tmp/nlpcrawl/cache";
/// Default archive: earlier versions of changed pages.
pub const DEFAULT_ARCHIVE: &str = "/tmp/nlpcrawl/data";
/// Default robots.txt (REP) cache.
pub const DEFAULT_REP: &str = "/tmp/nlpcrawl/rep";
/// Default wait between looks for new work when idle.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(120);

/// The options every daemon takes.
#[derive(Clone, Debug)]
pub struct Common {
    /// `-p`: the LMDB environment.
    pub db: PathBuf,
    /// `-f`: the file cache.
    pub cache: PathBuf,
    /// `-a`: the archive of earlier versions.
    pub archive: PathBuf,
    /// `-r`: the robots.txt cache.
    pub rep: PathBuf,
    /// Number of `-d`.
    pub debug: u8,
    /// `--use-interval`: how long an idle daemon waits before looking again.
    pub interval: Duration,
    /// `--once`: drain the input once and exit.
    pub once: bool,
}

impl Default for Common {
    fn default() -> Common {
        Common {
            db: DEFAULT_DB.into(),
            cache: DEFAULT_CACHE.into(),
            archive: DEFAULT_ARCHIVE.into(),
            rep: DEFAULT_REP.into(),
            debug: 0,
            interval: DEFAULT_INTERVAL,
            once: false,
        }
    }
}

/// Why parsing stopped short of running the program.
#[derive(Debug)]
pub enum Exit {
    /// `-h`: the usage text, for standard output; exit 0.
    Help(String),
    /// `-v`: the version line, for standard output; exit 0.
    Version(String),
    /// A bad option or value: the message and the usage, for standard error; exit 1.
    Usage(String),
}

impl Exit {
    /// Prints what the user must see and exits with the right status.
    pub fn exit(self) -> ! {
        match self {
            Exit::Help(s) | Exit::Version(s) => {
                print!("{s}");
                std::process::exit(0)
            }
            Exit::Usage(s) => {
                eprint!("{s}");
                std::process::exit(1)
            }
        }
    }
}

/// Ends the program on an option error: `o.value(...).or_exit()`.
pub trait OrExit<T> {
    fn or_exit(self) -> T;
}

impl<T> OrExit<T> for Result<T, Exit> {
    fn or_exit(self) -> T {
        self.unwrap_or_else(|e| e.exit())
    }
}

/// A daemon's option parser, preloaded with the common options.
pub struct Parser {
    name: &'static str,
    operands: &'static str,
    opts: getopts::Options,
}

/// Parsed options: the common ones and the daemon's own matches.
pub struct Parsed {
    pub name: &'static str,
    pub common: Common,
    pub matches: getopts::Matches,
    usage: String,
}

impl Parser {
    /// A parser for program `name`; `operands` names its operands in the
    /// synopsis ("[url ...]").
    pub fn new(name: &'static str, operands: &'static str) -> Parser {
        let mut opts = getopts::Options::new();
        opts.optflagmulti("d", "", "more debug output (repeatable)")
            .optflag("h", "", "print this help and exit")
            .optflag("v", "", "print the version and exit")
            .optopt(
                "p",
                "",
                "database path (default /tmp/nlpcrawl/db)",
                "dbpath",
            )
            .optopt(
                "f",
                "",
                "file cache path (default /tmp/nlpcrawl/cache)",
                "cachepath",
            )
            .optopt(
                "a",
                "",
                "archive path (default /tmp/nlpcrawl/data)",
                "archivepath",
            )
            .optopt(
                "r",
                "",
                "robots.txt cache path (default /tmp/nlpcrawl/rep)",
                "reppath",
            )
            .optopt(
                "",
                "use-interval",
                "wait between looks for work when idle (default 120s)",
                "time",
            )
            .optflag("", "once", "drain the input once and exit");
        Parser {
            name,
            operands,
            opts,
        }
    }

    /// The daemon's own options go here.
    pub fn opts(&mut self) -> &mut getopts::Options {
        &mut self.opts
    }

    fn usage(&self) -> String {
        let brief = format!(
            "usage: {} [-dhv] [-a archivepath] [-f cachepath] [-p dbpath] [-r reppath] [options] {}",
            self.name, self.operands
        );
        self.opts.usage(&brief)
    }

    /// Parses `args` (without the program name).
    pub fn parse<I, S>(self, args: I) -> Result<Parsed, Exit>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let usage = self.usage();
        let bad = |msg: String| Exit::Usage(format!("{}: {msg}\n{usage}", self.name));
        let m = self.opts.parse(args).map_err(|e| bad(e.to_string()))?;
        if m.opt_present("h") {
            return Err(Exit::Help(usage.clone()));
        }
        if m.opt_present("v") {
            return Err(Exit::Version(format!(
                "{} {}\n",
                self.name,
                env!("CARGO_PKG_VERSION")
            )));
        }
        let mut common = Common {
            debug: m.opt_count("d").min(u8::MAX as usize) as u8,
            once: m.opt_present("once"),
            ..Common::default()
        };
        for (opt, dest) in [
            ("p", &mut common.db),
            ("f", &mut common.cache),
            ("a", &mut common.archive),
            ("r", &mut common.rep),
        ] {
            if let Some(v) = m.opt_str(opt) {
                if v.is_empty() {
                    return Err(bad(format!("-{opt}: empty path")));
                }
                *dest = v.into();
            }
        }
        if let Some(v) = m.opt_str("use-interval") {
            common.interval =
                parse_duration(&v).map_err(|e| bad(format!("--use-interval: {e}")))?;
        }
        Ok(Parsed {
            name: self.name,
            common,
            matches: m,
            usage,
        })
    }

    /// Parses the process's arguments, or prints what is due and exits.
    pub fn parse_env(self) -> Parsed {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        self.parse(args).unwrap_or_else(|e| e.exit())
    }
}

impl Parsed {
    /// A usage error about this program's options: message plus usage.
    pub fn usage_error(&self, msg: impl std::fmt::Display) -> Exit {
        Exit::Usage(format!("{}: {msg}\n{}", self.name, self.usage))
    }

    /// An option's value parsed as `T`, or `default` when absent.
    pub fn value<T: FromStr>(&self, opt: &str, default: T) -> Result<T, Exit> {
        match self.matches.opt_str(opt) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| self.usage_error(format!("--{opt}: {v:?} is not a valid value"))),
        }
    }

    /// A duration option (`90s`, `12h`, `10d`), or `default`.
    pub fn duration(&self, opt: &str, default: Duration) -> Result<Duration, Exit> {
        match self.matches.opt_str(opt) {
            None => Ok(default),
            Some(v) => parse_duration(&v).map_err(|e| self.usage_error(format!("--{opt}: {e}"))),
        }
    }

    /// A list option: every occurrence, split on white space and commas;
    /// `default` (split the same way) when absent.
    pub fn list(&self, opt: &str, default: &str) -> Vec<String> {
        let given = self.matches.opt_strs(opt);
        let src: Vec<&str> = if given.is_empty() {
            vec![default]
        } else {
            given.iter().map(String::as_str).collect()
        };
        src.iter()
            .flat_map(|s| s.split(|c: char| c.is_whitespace() || c == ','))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The operands.
    pub fn free(&self) -> &[String] {
        &self.matches.free
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser() -> Parser {
        let mut p = Parser::new("nlpc-test", "[url ...]");
        p.opts()
            .optmulti("", "filter-scheme", "schemes", "list")
            .optopt("", "fetch-burst", "pages", "n");
        p
    }

    #[test]
    fn common_options_and_defaults() {
        let p = parser()
            .parse(["-p", "/x/db", "-dd", "--once", "--use-interval", "2s", "a"])
            .unwrap();
        assert_eq!(p.common.db, PathBuf::from("/x/db"));
        assert_eq!(p.common.cache, PathBuf::from(DEFAULT_CACHE));
        assert_eq!(p.common.debug, 2);
        assert!(p.common.once);
        assert_eq!(p.common.interval, Duration::from_secs(2));
        assert_eq!(p.free(), ["a"]);
    }

    #[test]
    fn lists_numbers_and_errors() {
        let p = parser()
            .parse([
                "--filter-scheme",
                "http https",
                "--filter-scheme=ftp",
                "--fetch-burst",
                "3",
            ])
            .unwrap();
        assert_eq!(p.list("filter-scheme", "x"), ["http", "https", "ftp"]);
        assert_eq!(p.value("fetch-burst", 2u32).unwrap(), 3);
        let q = parser().parse(["--fetch-burst", "many"]).unwrap();
        assert!(matches!(q.value("fetch-burst", 2u32), Err(Exit::Usage(_))));
        assert_eq!(q.list("filter-scheme", "http https"), ["http", "https"]);
        assert!(matches!(parser().parse(["-x"]), Err(Exit::Usage(_))));
        assert!(matches!(parser().parse(["-h"]), Err(Exit::Help(_))));
        assert!(matches!(parser().parse(["-v"]), Err(Exit::Version(_))));
        assert!(matches!(
            parser().parse(["--use-interval", "soon"]),
            Err(Exit::Usage(_))
        ));
    }
}

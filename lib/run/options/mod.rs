//! The option parser every small daemon shares, built from the one table of
//! options ([`table::OPTIONS`]) for that program: getopts reads the words,
//! every value is checked as it is read, and typed getters hand the config
//! builders values and defaults the table defines once.

pub mod check;
pub mod opt;
pub mod settings;
pub mod table;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use encoding_rs::Encoding;

use crate::document::lang;
use crate::error::{Error, Result};
use crate::store::record::State;
use crate::store::select::Selector;
use crate::web::admit;
use opt::Check;
pub use table::{Kind, Operands, Opt, Program};

/// The crawl's directory when no `--dir` is given: `$NLPCRAWL_DIR`, else
/// `$XDG_STATE_HOME/nlpcrawl`, else `$HOME/.local/state/nlpcrawl` (the XDG
/// base directory rules: a relative or empty XDG_STATE_HOME is ignored).
/// Not /tmp: the crawl must outlive a reboot. `var` reads the environment.
pub fn state_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = set("NLPCRAWL_DIR") {
        return Ok(d);
    }
    if let Some(x) = set("XDG_STATE_HOME").filter(|p| p.is_absolute()) {
        return Ok(x.join("nlpcrawl"));
    }
    match set("HOME") {
        Some(h) => Ok(h.join(".local/state/nlpcrawl")),
        None => Err(Error::Usage(
            "no crawl directory: give --dir or -p, or set NLPCRAWL_DIR or HOME".into(),
        )),
    }
}

/// The options every daemon takes.
#[derive(Clone, Debug)]
pub struct Common {
    /// `--dir`: the crawl's directory, under which the paths default.
    pub dir: PathBuf,
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
    /// The stored settings this run's command line overrides, as
    /// `--name=given (stored value)`, for the one line the daemon logs.
    pub overridden: Vec<String>,
}

/// Why parsing stopped short of running the program.
#[derive(Debug)]
pub enum Exit {
    /// `-h`: the usage text, for standard output; exit 0.
    Help(String),
    /// `-v`: the version line, for standard output; exit 0.
    Version(String),
    /// A bad option or value: one line naming it, then the one-line
    /// synopsis (not the option list, which would scroll the error away),
    /// for standard error; exit 1.
    Usage { msg: String, synopsis: String },
}

impl Exit {
    /// Prints what the user must see and exits with the right status.
    pub fn exit(self, name: &str) -> ! {
        match self {
            Exit::Help(s) | Exit::Version(s) => {
                print!("{s}");
                std::process::exit(0)
            }
            Exit::Usage { msg, synopsis } => {
                eprintln!("{name}: {msg}\n{synopsis}");
                std::process::exit(1)
            }
        }
    }
}

/// A program's option parser.
pub struct Parser {
    program: Program,
    opts: getopts::Options,
}

/// Parsed options: the common ones, the program's own matches, checked.
pub struct Parsed {
    pub program: Program,
    pub common: Common,
    matches: getopts::Matches,
    synopsis: String,
    /// The crawl's stored settings this program takes: the defaults that
    /// the command line overrides.
    stored: settings::Settings,
}

/// `-Z` or `--zap`, as the user wrote it.
fn dashed(name: &str) -> String {
    if name.chars().count() == 1 {
        format!("-{name}")
    } else {
        format!("--{name}")
    }
}

/// getopts' complaint as one line naming the option.
fn fail_line(f: getopts::Fail) -> String {
    use getopts::Fail::*;
    match f {
        UnrecognizedOption(o) => format!("{}: unknown option", dashed(&o)),
        ArgumentMissing(o) => format!("{}: needs a value", dashed(&o)),
        OptionDuplicated(o) => format!("{}: given more than once", dashed(&o)),
        UnexpectedArgument(o) => format!("{}: takes no value", dashed(&o)),
        OptionMissing(o) => format!("{}: missing", dashed(&o)),
    }
}

/// Splits list values on white space and commas.
fn items<'a>(vals: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    vals.into_iter()
        .flat_map(|s| s.split(|c: char| c.is_whitespace() || c == ','))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The values of one occurrence of `o`, as its check sees them.
pub fn values_of(o: &Opt, v: &str) -> Vec<String> {
    match o.kind {
        Kind::List => items([v]),
        _ => vec![v.to_string()],
    }
}

/// Checks one given value of `o`: Err is the line naming option and value.
pub fn check_value(o: &Opt, v: &str) -> std::result::Result<(), String> {
    for item in values_of(o, v) {
        o.check
            .check(&item)
            .map_err(|why| format!("{}: {why}", o.display()))?;
    }
    Ok(())
}

impl Parser {
    /// The parser for `program`: every option of the table it takes.
    pub fn new(program: Program) -> Parser {
        let mut opts = getopts::Options::new();
        for o in table::of(program) {
            let short = o.short.map(String::from).unwrap_or_default();
            let help = o.help_line();
            match o.kind {
                Kind::Flag => opts.optflag(&short, o.long, &help),
                Kind::Count => opts.optflagmulti(&short, o.long, &help),
                Kind::Value => opts.optopt(&short, o.long, &help, o.metavar),
                Kind::List | Kind::Repeat => opts.optmulti(&short, o.long, &help, o.metavar),
            };
        }
        Parser { program, opts }
    }

    /// The one-line synopsis: what a bad option is answered with.
    fn synopsis(&self) -> String {
        let operands = match self.program.operands() {
            Operands::None => String::new(),
            Operands::One(s) | Operands::Many(s) => format!(" {s}"),
        };
        format!(
            "usage: {} [-dhv] [--dir dir] [-a archivepath] [-f cachepath] [-p dbpath] [-r reppath] [options]{operands}",
            self.program.name()
        )
    }

    /// The synopsis and every option, one a line: what `-h` prints.
    fn usage(&self) -> String {
        self.opts.usage(&self.synopsis())
    }

    /// Parses `args` (without the program name), checking every value.
    pub fn parse<I, S>(self, args: I) -> std::result::Result<Parsed, Exit>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let synopsis = self.synopsis();
        let shown = synopsis.clone();
        let bad = move |msg: String| Exit::Usage {
            msg,
            synopsis: shown.clone(),
        };
        let m = self.opts.parse(args).map_err(|e| bad(fail_line(e)))?;
        if m.opt_present("help") {
            return Err(Exit::Help(self.usage()));
        }
        if m.opt_present("v") {
            return Err(Exit::Version(format!(
                "{} {}\n",
                self.program.name(),
                env!("CARGO_PKG_VERSION")
            )));
        }
        for o in table::of(self.program) {
            for v in m.opt_strs(&o.key()) {
                // A list given as '' or blanks would otherwise vanish and
                // leave the default in force without a word.
                if o.kind == Kind::List && values_of(o, &v).is_empty() {
                    return Err(bad(format!("{}: empty value", o.display())));
                }
                check_value(o, &v).map_err(&bad)?;
            }
        }
        match (self.program.operands(), m.free.as_slice()) {
            (Operands::None, [first, ..]) => {
                return Err(bad(format!("no operands expected, got {first:?}")))
            }
            (Operands::One(_), [_, _, ..]) => return Err(bad("at most one pattern".into())),
            _ => {}
        }
        let mut p = Parsed {
            program: self.program,
            common: Common {
                dir: PathBuf::new(),
                db: PathBuf::new(),
                cache: PathBuf::new(),
                archive: PathBuf::new(),
                rep: PathBuf::new(),
                debug: m.opt_count("d").min(u8::MAX as usize) as u8,
                interval: Duration::ZERO,
                once: m.opt_present("once"),
                overridden: Vec::new(),
            },
            matches: m,
            synopsis,
            stored: settings::Settings::new(),
        };
        let all_given = ["p", "f", "a", "r"].iter().all(|k| p.given(k));
        let dir = match p.path("dir") {
            Some(d) => d,
            // Every path given: the directory is not needed, and may be
            // unknowable (no HOME).
            None if all_given => state_dir(|k| std::env::var_os(k)).unwrap_or_default(),
            None => state_dir(|k| std::env::var_os(k)).map_err(|e| bad(e.to_string()))?,
        };
        let under = |key: &str, leaf: &str| p.path(key).unwrap_or_else(|| dir.join(leaf));
        let paths = (
            under("p", "db"),
            under("f", "cache"),
            under("a", "data"),
            under("r", "rep"),
        );
        (p.common.db, p.common.cache, p.common.archive, p.common.rep) = paths;
        p.common.dir = dir;
        p.common.interval = p.duration("use-interval").map_err(|e| bad(e.to_string()))?;
        Ok(p)
    }

    /// Parses the process's arguments, and reads the crawl's stored
    /// settings, or prints what is due and exits.
    pub fn parse_env(self) -> Parsed {
        let name = self.program.name();
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        let mut p = self.parse(args).unwrap_or_else(|e| e.exit(name));
        if let Err(e) = p.load_stored() {
            p.fail(e);
        }
        p
    }
}

/// An option error as the library reports it: `--name: why`.
fn usage_error(o: &Opt, why: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {why}", o.display()))
}

impl Parsed {
    /// The table's entry for `key`; a key this program does not take is a
    /// bug in the caller, not bad input.
    fn opt(&self, key: &str) -> &'static Opt {
        match table::find(key) {
            Some(o) if o.takes(self.program) => o,
            _ => panic!("{} takes no option {key:?}", self.program.name()),
        }
    }

    /// The value given, or the stored setting, or the default; None when
    /// none of them.
    fn raw(&self, key: &str) -> Option<String> {
        let o = self.opt(key);
        self.matches
            .opt_str(key)
            .or_else(|| self.stored.get(key).cloned())
            .or_else(|| (!o.default.is_empty()).then(|| o.default.to_string()))
    }

    /// The settings given on this command line, as they are stored: a
    /// list's items joined by spaces, a flag as `yes`.
    pub fn given_settings(&self) -> Vec<(&'static Opt, String)> {
        let mut out = Vec::new();
        for o in table::of(self.program).filter(|o| o.setting) {
            let key = o.key();
            if !self.matches.opt_present(&key) {
                continue;
            }
            let v = match o.kind {
                Kind::Flag | Kind::Count => "yes".to_string(),
                Kind::List => {
                    items(self.matches.opt_strs(&key).iter().map(String::as_str)).join(" ")
                }
                Kind::Value | Kind::Repeat => self.matches.opt_strs(&key).join(" "),
            };
            out.push((o, v));
        }
        out
    }

    /// Takes the crawl's stored settings as defaults. Each is checked as
    /// the option is; names this program does not take (or this version
    /// does not know) are left alone. Notes in `common.overridden` each
    /// one the command line overrides with another value.
    pub fn use_stored(&mut self, stored: settings::Settings) -> Result<()> {
        let given: Vec<(&'static Opt, String)> = self.given_settings();
        for (name, v) in stored {
            let Some(o) = table::of(self.program).find(|o| o.setting && o.long == name) else {
                continue;
            };
            let bad = |why: String| {
                Error::Input(format!(
                    "the stored setting {name}={v} is refused: {why} (change it with nlpc-list --set)"
                ))
            };
            if o.kind == Kind::Flag {
                if v != "yes" {
                    return Err(bad("a flag is stored as yes".into()));
                }
            } else {
                check_value(o, &v).map_err(bad)?;
            }
            if let Some((_, g)) = given.iter().find(|(g, _)| g.long == o.long) {
                if *g != v {
                    self.common
                        .overridden
                        .push(format!("{}={g} (stored {v})", o.display()));
                }
            }
            self.stored.insert(name, v);
        }
        Ok(())
    }

    /// Reads the stored settings of the crawl at `-p`, when this program
    /// takes any and the database exists.
    pub fn load_stored(&mut self) -> Result<()> {
        if !table::of(self.program).any(|o| o.setting) {
            return Ok(());
        }
        let stored = settings::load_at(&self.common.db)?;
        self.use_stored(stored)
    }

    /// True when the user gave option `key`.
    pub fn given(&self, key: &str) -> bool {
        self.opt(key);
        self.matches.opt_present(key)
    }

    /// A flag: given, or stored as a setting.
    pub fn flag(&self, key: &str) -> bool {
        self.given(key) || self.stored.get(key).is_some_and(|v| v == "yes")
    }

    /// A value as text, or the default; None when neither.
    pub fn text(&self, key: &str) -> Option<String> {
        self.raw(key)
    }

    /// A point in time given as a time or a length back from `now`
    /// (`clock::parse_since`), or None when not given.
    pub fn since(&self, key: &str, now: u64) -> Result<Option<u64>> {
        self.raw(key)
            .filter(|t| !t.is_empty())
            .map(|t| {
                crate::run::clock::parse_since(&t, now)
                    .map_err(|why| Error::Usage(format!("--{key}: {why}")))
            })
            .transpose()
    }

    /// A path, or the default.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.raw(key).filter(|v| !v.is_empty()).map(PathBuf::from)
    }

    fn typed<T>(
        &self,
        key: &str,
        f: impl Fn(Check, &str) -> std::result::Result<T, String>,
    ) -> Result<Option<T>> {
        let o = self.opt(key);
        match self.raw(key) {
            None => Ok(None),
            Some(v) => f(o.check, &v).map(Some).map_err(|why| usage_error(o, why)),
        }
    }

    fn required<T>(&self, key: &str, v: Option<T>) -> Result<T> {
        v.ok_or_else(|| usage_error(self.opt(key), "has no value and no default"))
    }

    /// A whole number in the table's range, as `T`.
    pub fn int<T: TryFrom<u64>>(&self, key: &str) -> Result<T> {
        let n = self.int_opt(key)?;
        self.required(key, n)
    }

    /// A whole number in the table's range, as `T`; None when the option
    /// is neither given, stored nor defaulted.
    pub fn int_opt<T: TryFrom<u64>>(&self, key: &str) -> Result<Option<T>> {
        let n = self.typed(key, |c, v| match c {
            Check::Int { min, max } => check::int(v, min, max),
            _ => Err("is not a number option".into()),
        })?;
        n.map(|n| {
            T::try_from(n).map_err(|_| usage_error(self.opt(key), format!("{n} is too large")))
        })
        .transpose()
    }

    /// A duration, or the default; None when neither.
    pub fn duration_opt(&self, key: &str) -> Result<Option<Duration>> {
        self.typed(key, |c, v| match c {
            Check::Duration { nonzero } => check::duration(v, nonzero),
            _ => Err("is not a duration option".into()),
        })
    }

    /// A duration, or the default.
    pub fn duration(&self, key: &str) -> Result<Duration> {
        let d = self.duration_opt(key)?;
        self.required(key, d)
    }

    /// A percentage or a fraction, as a share from 0 to 1.
    pub fn share(&self, key: &str) -> Result<f64> {
        let x = self.typed(key, |c, v| match c {
            Check::Percent => check::number(v, 100.0).map(|x| x / 100.0),
            Check::Fraction => check::number(v, 1.0),
            _ => Err("is not a share option".into()),
        })?;
        self.required(key, x)
    }

    /// A byte count.
    pub fn size(&self, key: &str) -> Result<u64> {
        let n = self.typed(key, |_, v| check::size(v))?;
        self.required(key, n)
    }

    /// A charset, or None when the option is neither given nor defaulted.
    pub fn optional_charset(&self, key: &str) -> Result<Option<&'static Encoding>> {
        self.typed(key, |_, v| check::encoding(v))
    }

    /// A repeatable option's items: every occurrence (lists split on white
    /// space and commas), or the default's when none is given.
    pub fn list(&self, key: &str) -> Vec<String> {
        let o = self.opt(key);
        let given = self.matches.opt_strs(key);
        let src: Vec<&str> = if given.is_empty() {
            vec![self
                .stored
                .get(key)
                .map(String::as_str)
                .unwrap_or(o.default)]
        } else {
            given.iter().map(String::as_str).collect()
        };
        match o.kind {
            Kind::Repeat => given,
            _ => items(src),
        }
    }

    fn each<T: PartialEq>(
        &self,
        key: &str,
        f: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> Result<Vec<T>> {
        let o = self.opt(key);
        let mut out = Vec::new();
        for v in self.list(key) {
            let x = f(&v).map_err(|why| usage_error(o, why))?;
            if !out.contains(&x) {
                out.push(x);
            }
        }
        Ok(out)
    }

    /// Charsets, without repeats.
    pub fn charsets(&self, key: &str) -> Result<Vec<&'static Encoding>> {
        self.each(key, check::encoding)
    }

    /// Languages, without repeats.
    pub fn langs(&self, key: &str) -> Result<Vec<lang::Language>> {
        self.each(key, |v| lang::parse(v).map_err(|e| e.to_string()))
    }

    /// Languages whatlang can detect, without repeats.
    pub fn detectable_langs(&self, key: &str) -> Result<Vec<whatlang::Lang>> {
        self.each(key, |v| {
            lang::parse_detectable(v).map_err(|e| e.to_string())
        })
    }

    /// Host patterns, normalised.
    pub fn hosts(&self, key: &str) -> Result<Vec<String>> {
        self.each(key, admit::normalise_host)
    }

    /// URL globs (`--filter-include`, `--filter-exclude`).
    pub fn patterns(&self, key: &str) -> Result<Vec<crate::web::scope::Pattern>> {
        self.each(key, crate::web::scope::Pattern::parse)
    }

    /// `--filter-deny`'s hosts and globs.
    pub fn denies(&self, key: &str) -> Result<Vec<admit::Deny>> {
        self.each(key, admit::Deny::parse)
    }

    /// URL schemes, lowercase.
    pub fn schemes(&self, key: &str) -> Result<Vec<String>> {
        self.each(key, check::scheme)
    }

    /// Record states, without repeats.
    pub fn states(&self, key: &str) -> Result<Vec<State>> {
        self.each(key, |v| v.parse::<State>())
    }

    /// Socket addresses (name servers).
    pub fn addresses(&self, key: &str) -> Result<Vec<SocketAddr>> {
        self.each(key, check::address)
    }

    /// A path that has a default.
    pub fn required_path(&self, key: &str) -> Result<PathBuf> {
        let p = self.path(key);
        self.required(key, p)
    }

    /// The selector of nlpc-list, nlpc-up and nlpc-dump: `-s`, `--auth` and
    /// at most one pattern operand.
    pub fn selector(&self) -> Result<Selector> {
        Ok(Selector {
            states: self.states("s")?,
            auth: self.hosts("auth")?,
            pattern: self.free().first().cloned(),
        })
    }

    /// The operands.
    pub fn free(&self) -> &[String] {
        &self.matches.free
    }

    /// The one-line synopsis.
    pub fn synopsis(&self) -> &str {
        &self.synopsis
    }

    /// Ends the program on an error from a config builder: a usage error
    /// gets one line and the synopsis, anything else one line; exit 1.
    pub fn fail(&self, e: Error) -> ! {
        let name = self.program.name();
        match e {
            Error::Usage(msg) => Exit::Usage {
                msg,
                synopsis: self.synopsis.clone(),
            }
            .exit(name),
            // A refusal at startup, for the person who typed the command:
            // a plain line, as for a usage error, not a log line.
            e => {
                let e = e.to_string();
                eprintln!("{name}: {}", crate::document::escape::controls(&e));
                std::process::exit(1)
            }
        }
    }
}

#[cfg(test)]
mod tests;

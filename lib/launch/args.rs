//! nlpcd's command line. Its clap command is built from the option table,
//! and before anything starts every daemon's arguments are parsed and built
//! into that daemon's configuration here, in process, with the daemon's own
//! parser and builder: what nlpcd accepts, its daemons accept.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, ColorChoice, Command};

use crate::error::{Error, Result};
use crate::launch::child::Daemon;
use crate::run::options::{check, table, Exit, Kind, Opt, Parsed, Parser, Program};
use crate::stage::{fetch, resolve, scan, up, vrfy};
use crate::web::admit::Filter;

/// What nlpcd's options ask for, checked.
pub struct Plan {
    pub db: PathBuf,
    pub debug: u8,
    pub once: bool,
    /// `--create`: start a new database over an empty or lost one.
    pub create: bool,
    pub monitor: bool,
    /// `--stat-every`: how often the counts per state go into the history.
    pub stat_every: std::time::Duration,
    /// Where the daemons' lines go; None leaves them on standard error.
    pub log: Option<PathBuf>,
    /// Seed URLs, or `-` for standard input.
    pub seeds: Vec<String>,
    /// The filter seeds pass: nlpc-scan's, from nlpc-scan's own arguments.
    pub filter: Filter,
    /// Each daemon with its arguments.
    pub daemons: Vec<Daemon>,
    /// The settings given on the command line: stored if this run creates
    /// the crawl.
    pub settings: Vec<(&'static Opt, String)>,
    /// `--nats` with `--node`: this node's partition, stored before
    /// seeding so seeds of other nodes' hosts go to the outbox.
    pub partition: Option<crate::web::partition::Partition>,
}

/// nlpcd's clap command, from the table.
pub fn command() -> Command {
    let mut c = Command::new("nlpcd")
        .about("Crawl the web for pages in one language: seed, then run every nlpcrawl daemon under supervision.")
        .version(env!("CARGO_PKG_VERSION"))
        // -h begins with the synopsis a bad option is answered with.
        .override_usage(SYNOPSIS.trim_start_matches("usage: "))
        .help_template("usage: {usage}\n\n{about}\n\n{all-args}\n")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .color(ColorChoice::Never);
    for o in table::of(Program::Nlpcd) {
        let key = o.key();
        // clap names arguments by static strings; the command is built once
        // a process, so the few short names leak a few bytes once.
        let id: &'static str = if o.long.is_empty() {
            Box::leak(key.clone().into_boxed_str())
        } else {
            o.long
        };
        let mut a = Arg::new(id).help(o.help_line());
        if let Some(s) = o.short {
            a = a.short(s);
        }
        if !o.long.is_empty() {
            a = a.long(o.long);
        }
        a = match (key.as_str(), o.kind) {
            ("help", _) => a.action(ArgAction::Help),
            ("v", _) => a.action(ArgAction::Version),
            (_, Kind::Flag) => a.action(ArgAction::SetTrue),
            (_, Kind::Count) => a.action(ArgAction::Count),
            (_, Kind::Value) => a.action(ArgAction::Set).value_name(o.metavar),
            (_, Kind::List | Kind::Repeat) => a.action(ArgAction::Append).value_name(o.metavar),
        };
        c = c.arg(a);
    }
    c.arg(
        Arg::new("url")
            .action(ArgAction::Append)
            .value_name("url")
            .help("seed URLs, or - to read them from standard input"),
    )
}

/// nlpcd's one-line synopsis, printed after the line that names a bad
/// option (`-h` lists the options).
pub const SYNOPSIS: &str = "usage: nlpcd [-46dhmv] [--create] [--dir dir] [-a archivepath] [-f cachepath] [-p dbpath] [-r reppath] [options] [url ... | -]";

/// Ends nlpcd on a refusal before anything starts: one line, then, for a
/// usage error, the synopsis; exit 1.
pub fn refuse(e: Error) -> ! {
    let usage = matches!(e, Error::Usage(_));
    let e = e.to_string();
    eprintln!("nlpcd: {}", crate::document::escape::controls(&e));
    if usage {
        eprintln!("{SYNOPSIS}");
    }
    std::process::exit(1)
}

/// Prints clap's verdict: help and version on standard output (exit 0),
/// an error as one line and the synopsis on standard error (exit 1).
pub fn clap_exit(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        std::process::exit(0);
    }
    let text = e.to_string();
    let line = text.lines().next().unwrap_or("bad arguments");
    eprintln!("nlpcd: {}", line.trim_start_matches("error: "));
    eprintln!("{SYNOPSIS}");
    std::process::exit(1)
}

/// `--name=value` or `-p value`: how a value is handed on.
fn push_value(args: &mut Vec<OsString>, o: &Opt, v: &str) {
    if o.long.is_empty() {
        args.push(o.display().into());
        args.push(v.into());
    } else {
        args.push(format!("--{}={v}", o.long).into());
    }
}

/// A parse refusal as the library's error: the one line, no usage.
fn refusal(e: Exit) -> Error {
    match e {
        Exit::Usage { msg, .. } => Error::Usage(msg),
        Exit::Help(_) | Exit::Version(_) => {
            Error::Usage("-h and -v are not for the daemons nlpcd runs".into())
        }
    }
}

/// Parses `args` as daemon `p` does and builds its configuration, without
/// its side effects; returns the parse.
pub fn check_daemon(p: Program, args: &[OsString]) -> Result<Parsed> {
    let o = Parser::new(p).parse(args).map_err(refusal)?;
    if let Some(x) = o.free().first() {
        return Err(Error::Usage(format!(
            "{x:?}: nlpcd hands its daemons no operands"
        )));
    }
    match p {
        Program::Scan => drop(scan::Config::from_options(&o)?),
        Program::Resolve => drop(resolve::Config::from_options(&o)?),
        Program::Fetch => drop(fetch::Config::from_options(&o)?),
        Program::Vrfy => drop(vrfy::Config::from_options(&o)?),
        Program::Up => {
            let cfg = up::Config::from_options(&o)?;
            if !up::actions(&o, &cfg)?.is_empty() {
                return Err(Error::Usage(
                    "--force-* are for nlpc-up run by hand, not under nlpcd".into(),
                ));
            }
        }
        Program::Index => drop(crate::search::index::Config::from_options(&o)?),
        Program::Relay => drop(crate::cluster::relay::Config::from_options(&o)?),
        Program::Nlpcd | Program::List | Program::Dump | Program::Stat | Program::Search => {}
    }
    Ok(o)
}

/// Checks every value nlpcd was given, and every daemon's arguments with
/// that daemon's parser and builder, before anything starts.
pub fn plan(m: &ArgMatches) -> Result<Plan> {
    // nlpcd's own words, for its own getopts parse (which checks every
    // value against the table), and each daemon's.
    let mut own: Vec<OsString> = Vec::new();
    // nlpc-relay runs only in a cluster (--nats); it is planned with the
    // others and left out at the end without one.
    let clustered = m.get_many::<String>("nats").is_some();
    let mut per: Vec<(Program, Vec<OsString>)> = Program::DAEMONS
        .iter()
        .chain(clustered.then_some(&Program::Relay))
        .map(|p| (*p, Vec::new()))
        .collect();
    for o in table::of(Program::Nlpcd) {
        let key = o.key();
        let mut args: Vec<OsString> = Vec::new();
        match o.kind {
            _ if key == "help" || key == "v" => {}
            Kind::Flag => {
                if m.get_flag(&key) {
                    args.push(o.display().into());
                }
            }
            Kind::Count => {
                for _ in 0..m.get_count(&key) {
                    args.push(o.display().into());
                }
            }
            Kind::Value | Kind::List | Kind::Repeat => {
                for v in m.get_many::<String>(&key).into_iter().flatten() {
                    push_value(&mut args, o, v);
                }
            }
        }
        own.extend(args.iter().cloned());
        if o.passed {
            for (_, a) in per.iter_mut().filter(|(p, _)| o.takes(*p)) {
                a.extend(args.iter().cloned());
            }
        }
    }
    let seeds: Vec<String> = m
        .get_many::<String>("url")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    own.push("--".into());
    own.extend(seeds.iter().map(OsString::from));
    let o = Parser::new(Program::Nlpcd).parse(&own).map_err(refusal)?;
    // A --once run ends soon after the last record settles: the daemons
    // look for work often.
    if o.common.once && !o.given("use-interval") {
        for (_, a) in &mut per {
            a.push("--use-interval=0.2s".into());
        }
    }
    for (p, a) in &per {
        check_daemon(*p, a)?;
    }
    let mut extra = false;
    for w in o.list("with") {
        let (p, arg) =
            check::daemon_arg(&w).map_err(|why| Error::Usage(format!("--with: {why}")))?;
        match per.iter_mut().find(|(q, _)| *q == p) {
            Some((_, a)) => {
                a.push(arg.into());
                extra = true;
            }
            None => {
                return Err(Error::Usage(format!(
                    "--with {}: it runs only with --nats",
                    p.name()
                )))
            }
        }
    }
    if extra {
        for (p, a) in &per {
            check_daemon(*p, a).map_err(|e| Error::Usage(format!("--with {}: {e}", p.name())))?;
        }
    }
    let scan_args = per
        .iter()
        .find(|(p, _)| *p == Program::Scan)
        .map(|(_, a)| a.as_slice())
        .unwrap_or_default();
    // Seeds pass nlpc-scan's filter as nlpc-scan would apply it: with the
    // crawl's stored settings under what the command line gives.
    let mut scan_opts = check_daemon(Program::Scan, scan_args)?;
    scan_opts.load_stored()?;
    let filter = scan::Config::from_options(&scan_opts)?.filter;
    // A cluster that refuses this node's credentials (or has none for a
    // node without) refuses it here, in one line, before anything starts;
    // one not reachable yet is nlpc-relay's to wait for.
    if let Some((_, a)) = per.iter().find(|(p, _)| *p == Program::Relay) {
        let relay = check_daemon(Program::Relay, a)?;
        crate::cluster::nats::probe(&crate::cluster::relay::Config::from_options(&relay)?)?;
    }
    let monitor = o.flag("m");
    let partition = match (clustered, o.text("node")) {
        (true, Some(n)) => Some(
            crate::web::partition::Partition::parse(&n)
                .map_err(|e| Error::Usage(format!("--node {e}")))?,
        ),
        (false, Some(_)) => return Err(Error::Usage("--node needs --nats".into())),
        (_, None) => None,
    };
    Ok(Plan {
        partition,
        log: o
            .path("log")
            .or_else(|| monitor.then(|| o.common.db.join("nlpcd.log"))),
        db: o.common.db.clone(),
        debug: o.common.debug,
        once: o.common.once,
        create: o.flag("create"),
        monitor,
        stat_every: o.duration("stat-every")?,
        seeds,
        filter,
        settings: o.given_settings(),
        daemons: per
            .into_iter()
            .map(|(p, a)| Daemon::new(p.name(), a))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_daemon_builds_from_the_table_defaults_alone() {
        for p in Program::DAEMONS {
            check_daemon(p, &[]).unwrap_or_else(|e| panic!("{}: {e}", p.name()));
        }
        // The table's defaults are the stages' defaults, field by field.
        macro_rules! same {
            ($a:expr, $b:expr; $($f:ident),+) => {
                assert_eq!(($(&$a.$f,)+), ($(&$b.$f,)+))
            };
        }
        let o = check_daemon(Program::Resolve, &[]).unwrap();
        let r = resolve::Config::from_options(&o).unwrap();
        let d = resolve::Config::default();
        same!(r, d; burst, pause, concurrency, cache_age, timeout, retries, hosts_file);
        let o = check_daemon(Program::Up, &[]).unwrap();
        let u = up::Config::from_options(&o).unwrap();
        let d = up::Config::default();
        same!(u, d; ttexp, ttmin, ttrev, rtdead, ttdel, ttrej);
        let o = check_daemon(Program::Vrfy, &[]).unwrap();
        let v = vrfy::Config::from_options(&o).unwrap();
        let d = vrfy::Config::default();
        same!(v, d; use_charset, max_replaced, lang_min_conf, lang_min_text, lang_max_text, dict_min);
        let o = check_daemon(Program::Scan, &[]).unwrap();
        let s = scan::Config::from_options(&o).unwrap().filter;
        let d = Filter::default();
        same!(s, d; schemes, max_len, max_depth, max_repeat);
        let o = check_daemon(Program::Fetch, &[]).unwrap();
        let f = fetch::Config::from_options(&o).unwrap().policy;
        let d = crate::web::politeness::Policy::default();
        same!(f, d; burst, polite, pipeline);
    }
}

//! The one option layer from outside: nlpcd refuses a bad value of any
//! daemon's before it starts anything, in one line naming the option and
//! the value, and every executable answers a bad option with that line and
//! its one-line synopsis, exit status 1 (`-h` lists the options).

mod common;

use std::collections::HashSet;
use std::process::Output;

use common::*;

/// Runs nlpcd with `args` and a database path inside `c`.
fn nlpcd(c: &Crawl, args: &[&str]) -> Output {
    c.run("nlpcd", args)
}

/// Every executable, nlpcd first.
const BINS: [&str; 12] = [
    "nlpcd",
    "nlpc-scan",
    "nlpc-resolve",
    "nlpc-fetch",
    "nlpc-vrfy",
    "nlpc-up",
    "nlpc-list",
    "nlpc-dump",
    "nlpc-stat",
    "nlpc-index",
    "nlpc-search",
    "nlpc-relay",
];

/// A usage error of `bin`: exactly two lines on standard error, the error
/// and the synopsis, and exit status 1; returns the error line.
fn assert_usage(bin: &str, o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{bin}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{bin}: not two lines: {err}");
    assert!(lines[0].starts_with(&format!("{bin}: ")), "{bin}: {err}");
    assert!(
        lines[1].starts_with(&format!("usage: {bin} [-")),
        "{bin}: no synopsis: {err}"
    );
    lines[0].to_string()
}

/// The refusal is one line (and the synopsis, for a usage error), exit 1,
/// and nothing was started or created; returns the first line.
fn assert_refused(c: &Crawl, o: &Output, names: &[&str], usage: bool) -> String {
    let err = stderr(o);
    let first = if usage {
        assert_usage("nlpcd", o)
    } else {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "not one line: {err}");
        assert!(err.starts_with("nlpcd: "), "{err}");
        err.trim_end().to_string()
    };
    for n in names {
        assert!(first.contains(n), "{n} not named: {err}");
    }
    // No daemon logs "started", and the database directory was never made.
    assert!(!err.contains("started"), "{err}");
    assert!(!c.db().exists(), "nlpcd created {}", c.db().display());
    first
}

#[test]
fn nlpcd_refuses_a_bad_daemon_value_before_starting_anything() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--fetch-burst", "many", "--once", "http://a.test/"]);
    let err = assert_refused(&c, &o, &["--fetch-burst", "\"many\""], true);
    assert_eq!(err, "nlpcd: --fetch-burst: \"many\" is not a whole number");
}

#[test]
fn nlpcd_refuses_an_unknown_language_and_a_share_out_of_range() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--filter-lang", "lv xx", "--once"]);
    assert_refused(&c, &o, &["--filter-lang", "\"xx\""], true);
    let o = nlpcd(&c, &["--filter-dict-pct", "150", "--once"]);
    assert_refused(&c, &o, &["--filter-dict-pct", "150"], true);
    // A language whatlang cannot detect passes nlpc-fetch's table check but
    // not nlpc-vrfy's builder: nlpcd asks both.
    let o = nlpcd(&c, &["--filter-lang", "ltg", "--once"]);
    assert_refused(&c, &o, &["--filter-lang", "ltg"], true);
    // Cross-option checks of a daemon's builder hold too.
    let o = nlpcd(&c, &["-4", "-6", "--once"]);
    assert_refused(&c, &o, &["-4", "-6"], true);
    // A dictionary nlpcd cannot open is refused before anything starts.
    let missing = c.tmp.path().join("no-such-dictionary");
    let o = nlpcd(&c, &["--filter-dict", missing.to_str().unwrap(), "--once"]);
    // Not a usage error: the one line, no synopsis.
    assert_refused(
        &c,
        &o,
        &["no-such-dictionary", "cannot read dictionary"],
        false,
    );
}

#[test]
fn nlpcd_checks_with_arguments_with_the_daemons_own_parser() {
    let c = Crawl::new();
    for (with, names) in [
        ("nlpc-fetch:--fetch-burst=0", &["--fetch-burst", "0"][..]),
        ("fetch:-Z", &["-Z"][..]),
        ("resolve:--dns-timeout=0", &["--dns-timeout"][..]),
        ("nlpc-list:-c", &["nlpc-list"][..]),
        ("fetch", &["\"fetch\""][..]),
        ("up:--force-exp", &["--force-"][..]),
        ("scan:http://a.test/", &["operands"][..]),
    ] {
        let o = nlpcd(&c, &["--with", with, "--once"]);
        let err = assert_refused(&c, &o, names, true);
        assert!(err.contains("--with"), "{with}: {err}");
    }
}

#[test]
fn clap_errors_exit_1_and_help_and_version_exit_0() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--no-such-option"]);
    let err = assert_usage("nlpcd", &o);
    assert!(err.contains("--no-such-option"), "{err}");
    assert!(!c.db().exists());
    let o = nlpcd(&c, &["--fetch-burst"]);
    let err = assert_usage("nlpcd", &o);
    assert!(err.contains("--fetch-burst"), "{err}");
    let o = nlpcd(&c, &["-h"]);
    assert_eq!(o.status.code(), Some(0));
    for opt in [
        "--fetch-burst",
        "--filter-lang",
        "--with",
        "-m",
        "--max-url-length",
    ] {
        assert!(stdout(&o).contains(opt), "{opt} missing from nlpcd -h");
    }
    let o = nlpcd(&c, &["-v"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("nlpcd "), "{}", stdout(&o));
}

#[test]
fn every_executable_answers_a_bad_option_with_one_line_and_the_synopsis() {
    let c = Crawl::new();
    for bin in BINS {
        let o = c.run(bin, &["-Z"]);
        let err = assert_usage(bin, &o);
        assert!(err.contains("-Z"), "{bin}: the option is not named: {err}");
        assert!(!c.db().exists(), "{bin} created the database");
        // -h prints the rest: every option, on standard output, exit 0.
        let o = c.run(bin, &["-h"]);
        assert_eq!(o.status.code(), Some(0), "{bin}");
        let help = stdout(&o);
        assert!(
            help.starts_with(&format!("usage: {bin} [-")),
            "{bin}: {help}"
        );
        assert!(
            help.contains("--use-interval"),
            "{bin}: -h lists no options"
        );
        let o = c.run(bin, &["-v"]);
        assert_eq!(o.status.code(), Some(0), "{bin}");
    }
    // The getopts parsers name the option and say why, in that one line.
    for bin in &BINS[1..] {
        let o = c.run(bin, &["-Z"]);
        assert_eq!(
            stderr(&o).lines().next(),
            Some(&*format!("{bin}: -Z: unknown option"))
        );
    }
    // A bad value, and a refusal of a config builder, are answered alike.
    let o = c.run("nlpc-fetch", &["--fetch-max-size", "lots", "--once"]);
    let err = assert_usage("nlpc-fetch", &o);
    assert!(
        err.starts_with("nlpc-fetch: --fetch-max-size: \"lots\" is not a size"),
        "{err}"
    );
    let o = c.run("nlpc-resolve", &["-4", "-6", "--once"]);
    let err = assert_usage("nlpc-resolve", &o);
    assert!(err.contains("-4 and -6"), "{err}");
    assert!(!c.db().exists());
}

/// The manual of program `p`, whose section is whichever file exists.
fn manual_of(p: nlpcrawl::run::options::Program) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    ["1", "8"]
        .iter()
        .map(|s| dir.join(format!("{}.{s}", p.name())))
        .find(|f| f.exists())
        .and_then(|f| std::fs::read_to_string(f).ok())
        .unwrap_or_else(|| panic!("no manual for {}", p.name()))
}

/// The options a manual names: the words after each `Fl`, with the lists
/// mdoc writes as `.Fl a , f , \-once`; `.Fl dhv` names d, h and v.
fn named_in(man: &str) -> (HashSet<String>, HashSet<char>) {
    let (mut long, mut short) = (HashSet::new(), HashSet::new());
    for line in man.lines() {
        for rest in line.split("Fl ").skip(1) {
            let mut words = rest.split_whitespace();
            while let Some(w) = words.next() {
                match w.strip_prefix("\\-") {
                    Some(l) => {
                        long.insert(l.to_string());
                    }
                    None if w.chars().all(|c| c.is_ascii_alphanumeric()) => short.extend(w.chars()),
                    None => break,
                }
                if words.next() != Some(",") {
                    break;
                }
            }
        }
    }
    (long, short)
}

/// The manuals are the reference: an option a program takes and its
/// manual does not name would be one a user can only find in `-h`. nlpcd
/// hands the daemons' options on, and nlpcd(8) sends the reader to their
/// manuals for those, so only what nlpcd reads itself is looked for there.
#[test]
fn every_option_a_program_takes_is_named_in_its_manual() {
    use nlpcrawl::run::options::{table, Program};
    let mut missing = Vec::new();
    for p in Program::ALL {
        let (long, short) = named_in(&manual_of(p));
        for o in table::of(p) {
            if p == Program::Nlpcd && o.passed {
                continue;
            }
            let named = if o.long.is_empty() {
                o.short.is_some_and(|c| short.contains(&c))
            } else {
                long.contains(o.long)
            };
            if !named {
                missing.push(format!("{}: {}", p.name(), o.key()));
            }
        }
    }
    assert!(missing.is_empty(), "options no manual names: {missing:?}");
}

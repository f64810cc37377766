//! The one option layer from outside: nlpcd refuses a bad value of any
//! daemon's before it starts anything, in one line naming the option and
//! the value, and the daemons refuse bad options with exit status 1.

mod common;

use std::process::Output;

use common::*;

/// Runs nlpcd with `args` and a database path inside `c`.
fn nlpcd(c: &Crawl, args: &[&str]) -> Output {
    c.run("nlpcd", args)
}

/// The refusal is one line, exit 1, and nothing was started or created.
fn assert_refused(c: &Crawl, o: &Output, names: &[&str]) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("nlpcd: "), "{err}");
    for n in names {
        assert!(err.contains(n), "{n} not named: {err}");
    }
    // No daemon logs "started", and the database directory was never made.
    assert!(!err.contains("started"), "{err}");
    assert!(!c.db().exists(), "nlpcd created {}", c.db().display());
    err
}

#[test]
fn nlpcd_refuses_a_bad_daemon_value_before_starting_anything() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--fetch-burst", "many", "--once", "http://a.test/"]);
    let err = assert_refused(&c, &o, &["--fetch-burst", "\"many\""]);
    assert_eq!(
        err.trim_end(),
        "nlpcd: --fetch-burst: \"many\" is not a whole number"
    );
}

#[test]
fn nlpcd_refuses_an_unknown_language_and_a_share_out_of_range() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--filter-lang", "lv xx", "--once"]);
    assert_refused(&c, &o, &["--filter-lang", "\"xx\""]);
    let o = nlpcd(&c, &["--filter-dict-pct", "150", "--once"]);
    assert_refused(&c, &o, &["--filter-dict-pct", "150"]);
    // A language whatlang cannot detect passes nlpc-fetch's table check but
    // not nlpc-vrfy's builder: nlpcd asks both.
    let o = nlpcd(&c, &["--filter-lang", "ltg", "--once"]);
    assert_refused(&c, &o, &["--filter-lang", "ltg"]);
    // Cross-option checks of a daemon's builder hold too.
    let o = nlpcd(&c, &["-4", "-6", "--once"]);
    assert_refused(&c, &o, &["-4", "-6"]);
    // A dictionary nlpcd cannot open is refused before anything starts.
    let missing = c.tmp.path().join("no-such-dictionary");
    let o = nlpcd(&c, &["--filter-dict", missing.to_str().unwrap(), "--once"]);
    assert_refused(&c, &o, &["no-such-dictionary", "cannot read dictionary"]);
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
        let err = assert_refused(&c, &o, names);
        assert!(err.contains("--with"), "{with}: {err}");
    }
}

#[test]
fn clap_errors_exit_1_and_help_and_version_exit_0() {
    let c = Crawl::new();
    let o = nlpcd(&c, &["--no-such-option"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.lines().count() <= 2, "{err}");
    assert!(
        err.lines().next().unwrap().contains("--no-such-option"),
        "{err}"
    );
    assert!(!c.db().exists());
    let o = nlpcd(&c, &["--fetch-burst"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--fetch-burst"), "{}", stderr(&o));
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
fn every_daemon_refuses_an_unknown_option_with_status_1() {
    let c = Crawl::new();
    for bin in [
        "nlpc-scan",
        "nlpc-resolve",
        "nlpc-fetch",
        "nlpc-vrfy",
        "nlpc-up",
        "nlpc-list",
        "nlpc-dump",
    ] {
        let o = c.run(bin, &["-Z"]);
        assert_eq!(o.status.code(), Some(1), "{bin}");
        let err = stderr(&o);
        let first = err.lines().next().unwrap_or("");
        assert_eq!(first, format!("{bin}: -Z: unknown option"), "{bin}: {err}");
        assert!(err.contains(&format!("usage: {bin}")), "{bin}: {err}");
        let o = c.run(bin, &["-v"]);
        assert_eq!(o.status.code(), Some(0), "{bin}");
    }
    let o = c.run("nlpc-fetch", &["--fetch-max-size", "lots", "--once"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("nlpc-fetch: --fetch-max-size: \"lots\" is not a size"));
    assert!(!c.db().exists());
}

use super::*;

fn parse(p: Program, args: &[&str]) -> std::result::Result<Parsed, Exit> {
    Parser::new(p).parse(args)
}

fn usage_msg(r: std::result::Result<Parsed, Exit>) -> String {
    match r {
        Err(Exit::Usage { msg, synopsis }) => {
            assert!(synopsis.starts_with("usage: "), "{synopsis}");
            assert!(!synopsis.contains('\n'), "not one line: {synopsis}");
            msg
        }
        Err(e) => panic!("not a usage error: {e:?}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn common_options_and_defaults() {
    let p = parse(
        Program::Scan,
        &["-p", "/x/db", "-dd", "--once", "--use-interval", "2s", "a"],
    )
    .unwrap();
    assert_eq!(p.common.db, PathBuf::from("/x/db"));
    let dir = state_dir(|k| std::env::var_os(k)).unwrap();
    assert_eq!(p.common.cache, dir.join("cache"));
    assert_eq!(p.common.debug, 2);
    assert!(p.common.once);
    assert_eq!(p.common.interval, Duration::from_secs(2));
    assert_eq!(p.free(), ["a"]);
    let q = parse(Program::List, &[]).unwrap();
    assert_eq!(q.common.interval, Duration::from_secs(120));
    assert_eq!(q.common.rep, dir.join("rep"));
    // --dir moves every path not given.
    let r = parse(Program::List, &["--dir", "/c", "-a", "/arch"]).unwrap();
    let c = &r.common;
    assert_eq!(
        (&c.db, &c.cache, &c.archive, &c.rep),
        (
            &PathBuf::from("/c/db"),
            &PathBuf::from("/c/cache"),
            &PathBuf::from("/arch"),
            &PathBuf::from("/c/rep")
        )
    );
}

#[test]
fn the_crawl_directory_is_a_persistent_one() {
    use std::ffi::OsString;
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    };
    static HOME: &[(&str, &str)] = &[("HOME", "/home/u")];
    assert_eq!(
        state_dir(env(HOME)).unwrap(),
        PathBuf::from("/home/u/.local/state/nlpcrawl")
    );
    static XDG: &[(&str, &str)] = &[("HOME", "/home/u"), ("XDG_STATE_HOME", "/s")];
    assert_eq!(state_dir(env(XDG)).unwrap(), PathBuf::from("/s/nlpcrawl"));
    // A relative XDG_STATE_HOME is not one (the XDG rules).
    static REL: &[(&str, &str)] = &[("HOME", "/home/u"), ("XDG_STATE_HOME", "s")];
    assert_eq!(
        state_dir(env(REL)).unwrap(),
        PathBuf::from("/home/u/.local/state/nlpcrawl")
    );
    static OWN: &[(&str, &str)] = &[
        ("XDG_STATE_HOME", "/s"),
        ("NLPCRAWL_DIR", "/var/lib/nlpcrawl"),
    ];
    assert_eq!(
        state_dir(env(OWN)).unwrap(),
        PathBuf::from("/var/lib/nlpcrawl")
    );
    let e = state_dir(env(&[])).unwrap_err().to_string();
    assert!(e.contains("--dir") && e.contains("HOME"), "{e}");
}

#[test]
fn lists_numbers_and_errors() {
    let p = parse(
        Program::Scan,
        &[
            "--filter-scheme",
            "http https",
            "--filter-scheme=ftp",
            "--max-repeat",
            "3",
        ],
    )
    .unwrap();
    assert_eq!(p.list("filter-scheme"), ["http", "https", "ftp"]);
    assert_eq!(p.int::<u32>("max-repeat").unwrap(), 3);
    assert_eq!(p.int::<u32>("max-path-depth").unwrap(), 16);
    let q = parse(Program::Scan, &[]).unwrap();
    assert_eq!(q.list("filter-scheme"), ["http", "https"]);
    assert_eq!(
        usage_msg(parse(Program::Fetch, &["--fetch-burst", "many"])),
        "--fetch-burst: \"many\" is not a whole number"
    );
    assert_eq!(
        usage_msg(parse(Program::Fetch, &["-Z"])),
        "-Z: unknown option"
    );
    assert_eq!(
        usage_msg(parse(Program::Fetch, &["--fetch-burst"])),
        "--fetch-burst: needs a value"
    );
    assert_eq!(
        usage_msg(parse(Program::Vrfy, &["--filter-dict-pct", "150"])),
        "--filter-dict-pct: 150 is not between 0 and 100"
    );
    assert_eq!(
        usage_msg(parse(
            Program::Vrfy,
            &["--filter-charset", "utf-8 latin-99"]
        )),
        "--filter-charset: unknown charset \"latin-99\""
    );
    assert!(usage_msg(parse(Program::Resolve, &["x"])).contains("no operands"));
    assert_eq!(
        usage_msg(parse(Program::List, &["a", "b"])),
        "at most one pattern"
    );
    // An option of another program is unknown here.
    assert!(usage_msg(parse(Program::Scan, &["--fetch-burst", "2"])).contains("--fetch-burst"));
    assert!(matches!(parse(Program::Scan, &["-h"]), Err(Exit::Help(_))));
    assert!(matches!(
        parse(Program::Scan, &["-v"]),
        Err(Exit::Version(_))
    ));
    assert!(usage_msg(parse(Program::Scan, &["--use-interval", "soon"])).contains("--use-interval"));
    // --with items are never split.
    let n = parse(Program::Nlpcd, &["--with", "fetch:--filter-type=a b,c"]).unwrap();
    assert_eq!(n.list("with"), ["fetch:--filter-type=a b,c"]);
}

#[test]
fn every_option_has_help_and_a_default_that_passes_its_check() {
    let mut keys = std::collections::HashSet::new();
    for o in table::OPTIONS {
        assert!(!o.help.is_empty(), "{}: no help", o.display());
        assert!(keys.insert(o.key()), "{} twice in the table", o.display());
        assert!(
            Program::ALL.iter().any(|p| o.takes(*p)),
            "{}: no program takes it",
            o.display()
        );
        let takes_value = !matches!(o.kind, Kind::Flag | Kind::Count);
        assert_eq!(takes_value, !o.metavar.is_empty(), "{}", o.display());
        assert_eq!(takes_value, o.check != Check::None, "{}", o.display());
        if !o.default.is_empty() {
            check_value(o, o.default).unwrap_or_else(|e| panic!("default of {e}"));
        }
    }
}

#[test]
fn every_program_parser_builds_and_reads_its_defaults() {
    for p in Program::ALL {
        let parsed = Parser::new(p).parse(Vec::<String>::new()).unwrap();
        let Exit::Help(help) = Parser::new(p).parse(["-h"]).err().unwrap() else {
            panic!("-h");
        };
        for o in table::of(p) {
            assert!(
                help.contains(&o.display()) || help.contains(&format!("-{}", o.key())),
                "{}: {} missing from -h",
                p.name(),
                o.display()
            );
            // Every default reads through its own typed getter.
            let key = o.key();
            match o.check {
                Check::Int { .. } if o.default.is_empty() => {
                    assert_eq!(parsed.int_opt::<u64>(&key).unwrap(), None);
                }
                Check::Int { .. } => {
                    let _ = parsed.int::<u64>(&key).unwrap();
                }
                Check::Duration { .. } if !o.default.is_empty() => {
                    let _ = parsed.duration(&key).unwrap();
                }
                Check::Percent | Check::Fraction => {
                    let _ = parsed.share(&key).unwrap();
                }
                Check::Size => {
                    let _ = parsed.size(&key).unwrap();
                }
                _ => {}
            }
        }
    }
}

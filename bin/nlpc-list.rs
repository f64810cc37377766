//! nlpc-list: list records, per-state counts, for people and programs.

use std::io::Write;

use nlpcrawl::output::hosts;
use nlpcrawl::output::list::{self, Config};
use nlpcrawl::run::daemon;
use nlpcrawl::run::log;
use nlpcrawl::run::options::{settings, Parsed, Parser, Program};
use nlpcrawl::store::archive::Archive;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Read, Store};
use nlpcrawl::web::url;

const NAME: &str = "nlpc-list";

fn main() {
    let o = Parser::new(Program::List).parse_env();
    log::init(NAME, o.common.debug);
    let set = o.list("set");
    if o.flag("config") || !set.is_empty() {
        config(&o, &set);
    }
    let cfg = Config::from_options(&o).unwrap_or_else(|e| o.fail(e));
    if o.flag("hosts") {
        let s = &cfg.select;
        if cfg.counts
            || cfg.history.is_some()
            || cfg.check
            || cfg.backup.is_some()
            || s.pattern.is_some()
            || !s.states.is_empty()
        {
            o.fail(nlpcrawl::Error::Usage(
                "--hosts takes no other option but --auth and --json".into(),
            ));
        }
    }
    let (sel, json) = (&cfg.select, cfg.json);
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    if cfg.check {
        run_check(&st);
    }
    if let Some(dir) = &cfg.backup {
        match st.backup(dir) {
            Ok(n) => println!("{}: {n} bytes", dir.join("data.mdb").display()),
            Err(e) => daemon::fail(NAME, e),
        }
        return;
    }
    let rd = st.read().unwrap_or_else(|e| daemon::fail(NAME, e));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if o.flag("hosts") {
        o.hosts("auth")
            .and_then(|auth| hosts::lines(&rd, &auth, json))
            .and_then(|lines| {
                for l in lines {
                    if !list::emit(&mut out, &l)? {
                        break;
                    }
                }
                Ok(())
            })
    } else if let Some(u) = &cfg.history {
        let cache = Cache::new(&o.common.cache);
        let arch = Archive::new(&o.common.archive);
        print_history(&rd, &cache, &arch, u, json, &mut out)
    } else if let Some(u) = &cfg.cluster {
        find(&rd, u).and_then(|(key, _)| {
            for line in list::cluster_lines(&rd, &key, json)? {
                if !list::emit(&mut out, &line)? {
                    break;
                }
            }
            Ok(())
        })
    } else if cfg.counts {
        list::counts(&rd, sel).and_then(|counts| {
            let total: u64 = counts.iter().map(|(_, n)| n).sum();
            for (s, n) in counts {
                let line = if json {
                    serde_json::json!({"state": s.name(), "count": n}).to_string()
                } else {
                    format!("{s}\t{n}")
                };
                if !list::emit(&mut out, &line)? {
                    return Ok(());
                }
            }
            if !json {
                list::emit(&mut out, &format!("TOTAL\t{total}"))?;
            }
            // A node of a cluster: the links waiting to be sent, which
            // are no records here.
            if let Some(n) = list::outbox_count(&rd)? {
                let line = if json {
                    serde_json::json!({"outbox": n}).to_string()
                } else {
                    format!("OUTBOX\t{n}")
                };
                list::emit(&mut out, &line)?;
            }
            Ok(())
        })
    } else {
        sel.walk(&rd, |k, r| {
            let line = list::record_line(&rd, &k, &r, json)?;
            list::emit(&mut out, &line)
        })
    };
    if let Err(e) = res.and_then(|()| {
        out.flush()
            .or_else(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    Ok(())
                } else {
                    Err(e)
                }
            })
            .map_err(|e| nlpcrawl::Error::io("standard output", "cannot write", e))
    }) {
        daemon::fail(NAME, e);
    }
}

/// `--set NAME=VALUE` (each change logged) and `--config`; then exits.
fn config(o: &Parsed, set: &[String]) -> ! {
    let opts = store::Options {
        read_only: set.is_empty(),
        create: store::Create::Never,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    if !set.is_empty() {
        match settings::set(&st, set) {
            Ok(changes) => changes.iter().for_each(|c| nlpcrawl::info!("{c}")),
            Err(e) => o.fail(e),
        }
    }
    if o.flag("config") {
        let stored = settings::load(&st).unwrap_or_else(|e| daemon::fail(NAME, e));
        print!("{}", settings::show(&stored));
    }
    std::process::exit(0)
}

/// `--history URL`: the URL as given, or normalised as the crawl stores it.
fn print_history(
    rd: &Read<'_>,
    cache: &Cache,
    arch: &Archive,
    given: &str,
    json: bool,
    out: &mut impl Write,
) -> nlpcrawl::Result<()> {
    let (key, rec) = find(rd, given)?;
    for h in list::history(rd, cache, arch, &key, &rec)? {
        let line = if json {
            list::history_json(&rec.url, &h)
        } else {
            list::history_tsv(&h)
        };
        if !list::emit(out, &line)? {
            break;
        }
    }
    Ok(())
}

/// The record of a URL as given, or normalised as the crawl stores it.
fn find(
    rd: &Read<'_>,
    given: &str,
) -> nlpcrawl::Result<(store::Key, nlpcrawl::store::record::Record)> {
    let mut found = rd.lookup(given)?;
    if found.is_none() {
        if let Ok(n) = url::normalise(given) {
            found = rd.lookup(&url::strip_session_ids(n))?;
        }
    }
    found.ok_or_else(|| nlpcrawl::Error::Input(format!("{given}: not in the database")))
}

/// `--check`: one line per problem, a summary, and exit 1 if any.
fn run_check(st: &Store) -> ! {
    let rep = st.check_all().unwrap_or_else(|e| daemon::fail(NAME, e));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for p in &rep.problems {
        let _ = writeln!(out, "{p}");
    }
    let _ = writeln!(
        out,
        "checked {} records and {} index entries: {} problems",
        rep.records,
        rep.index_entries,
        rep.problems.len()
    );
    let _ = out.flush();
    std::process::exit(if rep.problems.is_empty() { 0 } else { 1 })
}

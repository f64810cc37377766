//! nlpc-list: list records, per-state counts, for people and programs.

use std::io::Write;

use nlpcrawl::output::list;
use nlpcrawl::run::daemon;
use nlpcrawl::run::options::{OrExit, Parser};
use nlpcrawl::store::archive::Archive;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::{self, Read, Store};
use nlpcrawl::web::url;

const NAME: &str = "nlpc-list";

fn main() {
    let mut p = Parser::new(NAME, "[pattern]");
    list::selector_options(p.opts());
    p.opts()
        .optflag("c", "", "print the number of records per state")
        .optflag("", "json", "print JSON lines")
        .optopt(
            "",
            "history",
            "print the stored and archived versions of this URL",
            "url",
        )
        .optflag(
            "",
            "check",
            "check every page, record and index entry; print the problems",
        )
        .optopt(
            "",
            "backup",
            "copy the database, compacted, to dir/data.mdb while it runs",
            "dir",
        );
    let o = p.parse_env();
    let sel = list::selector(&o).or_exit();
    let json = o.matches.opt_present("json");
    let history = o.matches.opt_str("history");
    if history.is_some()
        && (o.matches.opt_present("c")
            || !o.free().is_empty()
            || !sel.states.is_empty()
            || !sel.auth.is_empty())
    {
        o.usage_error("--history takes no other selector and no -c")
            .exit();
    }
    let check = o.matches.opt_present("check");
    let backup = o.matches.opt_str("backup");
    let selected = o.matches.opt_present("c")
        || history.is_some()
        || !o.free().is_empty()
        || !sel.states.is_empty()
        || !sel.auth.is_empty();
    if (check || backup.is_some()) && (selected || (check && backup.is_some())) {
        o.usage_error("--check and --backup take no other option but the paths")
            .exit();
    }
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    if check {
        run_check(&st);
    }
    if let Some(dir) = backup {
        let dir = std::path::Path::new(&dir);
        match st.backup(dir) {
            Ok(n) => println!("{}: {n} bytes", dir.join("data.mdb").display()),
            Err(e) => daemon::fail(NAME, e),
        }
        return;
    }
    let rd = st.read().unwrap_or_else(|e| daemon::fail(NAME, e));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if let Some(u) = history {
        let cache = Cache::new(&o.common.cache);
        let arch = Archive::new(&o.common.archive);
        print_history(&rd, &cache, &arch, &u, json, &mut out)
    } else if o.matches.opt_present("c") {
        list::counts(&rd, &sel).and_then(|counts| {
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
            Ok(())
        })
    } else {
        sel.walk(&rd, |k, r| {
            let line = if json {
                list::json_line(&k, &r)
            } else {
                list::tsv_line(&r)
            };
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

/// `--history URL`: the URL as given, or normalised as the crawl stores it.
fn print_history(
    rd: &Read<'_>,
    cache: &Cache,
    arch: &Archive,
    given: &str,
    json: bool,
    out: &mut impl Write,
) -> nlpcrawl::Result<()> {
    let mut found = rd.lookup(given)?;
    if found.is_none() {
        if let Ok(n) = url::normalise(given) {
            found = rd.lookup(&url::strip_session_ids(n))?;
        }
    }
    let Some((key, rec)) = found else {
        return Err(nlpcrawl::Error::Input(format!(
            "{given}: not in the database"
        )));
    };
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

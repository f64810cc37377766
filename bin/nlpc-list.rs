//! nlpc-list: list records, per-state counts, for people and programs.

use std::io::Write;

use nlpcrawl::daemon;
use nlpcrawl::list::{self, Selector};
use nlpcrawl::options::Parser;
use nlpcrawl::record::State;
use nlpcrawl::scan;
use nlpcrawl::store::{self, Store};

const NAME: &str = "nlpc-list";

fn main() {
    let mut p = Parser::new(NAME, "[pattern]");
    p.opts()
        .optmulti("s", "", "records in this state (repeatable)", "state")
        .optmulti(
            "",
            "auth",
            "records of this host and its subdomains",
            "host",
        )
        .optflag("c", "", "print the number of records per state")
        .optflag("", "json", "print JSON lines");
    let o = p.parse_env();
    let mut sel = Selector::default();
    for s in o.list("s", "") {
        match s.parse::<State>() {
            Ok(st) => sel.states.push(st),
            Err(e) => o.usage_error(format!("-s: {e}")).exit(),
        }
    }
    for a in o.list("auth", "") {
        match scan::normalise_host(&a) {
            Ok(h) => sel.auth.push(h),
            Err(e) => o.usage_error(format!("--auth: {e}")).exit(),
        }
    }
    match o.free() {
        [] => {}
        [pat] => sel.pattern = Some(pat.clone()),
        _ => o.usage_error("at most one pattern").exit(),
    }
    let json = o.matches.opt_present("json");
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let st = Store::open(&o.common.db, opts).unwrap_or_else(|e| daemon::fail(NAME, e));
    let rd = st.read().unwrap_or_else(|e| daemon::fail(NAME, e));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let res = if o.matches.opt_present("c") {
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

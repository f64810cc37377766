//! nlpc-scan: seeding, link extraction from real-world-shaped pages, path
//! ascendancy, trap guards, and a SIGKILL mid-run that loses nothing.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use nlpcrawl::stage::scan::{links_of, Config};
use nlpcrawl::store::record::{Flags, Record, State};
use nlpcrawl::web::admit::Filter;

const PAGE: &str = "http://site.test/dir/page.html";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/html")
}

fn record_for(file: &str) -> Record {
    let mut r = Record::new(PAGE, 1);
    r.state = State::Verified;
    r.content_type = match file.rsplit('.').next() {
        Some("xhtml") => "application/xhtml+xml",
        Some("xml") => "application/xml",
        _ => "text/html",
    }
    .into();
    r.charset = if file.starts_with("win1257") {
        "windows-1257"
    } else {
        "utf-8"
    }
    .into();
    r
}

#[test]
fn links_from_real_world_shaped_pages() {
    let dir = fixtures();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".links") {
            continue;
        }
        let stem = name.rsplit_once('.').unwrap().0;
        let body = read_fixture(&dir, &name);
        let want: Vec<String> = String::from_utf8(read_fixture(&dir, &format!("{stem}.links")))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let found = links_of(&record_for(&name), &body, &Config::default());
        assert_eq!(found.urls, want, "links of {name}");
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} fixtures found");
}

#[test]
fn meta_robots_nofollow_is_reported() {
    let body = read_fixture(&fixtures(), "nofollow.html");
    let f = links_of(&record_for("nofollow.html"), &body, &Config::default());
    assert!(f.nofollow && f.noindex);
    // X-Robots-Tag nofollow, recorded at fetch time, works the same way.
    let mut r = record_for("news.html");
    r.flags |= Flags::NOFOLLOW;
    let body = read_fixture(&fixtures(), "news.html");
    assert!(links_of(&r, &body, &Config::default()).urls.is_empty());
}

#[test]
fn plain_text_has_no_links() {
    let mut r = record_for("x.txt");
    r.content_type = "text/plain; charset=utf-8".into();
    let f = links_of(
        &r,
        b"see http://site.test/other and <a href='/x'>",
        &Config::default(),
    );
    assert!(f.urls.is_empty());
}

#[test]
fn path_ascendancy_of_links_and_of_scanned_pages() {
    let body = b"<a href='/a/b/c.html'>x</a>";
    let r = record_for("p.html");
    let asc = Config {
        ascend: true,
        ..Config::default()
    };
    assert_eq!(
        links_of(&r, body, &asc).urls,
        [
            "http://site.test/a/b/",
            "http://site.test/a/",
            "http://site.test/",
            "http://site.test/a/b/c.html"
        ]
    );
    let asc_scan = Config {
        ascend_scan: true,
        ..Config::default()
    };
    assert_eq!(
        links_of(&r, body, &asc_scan).urls,
        [
            "http://site.test/a/b/c.html",
            "http://site.test/dir/",
            "http://site.test/"
        ]
    );
}

#[test]
fn trap_guards_and_filters_drop_links() {
    let body = br#"
        <a href="/ok.html">ok</a>
        <a href="/1/2/3/4/5/deep.html">deep</a>
        <a href="/cal/x/cal/x/cal/x/">repeat</a>
        <a href="/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">long</a>
        <a href="https://site.test/secure.html">https</a>
        <a href="http://elsewhere.test/">other host</a>
        <a href="http://www.site.test/sub.html">subdomain</a>
        <a href="/s.php?PHPSESSID=abc123&amp;id=7">session</a>"#;
    let cfg = Config {
        filter: Filter {
            schemes: vec!["http".into()],
            auth: vec!["site.test".into()],
            max_len: 64,
            max_depth: 4,
            max_repeat: 2,
            allow_private: false,
            ..Filter::default()
        },
        ..Config::default()
    };
    assert_eq!(
        links_of(&record_for("p.html"), body, &cfg).urls,
        [
            "http://site.test/ok.html",
            "http://www.site.test/sub.html",
            "http://site.test/s.php?id=7"
        ]
    );
}

#[test]
fn seeding_from_arguments_and_stdin() {
    let c = Crawl::new();
    let o = c.run("nlpc-scan", &["http://one.test/", "http://two.test/a"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let mut child = c
        .cmd("nlpc-scan")
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"http://three.test/\n\nhttp//broken\nhttp://one.test/\n# comment\nhttp://four.test/x y\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "a bad line must show in the exit status"
    );
    let err = stderr(&o);
    assert!(err.contains("line 3: http//broken"), "{err}");
    assert!(err.contains("2 new, 1 known, 1 bad"), "{err}");

    let o = c.run("nlpc-list", &["-s", "new"]);
    let out = stdout(&o);
    let urls: Vec<&str> = out.lines().map(|l| l.split('\t').nth(1).unwrap()).collect();
    assert_eq!(urls.len(), 4, "{out}");
    for u in [
        "http://one.test/",
        "http://two.test/a",
        "http://three.test/",
        "http://four.test/x%20y",
    ] {
        assert!(urls.contains(&u), "{u} missing from {out}");
    }
    assert!(out
        .lines()
        .all(|l| l.starts_with("NEW\t") && l.split('\t').count() == 14));
}

#[test]
fn bad_options_print_usage_and_fail() {
    let c = Crawl::new();
    for args in [
        vec!["-x"],
        vec!["--max-path-depth", "deep"],
        vec!["--use-interval", "soon"],
    ] {
        let o = c.run("nlpc-scan", &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).contains("usage: nlpc-scan"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let o = c.run("nlpc-scan", &["-h"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("--filter-ascend"));
    let o = c.run("nlpc-list", &["-s", "nonsense"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown state"));
}

#[test]
fn daemon_scans_verified_pages_once() {
    let c = Crawl::new();
    let st = c.store();
    let body = read_fixture(&fixtures(), "base.html");
    c.plant(
        &st,
        "http://site.test/dir/page.html",
        State::Verified,
        "text/html",
        &body,
    );
    c.plant(
        &st,
        "http://site.test/nobody.html",
        State::Verified,
        "text/html",
        b"",
    );
    // A record whose body is missing from the cache is scanned with a reason.
    let k = c.plant(
        &st,
        "http://site.test/lost.html",
        State::Verified,
        "text/html",
        b"<a href=x>",
    );
    c.cache().remove(&k).unwrap();
    drop(st);
    let o = c.run("nlpc-scan", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = c.store();
    assert_eq!(urls_in(&st, State::Scanned).len(), 3);
    assert_eq!(urls_in(&st, State::New).len(), 7);
    let lost = st
        .read()
        .unwrap()
        .lookup("http://site.test/lost.html")
        .unwrap()
        .unwrap()
        .1;
    assert_eq!(lost.reason, "no stored body");
    let new = st
        .read()
        .unwrap()
        .lookup("http://frames.test/f2")
        .unwrap()
        .unwrap()
        .1;
    assert_eq!(new.depth, 1);
    assert_consistent(&st, true);

    let o = c.run("nlpc-list", &["-c"]);
    let out = stdout(&o);
    assert!(
        out.contains("NEW\t7\n") && out.contains("SCANNED\t3\n") && out.contains("TOTAL\t10\n"),
        "{out}"
    );
    let o = c.run("nlpc-list", &["--json", "-s", "scanned", "*lost*"]);
    let out = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["url"], "http://site.test/lost.html");
    assert_eq!(v["reason"], "no stored body");
    let o = c.run("nlpc-list", &["--auth", "base.test", "-c"]);
    assert!(stdout(&o).contains("TOTAL\t6\n"), "{}", stdout(&o));
}

/// Pages of a synthetic site: page i links to pages i*3+1..=i*3+3 and to
/// a shared page, so the set of links is known in advance.
fn site_page(i: usize) -> String {
    let mut s = String::from("<html><body>");
    for j in 1..=3 {
        s.push_str(&format!("<a href=\"/p{}.html\">p</a>", i * 3 + j));
    }
    s.push_str("<a href='/shared.html'>s</a></body></html>");
    s
}

#[test]
fn sigkill_mid_run_loses_and_duplicates_nothing() {
    let c = Crawl::new();
    let n = 1500;
    let st = c.store();
    for i in 0..n {
        c.plant(
            &st,
            &format!("http://site.test/v{i}.html"),
            State::Verified,
            "text/html",
            site_page(i).as_bytes(),
        );
    }
    drop(st);
    // Kill the daemon at different points of its run, then let a fresh one
    // finish the work.
    for round in 0..5 {
        let mut child = spawn({
            let mut cmd = c.cmd("nlpc-scan");
            cmd.arg("--use-interval").arg("1s");
            cmd
        });
        let st = c.store();
        let target = (round + 1) * 150;
        wait_until(Duration::from_secs(60), "scan progress", || {
            let rd = st.read().unwrap();
            rd.count(State::Scanned, false).unwrap() as usize >= target
        });
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let o = c.run("nlpc-scan", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = c.store();
    assert_eq!(urls_in(&st, State::Scanned).len(), n);
    assert_eq!(urls_in(&st, State::Verified).len(), 0);
    let mut want: Vec<String> = (1..=3 * n)
        .map(|k| format!("http://site.test/p{k}.html"))
        .collect();
    want.push("http://site.test/shared.html".into());
    want.sort();
    assert_eq!(urls_in(&st, State::New), want);
    assert_consistent(&st, true);
}

#[test]
fn sigterm_and_sigint_stop_an_idle_daemon_cleanly() {
    for sig in [
        nix::sys::signal::Signal::SIGTERM,
        nix::sys::signal::Signal::SIGINT,
    ] {
        let c = Crawl::new();
        drop(c.store());
        let mut child = spawn({
            let mut cmd = c.cmd("nlpc-scan");
            cmd.arg("--use-interval").arg("1h");
            cmd
        });
        // The daemon announces itself once its signals are set up.
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        assert!(line.contains("started"), "{line}");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{sig}");
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
        assert!(rest.contains("stopped"), "{sig}: {rest}");
    }
}

/// Asserts every line of a daemon's standard error is short: no refused
/// URL is echoed whole.
fn lines_are_short(err: &str) {
    for l in err.lines() {
        assert!(l.len() < 400, "a log line of {} bytes: {:.300}", l.len(), l);
    }
}

#[test]
fn a_huge_link_or_refresh_is_refused_with_a_short_reason() {
    let c = Crawl::new();
    let st = c.store();
    let huge = format!("/{}", "a".repeat(102_400));
    let body = format!(
        "<meta http-equiv=refresh content=\"0; url=http://far.test{huge}\">\
         <a href=\"{huge}\">huge</a><a href=\"/fine.html\">fine</a>"
    );
    c.plant(&st, PAGE, State::Verified, "text/html", body.as_bytes());
    drop(st);
    let o = c.run("nlpc-scan", &["--once", "-d"]);
    assert_eq!(o.status.code(), Some(0), "{:.2000}", stderr(&o));
    let err = stderr(&o);
    lines_are_short(&err);
    for want in [
        "skip /aaaa".to_string(),
        "URL too long (102401 bytes, limit 1024)".to_string(),
        "skip http://far.test/aaaa".to_string(),
        format!("URL too long ({} bytes, limit 1024)", huge.len() + 15),
    ] {
        assert!(err.contains(&want), "{want:?} not logged in {:.2000}", err);
    }
    assert_eq!(
        urls_in(&c.store(), State::New),
        ["http://site.test/fine.html"]
    );
}

#[test]
fn seeds_pass_admission_with_a_reason_for_each_refusal() {
    let c = Crawl::new();
    let huge = format!("http://site.test/{}", "ž".repeat(51_200));
    let o = c.run(
        "nlpc-scan",
        &[
            "http://127.0.0.1/",
            "http://[::1]:8080/x",
            &huge,
            "http://public.test/",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{:.2000}", stderr(&o));
    let err = stderr(&o);
    lines_are_short(&err);
    for want in [
        "line 1: http://127.0.0.1/: private address not allowed (127.0.0.1)".to_string(),
        "line 2: http://[::1]:8080/x: private address not allowed (::1)".to_string(),
        "line 3: http://site.test/žžž".to_string(),
        format!("URL too long ({} bytes, limit 1024)", huge.len()),
        "1 new, 0 known, 3 bad".to_string(),
    ] {
        assert!(err.contains(&want), "{want:?} not logged in {:.2000}", err);
    }
    assert_eq!(urls_in(&c.store(), State::New), ["http://public.test/"]);
    // --allow-private admits them.
    let o = c.run(
        "nlpc-scan",
        &[
            "--allow-private",
            "http://127.0.0.1/",
            "http://[::1]:8080/x",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        urls_in(&c.store(), State::New),
        [
            "http://127.0.0.1/",
            "http://[::1]:8080/x",
            "http://public.test/"
        ]
    );
}

#[test]
fn a_seed_file_with_bad_lines_seeds_every_good_one_and_names_each_bad_one() {
    let c = Crawl::new();
    let mut input: Vec<u8> = Vec::new();
    // 1: a byte order mark before the first URL.
    input.extend_from_slice(b"\xef\xbb\xbfhttp://bom.test/\n");
    // 2: not UTF-8 (a Latin-1 byte).
    input.extend_from_slice(b"http://latin.test/caf\xe9\n");
    // 3: fine.
    input.extend_from_slice(b"http://before.test/\n");
    // 4, 5: a blank line and a comment, skipped without a word.
    input.extend_from_slice(b"   \n# a comment\n");
    // 6: not a URL.
    input.extend_from_slice(b"''\n");
    // 7: 10 MB on one line.
    input.resize(input.len() + (10 << 20), b'x');
    input.push(b'\n');
    // 8: a CRLF ending.
    input.extend_from_slice(b"http://after.test/\r\n");
    // 9: no newline at the end.
    input.extend_from_slice(b"http://last.test/");

    let mut child = c
        .cmd("nlpc-scan")
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{:.2000}", err);
    lines_are_short(&err);
    for want in [
        "line 2: http://latin.test/caf: not UTF-8 (byte 22 of 22)".to_string(),
        "line 6: '': not a URL".to_string(),
        format!(
            "line 7: {}...: line too long (10485760 bytes, limit 65536)",
            "x".repeat(120)
        ),
        "seeded 4 new, 0 known, 3 bad".to_string(),
    ] {
        assert!(err.contains(&want), "{want:?} not logged in {:.2000}", err);
    }
    // One line per bad line, none for the blank line and the comment.
    assert_eq!(
        err.lines().filter(|l| l.contains(": line ")).count(),
        3,
        "{err}"
    );
    assert!(!err.contains("line 4") && !err.contains("line 5"), "{err}");
    assert_eq!(
        urls_in(&c.store(), State::New),
        [
            "http://after.test/",
            "http://before.test/",
            "http://bom.test/",
            "http://last.test/"
        ]
    );
}

#[test]
fn a_seed_operand_that_is_a_fragment_or_relative_is_named_with_its_reason() {
    let c = Crawl::new();
    let o = c.run(
        "nlpc-scan",
        &["#top", "/relative/only", "not a url", "http://ok.test/"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for want in [
        "line 1: #top: not a URL: only a fragment",
        "line 2: /relative/only: not a URL: relative URL without a base",
        "line 3: not a url: not a URL: relative URL without a base",
        "1 new, 0 known, 3 bad",
    ] {
        assert!(err.contains(want), "{want:?} not logged in {err}");
    }
    assert_eq!(urls_in(&c.store(), State::New), ["http://ok.test/"]);
}

/// A page of `n` distinct links under `prefix`, each written twice (the
/// repeats are not new links).
fn page_of_links(n: usize, prefix: &str) -> Vec<u8> {
    let mut s = String::with_capacity(n * 40);
    s.push_str("<html><body>");
    for i in 0..n {
        s.push_str(&format!("<a href=\"{prefix}{i}\">x</a>"));
    }
    for i in 0..n.min(1000) {
        s.push_str(&format!("<a href=\"{prefix}{i}\">again</a>"));
    }
    s.push_str("</body></html>");
    s.into_bytes()
}

#[test]
fn a_page_of_100000_links_adds_at_most_the_cap_and_says_so_once() {
    let c = Crawl::new();
    let st = c.store();
    let page = "http://flood.test/index.html";
    let body = page_of_links(100_000, "/p/");
    c.plant(&st, page, State::Verified, "text/html", &body);
    // A page under the cap loses nothing and says nothing.
    let small = "http://small.test/";
    c.plant(
        &st,
        small,
        State::Verified,
        "text/html",
        &page_of_links(300, "/q/"),
    );
    drop(st);
    // The default cap, 50000.
    let o = c.run("nlpc-scan", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let said: Vec<String> = err
        .lines()
        .filter(|l| l.contains("--filter-page-links"))
        .map(logged)
        .collect();
    assert_eq!(
        said,
        [format!(
            "nlpc-scan: {page}: 50000 links taken, 50000 more not read (--filter-page-links 50000)"
        )],
        "{err}"
    );
    let st = c.store();
    let rd = st.read().unwrap();
    assert_eq!(rd.count(State::New, false).unwrap(), 50_000 + 300);
    assert_eq!(
        nlpcrawl::store::scope::count_read(&rd, "flood.test").unwrap(),
        50_000
    );
    // The first 50000 in the page's order are the ones taken.
    assert!(rd.lookup("http://flood.test/p/49999").unwrap().is_some());
    assert!(rd.lookup("http://flood.test/p/50000").unwrap().is_none());
    drop(rd);
    assert_consistent(&st, true);
}

#[test]
fn a_smaller_page_link_cap_is_taken_from_the_options() {
    let c = Crawl::new();
    let st = c.store();
    let page = "http://flood.test/index.html";
    c.plant(
        &st,
        page,
        State::Verified,
        "text/html",
        &page_of_links(5000, "/p/"),
    );
    drop(st);
    let o = c.run("nlpc-scan", &["--once", "--filter-page-links", "1200"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.lines()
            .filter(|l| l.ends_with(&format!(
                "{page}: 1200 links taken, 3800 more not read (--filter-page-links 1200)"
            )))
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.ends_with(&format!("scanned {page} (1200 new, 0 known)"))),
        "{err}"
    );
    let st = c.store();
    assert_eq!(st.read().unwrap().count(State::New, false).unwrap(), 1200);
}

#[test]
fn a_calendar_of_query_variants_adds_at_most_the_cap_per_path() {
    let c = Crawl::new();
    let st = c.store();
    // One page of a calendar trap: 3000 days of one path, and sort orders
    // of another, and a path with no query (never capped).
    let mut s = String::from("<html><body>");
    for d in 0..3000 {
        s.push_str(&format!("<a href=\"/cal?day={d}\">d</a>"));
    }
    for o in 0..40 {
        s.push_str(&format!("<a href=\"/list?sort={o}&amp;view=a\">o</a>"));
    }
    for p in 0..40 {
        s.push_str(&format!("<a href=\"/plain/{p}\">p</a>"));
    }
    s.push_str("</body></html>");
    c.plant(
        &st,
        "http://cal.test/",
        State::Verified,
        "text/html",
        s.as_bytes(),
    );
    drop(st);
    let o = c.run(
        "nlpc-scan",
        &["--once", "-d", "--filter-query-variants", "25"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.lines()
            .any(|l| l.ends_with("scanned http://cal.test/ (90 new, 0 known, 2990 refused)")),
        "{}",
        err.lines().rev().take(3).collect::<Vec<_>>().join("\n")
    );
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("skip http://cal.test/cal?day=")
                && l.ends_with("too many query variants (cal.test/cal: limit 25)"))
            .count(),
        2975
    );
    let st = c.store();
    let news = urls_in(&st, State::New);
    let count = |p: &str| news.iter().filter(|u| u.starts_with(p)).count();
    assert_eq!(count("http://cal.test/cal?"), 25);
    assert_eq!(count("http://cal.test/list?"), 25);
    assert_eq!(count("http://cal.test/plain/"), 40);
    // The counts are in the database: a later run, another page with more
    // days, adds none of them, but a day already known stays known.
    let rd = st.read().unwrap();
    assert_eq!(
        nlpcrawl::store::scope::variants_read(&rd, "http://cal.test/cal?x").unwrap(),
        25
    );
    drop(rd);
    let st2 = c.store();
    c.plant(
        &st2,
        "http://cal.test/next",
        State::Verified,
        "text/html",
        b"<a href=\"/cal?day=0\">known</a><a href=\"/cal?day=99999\">new</a><a href=\"/CAL?day=1\">other path</a>",
    );
    drop((st, st2));
    let o = c.run("nlpc-scan", &["--once", "--filter-query-variants", "25"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .lines()
            .any(|l| l.ends_with("scanned http://cal.test/next (1 new, 1 known, 1 refused)")),
        "{}",
        stderr(&o)
    );
    let st = c.store();
    let rd = st.read().unwrap();
    assert!(rd
        .lookup("http://cal.test/cal?day=99999")
        .unwrap()
        .is_none());
    assert!(rd.lookup("http://cal.test/CAL?day=1").unwrap().is_some());
}

#[test]
fn a_page_an_accepted_one_links_to_counts_no_rejected_pages_before_it() {
    // far.html was found through a rejected page (one hop), near.html
    // never was; then an accepted page links to both.
    let c = Crawl::new();
    let st = c.store();
    let far = plant_ready(&st, "http://site.test/far.html", "127.0.0.1");
    let other = plant_ready(&st, "http://site.test/other.html", "127.0.0.1");
    {
        let mut w = st.write().unwrap();
        nlpcrawl::store::tunnel::reached(&mut w, &far, 1).unwrap();
        nlpcrawl::store::tunnel::reached(&mut w, &other, 2).unwrap();
        w.commit().unwrap();
    }
    c.plant(
        &st,
        "http://site.test/accepted.html",
        State::Verified,
        "text/html",
        b"<a href=far.html>far</a> <a href=near.html>near</a>",
    );
    drop(st);
    let o = c.run("nlpc-scan", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = c.store();
    let rd = st.read().unwrap();
    let hops =
        |u: &str| nlpcrawl::store::tunnel::hops(&rd, &rd.lookup(u).unwrap().unwrap().0).unwrap();
    assert_eq!(
        hops("http://site.test/far.html"),
        0,
        "linked from an accepted page"
    );
    assert_eq!(hops("http://site.test/near.html"), 0);
    assert_eq!(
        hops("http://site.test/other.html"),
        2,
        "not linked: as it was"
    );
}

#[test]
fn a_rejection_queued_for_tunnelling_wakes_an_idle_scanner() {
    let c = Crawl::new();
    drop(c.store());
    // An interval far longer than the test may take: only a wake-up can
    // bring the link in in time.
    let mut child = spawn({
        let mut cmd = c.cmd("nlpc-scan");
        cmd.args(["--use-interval", "60s", "--filter-tunnel", "1"]);
        cmd
    });
    // Idle: its wake-up socket is there (named by its pid and the states
    // it waits for).
    let dir = c.db().join(nlpcrawl::store::wake::DIR);
    let mine = format!("{}.", child.id());
    wait_until(
        Duration::from_secs(10),
        "the scanner's wake-up socket",
        || {
            std::fs::read_dir(&dir).is_ok_and(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(&mine))
            })
        },
    );
    // What nlpc-vrfy commits for a rejected page: the record REJECTED and
    // queued for tunnelling, with no VERIFIED record anywhere.
    let st = c.store();
    let mut r = Record::new("http://other.test/index.html", 1);
    r.state = State::Rejected;
    r.content_type = "text/html".into();
    r.status = 200;
    let body = b"<html><body><a href=\"http://other.test/found.html\">x</a></body></html>";
    r.size = body.len() as u64;
    let mut w = st.write().unwrap();
    let key = match w.insert(&r).unwrap() {
        nlpcrawl::store::Inserted::New(k) => k,
        other => panic!("planted twice: {other:?}"),
    };
    c.cache().write(&key, body).unwrap();
    nlpcrawl::store::tunnel::judged(&mut w, &key, &r).unwrap();
    w.commit().unwrap();
    let t = std::time::Instant::now();
    wait_until(Duration::from_secs(10), "the rejected page's link", || {
        st.read()
            .unwrap()
            .lookup("http://other.test/found.html")
            .unwrap()
            .is_some()
    });
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_consistent(&st, true);
}

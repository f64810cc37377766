//! One language table behind every language option: nlpc-fetch's and
//! nlpc-vrfy's --filter-lang (and nlpc-dump's --lang) take the same codes
//! and names, and refuse the same unknown ones the same way.

mod common;

use std::path::PathBuf;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::store::record::State;

/// The first line of stderr, which names the option, the value and why;
/// the usage text follows it.
fn first_line(err: &str) -> &str {
    err.lines().next().unwrap_or("")
}

#[test]
fn an_unknown_language_is_refused_alike_by_every_program() {
    for (bin, opt) in [
        ("nlpc-vrfy", "--filter-lang"),
        ("nlpc-fetch", "--filter-lang"),
        ("nlpc-dump", "--lang"),
    ] {
        let crawl = Crawl::new();
        let mut args = vec!["--once", opt, "lv xx"];
        if bin == "nlpc-dump" {
            args = vec![opt, "lv xx", "--text", "out"];
        }
        let o = crawl.run(bin, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{bin}: {err}");
        let line = first_line(&err);
        let want = format!(
            "{bin}: {opt}: \"xx\" is not a language code or name nlpcrawl knows (known codes: af "
        );
        assert!(line.starts_with(&want), "{bin}: {line}");
        // The list is the table's, on the same line.
        for code in [" lv ", " lt ", " et ", " ltg "] {
            assert!(line.contains(code), "{bin}: {code} missing from {line}");
        }
        assert!(line.ends_with(')'), "{bin}: {line}");
        // Nothing else in the output repeats the value.
        assert_eq!(err.matches("\"xx\"").count(), 1, "{bin}: {err}");
        // Refused before anything was opened.
        assert!(!crawl.db().join("data.mdb").exists(), "{bin}");
    }
}

#[test]
fn vrfy_refuses_a_language_it_cannot_detect_and_fetch_takes_it() {
    let crawl = Crawl::new();
    let o = crawl.run("nlpc-vrfy", &["--once", "--filter-lang", "ltg"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        first_line(&stderr(&o)),
        "nlpc-vrfy: --filter-lang: ltg (Latgalian) is not a language nlpc-vrfy can detect"
    );
    assert!(!crawl.db().join("data.mdb").exists());

    // nlpc-fetch only compares Content-Language, so Latgalian is a
    // language it can select, and Latvian is not Latgalian.
    let srv = Server::start("127.0.0.51");
    srv.route(
        "/ltg",
        Reply::html("Vysim lobs dīnis").header("Content-Language", "ltg"),
    );
    srv.route(
        "/lv",
        Reply::html("Labdien").header("Content-Language", "lv-LV"),
    );
    let st = crawl.store();
    for p in ["/ltg", "/lv"] {
        plant_ready(&st, &srv.url("l.test", p), &srv.ip());
    }
    drop(st);
    let o = crawl.run(
        "nlpc-fetch",
        &[
            "--once",
            "--fetch-polite",
            "0",
            "--filter-lang",
            "Latgalian",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = crawl.store();
    assert_eq!(record(&st, &srv.url("l.test", "/ltg")).state, State::Fresh);
    let lv = record(&st, &srv.url("l.test", "/lv"));
    assert_eq!(
        (lv.state, lv.reason.as_str()),
        (State::Rejected, "language lv-lv")
    );
}

#[test]
fn fetch_takes_every_name_of_latvian() {
    let srv = Server::start("127.0.0.52");
    // Three ways a server names Latvian, and one other language.
    let pages = [
        ("/region", "lv-LV, en;q=0.5"),
        ("/upper", "LV"),
        ("/standard", "lvs"),
        ("/russian", "ru"),
    ];
    for (p, tag) in pages {
        srv.route(p, Reply::html("teksts").header("Content-Language", tag));
    }
    for filter in ["lv", "lav", "lvs", "LV", "latvian"] {
        let crawl = Crawl::new();
        let st = crawl.store();
        for (p, _) in pages {
            plant_ready(&st, &srv.url("lv.test", p), &srv.ip());
        }
        drop(st);
        let o = crawl.run(
            "nlpc-fetch",
            &["--once", "--fetch-polite", "0", "--filter-lang", filter],
        );
        assert_eq!(o.status.code(), Some(0), "{filter}: {}", stderr(&o));
        let st = crawl.store();
        for (p, _) in &pages[..3] {
            let r = record(&st, &srv.url("lv.test", p));
            assert_eq!(r.state, State::Fresh, "{filter} {p}: {}", r.reason);
        }
        let ru = record(&st, &srv.url("lv.test", "/russian"));
        assert_eq!(
            (ru.state, ru.reason.as_str()),
            (State::Rejected, "language ru"),
            "{filter}"
        );
    }
}

#[test]
fn vrfy_takes_every_name_of_latvian() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy");
    let lv = std::fs::read(corpus.join("lv-daugava-utf8.html")).expect("fixture");
    let ru = std::fs::read(corpus.join("ru-baikal-utf8.html")).expect("fixture");
    for filter in ["lv", "lav", "lvs", "LV", "latvian"] {
        let crawl = Crawl::new();
        let st = crawl.store();
        crawl.plant(&st, "http://v.test/lv", State::Fresh, "text/html", &lv);
        // The page names no charset; the server did.
        let ct = "text/html; charset=utf-8";
        crawl.plant(&st, "http://v.test/ru", State::Fresh, ct, &ru);
        drop(st);
        let o = crawl.run("nlpc-vrfy", &["--once", "--filter-lang", filter]);
        assert_eq!(o.status.code(), Some(0), "{filter}: {}", stderr(&o));
        let st = crawl.store();
        let l = record(&st, "http://v.test/lv");
        assert_eq!(
            (l.state, l.language.as_str()),
            (State::Verified, "lv"),
            "{filter}"
        );
        let r = record(&st, "http://v.test/ru");
        assert_eq!(
            (r.state, r.reason.as_str()),
            (State::Rejected, "language ru"),
            "{filter}"
        );
    }
}

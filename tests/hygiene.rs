//! Hostile input that must not reach a terminal or the disk unchecked:
//! control characters in headers and URLs escaped in every output, only
//! HTTP and HTTPS fetched, a redirect without a usable Location named as
//! such.

mod common;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::store::record::State;

/// Fails unless `out` is free of control characters, bar the newline that
/// ends each line and (when `tabs`) the tab between TSV fields.
fn no_controls(what: &str, out: &[u8], tabs: bool) {
    let text = String::from_utf8_lossy(out);
    for (i, line) in text.lines().enumerate() {
        for c in line.chars() {
            let allowed = tabs && c == '\t';
            assert!(
                allowed || !(c < ' ' || c == '\x7f' || ('\u{80}'..='\u{9f}').contains(&c)),
                "{what}, line {}: control {:?} in {line:?}",
                i + 1,
                c
            );
        }
    }
    assert!(!out.contains(&b'\r'), "{what}: a carriage return");
}

#[test]
fn control_characters_from_servers_are_escaped_in_the_log_and_listings() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.70");
    srv.route(
        "/esc.html",
        Reply::html("<p>x</p>")
            .header("Server", "\x1b[2J")
            .header("Content-Language", "lv\x1b[31m\u{9b}2J"),
    );
    srv.route(
        "/type.bin",
        Reply::new(200, "application/x-\x1b[2J\x7f", "x"),
    );
    srv.route("/bad%1Bpath", Reply::html("<p>y</p>"));
    srv.route("/redir", Reply::redirect(302, "/to\x1b[2Jx"));
    let st = c.store();
    for p in ["/esc.html", "/type.bin", "/bad%1Bpath", "/redir"] {
        plant_ready(&st, &srv.url("esc.test", p), &srv.ip());
    }
    drop(st);
    let o = c.run(
        "nlpc-fetch",
        &[
            "--once",
            "-d",
            "--fetch-polite",
            "0",
            "--filter-type",
            "text/html",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    no_controls("nlpc-fetch's log", &o.stderr, false);
    // The controls arrived and were written as escapes, not dropped.
    assert!(err.contains("application/x-\\x1b[2j\\x7f"), "{err}");

    let st = c.store();
    let esc = record(&st, &srv.url("esc.test", "/esc.html"));
    assert_eq!(esc.state, State::Fresh, "{}", esc.reason);
    assert_eq!(esc.language, "lv\x1b[31m\u{9b}2j");
    let typ = record(&st, &srv.url("esc.test", "/type.bin"));
    assert_eq!(typ.state, State::Rejected);
    assert!(typ.reason.contains('\x1b'), "{}", typ.reason);
    drop(st);

    let o = c.run("nlpc-list", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    no_controls("nlpc-list", &o.stdout, true);
    let out = stdout(&o);
    assert!(out.contains("\tlv\\x1b[31m\\u{9b}2j\t"), "{out}");
    assert!(out.contains("application/x-\\x1b[2j\\x7f"), "{out}");
    assert!(out.contains("/bad%1Bpath\t"), "{out}");
    // Every line still has its eleven fields.
    for l in out.lines() {
        assert_eq!(l.split('\t').count(), 11, "{l}");
    }

    let o = c.run("nlpc-list", &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    no_controls("nlpc-list --json", &o.stdout, false);
    let mut langs = Vec::new();
    for l in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
        langs.push(v["language"].as_str().unwrap_or("").to_string());
    }
    // JSON escapes them and gives them back whole.
    assert!(
        langs.contains(&"lv\x1b[31m\u{9b}2j".to_string()),
        "{langs:?}"
    );
}

#[test]
fn only_http_and_https_are_fetched_whatever_the_record_says() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.71");
    let secret = c.tmp.path().join("secret.txt");
    std::fs::write(&secret, "not for the crawler").unwrap();
    let file_url = format!("file://{}", secret.display());
    let ftp_url = format!("ftp://{}/pub/x", srv.ip());
    srv.route("/to-file", Reply::redirect(302, &file_url));
    let st = c.store();
    // Planted straight as READY, as no admitted URL could be.
    plant_ready(&st, &file_url, &srv.ip());
    plant_ready(&st, &ftp_url, &srv.ip());
    plant_ready(&st, &srv.url("proto.test", "/to-file"), &srv.ip());
    drop(st);
    let o = c.run("nlpc-fetch", &["--once", "--fetch-polite", "0"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let st = c.store();
    for u in [&file_url, &ftp_url] {
        let r = record(&st, u);
        assert_eq!(r.state, State::Rejected, "{u}: {}", r.reason);
        assert!(
            r.reason
                .starts_with("only http and https are fetched (scheme "),
            "{u}: {}",
            r.reason
        );
        assert_eq!(r.size, 0, "{u}: a body was stored");
        assert!(
            err.contains(&format!("rejected {u}: only http and https")),
            "{err}"
        );
    }
    assert!(!c
        .cache()
        .path(&st.read().unwrap().lookup(&file_url).unwrap().unwrap().0)
        .exists());
    // A redirect to file:// is not followed, by libcurl or by a record.
    let r = record(&st, &srv.url("proto.test", "/to-file"));
    assert_eq!(
        (r.state, r.reason.as_str()),
        (
            State::Rejected,
            "redirect to a URL not admitted: scheme not allowed (file)"
        )
    );
    assert!(st.read().unwrap().lookup(&file_url).unwrap().is_some());
    assert_eq!(urls_in(&st, State::New), Vec::<String>::new());
    // Only the redirect's page was asked for over the wire (and robots.txt).
    let paths: Vec<String> = srv.hits().into_iter().map(|h| h.path).collect();
    assert!(
        paths.iter().all(|p| p == "/to-file" || p == "/robots.txt"),
        "{paths:?}"
    );
}

#[test]
fn a_redirect_without_a_usable_location_says_so() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.72");
    srv.route("/none", Reply::new(301, "text/html", "moved"));
    srv.route("/empty", Reply::redirect(302, "   "));
    srv.route("/bad", Reply::redirect(307, "http://[bad"));
    let st = c.store();
    for p in ["/none", "/empty", "/bad"] {
        plant_ready(&st, &srv.url("loc.test", p), &srv.ip());
    }
    drop(st);
    let o = c.run("nlpc-fetch", &["--once", "--fetch-polite", "0"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let st = c.store();
    for (p, status) in [("/none", 301), ("/empty", 302), ("/bad", 307)] {
        let u = srv.url("loc.test", p);
        let r = record(&st, &u);
        let why = format!("HTTP {status} without a usable Location");
        assert_eq!(
            (r.state, r.status, r.reason.as_str()),
            (State::Unreach, status, why.as_str())
        );
        assert!(err.contains(&format!("unreach {u}: {why}")), "{err}");
    }
    assert_eq!(urls_in(&st, State::New), Vec::<String>::new());
}

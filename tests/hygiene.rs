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
    // Every line still has its fourteen fields.
    for l in out.lines() {
        assert_eq!(l.split('\t').count(), 14, "{l}");
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

/// A small tmpfs, unmounted when dropped.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    /// None when mounting is not allowed here (not root).
    fn mount(dir: &std::path::Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }
    fn resize(&self, size: &str) {
        let s = std::process::Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(s.success(), "remount {}", self.0.display());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_stops_the_fetcher_and_loses_nothing() {
    use nlpcrawl::store::cache::temporaries;
    let c = Crawl::new();
    let disk = c.tmp.path().join("disk");
    let Some(fs) = Tmpfs::mount(&disk, "2m") else {
        println!("skipped: needs root to mount a tmpfs");
        return;
    };
    let srv = Server::start("127.0.0.73");
    let st = c.store();
    let mut urls = Vec::new();
    for i in 0..16 {
        let path = format!("/big{i}.html");
        // 300 KB each: the 2 MB disk holds six or so.
        let body = format!("<p>{i}</p>{}", "x".repeat(300_000 + i));
        srv.route(&path, Reply::html(body));
        let u = srv.url("full.test", &path);
        plant_ready(&st, &u, &srv.ip());
        urls.push(u);
    }
    drop(st);
    let cache_dir = disk.join("cache");
    let archive_dir = disk.join("archive");
    let fetch = || {
        let p = c.tmp.path();
        std::process::Command::new(exe("nlpc-fetch"))
            .arg("-p")
            .arg(p.join("db"))
            .arg("-f")
            .arg(&cache_dir)
            .arg("-a")
            .arg(&archive_dir)
            .arg("-r")
            .arg(p.join("rep"))
            .args(["--once", "--fetch-polite", "0"])
            .output()
            .unwrap()
    };
    // Every FRESH record's body is in the cache, whole: the file was in
    // place before the record that points to it was committed.
    let check_bodies = || -> usize {
        let st = c.store();
        let cache = nlpcrawl::store::cache::Cache::new(&cache_dir);
        let fresh = urls_in(&st, State::Fresh);
        for u in &fresh {
            let (key, r) = st.read().unwrap().lookup(u).unwrap().unwrap();
            let body = cache
                .read(&key)
                .unwrap()
                .unwrap_or_else(|| panic!("{u}: FRESH without a body"));
            assert_eq!(body.len() as u64, r.size, "{u}");
            assert_eq!(*blake3::hash(&body).as_bytes(), r.hash, "{u}");
        }
        assert_consistent(&st, true);
        fresh.len()
    };

    let o = fetch();
    let err = stderr(&o);
    assert_ne!(
        o.status.code(),
        Some(0),
        "a full disk went unnoticed: {err}"
    );
    let full: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("No space left on device"))
        .collect();
    assert_eq!(full.len(), 1, "{err}");
    assert!(full[0].contains(&cache_dir.display().to_string()), "{err}");
    let stored = check_bodies();
    assert!(stored > 0 && stored < urls.len(), "{stored} stored: {err}");
    assert_eq!(temporaries(&cache_dir), Vec::<std::path::PathBuf>::new());

    // A temporary file a killed writer left in the archive goes at the
    // next start. (No process has a pid this large.)
    let orphan_dir = archive_dir.join("ab").join("ab00");
    std::fs::create_dir_all(&orphan_dir).unwrap();
    let orphan = orphan_dir.join(".tmp.1-0000.999999999");
    std::fs::write(&orphan, "partial").unwrap();

    // Space freed: the crawl goes on where it stopped.
    fs.resize("64m");
    let o = fetch();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(check_bodies(), urls.len());
    assert!(!orphan.exists(), "an orphaned temporary file was left");
    assert_eq!(temporaries(&cache_dir), Vec::<std::path::PathBuf>::new());
}

#[test]
fn a_planted_url_with_raw_controls_is_escaped_by_list_and_dump() {
    use nlpcrawl::store::record::Record;
    let c = Crawl::new();
    let st = c.store();
    // Admission percent-encodes controls; a record planted past it keeps
    // them raw, as a damaged or foreign database might.
    let url = "http://raw.test/a\x1b[2J\x07\x7f\u{9b}b\tc\nd";
    let body = b"<html><body><p>Labdien, pasaule.</p></body></html>";
    let mut r = Record::new(url, 1);
    r.state = State::Verified;
    r.content_type = "text/html".into();
    r.charset = "utf-8".into();
    r.language = "lv\x1b]0;owned\x07".into();
    r.status = 200;
    r.fetched = 2;
    r.size = body.len() as u64;
    r.hash = *blake3::hash(body).as_bytes();
    let key = insert_new(&st, &r);
    c.cache().write(&key, body).unwrap();
    drop(st);
    let escaped = "http://raw.test/a\\x1b[2J\\x07\\x7f\\u{9b}b\\x09c\\x0ad";

    let o = c.run("nlpc-list", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    no_controls("nlpc-list", &o.stdout, true);
    let out = stdout(&o);
    let fields: Vec<&str> = out.trim_end_matches('\n').split('\t').collect();
    assert_eq!(fields.len(), 14, "{out}");
    assert_eq!(fields[1], escaped);
    assert_eq!(fields[4], "lv\\x1b]0;owned\\x07");

    let dir = c.tmp.path().join("text");
    let o = c.run("nlpc-dump", &["--text", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    no_controls("nlpc-dump's log", &o.stderr, false);
    let idx = std::fs::read(dir.join("index.tsv")).unwrap();
    no_controls("index.tsv", &idx, true);
    let idx = String::from_utf8(idx).unwrap();
    let fields: Vec<&str> = idx.trim_end_matches('\n').split('\t').collect();
    assert_eq!(fields.len(), 9, "{idx}");
    assert_eq!(fields[1], escaped);
    assert_eq!(fields[3], "lv\\x1b]0;owned\\x07");
}

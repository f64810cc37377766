//! Pages saved with the headers they were served with (tests/data/pages):
//! every way nlpc-vrfy decides a charset, with no page of valid UTF-8
//! decoded as anything else unless it declares so; and the daemon storing
//! how it decided, which nlpc-list and nlpc-dump show.

mod common;

use std::path::PathBuf;

use common::*;
use nlpcrawl::document::charset::{self, Source};
use nlpcrawl::document::text;
use nlpcrawl::stage::vrfy::{verify, Config};
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::web::http::split_content_type;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/pages")
}

struct Page {
    file: String,
    url: String,
    /// As the fetcher records them: the MIME type and the charset label.
    content_type: String,
    http_charset: String,
    body: Vec<u8>,
    charset: String,
    how: String,
    phrase: String,
}

fn pages() -> Vec<Page> {
    let manifest = std::fs::read_to_string(dir().join("MANIFEST")).unwrap();
    let pages: Vec<Page> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "bad MANIFEST line {l:?}");
            let stem = f[0].rsplit_once('.').unwrap().0;
            let headers = std::fs::read_to_string(dir().join(format!("{stem}.headers"))).unwrap();
            let ct = headers
                .lines()
                .find_map(|h| {
                    let (k, v) = h.split_once(':')?;
                    k.eq_ignore_ascii_case("content-type").then(|| v.trim())
                })
                .unwrap_or("");
            let (content_type, http_charset) = split_content_type(ct);
            Page {
                file: f[0].into(),
                url: f[1].into(),
                content_type,
                http_charset,
                body: std::fs::read(dir().join(f[0])).unwrap(),
                charset: f[2].into(),
                how: f[3].into(),
                phrase: f[4].into(),
            }
        })
        .collect();
    assert!(pages.len() >= 15, "{}", pages.len());
    pages
}

fn record(p: &Page) -> Record {
    let mut r = Record::new(&p.url, 1);
    r.state = State::Fresh;
    r.content_type = p.content_type.clone();
    // As nlpc-fetch stores it.
    r.charset = charset::canonical(&p.http_charset).unwrap_or_else(|| p.http_charset.clone());
    r
}

#[test]
fn each_page_is_decoded_as_it_was_written() {
    let mut bad = Vec::new();
    let mut ways = std::collections::HashSet::new();
    for p in pages() {
        let v = verify(&Config::default(), &record(&p), Some(&p.body));
        let d = v.charset.unwrap();
        ways.insert(d.source);
        let got = (d.encoding.name(), d.source.name());
        if got != (p.charset.as_str(), p.how.as_str()) {
            bad.push(format!("{}: {got:?}, want {} {}", p.file, p.charset, p.how));
        }
        let kind = charset::Kind::of(&p.content_type).unwrap();
        let t = text::visible(&charset::decode(&p.body, &d), kind).text;
        if !t.contains(&p.phrase) {
            bad.push(format!("{}: {:?} not in {t:?}", p.file, p.phrase));
        }
        if v.rejection.is_some() {
            bad.push(format!("{}: {:?}", p.file, v.rejection));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    for s in [
        Source::Bom,
        Source::Http,
        Source::Meta,
        Source::MetaLate,
        Source::ValidUtf8,
        Source::Detected,
        Source::Fallback,
    ] {
        assert!(ways.contains(&s), "no page decided by {}", s.name());
    }
}

#[test]
fn no_page_of_valid_utf8_is_decoded_otherwise() {
    let mut utf8_pages = 0;
    for p in pages() {
        let body = p.body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&p.body);
        if body.is_ascii() || std::str::from_utf8(body).is_err() {
            continue;
        }
        utf8_pages += 1;
        // Whatever the user's charset and the domain say.
        for user in [None, charset::resolve("windows-1257")] {
            let cfg = Config {
                use_charset: user,
                ..Config::default()
            };
            let d = verify(&cfg, &record(&p), Some(&p.body)).charset.unwrap();
            // Not even a legacy charset the header or a meta declares.
            assert_eq!(d.encoding.name(), "UTF-8", "{} ({user:?})", p.file);
        }
    }
    assert!(utf8_pages >= 7, "{utf8_pages}");
}

#[test]
fn use_charset_overrides_only_the_guess() {
    let cfg = Config {
        use_charset: charset::resolve("iso-8859-4"),
        ..Config::default()
    };
    for p in pages() {
        let d = verify(&cfg, &record(&p), Some(&p.body)).charset.unwrap();
        let guessed = matches!(p.how.as_str(), "detected" | "fallback");
        if guessed {
            assert_eq!(
                (d.encoding.name(), d.source),
                ("ISO-8859-4", Source::Override),
                "{}",
                p.file
            );
        } else {
            assert_eq!(d.source.name(), p.how, "{}", p.file);
        }
    }
}

#[test]
fn the_daemon_stores_how_and_list_and_dump_show_it() {
    let crawl = Crawl::new();
    let st = crawl.store();
    let all = pages();
    for p in &all {
        let key = crawl.plant(&st, &p.url, State::Fresh, &p.content_type, &p.body);
        let mut w = st.write().unwrap();
        let mut r = w.get(&key).unwrap().unwrap();
        r.charset = record(p).charset;
        r.fetched = 1_700_000_000;
        r.hash = *blake3::hash(&p.body).as_bytes();
        w.update(&key, &r).unwrap();
        w.commit().unwrap();
    }
    drop(st);
    // --filter-charset applies to the charset however it was decided.
    let o = crawl.run(
        "nlpc-vrfy",
        &[
            "--once",
            "--filter-charset",
            "utf-8 windows-1257 iso-8859-13",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = crawl.run("nlpc-list", &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut seen = 0;
    for line in stdout(&o).lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = all.iter().find(|p| p.url == j["url"]).unwrap();
        assert_eq!(j["charset_source"], p.how.as_str(), "{}", p.file);
        let allowed = ["UTF-8", "windows-1257", "ISO-8859-13"].contains(&p.charset.as_str());
        let want = if allowed { "VERIFIED" } else { "REJECTED" };
        assert_eq!(j["state"], want, "{}: {}", p.file, j["reason"]);
        if !allowed {
            assert_eq!(j["reason"], format!("charset {}", p.charset), "{}", p.file);
        }
        // A page in plain ASCII has none of the letters that tell Latvian
        // from its neighbours: its two witnesses may disagree, and then
        // no language is sure of it.
        let conf = j["lang_confidence"].as_f64().unwrap();
        assert!(
            !allowed || p.body.is_ascii() || conf > 0.0,
            "{}: {conf}",
            p.file
        );
        seen += 1;
    }
    assert_eq!(seen, all.len());
    // nlpc-dump's text index: confidence and how, last. Several pages are
    // one text in different charsets, duplicates of each other: all are
    // written, for their charsets.
    let out = crawl.tmp.path().join("out");
    let o = crawl.run(
        "nlpc-dump",
        &["--text", out.to_str().unwrap(), "--duplicates"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let idx = std::fs::read_to_string(out.join("index.tsv")).unwrap();
    let mut lines = 0;
    for l in idx.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 9, "{l}");
        let p = all.iter().find(|p| p.url == f[1]).unwrap();
        assert_eq!((f[4], f[8]), (p.charset.as_str(), p.how.as_str()), "{l}");
        let conf: f64 = f[7].parse().unwrap();
        assert!((0.0..=1.0).contains(&conf), "{l}");
        lines += 1;
    }
    assert!(lines >= 10, "{idx}");
    // nlpc-list's lines: confidence, charset and how, after the reason.
    let o = crawl.run("nlpc-list", &[]);
    let mut listed = 0;
    for l in stdout(&o).lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 14, "{l}");
        let p = all.iter().find(|p| p.url == f[1]).unwrap();
        assert_eq!(
            (f[12].to_ascii_lowercase(), f[13]),
            (p.charset.to_ascii_lowercase(), p.how.as_str()),
            "{l}"
        );
        if f[0] == "VERIFIED" {
            let conf: f64 = f[11].parse().unwrap();
            assert!(conf <= 1.0 && (conf > 0.0 || p.body.is_ascii()), "{l}");
        }
        listed += 1;
    }
    assert_eq!(listed, all.len());
}

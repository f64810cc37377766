//! nlpc-dump: WARC files read back by an independent reader (Python's
//! warcio, through tests/data/warc_read.py), selection, bodies replaced
//! under a running dump, and a dump of 10k records while a writer works.

mod common;

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use nlpcrawl::run::clock;
use nlpcrawl::store::archive::{Archive, Version};
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{Inserted, Key, Store, Table};
use serde_json::Value;

/// SHA-1 in base32 with its label, as WARC digests are written.
fn sha1(b: &[u8]) -> String {
    nlpcrawl::output::warc::sha1_digest(&[b])
}

fn b64(s: &str) -> Vec<u8> {
    data_encoding::BASE64.decode(s.as_bytes()).expect("base64")
}

/// Reads `warc` back with warcio; one JSON object per record. Fails the
/// test, saying what to install, when python3 or warcio is missing: CI
/// installs both (warcio in target/venv, by `make venv`), so a silent skip
/// would hide a broken round trip.
fn read_back(warc: &Path, payloads: bool) -> Vec<Value> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/warc_read.py");
    let mut cmd = Command::new(python());
    cmd.arg(&script).arg(warc);
    if payloads {
        cmd.arg("--payloads");
    }
    let o = cmd.output().unwrap_or_else(|e| {
        panic!("python3 is needed to read the WARC back with warcio ({e}); make venv installs it")
    });
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "warc_read.py failed: {err}");
    // warcio warns on standard error about, among others, a file that is
    // not one gzip member per record.
    assert!(err.is_empty(), "warcio complained: {err}");
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// The number of gzip members in `b`.
fn gzip_members(mut b: &[u8]) -> usize {
    let mut n = 0;
    while !b.is_empty() {
        let mut d = flate2::bufread::GzDecoder::new(b);
        std::io::copy(&mut d, &mut std::io::sink()).expect("gzip member");
        b = d.into_inner();
        n += 1;
    }
    n
}

/// Plants a record in `state` with `body` stored as nlpc-fetch stores it.
fn plant_page(
    c: &Crawl,
    st: &Store,
    url: &str,
    state: State,
    body: &[u8],
    f: impl FnOnce(&mut Record),
) -> Key {
    let mut r = Record::new(url, 1_700_000_000);
    r.state = state;
    r.addr = "192.0.2.7".into();
    r.status = 200;
    r.fetched = 1_700_000_000;
    r.content_type = "text/html".into();
    r.charset = "utf-8".into();
    r.language = "lv".into();
    r.size = body.len() as u64;
    r.hash = *blake3::hash(body).as_bytes();
    f(&mut r);
    let key = insert_new(st, &r);
    c.cache().write(&key, body).expect("cache write");
    key
}

fn archive(c: &Crawl) -> Archive {
    Archive::new(c.tmp.path().join("archive"))
}

/// Adds an archived version of `key`, as nlpc-fetch leaves one.
fn plant_version(c: &Crawl, st: &Store, key: &Key, fetched: u64, body: &[u8]) {
    let v = Version {
        fetched,
        hash: *blake3::hash(body).as_bytes(),
        size: body.len() as u64,
        status: 200,
        content_type: "text/html".into(),
        charset: "utf-8".into(),
    };
    let src = c.tmp.path().join(format!("src-{}-{fetched}", key.hex()));
    std::fs::write(&src, body).unwrap();
    archive(c).keep(&src, key, fetched, &v.hash).unwrap();
    let mut w = st.write().unwrap();
    w.table_put(
        Table::History,
        &Version::table_key(key, fetched),
        &v.encode(),
    )
    .unwrap();
    w.commit().unwrap();
}

fn dump(c: &Crawl, args: &[&str]) -> String {
    let o = c.run("nlpc-dump", args);
    assert_eq!(o.status.code(), Some(0), "nlpc-dump: {}", stderr(&o));
    stderr(&o)
}

fn field<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("no {k} in {v}"))
}

fn http_header<'a>(v: &'a Value, name: &str) -> Option<&'a str> {
    v["http"].as_array()?.iter().find_map(|p| {
        (p[0].as_str()?.eq_ignore_ascii_case(name))
            .then(|| p[1].as_str())
            .flatten()
    })
}

/// A windows-1257 page whose meta element is wrong: nlpc-vrfy found
/// windows-1257 (say, from the server), and that is what the record says.
const LV: &[u8] = b"<html><head><meta charset=utf-8><title>Sveiki</title>\
    <script>var x = '<p>nav teksts</p>';</script></head>\
    <body><p>Lab\xe2 diena, \xf0is ir latvie\xf0u <b>teksts</b>, kas st\xe2sta par to, \
    k\xe2 m\xe7s dz\xeevojam R\xeeg\xe2.</p></body></html>";

// Bodies of one paragraph: a sentence, which is main text (a page of a
// word or two has none, and no text file).
const ALPHA: &[u8] =
    b"<p>Alpha is the first version of the news page, written in one sentence.</p>";
const BETA: &[u8] =
    b"<p>Beta is the second version of the news page, a little longer than alpha.</p>";
const ENGLISH: &[u8] = b"<p>This page is written in English, and its record says that it is.</p>";
const SNAP: &[u8] = b"<p>The snapshot holds this text, which the cache no longer has in it.</p>";
/// The text tree's file of a body above: its paragraph and a line break.
fn text_of(body: &[u8]) -> String {
    let s = std::str::from_utf8(body).unwrap();
    format!("{}\n", &s["<p>".len()..s.len() - "</p>".len()])
}

const T1: u64 = 1_690_000_000;
const T2: u64 = 1_695_000_000;

/// A small corpus: a page with two archived versions, the current one
/// equal to the first; a windows-1257 page; a page in English on another
/// host; a rejected page; a page whose body is gone; and one whose cache
/// file was replaced after the record (nlpc-fetch archived it first).
fn small_corpus(c: &Crawl) -> HashMap<&'static str, Key> {
    let st = c.store();
    let mut keys = HashMap::new();
    let k = plant_page(c, &st, "http://a.test/news", State::Scanned, ALPHA, |r| {
        r.etag = "\"a3\"".into();
        r.last_modified = "Sun, 06 Nov 1994 08:49:37 GMT".into();
    });
    plant_version(c, &st, &k, T1, ALPHA);
    plant_version(c, &st, &k, T2, BETA);
    keys.insert("news", k);
    keys.insert(
        "lv",
        plant_page(c, &st, "http://a.test/lv", State::Verified, LV, |r| {
            r.charset = "windows-1257".into();
        }),
    );
    keys.insert(
        "en",
        plant_page(
            c,
            &st,
            "http://b.test:8080/en?x=1",
            State::Scanned,
            ENGLISH,
            |r| r.language = "en".into(),
        ),
    );
    keys.insert(
        "rejected",
        plant_page(c, &st, "http://a.test/rej", State::Rejected, b"no", |_| {}),
    );
    let gone = plant_page(c, &st, "http://a.test/gone", State::Scanned, b"x", |_| {});
    c.cache().remove(&gone).unwrap();
    let moved = plant_page(c, &st, "http://a.test/moved", State::Scanned, SNAP, |_| {});
    let r = record(&st, "http://a.test/moved");
    archive(c)
        .keep(&c.cache().path(&moved), &moved, r.fetched, &r.hash)
        .unwrap();
    c.cache().write(&moved, b"a newer body").unwrap();
    keys.insert("moved", moved);
    keys
}

#[test]
fn warc_round_trip_through_an_independent_reader() {
    let c = Crawl::new();
    small_corpus(&c);
    let out = c.tmp.path().join("corpus.warc.gz");
    let log = dump(&c, &["--archived", "--warc", out.to_str().unwrap()]);
    assert!(
        log.contains("dumped 4 pages, 6 versions (1 revisits), 1 missing,"),
        "{log}"
    );
    let recs = read_back(&out, true);
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(gzip_members(&bytes), recs.len(), "one gzip member a record");

    // A warcinfo record first, which every other record names.
    let info = &recs[0];
    assert_eq!(field(info, "type"), "warcinfo");
    assert_eq!(field(info, "filename"), "corpus.warc.gz");
    let fields = String::from_utf8(b64(field(info, "payload"))).unwrap();
    assert!(
        fields.contains("format: WARC File Format 1.1\r\n"),
        "{fields}"
    );
    for r in &recs {
        assert_eq!(field(r, "version"), "WARC/1.1");
        assert!(field(r, "id").starts_with("<urn:uuid:"));
        if field(r, "type") != "warcinfo" {
            assert_eq!(field(r, "warcinfo_id"), field(info, "id"));
        }
        // warcio checked every digest it could (a revisit has no payload).
        let verified = r["digests_verified"].as_bool();
        if field(r, "type") == "revisit" {
            assert_eq!(verified, None);
        } else {
            assert_eq!(verified, Some(true), "{r}");
        }
    }

    // Each version: a request, then its response, concurrent to it.
    let by_uri = |u: &str| -> Vec<&Value> {
        recs.iter()
            .filter(|r| r["uri"].as_str() == Some(u) && field(r, "type") != "request")
            .collect()
    };
    for r in recs.iter().filter(|r| field(r, "type") == "request") {
        let resp = recs
            .iter()
            .find(|x| x["id"] == r["concurrent_to"])
            .expect("the response a request goes with");
        assert_eq!(resp["uri"], r["uri"]);
        assert_eq!(resp["date"], r["date"]);
    }

    // The news page: two responses, then a revisit of the first.
    let news = by_uri("http://a.test/news");
    let kinds: Vec<&str> = news.iter().map(|r| field(r, "type")).collect();
    assert_eq!(kinds, ["response", "response", "revisit"]);
    assert_eq!(b64(field(news[0], "payload")), ALPHA);
    assert_eq!(b64(field(news[1], "payload")), BETA);
    assert_eq!(field(news[0], "date"), clock::iso8601(T1));
    assert_eq!(field(news[1], "date"), clock::iso8601(T2));
    for r in &news[..2] {
        assert_eq!(field(r, "payload_digest"), field(r, "sha1"));
        assert_eq!(r["status"], "200");
        assert_eq!(
            http_header(r, "Content-Length"),
            Some(r["length"].to_string().as_str())
        );
    }
    let rv = news[2];
    assert_eq!(
        field(rv, "profile"),
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
    );
    assert_eq!(rv["refers_to"], news[0]["id"]);
    assert_eq!(rv["refers_to_uri"], "http://a.test/news");
    assert_eq!(rv["refers_to_date"], news[0]["date"]);
    assert_eq!(field(rv, "payload_digest"), sha1(ALPHA));
    assert_eq!(rv["length"], 0);
    assert_eq!(http_header(rv, "ETag"), Some("\"a3\""));
    assert_eq!(
        http_header(rv, "Last-Modified"),
        Some("Sun, 06 Nov 1994 08:49:37 GMT")
    );
    assert_eq!(field(rv, "ip"), "192.0.2.7");

    // The stored bytes, with the charset they are in.
    let lv = by_uri("http://a.test/lv");
    assert_eq!(lv.len(), 1);
    assert_eq!(
        http_header(lv[0], "Content-Type"),
        Some("text/html; charset=windows-1257")
    );
    assert_eq!(b64(field(lv[0], "payload")), LV);
    assert_eq!(by_uri("http://b.test:8080/en?x=1").len(), 1);
    // The body as the snapshot had it, from the archive.
    let moved = by_uri("http://a.test/moved");
    assert_eq!(b64(field(moved[0], "payload")), SNAP);
    // Neither the rejected page nor the one without a body.
    assert!(by_uri("http://a.test/rej").is_empty());
    assert!(by_uri("http://a.test/gone").is_empty());
    assert!(log.contains("http://a.test/gone: no body"), "{log}");
    assert_eq!(recs.len(), 1 + 2 * 6);
}

#[test]
fn selection_language_and_current_versions_only() {
    let c = Crawl::new();
    small_corpus(&c);
    let uris = |args: &[&str]| -> Vec<String> {
        let out = c.tmp.path().join("sel.warc.gz");
        let mut all = vec!["--warc", out.to_str().unwrap()];
        all.extend_from_slice(args);
        dump(&c, &all);
        let mut v: Vec<String> = read_back(&out, false)
            .iter()
            .filter(|r| r["type"] == "response" || r["type"] == "revisit")
            .map(|r| field(r, "uri").to_string())
            .collect();
        v.sort();
        v
    };
    // Without --archived, one response per page, none a revisit.
    assert_eq!(
        uris(&[]),
        [
            "http://a.test/lv",
            "http://a.test/moved",
            "http://a.test/news",
            "http://b.test:8080/en?x=1"
        ]
    );
    assert_eq!(uris(&["--lang", "en"]), ["http://b.test:8080/en?x=1"]);
    assert_eq!(uris(&["--auth", "b.test"]), ["http://b.test:8080/en?x=1"]);
    assert_eq!(uris(&["-s", "verified"]), ["http://a.test/lv"]);
    assert_eq!(uris(&["*/news"]), ["http://a.test/news"]);
}

#[test]
fn bad_options_and_a_warc_on_standard_output() {
    let c = Crawl::new();
    small_corpus(&c);
    for (args, says) in [
        (&[][..], "nothing to do"),
        (
            &["--warc", "x", "-s", "rejected"][..],
            "not part of the corpus",
        ),
        (&["--warc", "x", "-s", "nosuch"][..], "unknown state"),
    ] {
        let o = c.run("nlpc-dump", args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = c.run("nlpc-dump", &["--warc", "-", "--auth", "b.test"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&o.stdout[..])
        .read_to_string(&mut text)
        .unwrap();
    assert!(text.starts_with("WARC/1.1\r\nWARC-Type: warcinfo\r\n"));
    assert!(text.contains("WARC-Target-URI: http://b.test:8080/en?x=1\r\n"));
    // A dump into a directory that does not exist fails in one line and
    // leaves nothing behind.
    let o = c.run("nlpc-dump", &["--warc", "/nonexistent/dir/x.warc.gz"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

/// The lines of `dir/index.tsv`, split into fields.
fn index(dir: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("index.tsv"))
        .expect("index.tsv")
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn text_files_in_utf8_with_an_index() {
    let c = Crawl::new();
    let keys = small_corpus(&c);
    let dir = c.tmp.path().join("text");
    let log = dump(&c, &["--archived", "--text", dir.to_str().unwrap()]);
    assert!(log.contains(", 6 text files"), "{log}");
    let idx = index(&dir);
    assert_eq!(idx.len(), 6, "{idx:?}");
    for l in &idx {
        // Seven fields, then the language confidence and how the charset
        // was decided (unknown for records planted unverified).
        assert_eq!(l.len(), 9, "{l:?}");
        assert!(dir.join(&l[0]).is_file(), "{}", l[0]);
        assert!(
            l[7].parse::<f64>().is_ok_and(|x| (0.0..=1.0).contains(&x)),
            "{l:?}"
        );
        assert_eq!(l[8], "-", "{l:?}");
    }
    let line = |url: &str, kind: &str| -> Vec<Vec<String>> {
        idx.iter()
            .filter(|l| l[1] == url && l[6] == kind)
            .cloned()
            .collect()
    };

    // Decoded with the charset the record names, markup and script gone.
    let lv = &line("http://a.test/lv", "current")[0];
    assert_eq!(lv[0], format!("a.test/{}.1700000000.txt", keys["lv"].hex()));
    assert_eq!(
        std::fs::read_to_string(dir.join(&lv[0])).unwrap(),
        "Labā diena, šis ir latviešu teksts, kas stāsta par to, kā mēs dzīvojam Rīgā.\n"
    );
    assert_eq!(
        &lv[2..6],
        [
            clock::iso8601(1_700_000_000),
            "lv".to_string(),
            "windows-1257".to_string(),
            blake3::hash(LV).to_hex().to_string(),
        ]
    );

    // Every version of the news page, the archived ones with their times.
    let old = line("http://a.test/news", "archived");
    assert_eq!(old.len(), 2);
    assert_eq!(old[0][2], clock::iso8601(T1));
    assert_eq!(
        std::fs::read_to_string(dir.join(&old[1][0])).unwrap(),
        text_of(BETA)
    );
    assert_eq!(line("http://a.test/news", "current").len(), 1);
    assert_eq!(
        std::fs::read_to_string(dir.join(&line("http://a.test/moved", "current")[0][0])).unwrap(),
        text_of(SNAP)
    );
    assert_eq!(line("http://b.test:8080/en?x=1", "current")[0][3], "en");
    assert!(line("http://a.test/rej", "current").is_empty());

    // Only one language: an index of its pages alone, files replaced.
    dump(&c, &["--lang", "en", "--text", dir.to_str().unwrap()]);
    let idx = index(&dir);
    assert_eq!(idx.len(), 1);
    assert_eq!(idx[0][1], "http://b.test:8080/en?x=1");
    assert!(
        !std::fs::read_dir(&dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains(".part.")),
        "a temporary index was left"
    );
}

/// What the writer thread does in step `i`, in one transaction: a new
/// record `new/i`, and planted record `p/i` re-fetched with a changed body
/// (archived first, then the cache file replaced, then the record, as
/// nlpc-fetch does).
fn writer_step(c: &Crawl, st: &Store, keys: &[Key], i: usize) {
    let key = keys[i];
    let mut r = st
        .read()
        .unwrap()
        .get(&key)
        .unwrap()
        .expect("planted record");
    archive(c)
        .keep(&c.cache().path(&key), &key, r.fetched, &r.hash)
        .unwrap();
    let body = format!("new body {i}");
    c.cache().write(&key, body.as_bytes()).unwrap();
    let v = Version {
        fetched: r.fetched,
        hash: r.hash,
        size: r.size,
        status: 200,
        content_type: r.content_type.clone(),
        charset: r.charset.clone(),
    };
    r.fetched += 1000;
    r.hash = *blake3::hash(body.as_bytes()).as_bytes();
    r.size = body.len() as u64;
    let mut n = Record::new(&format!("http://new.test/{i}"), 1);
    n.state = State::Scanned;
    n.fetched = 1_700_000_000;
    // Plain text, as the planted records are: its one paragraph is its
    // main text, and it has a text file.
    n.content_type = "text/plain".into();
    let nb = format!("inserted {i}");
    n.hash = *blake3::hash(nb.as_bytes()).as_bytes();
    n.size = nb.len() as u64;
    let mut w = st.write().unwrap();
    w.update(&key, &r).unwrap();
    w.table_put(
        Table::History,
        &Version::table_key(&key, v.fetched),
        &v.encode(),
    )
    .unwrap();
    if let Inserted::New(k) = w.insert(&n).unwrap() {
        c.cache().write(&k, nb.as_bytes()).unwrap();
    }
    w.commit().unwrap();
}

#[test]
fn a_dump_of_10k_records_while_a_writer_is_active_is_one_snapshot() {
    const N: usize = 10_000;
    let c = Arc::new(Crawl::new());
    let st = c.store();
    let mut recs = Vec::with_capacity(N);
    for i in 0..N {
        let mut r = Record::new(&format!("http://p{}.test/{i}", i % 97), 1);
        r.state = State::Scanned;
        r.fetched = 1_700_000_000;
        r.content_type = "text/plain".into();
        let body = format!("old body {i}");
        r.hash = *blake3::hash(body.as_bytes()).as_bytes();
        r.size = body.len() as u64;
        recs.push(r);
    }
    let mut w = st.write().unwrap();
    let keys: Vec<Key> = w
        .insert_batch(&recs)
        .unwrap()
        .into_iter()
        .map(|i| match i {
            Inserted::New(k) => k,
            other => panic!("planted twice: {other:?}"),
        })
        .collect();
    w.commit().unwrap();
    for (i, k) in keys.iter().enumerate() {
        c.cache()
            .write(k, format!("old body {i}").as_bytes())
            .unwrap();
    }
    drop(st);

    let steps = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (c, steps, stop, keys) = (c.clone(), steps.clone(), stop.clone(), keys.clone());
        std::thread::spawn(move || {
            let st = c.store();
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && i < N {
                writer_step(&c, &st, &keys, i);
                i += 1;
                steps.store(i, Ordering::SeqCst);
            }
        })
    };
    wait_until(Duration::from_secs(30), "the writer to start", || {
        steps.load(Ordering::SeqCst) >= 10
    });
    let out = c.tmp.path().join("big.warc.gz");
    let before = steps.load(Ordering::SeqCst);
    let t = Instant::now();
    let text = c.tmp.path().join("big-text");
    let log = dump(
        &c,
        &[
            "--warc",
            out.to_str().unwrap(),
            "--text",
            text.to_str().unwrap(),
        ],
    );
    let took = t.elapsed();
    let after = steps.load(Ordering::SeqCst);
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    assert!(after > before, "the writer made no step during the dump");
    eprintln!(
        "dumped {N}+ records in {took:.2?} while the writer made {} steps",
        after - before
    );

    // One snapshot: the first k steps, all of them and nothing else.
    let got: HashMap<String, String> = read_back(&out, false)
        .iter()
        .filter(|r| r["type"] == "response")
        .map(|r| (field(r, "uri").to_string(), field(r, "sha1").to_string()))
        .collect();
    let k = (0..N)
        .take_while(|i| got.contains_key(&format!("http://new.test/{i}")))
        .count();
    assert!(
        (before..=after).contains(&k),
        "snapshot after step {k}, dump ran from {before} to {after}"
    );
    assert_eq!(got.len(), N + k, "{log}");
    for (i, r) in recs.iter().enumerate() {
        let body = if i < k {
            format!("new body {i}")
        } else {
            format!("old body {i}")
        };
        assert_eq!(
            got.get(&r.url).map(String::as_str),
            Some(sha1(body.as_bytes()).as_str()),
            "{} (snapshot after step {k})",
            r.url
        );
    }
    for i in 0..k {
        let u = format!("http://new.test/{i}");
        assert_eq!(got[&u], sha1(format!("inserted {i}").as_bytes()));
    }
    assert!(log.contains(" 0 missing"), "{log}");

    // The text index is of the same snapshot.
    let idx: HashMap<String, String> = index(&text)
        .into_iter()
        .map(|l| (l[1].clone(), l[5].clone()))
        .collect();
    assert_eq!(idx.len(), N + k);
    for (i, r) in recs.iter().enumerate() {
        let body = if i < k {
            format!("new body {i}")
        } else {
            format!("old body {i}")
        };
        assert_eq!(idx[&r.url], blake3::hash(body.as_bytes()).to_hex().as_str());
    }
}

/// A page's text file holds its main text, a block a line, without its
/// menu, banner and footer.
#[test]
fn text_files_hold_the_main_text_a_block_a_line() {
    let c = Crawl::new();
    let st = c.store();
    let p1 = "Rīgā šonedēļ sāka atjaunot veco tiltu pār Daugavu, un darbi, kā sola \
              būvnieki, ilgs līdz rudenim, jo pēc ziemas ir jāpārbauda visi balsti un arī \
              tie akmeņi, kas ir zem ūdens.";
    let p2 = "Kamēr tilts būs slēgts, pilsētas iedzīvotāji varēs izmantot prāmi, kas kursēs \
              ik pēc pusstundas, bet naktīs tas nekursēs, tāpēc pašvaldība lūdz braucienus \
              plānot jau laikus un, ja vien var, izvēlēties citus ceļus.";
    let body = format!(
        "<html><head><meta charset=utf-8><title>Tilts</title></head><body>\
         <div id=cookie-banner>Mēs izmantojam sīkdatnes. <button>Labi</button></div>\
         <nav><a href=/>Sākums</a> <a href=/zinas>Ziņas</a></nav>\
         <article><h1>Tilts būs slēgts</h1><p>{p1}</p><p>{p2}</p></article>\
         <footer>&copy; 2026 Ziņas. <a href=/kontakti>Kontakti</a></footer></body></html>"
    );
    plant_page(
        &c,
        &st,
        "http://a.test/tilts",
        State::Verified,
        body.as_bytes(),
        |_| {},
    );
    let dir = c.tmp.path().join("text");
    let log = dump(&c, &["--text", dir.to_str().unwrap()]);
    assert!(log.contains(", 1 text files"), "{log}");
    let idx = index(&dir);
    assert_eq!(
        std::fs::read_to_string(dir.join(&idx[0][0])).unwrap(),
        format!("Tilts būs slēgts\n{p1}\n{p2}\n")
    );
}

/// A Latvian article page: `nav` is its menu, outside the main text.
fn article(nav: &str, title: &str, paras: &[&str]) -> String {
    let ps: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <nav>{nav}</nav><article><h1>{title}</h1>{ps}</article></body></html>"
    )
}

const A1: &str = "Rīgas ostā šonedēļ ienāca lielākais kuģis, kāds tur redzēts pēdējos \
    gados, un tā kravu izkrāva trīs dienas, jo krāni strādāja arī naktīs un brīvdienās.";
const A2: &str = "Ostas pārvalde saka, ka šādu kuģu nākamgad būs vairāk, tāpēc piestātnes \
    padziļinās jau rudenī, un darbi ilgs līdz pavasarim, kad sāksies jaunā navigācija.";
const D1: &str = "Vidzemes skolās šoruden mācības sāks vairāk bērnu nekā pērn, jo daudzas \
    ģimenes atgriezās no pilsētām, un skolotāji saka, ka klasēs būs krietni pilnāks.";
const D2: &str = "Pašvaldības sola, ka autobusi kursēs biežāk, lai bērni paspētu uz stundām \
    no attālākajiem ciemiem, un vecāki var pieteikties braucieniem jau tagad.";

/// Two URLs on two hosts serving one body, a third page with the same main
/// text under another menu (an exact duplicate of it, another body) and a
/// page of its own, verified by nlpc-vrfy, which marks the duplicates.
/// Returns the URLs and their bodies.
fn duplicate_corpus(c: &Crawl) -> Vec<(&'static str, Vec<u8>)> {
    let one = article("<a href=/>Sākums</a>", "Osta", &[A1, A2]).into_bytes();
    let other = article(
        "<a href=/>Uz sākumu</a> <a href=/x>Arhīvs</a>",
        "Osta",
        &[A1, A2],
    )
    .into_bytes();
    let school = article("<a href=/>Sākums</a>", "Skolas", &[D1, D2]).into_bytes();
    let pages = vec![
        ("http://a.test/osta", one.clone()),
        ("http://b.test/kopija/osta", one),
        ("http://c.test/osta", other),
        ("http://a.test/skolas", school),
    ];
    let st = c.store();
    for (u, b) in &pages {
        plant_page(c, &st, u, State::Fresh, b, |r| r.language.clear());
    }
    drop(st);
    let o = c.run("nlpc-vrfy", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "nlpc-vrfy: {}", stderr(&o));
    assert_eq!(
        urls_in(&c.store(), State::Verified).len(),
        4,
        "{}",
        stderr(&o)
    );
    pages
}

/// The URLs nlpc-vrfy marked as duplicates.
fn marked(c: &Crawl, urls: &[&str]) -> Vec<String> {
    let st = c.store();
    let rd = st.read().unwrap();
    urls.iter()
        .filter(|u| {
            let k = rd.lookup(u).unwrap().unwrap().0;
            nlpcrawl::store::dups::duplicate_of(&rd, &k)
                .unwrap()
                .is_some()
        })
        .map(|u| u.to_string())
        .collect()
}

#[test]
fn the_warc_keeps_duplicates_and_revisits_a_body_another_url_served() {
    let c = Crawl::new();
    let pages = duplicate_corpus(&c);
    let urls: Vec<&str> = pages.iter().map(|p| p.0).collect();
    // nlpc-vrfy saw one text three times: two of them are duplicates, one
    // of them the page with its own body.
    let dups = marked(&c, &urls);
    assert_eq!(dups.len(), 2, "{dups:?}");
    assert!(dups.contains(&"http://c.test/osta".to_string()), "{dups:?}");

    let warc = c.tmp.path().join("all.warc.gz");
    let jl = c.tmp.path().join("corpus.jsonl");
    let wet = c.tmp.path().join("corpus.wet.gz");
    let text = c.tmp.path().join("text");
    let log = dump(
        &c,
        &[
            "--warc",
            warc.to_str().unwrap(),
            "--jsonl",
            jl.to_str().unwrap(),
            "--wet",
            wet.to_str().unwrap(),
            "--text",
            text.to_str().unwrap(),
        ],
    );
    assert!(
        log.contains("dumped 4 pages, 4 versions (1 revisits),"),
        "{log}"
    );
    assert!(log.contains(", 2 documents, "), "{log}");
    assert!(log.contains(", 2 duplicates left out"), "{log}");

    // Every page has its record in the WARC file, the duplicates too.
    let recs = read_back(&warc, true);
    let captures: Vec<&Value> = recs
        .iter()
        .filter(|r| r["type"] == "response" || r["type"] == "revisit")
        .collect();
    let mut got: Vec<&str> = captures.iter().map(|r| field(r, "uri")).collect();
    got.sort();
    let mut want = urls.clone();
    want.sort();
    assert_eq!(got, want);
    // The one body served by two URLs: a response, then a revisit naming
    // it, whichever URL came first.
    let body = &pages[0].1;
    let same: Vec<&&Value> = captures
        .iter()
        .filter(|r| field(r, "payload_digest") == sha1(body))
        .collect();
    assert_eq!(same.len(), 2);
    let (first, rv) = (same[0], same[1]);
    assert_eq!(field(first, "type"), "response");
    assert_eq!(b64(field(first, "payload")), *body);
    assert_eq!(field(rv, "type"), "revisit");
    assert_ne!(rv["uri"], first["uri"]);
    assert_eq!(
        field(rv, "profile"),
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
    );
    assert_eq!(rv["refers_to"], first["id"]);
    assert_eq!(rv["refers_to_uri"], first["uri"]);
    assert_eq!(rv["refers_to_date"], first["date"]);
    assert_eq!(rv["length"], 0);
    assert_eq!(rv["status"], "200");
    // The page marked duplicate with a body of its own: a full response.
    let other = captures
        .iter()
        .find(|r| r["uri"] == "http://c.test/osta")
        .unwrap();
    assert_eq!(field(other, "type"), "response");
    assert_eq!(b64(field(other, "payload")), pages[2].1);

    // The corpus formats leave both duplicates out.
    let docs: Vec<Value> = std::fs::read_to_string(&jl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut in_corpus: Vec<&str> = docs.iter().map(|d| d["url"].as_str().unwrap()).collect();
    in_corpus.sort();
    let mut kept: Vec<&str> = urls
        .iter()
        .copied()
        .filter(|u| !dups.iter().any(|d| d == u))
        .collect();
    kept.sort();
    assert_eq!(in_corpus, kept);
    let conv: Vec<Value> = read_back(&wet, false)
        .into_iter()
        .filter(|r| r["type"] == "conversion")
        .collect();
    let mut wet_uris: Vec<&str> = conv.iter().map(|r| field(r, "uri")).collect();
    wet_uris.sort();
    assert_eq!(wet_uris, kept);
    // Each names its page's record in the WARC file, response or revisit.
    for r in &conv {
        assert!(
            captures
                .iter()
                .any(|x| x["id"] == r["refers_to"] && x["uri"] == r["uri"]),
            "{r}"
        );
    }
    let mut files: Vec<String> = index(&text).into_iter().map(|l| l[1].clone()).collect();
    files.sort();
    assert_eq!(files, kept);

    // A WARC file alone leaves nothing out; --duplicates puts them back
    // in the corpus formats.
    let log = dump(&c, &["--warc", warc.to_str().unwrap()]);
    assert!(
        log.contains("dumped 4 pages, 4 versions (1 revisits),"),
        "{log}"
    );
    assert!(log.contains(", 0 duplicates left out"), "{log}");
    let log = dump(&c, &["--jsonl", jl.to_str().unwrap(), "--duplicates"]);
    assert!(log.contains(", 4 documents, "), "{log}");
}

#[test]
fn an_archived_version_repeating_another_pages_body_is_a_revisit() {
    let c = Crawl::new();
    let st = c.store();
    let a = plant_page(&c, &st, "http://a.test/x", State::Scanned, b"one", |_| {});
    let b = plant_page(&c, &st, "http://b.test/y", State::Scanned, b"two", |_| {});
    // Each page once served what the other serves now, and "one" again
    // on b before that.
    plant_version(&c, &st, &a, T1, b"two");
    plant_version(&c, &st, &b, T1, b"one");
    plant_version(&c, &st, &b, T2, b"three");
    drop(st);
    let warc = c.tmp.path().join("h.warc.gz");
    let log = dump(&c, &["--archived", "--warc", warc.to_str().unwrap()]);
    assert!(
        log.contains("dumped 2 pages, 5 versions (2 revisits),"),
        "{log}"
    );
    // Whatever order the pages come in, the first record of each body is
    // its response and every later one a revisit of it.
    let recs = read_back(&warc, true);
    let mut first: HashMap<String, &Value> = HashMap::new();
    let mut revisits = 0;
    for r in recs
        .iter()
        .filter(|r| r["type"] == "response" || r["type"] == "revisit")
    {
        let d = field(r, "payload_digest").to_string();
        match first.get(&d) {
            None => {
                assert_eq!(field(r, "type"), "response", "{r}");
                assert_eq!(field(r, "sha1"), d);
                first.insert(d, r);
            }
            Some(f) => {
                assert_eq!(field(r, "type"), "revisit", "{r}");
                assert_eq!(r["refers_to"], f["id"]);
                assert_eq!(r["refers_to_uri"], f["uri"]);
                assert_eq!(r["refers_to_date"], f["date"]);
                revisits += 1;
            }
        }
    }
    assert_eq!(revisits, 2);
    assert_eq!(first.len(), 3);
}

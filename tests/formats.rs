//! nlpc-dump's corpus formats read back by real readers: JSON Lines by a
//! JSON parser, WET by warcio (linked to the responses of a WARC file
//! written by another run), vertical text by a checker of its structure;
//! and incremental export with --since and a cursor.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use nlpcrawl::run::clock;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::Store;
use serde_json::Value;
use unicode_segmentation::UnicodeSegmentation;

const P1: &str = "Rīgā šonedēļ sāka atjaunot veco tiltu pār Daugavu, un darbi, kā sola \
    būvnieki, ilgs līdz rudenim, jo pēc ziemas ir jāpārbauda visi balsti un arī \
    tie akmeņi, kas ir zem ūdens.";
const P2: &str = "Kamēr tilts būs slēgts, pilsētas iedzīvotāji varēs izmantot prāmi, kas kursēs \
    ik pēc pusstundas, bet naktīs tas nekursēs, tāpēc pašvaldība lūdz braucienus \
    plānot jau laikus un, ja vien var, izvēlēties citus ceļus.";
const P3: &str = "Ezera krastā šovasar atkal varēs peldēties, jo ūdens ir tīrs, kā liecina \
    pārbaudes, ko veica jau maijā, un arī glābēji būs savās vietās katru dienu no \
    desmitiem rītā līdz astoņiem vakarā.";
const P4: &str = "Pašvaldība lūdz atpūtniekus nemest atkritumus zālē, bet likt tos \
    konteineros, kas ir pie ieejas, jo pērn tīrīšanai tika iztērēts vairāk, nekā \
    bija paredzēts, un tas nav labi nevienam.";
const P5: &str = "Jūras krastā vējš šonedēļ būs stiprs, tāpēc zvejnieki laivas nelaidīs \
    ūdenī, kamēr tas nerimsies, un arī ostā kuģi gaidīs, līdz viļņi kļūs mazāki, \
    kā to iesaka dienests, kas seko laikapstākļiem.";

/// The title of the first page, with quotes, an ampersand and angle
/// brackets, as its HTML writes it and as the text reads.
const TITLE_HTML: &str = "Tilts &amp; &quot;prāmis&quot; &lt;ziņas&gt;";
const TITLE: &str = "Tilts & \"prāmis\" <ziņas>";

fn page(title: &str, head: &str, paras: &[&str]) -> String {
    let ps: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <nav><a href=/>Sākums</a> <a href=/zinas>Ziņas</a></nav>\
         <article><h1>{head}</h1>{ps}</article>\
         <footer>&copy; 2026 Ziņas. <a href=/kontakti>Kontakti</a></footer></body></html>"
    )
}

/// Plants a FRESH record with `body`, as nlpc-fetch leaves one.
fn plant_fresh(c: &Crawl, st: &Store, url: &str, charset: &str, body: &[u8]) {
    let mut r = Record::new(url, 1_700_000_000);
    r.state = State::Fresh;
    r.addr = "192.0.2.7".into();
    r.status = 200;
    r.fetched = 1_700_000_000;
    r.content_type = "text/html".into();
    r.charset = charset.into();
    r.size = body.len() as u64;
    r.hash = *blake3::hash(body).as_bytes();
    let key = insert_new(st, &r);
    c.cache().write(&key, body).expect("cache write");
}

fn dict() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/vrfy/lv.dict")
        .display()
        .to_string()
}

/// Runs nlpc-vrfy over the FRESH records, with the crawl's clock shifted
/// by `offset` seconds.
fn verify(c: &Crawl, offset: i64) {
    let d = dict();
    let o = c
        .cmd("nlpc-vrfy")
        .args(["--once", "--filter-lang", "lv", "--filter-dict", &d])
        .env(clock::OFFSET_VAR, offset.to_string())
        .output()
        .expect("run nlpc-vrfy");
    assert_eq!(o.status.code(), Some(0), "nlpc-vrfy: {}", stderr(&o));
    assert_eq!(urls_in(&c.store(), State::Fresh), Vec::<String>::new());
}

/// Two Latvian pages, one in windows-1257 (the server said so), both
/// verified by nlpc-vrfy.
fn corpus(c: &Crawl) -> HashMap<&'static str, String> {
    let st = c.store();
    let tilts = page(TITLE_HTML, "Tilts būs slēgts", &[P1, P2]);
    plant_fresh(c, &st, "http://lv.test/tilts", "utf-8", tilts.as_bytes());
    let ezers = page("Ezers", "Peldēšanās sezona", &[P3, P4])
        .replace("charset=utf-8", "charset=windows-1257");
    let (bytes, _, bad) = encoding_rs::WINDOWS_1257.encode(&ezers);
    assert!(!bad, "the page is in windows-1257");
    plant_fresh(c, &st, "http://lv.test/ezers", "windows-1257", &bytes);
    drop(st);
    verify(c, 0);
    let st = c.store();
    assert_eq!(
        urls_in(&st, State::Verified).len(),
        2,
        "both pages verified"
    );
    HashMap::from([
        (
            "http://lv.test/tilts",
            format!("Tilts būs slēgts\n\n{P1}\n\n{P2}"),
        ),
        (
            "http://lv.test/ezers",
            format!("Peldēšanās sezona\n\n{P3}\n\n{P4}"),
        ),
    ])
}

fn dump(c: &Crawl, args: &[&str]) -> String {
    let o = c.run("nlpc-dump", args);
    assert_eq!(o.status.code(), Some(0), "nlpc-dump: {}", stderr(&o));
    stderr(&o)
}

/// The JSON objects of a JSON Lines file, each line parsed by itself.
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("JSON Lines file")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("no {k} in {v}"))
}

/// Thousandths of a 0-to-1 number, as records keep them.
fn milli(v: &Value) -> u16 {
    (v.as_f64().expect("a number") * 1000.0).round() as u16
}

#[test]
fn json_lines_hold_each_page_with_its_record() {
    let c = Crawl::new();
    let want = corpus(&c);
    let out = c.tmp.path().join("corpus.jsonl");
    let log = dump(&c, &["--jsonl", out.to_str().unwrap()]);
    assert!(log.contains(", 2 documents"), "{log}");
    let docs = jsonl(&out);
    assert_eq!(docs.len(), 2);
    let st = c.store();
    for d in &docs {
        let url = s(d, "url");
        let r = record(&st, url);
        assert_eq!(s(d, "final_url"), url);
        assert_eq!(d["redirects"], 0);
        assert_eq!(s(d, "fetched"), clock::iso8601(r.fetched));
        assert_eq!(s(d, "lang"), "lv");
        assert_eq!(s(d, "lang"), r.language);
        assert_eq!(milli(&d["lang_conf"]), r.lang_conf);
        assert!(r.lang_conf > 500, "{url}: {}", r.lang_conf);
        assert_eq!(s(d, "charset"), r.charset);
        assert_eq!(
            s(d, "charset_source"),
            r.charset_source.expect("verified").name()
        );
        assert_eq!(milli(&d["dict_ratio"]), r.dict_ratio);
        assert!(r.dict_ratio > 0, "{url}");
        assert_eq!(d["duplicate_of"], Value::Null);
        assert_eq!(s(d, "hash"), blake3::Hash::from(r.hash).to_hex().as_str());
        assert_eq!(s(d, "version"), "current");
        assert_eq!(s(d, "text"), want[url], "{url}");
    }
    // The same lines on standard output.
    let o = c.run("nlpc-dump", &["--jsonl", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let piped: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(piped, docs);
    let by = |u: &str| docs.iter().find(|d| d["url"] == u).expect(u);
    assert_eq!(s(by("http://lv.test/tilts"), "title"), TITLE);
    assert_eq!(s(by("http://lv.test/ezers"), "title"), "Ezers");
    assert_eq!(s(by("http://lv.test/ezers"), "charset"), "windows-1257");
    assert_eq!(s(by("http://lv.test/ezers"), "charset_source"), "header");
    // Each block's language, one a block of the text, and the shares.
    for d in &docs {
        let blocks = d["text"].as_str().unwrap().split("\n\n").count();
        let langs = d["block_langs"].as_array().unwrap();
        assert_eq!(langs.len(), blocks, "{d}");
        assert!(langs.iter().all(|l| l == "lv" || l.is_null()), "{d}");
        assert_eq!(d["langs"][0]["lang"], "lv", "{d}");
        let sum: f64 = d["langs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["share"].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 0.01, "{d}");
    }
    // Every key the manual lists, and no other.
    let mut keys: Vec<&str> = docs[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    let man =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("man/nlpc-dump.1"))
            .unwrap();
    for k in &keys {
        assert!(
            man.contains(&format!(".It Li {k}\n")),
            "{k} not in nlpc-dump(1)"
        );
    }
    assert_eq!(
        keys,
        [
            "block_langs",
            "charset",
            "charset_source",
            "dict_ratio",
            "duplicate_of",
            "fetched",
            "final_url",
            "hash",
            "lang",
            "lang_conf",
            "langs",
            "redirects",
            "text",
            "title",
            "url",
            "version"
        ]
    );
}

/// Reads a WARC file back with warcio (tests/data/warc_read.py), payloads
/// included; fails, saying what to install, without python3 or warcio.
fn warcio(warc: &Path) -> Vec<Value> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/warc_read.py");
    let o = Command::new(python())
        .arg(&script)
        .arg(warc)
        .arg("--payloads")
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed to read WARC with warcio ({e}); make venv"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "warc_read.py failed: {err}");
    assert!(err.is_empty(), "warcio complained: {err}");
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn wet_conversions_refer_to_the_responses_of_a_warc_written_apart() {
    let c = Crawl::new();
    let want = corpus(&c);
    let warc = c.tmp.path().join("corpus.warc.gz");
    let wet = c.tmp.path().join("corpus.wet.gz");
    // Two runs: the records' ids must agree across them.
    dump(&c, &["--warc", warc.to_str().unwrap()]);
    dump(&c, &["--wet", wet.to_str().unwrap()]);
    let responses: HashMap<String, Value> = warcio(&warc)
        .into_iter()
        .filter(|r| r["type"] == "response")
        .map(|r| (s(&r, "uri").to_string(), r))
        .collect();
    assert_eq!(responses.len(), 2);
    let recs = warcio(&wet);
    assert_eq!(s(&recs[0], "type"), "warcinfo");
    assert_eq!(s(&recs[0], "filename"), "corpus.wet.gz");
    assert_eq!(recs.len(), 3);
    let mut seen = Vec::new();
    for r in &recs[1..] {
        assert_eq!(s(r, "type"), "conversion");
        assert_eq!(s(r, "version"), "WARC/1.1");
        assert_eq!(s(r, "warcinfo_id"), s(&recs[0], "id"));
        assert_eq!(s(r, "content_type"), "text/plain; charset=utf-8");
        assert_eq!(r["digests_verified"], true, "{r}");
        let uri = s(r, "uri");
        let resp = &responses[uri];
        assert_eq!(s(r, "refers_to"), s(resp, "id"), "{uri}");
        assert_eq!(s(r, "date"), s(resp, "date"));
        assert_ne!(s(r, "id"), s(resp, "id"));
        // The language, its confidence and the charset, as every export
        // carries them.
        assert_eq!(s(r, "lang"), "lv", "{r}");
        let conf: f64 = s(r, "lang_conf").parse().unwrap();
        assert!(conf > 0.0 && conf <= 1.0, "{r}");
        let charset = s(r, "charset").to_ascii_lowercase();
        assert!(["utf-8", "windows-1257"].contains(&charset.as_str()), "{r}");
        assert!(!s(r, "charset_source").is_empty(), "{r}");
        let text = data_encoding::BASE64
            .decode(s(r, "payload").as_bytes())
            .unwrap();
        // The blocks a line.
        assert_eq!(
            String::from_utf8(text).unwrap(),
            format!("{}\n", want[uri].replace("\n\n", "\n"))
        );
        seen.push(uri.to_string());
    }
    seen.sort();
    assert_eq!(seen, ["http://lv.test/ezers", "http://lv.test/tilts"]);
}

/// An attribute value of a vertical-text tag, unescaped; fails on a raw
/// `<`, `>` or `&` that starts no entity.
fn attr(tag: &str, name: &str) -> String {
    let start = format!(" {name}=\"");
    let i = tag
        .find(&start)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + start.len();
    let end = tag[i..].find('"').expect("closing quote") + i;
    let raw = &tag[i..end];
    assert!(!raw.contains(['<', '>']), "raw bracket in {tag}");
    unescape(raw)
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let e = rest[i..].find(';').expect("an entity") + i;
        out.push_str(match &rest[i..=e] {
            "&amp;" => "&",
            "&lt;" => "<",
            "&gt;" => ">",
            "&quot;" => "\"",
            other => panic!("unknown entity {other}"),
        });
        rest = &rest[e + 1..];
    }
    out.push_str(rest);
    out
}

/// A document of a vertical file: its `<doc>` tag and its paragraphs, each
/// with its type and its text put back together from the tokens and glue.
struct VertDoc {
    tag: String,
    tokens: usize,
    paras: Vec<(String, String)>,
}

/// Checks the structure of a vertical file and reads its documents.
fn read_vert(text: &str) -> Vec<VertDoc> {
    let mut docs: Vec<VertDoc> = Vec::new();
    let (mut in_doc, mut in_p, mut glue) = (false, false, false);
    for l in text.lines() {
        if l.starts_with("<doc ") && l.ends_with('>') {
            assert!(!in_doc, "<doc> inside <doc>");
            in_doc = true;
            docs.push(VertDoc {
                tag: l.to_string(),
                tokens: 0,
                paras: Vec::new(),
            });
        } else if l == "</doc>" {
            assert!(in_doc && !in_p, "</doc> out of place");
            in_doc = false;
        } else if l.starts_with("<p type=\"") && l.ends_with("\">") {
            assert!(in_doc && !in_p, "<p> outside <doc> or inside <p>");
            in_p = true;
            let ty = attr(l, "type");
            docs.last_mut().unwrap().paras.push((ty, String::new()));
        } else if l == "</p>" {
            assert!(in_p, "</p> without <p>");
            in_p = false;
        } else if l == "<g/>" {
            assert!(in_p, "glue outside <p>");
            glue = true;
        } else {
            assert!(in_p, "token outside <p>: {l:?}");
            assert!(!l.is_empty() && !l.contains(char::is_whitespace), "{l:?}");
            assert!(!l.contains(['<', '>']), "raw bracket in token line {l:?}");
            let d = docs.last_mut().unwrap();
            d.tokens += 1;
            let p = &mut d.paras.last_mut().unwrap().1;
            if !p.is_empty() && !glue {
                p.push(' ');
            }
            p.push_str(&unescape(l));
            glue = false;
        }
    }
    assert!(!in_doc && !in_p, "unclosed structure at the end");
    docs
}

/// Words by Unicode word boundaries, white space left out.
fn word_count(s: &str) -> usize {
    s.split_word_bounds()
        .filter(|w| !w.chars().all(char::is_whitespace))
        .count()
}

#[test]
fn vertical_text_is_well_formed_and_holds_every_word() {
    let c = Crawl::new();
    let want = corpus(&c);
    let out = c.tmp.path().join("corpus.vert");
    let js = c.tmp.path().join("corpus.jsonl");
    dump(
        &c,
        &[
            "--vert",
            out.to_str().unwrap(),
            "--jsonl",
            js.to_str().unwrap(),
        ],
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let docs = read_vert(&text);
    assert_eq!(docs.len(), 2);
    let st = c.store();
    for d in &docs {
        let url = attr(&d.tag, "url");
        let r = record(&st, &url);
        assert_eq!(attr(&d.tag, "lang"), r.language);
        assert_eq!(attr(&d.tag, "fetched"), clock::iso8601(r.fetched));
        assert_eq!(attr(&d.tag, "duplicate_of"), "");
        // Every word of the text, and the text again from the tokens.
        assert_eq!(d.tokens, word_count(&want[url.as_str()]), "{url}");
        let paras: Vec<&str> = want[url.as_str()].split("\n\n").collect();
        let got: Vec<&str> = d.paras.iter().map(|p| p.1.as_str()).collect();
        assert_eq!(got, paras);
        assert_eq!(d.paras[0].0, "heading");
        assert!(d.paras[1..].iter().all(|p| p.0 == "text"));
    }
    // The title's quotes, ampersand and brackets escaped in the tag.
    let tilts = docs
        .iter()
        .find(|d| attr(&d.tag, "url") == "http://lv.test/tilts")
        .unwrap();
    assert!(
        tilts
            .tag
            .contains(" title=\"Tilts &amp; &quot;prāmis&quot; &lt;ziņas&gt;\""),
        "{}",
        tilts.tag
    );
    assert_eq!(attr(&tilts.tag, "title"), TITLE);
    // Punctuation is a token of its own, glued to the word before it.
    assert!(text.contains("\nDaugavu\n<g/>\n,\n"), "{text}");
    // The same documents as the JSON Lines of the same run.
    assert_eq!(jsonl(&js).len(), docs.len());
}

#[test]
fn since_and_a_cursor_export_only_what_changed() {
    let c = Crawl::new();
    corpus(&c);
    let out = |n: &str| c.tmp.path().join(n);
    let urls = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = jsonl(p).iter().map(|d| s(d, "url").to_string()).collect();
        v.sort();
        v
    };
    // An export that fails leaves the cursor where it was.
    let o = c.run(
        "nlpc-dump",
        &["--cursor", "weekly", "--jsonl", "/nonexistent/dir/x.jsonl"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let cursor = |file: &str| {
        let p = out(file);
        dump(&c, &["--cursor", "weekly", "--jsonl", p.to_str().unwrap()]);
        urls(&p)
    };
    assert_eq!(
        cursor("1.jsonl"),
        ["http://lv.test/ezers", "http://lv.test/tilts"]
    );
    // Nothing new: an empty file.
    assert_eq!(cursor("2.jsonl"), Vec::<String>::new());
    assert_eq!(std::fs::metadata(out("2.jsonl")).unwrap().len(), 0);

    // One more page, verified an hour later (by the crawl's clock).
    let st = c.store();
    let jura = page("Jūra", "Vētra", &[P5]);
    plant_fresh(&c, &st, "http://lv.test/jura", "utf-8", jura.as_bytes());
    drop(st);
    verify(&c, 3600);
    let changed = record(&c.store(), "http://lv.test/jura").changed;
    assert!(
        changed >= clock::now() + 3000,
        "verified in the shifted clock"
    );
    assert_eq!(cursor("3.jsonl"), ["http://lv.test/jura"]);
    assert_eq!(cursor("4.jsonl"), Vec::<String>::new());

    // --since, as RFC 3339 and as Unix seconds: only the later page.
    let half = changed - 1800;
    for t in [clock::iso8601(half), half.to_string()] {
        let p = out("since.jsonl");
        dump(&c, &["--since", &t, "--jsonl", p.to_str().unwrap()]);
        assert_eq!(urls(&p), ["http://lv.test/jura"], "--since {t}");
    }
    // At or after: the exact second counts.
    let p = out("exact.jsonl");
    dump(
        &c,
        &[
            "--since",
            &changed.to_string(),
            "--jsonl",
            p.to_str().unwrap(),
        ],
    );
    assert_eq!(urls(&p), ["http://lv.test/jura"]);
    // nlpc-scan moves the pages on, which changes nothing of them: the
    // cursor does not export them again.
    let o = c.run("nlpc-scan", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "nlpc-scan: {}", stderr(&o));
    assert_eq!(urls_in(&c.store(), State::Verified), Vec::<String>::new());
    assert_eq!(cursor("5.jsonl"), Vec::<String>::new());

    // Another cursor starts from the beginning.
    let p = out("other.jsonl");
    dump(&c, &["--cursor", "other", "--jsonl", p.to_str().unwrap()]);
    assert_eq!(urls(&p).len(), 3);

    for (args, says) in [
        (&["--jsonl", "x", "--since", "yesterday"][..], "--since"),
        (&["--jsonl", "x", "--cursor", "a/b"][..], "--cursor"),
        (&["--jsonl", "-", "--vert", "-"][..], "standard output"),
    ] {
        let o = c.run("nlpc-dump", args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

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

/// A value of a vertical file unescaped; fails on a raw `<`, `>` or
/// control character, and on an `&` that starts no entity.
fn unescape(s: &str) -> String {
    assert!(
        !s.contains(['<', '>']) && !s.chars().any(char::is_control),
        "raw markup or control character in {s:?}"
    );
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
            other => panic!("unknown entity {other} in {s:?}"),
        });
        rest = &rest[e + 1..];
    }
    out.push_str(rest);
    out
}

/// The name and attributes of a structure's opening tag, values
/// unescaped: `<name k="v" ...>` and nothing else.
fn tag(line: &str) -> (String, Vec<(String, String)>) {
    let inner = line
        .strip_prefix('<')
        .and_then(|l| l.strip_suffix('>'))
        .unwrap_or_else(|| panic!("not a tag: {line:?}"));
    let (name, mut rest) = inner.split_once(' ').unwrap_or((inner, ""));
    let mut attrs = Vec::new();
    while !rest.is_empty() {
        let (k, after) = rest
            .split_once("=\"")
            .unwrap_or_else(|| panic!("bad attribute in {line:?}"));
        assert!(
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "bad attribute name {k:?} in {line:?}"
        );
        let (v, after) = after
            .split_once('"')
            .unwrap_or_else(|| panic!("unclosed value in {line:?}"));
        attrs.push((k.to_string(), unescape(v)));
        rest = match after.strip_prefix(' ') {
            Some(r) => r,
            None => {
                assert!(after.is_empty(), "junk after a value in {line:?}");
                after
            }
        };
    }
    (name.to_string(), attrs)
}

fn attr<'a>(attrs: &'a [(String, String)], k: &str) -> &'a str {
    attrs
        .iter()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {k} in {attrs:?}"))
}

/// A token line and whether a `<g/>` glued it to the token before.
type Tok = (String, bool);

/// A `<p>` of a vertical file: its attributes and sentences.
struct VertPara {
    attrs: Vec<(String, String)>,
    sentences: Vec<Vec<Tok>>,
}

impl VertPara {
    /// The text put back together: tokens parted by a space unless glued.
    fn text(&self) -> String {
        let mut t = String::new();
        for (tok, glued) in self.sentences.iter().flatten() {
            if !t.is_empty() && !glued {
                t.push(' ');
            }
            t.push_str(tok);
        }
        t
    }

    fn tokens(&self) -> Vec<&str> {
        self.sentences
            .iter()
            .flatten()
            .map(|t| t.0.as_str())
            .collect()
    }
}

/// A `<doc>` of a vertical file.
struct VertDoc {
    attrs: Vec<(String, String)>,
    paras: Vec<VertPara>,
}

/// The attributes of `<doc>` and `<p>`, in order, as nlpc-dump(1) lists
/// them for cwb-encode.
const DOC_ATTRS: [&str; 12] = [
    "url",
    "final_url",
    "title",
    "domain",
    "fetched",
    "crawl_date",
    "lang",
    "lang_conf",
    "langs",
    "charset",
    "dict_ratio",
    "duplicate_of",
];
const P_ATTRS: [&str; 3] = ["type", "heading", "lang"];

/// Checks the whole structure of a vertical file and reads its documents:
/// every `<s>` in a `<p>` in a `<doc>`, each closed where it must be, no
/// structure empty, the attributes those of the manual and escaped, glue
/// only between two tokens of a sentence, and each token line one token
/// with no markup, control character or white space at its ends (inside
/// only in a number in groups of three digits).
fn read_vert(text: &str) -> Vec<VertDoc> {
    let mut docs: Vec<VertDoc> = Vec::new();
    let (mut in_doc, mut in_p, mut in_s, mut glue) = (false, false, false, false);
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "no line break at the end"
    );
    for l in text.lines() {
        match l {
            "</doc>" => {
                assert!(in_doc && !in_p, "</doc> out of place");
                in_doc = false;
            }
            "</p>" => {
                assert!(in_p && !in_s, "</p> out of place");
                assert!(
                    !docs
                        .last()
                        .unwrap()
                        .paras
                        .last()
                        .unwrap()
                        .sentences
                        .is_empty(),
                    "a <p> without a sentence"
                );
                in_p = false;
            }
            "<s>" => {
                assert!(in_p && !in_s, "<s> outside <p> or inside <s>");
                in_s = true;
                let p = docs.last_mut().unwrap().paras.last_mut().unwrap();
                p.sentences.push(Vec::new());
            }
            "</s>" => {
                assert!(in_s && !glue, "</s> out of place or after glue");
                let p = docs.last().unwrap().paras.last().unwrap();
                assert!(!p.sentences.last().unwrap().is_empty(), "an empty <s>");
                in_s = false;
            }
            "<g/>" => {
                assert!(in_s && !glue, "glue outside a sentence or twice");
                let p = docs.last().unwrap().paras.last().unwrap();
                assert!(!p.sentences.last().unwrap().is_empty(), "glue first in <s>");
                glue = true;
            }
            l if l.starts_with("<doc ") => {
                assert!(!in_doc, "<doc> inside <doc>");
                let (_, attrs) = tag(l);
                let names: Vec<&str> = attrs.iter().map(|a| a.0.as_str()).collect();
                assert_eq!(names, DOC_ATTRS, "{l}");
                in_doc = true;
                docs.push(VertDoc {
                    attrs,
                    paras: Vec::new(),
                });
            }
            l if l.starts_with("<p ") => {
                assert!(in_doc && !in_p, "<p> outside <doc> or inside <p>");
                let (_, attrs) = tag(l);
                let names: Vec<&str> = attrs.iter().map(|a| a.0.as_str()).collect();
                assert_eq!(names, P_ATTRS, "{l}");
                in_p = true;
                docs.last_mut().unwrap().paras.push(VertPara {
                    attrs,
                    sentences: Vec::new(),
                });
            }
            l => {
                assert!(in_s, "token outside <s>: {l:?}");
                let t = unescape(l);
                assert!(!t.is_empty(), "an empty token line");
                assert_eq!(t.trim(), t, "white space at a token's end");
                if t.contains(char::is_whitespace) {
                    // Only a number in groups of three digits.
                    let groups: Vec<&str> = t.split([' ', '\u{a0}', '\u{202f}']).collect();
                    assert!(
                        groups[0].len() <= 3
                            && groups
                                .iter()
                                .all(|g| g.bytes().all(|b| b.is_ascii_digit() || b == b','))
                            && groups[1..]
                                .iter()
                                .all(|g| g.get(..3).is_some_and(|d| d.len() == 3)),
                        "white space inside token {t:?}"
                    );
                }
                let p = docs.last_mut().unwrap().paras.last_mut().unwrap();
                p.sentences.last_mut().unwrap().push((t, glue));
                glue = false;
            }
        }
    }
    assert!(!in_doc && !in_p && !in_s, "unclosed structure at the end");
    docs
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
        let url = attr(&d.attrs, "url").to_string();
        let r = record(&st, &url);
        assert_eq!(attr(&d.attrs, "lang"), r.language);
        let fetched = clock::iso8601(r.fetched);
        assert_eq!(attr(&d.attrs, "fetched"), fetched);
        assert_eq!(attr(&d.attrs, "crawl_date"), &fetched[..10]);
        assert_eq!(attr(&d.attrs, "domain"), "lv.test");
        assert_eq!(attr(&d.attrs, "duplicate_of"), "");
        assert_eq!(
            milli(&Value::from(
                attr(&d.attrs, "lang_conf").parse::<f64>().unwrap()
            )),
            r.lang_conf
        );
        // Every word of the text, and the text again from the tokens: a
        // heading, then paragraphs of one sentence each.
        let paras: Vec<&str> = want[url.as_str()].split("\n\n").collect();
        let got: Vec<String> = d.paras.iter().map(VertPara::text).collect();
        assert_eq!(got, paras);
        assert!(d.paras.iter().all(|p| p.sentences.len() == 1), "{url}");
        assert_eq!(attr(&d.paras[0].attrs, "type"), "heading");
        assert_eq!(attr(&d.paras[0].attrs, "heading"), "1");
        for p in &d.paras[1..] {
            assert_eq!(attr(&p.attrs, "type"), "text");
            assert_eq!(attr(&p.attrs, "heading"), "0");
        }
    }
    // The title's quotes, ampersand and brackets escaped in the tag.
    let tilts = docs
        .iter()
        .find(|d| attr(&d.attrs, "url") == "http://lv.test/tilts")
        .unwrap();
    assert!(
        text.contains(" title=\"Tilts &amp; &quot;prāmis&quot; &lt;ziņas&gt;\" "),
        "{text}"
    );
    assert_eq!(attr(&tilts.attrs, "title"), TITLE);
    // Punctuation is a token of its own, glued to the word before it.
    assert!(text.contains("\nDaugavu\n<g/>\n,\n"), "{text}");
    // The same documents as the JSON Lines of the same run.
    assert_eq!(jsonl(&js).len(), docs.len());
    // The attributes as the manual declares them for cwb-encode.
    let man =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("man/nlpc-dump.1"))
            .unwrap();
    for decl in [
        format!("-S doc:0+{}", DOC_ATTRS.join("+")),
        format!("-S p:0+{}", P_ATTRS.join("+")),
    ] {
        assert!(
            man.contains(&format!(".Ql {decl}")),
            "{decl} not in nlpc-dump(1)"
        );
    }
}

/// The cases of Latvian tokenisation in one page: ordinals, numbers in
/// groups, abbreviations, initials, a hyphenated word, a decimal, runs of
/// marks, a URL and an e-mail address, a number ending a sentence.
const CASES: [&str; 3] = [
    "Rīgā 2024. gada 1. maijā dzīvoja 605 000 cilvēku, bet visā valstī ap 1 900 000, \
     t.i., vairāk nekā pirms gada, un to rāda arī citi dati, piem., skolu u.c. iestāžu \
     skaitļi.",
    "Vai tiešām tā ir?! Jā, jo Austrumeiropas-Baltijas biedrība to pārbaudīja jau \
     1990. gadā, kad J. Kalniņš sāka rakstīt savu pirmo e-pastu par to.",
    "Vidējais rādītājs ir 3,14 un tas ir labi. Pirmo reizi tas notika 2019. Tagad par \
     to var lasīt www.piemers.lv vai rakstīt uz info@piemers.lv, kur ir arī viss cits utt.",
];

#[test]
fn vertical_text_cuts_latvian_as_the_treebank_does() {
    let c = Crawl::new();
    let st = c.store();
    let html = page("Skaitļi &amp; fakti", "Skaitļi un fakti", &CASES);
    plant_fresh(&c, &st, "http://lv.test/skaitli", "utf-8", html.as_bytes());
    drop(st);
    verify(&c, 0);
    let out = c.tmp.path().join("cases.vert");
    dump(&c, &["--vert", out.to_str().unwrap()]);
    let docs = read_vert(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(docs.len(), 1);
    let d = &docs[0];
    assert_eq!(attr(&d.attrs, "title"), "Skaitļi & fakti");
    assert_eq!(d.paras.len(), 4);
    // Nothing lost: the paragraphs again from the tokens.
    let got: Vec<String> = d.paras[1..].iter().map(VertPara::text).collect();
    assert_eq!(got, CASES);
    let sentences = |p: &VertPara| -> Vec<Vec<String>> {
        p.sentences
            .iter()
            .map(|s| s.iter().map(|t| t.0.clone()).collect())
            .collect()
    };
    assert_eq!(
        d.paras[1].tokens(),
        [
            "Rīgā",
            "2024.",
            "gada",
            "1.",
            "maijā",
            "dzīvoja",
            "605 000",
            "cilvēku",
            ",",
            "bet",
            "visā",
            "valstī",
            "ap",
            "1 900 000",
            ",",
            "t.i.",
            ",",
            "vairāk",
            "nekā",
            "pirms",
            "gada",
            ",",
            "un",
            "to",
            "rāda",
            "arī",
            "citi",
            "dati",
            ",",
            "piem.",
            ",",
            "skolu",
            "u.c.",
            "iestāžu",
            "skaitļi",
            "."
        ]
    );
    // One sentence: not ended after an abbreviation or an ordinal.
    assert_eq!(d.paras[1].sentences.len(), 1);
    let s2 = sentences(&d.paras[2]);
    assert_eq!(s2.len(), 2, "{s2:?}");
    assert_eq!(s2[0], ["Vai", "tiešām", "tā", "ir", "?!"]);
    // "?!" is glued to the word before it.
    assert!(d.paras[2].sentences[0][4].1);
    for t in [
        "Austrumeiropas-Baltijas",
        "1990.",
        "J.",
        "Kalniņš",
        "e-pastu",
    ] {
        assert!(s2[1].iter().any(|x| x == t), "{t} in {:?}", s2[1]);
    }
    let s3 = sentences(&d.paras[3]);
    assert_eq!(
        s3,
        [
            vec![
                "Vidējais",
                "rādītājs",
                "ir",
                "3,14",
                "un",
                "tas",
                "ir",
                "labi",
                "."
            ],
            vec!["Pirmo", "reizi", "tas", "notika", "2019", "."],
            vec![
                "Tagad",
                "par",
                "to",
                "var",
                "lasīt",
                "www.piemers.lv",
                "vai",
                "rakstīt",
                "uz",
                "info@piemers.lv",
                ",",
                "kur",
                "ir",
                "arī",
                "viss",
                "cits",
                "utt."
            ]
        ]
    );
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

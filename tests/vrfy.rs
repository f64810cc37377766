//! nlpc-vrfy: a corpus of real-shaped pages in six languages and many
//! charsets, with correct, wrong and missing declarations, judged under a
//! Latvian crawl's options and under none; the daemon end to end; bad
//! dictionaries and options; and a SIGKILL mid-run that loses nothing.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;
use nlpcrawl::document::charset;
use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::lang;
use nlpcrawl::stage::vrfy::{verify, Config, Rejection};
use nlpcrawl::store::record::{Flags, Record, State};
use nlpcrawl::store::{dups, Key, Store};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy")
}

/// One line of tests/data/vrfy/MANIFEST.
#[derive(Debug)]
struct Case {
    file: String,
    content_type: String,
    http: String,
    charset: String,
    language: String,
    strict: (State, String),
    open: (State, String),
}

fn dash(s: &str) -> String {
    if s == "-" {
        String::new()
    } else {
        s.to_string()
    }
}

fn state(s: &str) -> State {
    s.parse().unwrap()
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus().join("MANIFEST")).unwrap();
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 9, "bad MANIFEST line {l:?}");
            Case {
                file: f[0].into(),
                content_type: dash(f[1]),
                http: dash(f[2]),
                charset: f[3].into(),
                language: f[4].into(),
                strict: (state(f[5]), dash(f[6])),
                open: (state(f[7]), dash(f[8])),
            }
        })
        .collect();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    cases
}

fn record(c: &Case) -> Record {
    let mut r = Record::new(&format!("http://corpus.test/{}", c.file), 1);
    r.state = State::Fresh;
    r.content_type = c.content_type.clone();
    r.charset = c.http.clone();
    r
}

const STRICT_CHARSETS: &str = "utf-8 windows-1257 iso-8859-4 iso-8859-13";

fn strict() -> Config {
    Config {
        charsets: STRICT_CHARSETS
            .split(' ')
            .map(|l| charset::resolve(l).unwrap())
            .collect(),
        langs: vec![
            lang::parse_detectable("lv").unwrap(),
            lang::parse_detectable("lit").unwrap(),
        ],
        dict: Some(Dict::load(&corpus().join("lv.dict")).unwrap()),
        ..Config::default()
    }
}

/// Judges every page under `cfg`; returns the table of what came out and
/// the list of mismatches against `want`.
fn judge(cfg: &Config, want: impl Fn(&Case) -> &(State, String)) -> (String, Vec<String>) {
    let mut table = String::new();
    let mut bad = Vec::new();
    for c in cases() {
        let body = read_fixture(&corpus(), &c.file);
        let rec = record(&c);
        let out = verify(cfg, &rec, Some(&body)).apply(&rec, 2);
        table.push_str(&format!(
            "{}\t{}\t{}\t{} {}\t{}\t{}\n",
            c.file, out.state, out.charset, out.language, out.lang_conf, out.dict_ratio, out.reason
        ));
        let (st, reason) = want(&c);
        if out.state != *st || !out.reason.starts_with(reason.as_str()) {
            bad.push(format!(
                "{}: {} {:?}, want {} {:?}",
                c.file, out.state, out.reason, st, reason
            ));
        }
        if out.charset != c.charset {
            bad.push(format!(
                "{}: charset {}, want {}",
                c.file, out.charset, c.charset
            ));
        }
        if out.state == State::Verified && !reason.is_empty() {
            bad.push(format!("{}: verified with a reason", c.file));
        }
    }
    (table, bad)
}

#[test]
fn corpus_under_latvian_crawl_options() {
    let (table, bad) = judge(&strict(), |c| &c.strict);
    assert!(bad.is_empty(), "{}\n\n{table}", bad.join("\n"));
}

#[test]
fn corpus_under_no_filters_detects_each_language() {
    let cfg = Config::default();
    let (table, bad) = judge(&cfg, |c| &c.open);
    assert!(bad.is_empty(), "{}\n\n{table}", bad.join("\n"));
    // With no filter the language is recorded, and it is right.
    let mut langs = 0;
    for c in cases() {
        if c.language.len() != 2 {
            continue;
        }
        let body = read_fixture(&corpus(), &c.file);
        let rec = record(&c);
        for cap in [0, 1024, cfg.lang_max_text] {
            let cfg = Config {
                lang_max_text: cap,
                ..Config::default()
            };
            let out = verify(&cfg, &rec, Some(&body)).apply(&rec, 2);
            assert_eq!(out.language, c.language, "{} (cap {cap})", c.file);
            assert!(out.lang_conf > 500, "{}: {}", c.file, out.lang_conf);
        }
        langs += 1;
    }
    assert!(langs >= 20, "{langs}");
}

#[test]
fn verified_latvian_pages_record_what_was_measured() {
    let cfg = strict();
    for c in cases()
        .iter()
        .filter(|c| c.strict.0 == State::Verified || c.strict.1.starts_with("dictionary"))
    {
        let body = read_fixture(&corpus(), &c.file);
        let rec = record(c);
        let out = verify(&cfg, &rec, Some(&body)).apply(&rec, 2);
        if out.state == State::Verified {
            assert_eq!(out.language, "lv", "{}", c.file);
            assert!(out.dict_ratio >= 100, "{}: {}", c.file, out.dict_ratio);
        } else {
            // Lithuanian passes the language filter, not the dictionary.
            assert_eq!(out.language, "lt", "{}", c.file);
            assert!(out.dict_ratio < 100, "{}: {}", c.file, out.dict_ratio);
            let want = format!("dictionary {:.1}%", out.dict_ratio as f64 / 10.0);
            assert!(
                out.reason.starts_with(&want[..want.len() - 3]),
                "{}",
                out.reason
            );
        }
        assert!(out.lang_conf >= 500, "{}: {}", c.file, out.lang_conf);
    }
}

/// The dictionary ratio nlpc-vrfy records, counted from the words its
/// extraction noted, is the ratio of the dictionary over the sample of the
/// main text the manual describes (all of it up to 16 KiB), for short
/// pages and for long ones made of the corpus pages' text.
#[test]
fn the_dictionary_ratio_is_that_of_the_main_texts_sample() {
    use nlpcrawl::document::{extract, text};
    use nlpcrawl::stage::vrfy::DICT_SAMPLE;
    let cfg = Config {
        langs: Vec::new(),
        ..strict()
    };
    let d = cfg.dict.as_ref().unwrap();
    let mut long = 0;
    for c in cases() {
        let body = read_fixture(&corpus(), &c.file);
        let rec = record(&c);
        let kind = charset::Kind::of(&rec.content_type).unwrap_or(charset::Kind::Html);
        let det = charset::detect(&body, &c.http, kind, &charset::Hints::default());
        let visible = text::visible(&charset::decode(&body, &det), kind).text;
        // The page itself, and its text repeated past the sample's size
        // in paragraphs between a menu and a footer.
        let mut page = String::from("<html><head><meta charset=utf-8></head><body><nav>");
        page.push_str("<a href=/>Sākums</a> <a href=/z>Ziņas</a></nav><article>");
        while page.len() < 3 * DICT_SAMPLE {
            page.push_str("<p>");
            page.push_str(&visible.replace('&', "&amp;").replace('<', "&lt;"));
            page.push_str("</p>\n");
        }
        page.push_str("</article><footer>Kontakti</footer></body></html>");
        let html = {
            let mut r = rec.clone();
            r.content_type = "text/html".into();
            r.charset = String::new();
            r
        };
        for (r, b) in [(&rec, body.clone()), (&html, page.into_bytes())] {
            let v = verify(&cfg, r, Some(&b));
            if v.rejection.is_some() && v.dict_ratio.is_none() {
                continue;
            }
            let kind = charset::Kind::of(&r.content_type).unwrap_or(charset::Kind::Html);
            let det = v.charset.unwrap();
            let doc = charset::decode(&b, &det);
            let main = extract::main_text(&doc, kind);
            let judged = if main.blocks.is_empty() {
                text::visible(&doc, kind).text
            } else {
                main.text()
            };
            let want = d.ratio(&lang::sample(&judged, DICT_SAMPLE)).share();
            assert_eq!(v.dict_ratio, Some(want), "{}", c.file);
            long += usize::from(judged.len() > DICT_SAMPLE);
        }
    }
    assert!(long >= 10, "{long}");
}

#[test]
fn stale_fields_of_a_refetched_record_are_replaced() {
    let c = cases()
        .into_iter()
        .find(|c| c.file == "lv-daugava-utf8.html")
        .unwrap();
    let mut rec = record(&c);
    rec.reason = "language ru".into();
    rec.language = "ru".into();
    rec.dict_ratio = 3;
    let body = read_fixture(&corpus(), &c.file);
    let out = verify(&strict(), &rec, Some(&body)).apply(&rec, 2);
    assert_eq!((out.state, out.reason.as_str()), (State::Verified, ""));
    assert_eq!(out.language, "lv");
    assert!(out.dict_ratio > 100);
}

#[test]
fn the_use_charset_default_applies_only_without_a_declaration() {
    let cfg = Config {
        use_charset: charset::resolve("windows-1257"),
        ..strict()
    };
    for (file, ok) in [
        ("lv-riga-nodecl.html", true),
        ("de-bodensee-latin1.html", false),
    ] {
        let c = cases().into_iter().find(|c| c.file == file).unwrap();
        let body = read_fixture(&corpus(), file);
        let out = verify(&cfg, &record(&c), Some(&body));
        assert_eq!(out.rejection.is_none(), ok, "{file}: {:?}", out.rejection);
    }
}

#[test]
fn language_filters_and_thresholds() {
    let c = cases()
        .into_iter()
        .find(|c| c.file == "lv-riga-win1257.html")
        .unwrap();
    let body = read_fixture(&corpus(), &c.file);
    let rec = record(&c);
    let only = |langs: &[&str], f: &dyn Fn(&mut Config)| {
        let mut cfg = Config {
            langs: langs
                .iter()
                .map(|l| lang::parse_detectable(l).unwrap())
                .collect(),
            ..Config::default()
        };
        f(&mut cfg);
        verify(&cfg, &rec, Some(&body)).rejection
    };
    assert_eq!(only(&["lav"], &|_| {}), None);
    assert_eq!(only(&["et", "lv"], &|_| {}), None);
    assert_eq!(only(&["lt"], &|_| {}), Some(Rejection::Language("lv")));
    match only(&["lv"], &|c| c.lang_min_text = 100_000) {
        Some(Rejection::TooLittleText(n)) => assert!((1000..100_000).contains(&n), "{n}"),
        other => panic!("{other:?}"),
    }
    match only(&["lv"], &|c| c.lang_min_conf = 1.0) {
        None => {} // whatlang may be fully sure
        Some(Rejection::LanguageUncertain("lv", _)) => {}
        other => panic!("{other:?}"),
    }
    // A dictionary share that is never reached.
    let cfg = Config {
        dict: Some(Dict::load(&corpus().join("lv.dict")).unwrap()),
        dict_min: 0.99,
        ..Config::default()
    };
    assert!(matches!(
        verify(&cfg, &rec, Some(&body)).rejection,
        Some(Rejection::Dictionary(..))
    ));
}

/// Plants a FRESH record for corpus case `c` with its HTTP charset.
fn plant_case(crawl: &Crawl, st: &Store, c: &Case) -> Key {
    let body = read_fixture(&corpus(), &c.file);
    let key = crawl.plant(
        st,
        &format!("http://corpus.test/{}", c.file),
        State::Fresh,
        &c.content_type,
        &body,
    );
    set(st, &key, |r| r.charset = c.http.clone());
    key
}

/// Changes a stored record in place.
fn set(st: &Store, key: &Key, f: impl FnOnce(&mut Record)) {
    let mut w = st.write().unwrap();
    let mut r = w.get(key).unwrap().unwrap();
    f(&mut r);
    w.update(key, &r).unwrap();
    w.commit().unwrap();
}

fn strict_args(dict: &str) -> Vec<String> {
    vec![
        "--filter-charset".into(),
        STRICT_CHARSETS.into(),
        "--filter-lang".into(),
        "lv,lit".into(),
        "--filter-dict".into(),
        dict.into(),
        "--filter-dict-pct".into(),
        "10".into(),
    ]
}

#[test]
fn daemon_judges_the_corpus_and_list_shows_why() {
    let crawl = Crawl::new();
    let st = crawl.store();
    let all = cases();
    for c in &all {
        plant_case(&crawl, &st, c);
    }
    // X-Robots-Tag seen by the fetcher, and a body missing from the cache.
    let k = crawl.plant(
        &st,
        "http://corpus.test/header-noindex",
        State::Fresh,
        "text/html",
        b"<p>x",
    );
    set(&st, &k, |r| r.flags |= Flags::NOINDEX);
    let k = crawl.plant(
        &st,
        "http://corpus.test/lost",
        State::Fresh,
        "text/html",
        b"<p>x",
    );
    crawl.cache().remove(&k).unwrap();
    drop(st);

    let dict = corpus().join("lv.dict").display().to_string();
    let o = crawl
        .cmd("nlpc-vrfy")
        .args(strict_args(&dict))
        .arg("--once")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("verified http://corpus.test/lv-daugava-utf8.html (lv 1.00, dict 0."),
        "{err}"
    );
    assert!(
        err.contains("rejected http://corpus.test/ru-baikal-utf8.html: language ru"),
        "{err}"
    );

    let st = crawl.store();
    assert_consistent(&st, true);
    assert_eq!(urls_in(&st, State::Fresh), Vec::<String>::new());
    let rd = st.read().unwrap();
    for c in &all {
        let (_, r) = rd
            .lookup(&format!("http://corpus.test/{}", c.file))
            .unwrap()
            .unwrap();
        assert_eq!(r.state, c.strict.0, "{}: {}", c.file, r.reason);
        assert!(
            r.reason.starts_with(&c.strict.1),
            "{}: {}",
            c.file,
            r.reason
        );
        assert_eq!(r.charset, c.charset, "{}", c.file);
        assert!(r.lease.is_none());
    }
    let reason = |u: &str| rd.lookup(u).unwrap().unwrap().1.reason;
    assert_eq!(
        reason("http://corpus.test/header-noindex"),
        "noindex (X-Robots-Tag)"
    );
    assert_eq!(reason("http://corpus.test/lost"), "no stored body");
    drop(rd);

    // nlpc-list shows the reason, in TSV and JSON.
    let o = crawl.run("nlpc-list", &["-s", "rejected", "*koi8r*"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(out.split('\t').nth(10), Some("charset KOI8-R"), "{out}");
    let o = crawl.run("nlpc-list", &["--json", "*lt-orai*"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["state"], "REJECTED");
    assert_eq!(v["language"], "lt");
    assert!(
        v["reason"].as_str().unwrap().starts_with("dictionary "),
        "{v}"
    );
    let o = crawl.run("nlpc-list", &["-c"]);
    let verified = all.iter().filter(|c| c.strict.0 == State::Verified).count();
    assert!(
        stdout(&o).contains(&format!("VERIFIED\t{verified}\n")),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_dictionaries_are_refused_at_startup() {
    let crawl = Crawl::new();
    let dir = crawl.tmp.path();
    let bad = dir.join("bad.dict");
    std::fs::write(&bad, b"labs\n\nr\xc4\xabga\nsl\xefkts\nvards\n").unwrap();
    let two = dir.join("two.dict");
    std::fs::write(&two, "viens\ndivi vārdi\n").unwrap();
    for (file, want) in [
        (&bad, "line 4: not UTF-8".to_string()),
        (&two, "line 2: more than one word".to_string()),
        (
            &dir.join("missing.dict"),
            "cannot read dictionary".to_string(),
        ),
    ] {
        let o = crawl.run(
            "nlpc-vrfy",
            &["--once", "--filter-dict", &file.display().to_string()],
        );
        assert_eq!(o.status.code(), Some(1), "{}", file.display());
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("nlpc-vrfy: {}: ", file.display())) && err.contains(&want),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Nothing was opened: the database does not exist.
    assert!(!crawl.db().join("data.mdb").exists());
}

#[test]
fn bad_options_print_usage_and_fail() {
    let crawl = Crawl::new();
    for (args, want) in [
        (
            vec!["--filter-charset", "utf-8 latin-99"],
            "unknown charset \"latin-99\"",
        ),
        (vec!["--use-charset", "nonsense"], "unknown charset"),
        (
            vec!["--filter-lang", "lv xx"],
            "\"xx\" is not a language code",
        ),
        (vec!["--filter-dict-pct", "120"], "not between 0 and 100"),
        (vec!["--lang-min-conf", "2"], "not between 0 and 1"),
        (
            vec!["--lang-min-text", "many"],
            "\"many\" is not a whole number",
        ),
        (vec!["extra"], "no operands"),
    ] {
        let o = crawl.run("nlpc-vrfy", &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains(want) && err.contains("usage: nlpc-vrfy"),
            "{args:?}: {err}"
        );
    }
    let o = crawl.run("nlpc-vrfy", &["-h"]);
    assert_eq!(o.status.code(), Some(0));
    for opt in [
        "--filter-charset",
        "--filter-dict-pct",
        "--use-charset",
        "--lang-max-text",
    ] {
        assert!(stdout(&o).contains(opt), "{opt}");
    }
}

#[test]
fn sigkill_mid_run_loses_and_duplicates_nothing() {
    let crawl = Crawl::new();
    let st = crawl.store();
    let all = cases();
    let n = 1200;
    let mut want_verified = Vec::new();
    for i in 0..n {
        let c = &all[i % all.len()];
        let url = format!("http://site.test/{i}/{}", c.file);
        let body = read_fixture(&corpus(), &c.file);
        let k = crawl.plant(&st, &url, State::Fresh, &c.content_type, &body);
        set(&st, &k, |r| r.charset = c.http.clone());
        if c.strict.0 == State::Verified {
            want_verified.push(url);
        }
    }
    want_verified.sort();
    drop(st);
    let dict = corpus().join("lv.dict").display().to_string();
    for round in 0..4 {
        let mut child = spawn({
            let mut cmd = crawl.cmd("nlpc-vrfy");
            cmd.args(strict_args(&dict)).arg("--use-interval").arg("1s");
            cmd
        });
        let st = crawl.store();
        let target = (round + 1) * 200;
        wait_until(Duration::from_secs(60), "verification progress", || {
            let rd = st.read().unwrap();
            (rd.count(State::Verified, false).unwrap() + rd.count(State::Rejected, false).unwrap())
                as usize
                >= target
        });
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let o = crawl.run(
        "nlpc-vrfy",
        &{
            let mut a = strict_args(&dict);
            a.push("--once".into());
            a
        }
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = crawl.store();
    assert_consistent(&st, true);
    assert_eq!(urls_in(&st, State::Fresh).len(), 0);
    assert_eq!(urls_in(&st, State::Verified), want_verified);
    assert_eq!(urls_in(&st, State::Rejected).len(), n - want_verified.len());
    // Every rejected record says why.
    let rd = st.read().unwrap();
    rd.walk_state(State::Rejected, false, |_, r| {
        assert!(!r.reason.is_empty(), "{}", r.url);
        Ok(true)
    })
    .unwrap();
    // The duplicate marks, written in the verdicts' transactions, came
    // through the kills whole: the index is consistent, and every copy of
    // one page is in one cluster.
    let problems = dups::check(&rd).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
    let mut firsts: std::collections::BTreeMap<String, std::collections::BTreeSet<Key>> =
        Default::default();
    rd.walk_state(State::Verified, false, |k, r| {
        let file = r.url.rsplit('/').next().unwrap_or("").to_string();
        let first = dups::duplicate_of(&rd, &k)?.map_or(k, |m| m.first);
        firsts.entry(file).or_default().insert(first);
        Ok(true)
    })
    .unwrap();
    assert!(firsts.values().all(|f| f.len() == 1), "{firsts:#?}");
}

/// The language is the main text's: a Latvian article wrapped in a long
/// English cookie banner, menu and footer is Latvian, though most of its
/// visible text is English.
#[test]
fn language_of_the_main_text() {
    let english = "We use cookies and similar technologies to remember your choices, \
        to measure how the site is used and to show you advertising that may be of \
        interest to you; you can change your mind at any time in the settings, and \
        you can read more about how we use your data in our privacy policy. ";
    let page = format!(
        "<html><head><meta charset=utf-8><title>Ziņas</title></head><body>\
         <div class=cookie-consent><p>{english}{english}</p></div>\
         <nav><a href=/>Home</a> <a href=/news>News</a> <a href=/about>About us</a></nav>\
         <article><h1>Tilts būs slēgts</h1>\
         <p>Rīgā šonedēļ sāka atjaunot veco tiltu pār Daugavu, un darbi, kā sola \
         būvnieki, ilgs līdz rudenim, jo pēc ziemas ir jāpārbauda visi balsti.</p>\
         <p>Kamēr tilts būs slēgts, iedzīvotāji varēs izmantot prāmi, kas kursēs ik \
         pēc pusstundas, bet naktīs tas nekursēs, tāpēc braucieni jāplāno laikus.</p>\
         </article><footer><p>{english}</p></footer></body></html>"
    );
    let mut r = Record::new("http://lv.test/tilts", 1);
    r.state = State::Fresh;
    r.content_type = "text/html".into();
    let cfg = Config {
        langs: vec![lang::parse_detectable("lv").unwrap()],
        lang_min_text: 100,
        ..Config::default()
    };
    let v = verify(&cfg, &r, Some(page.as_bytes()));
    assert_eq!(v.rejection, None);
    assert_eq!(v.language.unwrap().lang.code(), "lv");
    // The same page as all its visible text would have been English.
    let all = nlpcrawl::document::text::visible(&page, charset::Kind::Html).text;
    let g = lang::detect(&whatlang::Detector::new(), &all, 0).unwrap();
    assert_eq!(g.lang.code(), "en");
}

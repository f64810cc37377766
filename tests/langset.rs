//! The language test set (tests/data/langset: 445 languages, Latvian of
//! many kinds, Latgalian, Võro, Livonian) served as pages, planted FRESH
//! in a real store and judged by nlpc-vrfy under `--filter-lang lv`: no
//! page of another language is VERIFIED, every Latvian page is, and a
//! Latvian article between two English blocks is Latvian.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::langset::{self, Text};
use common::*;
use nlpcrawl::store::record::{Record, State};

/// A page holding `paras` as the paragraphs of its article.
fn page(paras: &[&str]) -> String {
    let mut s =
        String::from("<!DOCTYPE html><html><head><meta charset=utf-8></head><body><article>");
    for p in paras {
        s.push_str("<p>");
        s.push_str(&p.replace('&', "&amp;").replace('<', "&lt;"));
        s.push_str("</p>\n");
    }
    s.push_str("</article></body></html>");
    s
}

fn url(t: &Text) -> String {
    format!("http://set.test/{}", t.name)
}

/// Plants every text of the set, runs nlpc-vrfy once with `args`, and
/// returns each text's state, language and reason.
fn verify_all(set: &[Text], args: &[&str]) -> Vec<(State, String, String)> {
    let crawl = Crawl::new();
    let st = crawl.store();
    for t in set {
        let paras: Vec<&str> = t.text.split("\n\n").collect();
        crawl.plant(
            &st,
            &url(t),
            State::Fresh,
            "text/html",
            page(&paras).as_bytes(),
        );
    }
    drop(st);
    crawl.once_ahead(0, "nlpc-vrfy", args);
    let st = crawl.store();
    set.iter()
        .map(|t| {
            let r = record(&st, &url(t));
            (r.state, r.language, r.reason)
        })
        .collect()
}

/// Each half's count of foreign pages VERIFIED and of Latvian pages not.
fn tally(
    set: &[Text],
    got: &[(State, String, String)],
) -> BTreeMap<&'static str, [Vec<String>; 2]> {
    let mut out: BTreeMap<&'static str, [Vec<String>; 2]> = BTreeMap::new();
    for (t, (state, lang, reason)) in set.iter().zip(got) {
        let e = out.entry(t.half.name()).or_default();
        let line = format!("{} ({state} {lang} {reason})", t.name);
        if t.latvian && *state != State::Verified {
            e[1].push(line);
        } else if !t.latvian && *state == State::Verified {
            e[0].push(line);
        }
    }
    out
}

#[test]
fn no_foreign_page_is_verified_and_every_latvian_page_is() {
    let set = langset::load();
    let langs: std::collections::BTreeSet<&str> = set.iter().map(|t| t.code.as_str()).collect();
    assert!(langs.len() >= 100, "{} languages", langs.len());
    let latvian = set.iter().filter(|t| t.latvian).count();
    assert!(latvian >= 30, "{latvian} Latvian texts");
    let dict = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy/lv.dict");
    let dict = dict.to_str().unwrap();
    for (args, unkept) in [
        // Without a dictionary one Latvian sentence without diacritics is
        // lost: whatlang reads it as French, unsure, and the profiles
        // cannot tell it from Lithuanian.
        (vec!["--filter-lang", "lv"], vec!["lv-short-ascii.txt"]),
        // The dictionary, the second witness, keeps it.
        (vec!["--filter-lang", "lv", "--filter-dict", dict], vec![]),
    ] {
        let got = verify_all(&set, &args);
        for (half, [foreign, lost]) in tally(&set, &got) {
            assert!(
                foreign.is_empty(),
                "{args:?}, {half} half: foreign pages VERIFIED: {foreign:#?}"
            );
            let lost: Vec<&str> = lost.iter().map(|l| l.split(' ').next().unwrap()).collect();
            let want: Vec<&str> = unkept
                .iter()
                .copied()
                .filter(|n| langset::half_of(n).name() == half)
                .collect();
            assert_eq!(
                lost, want,
                "{args:?}, {half} half: Latvian pages not VERIFIED"
            );
        }
        // The rejected pages say why: a language by name, or none known.
        for (t, (state, lang, reason)) in set.iter().zip(&got) {
            if *state == State::Rejected && !t.latvian {
                assert!(
                    reason == &format!("language {lang}")
                        || (lang.is_empty() && reason == "language unknown")
                        || reason.starts_with("language lv uncertain")
                        || reason.starts_with("dictionary"),
                    "{}: {lang} {reason}",
                    t.name
                );
            }
        }
        // Latgalian is named, not taken for Latvian.
        for (t, (_, lang, _)) in set.iter().zip(&got) {
            if t.code == "ltg" && t.text.len() > 200 {
                assert_eq!(lang, "ltg", "{}", t.name);
            }
        }
    }
}

/// 2,500 characters of Latvian between two English blocks of 700: the
/// page is judged by the language of most of its main text.
#[test]
fn a_latvian_article_between_two_english_blocks_is_latvian() {
    let english = "This website uses cookies and similar technologies to remember your \
        settings, to measure how visitors use our pages and to show advertising that may \
        interest you. Some of them are necessary for the site to work; others are used \
        only if you agree. You can change your choice at any time in the cookie settings \
        at the bottom of every page, and you can read more about how we handle your \
        personal data, who we share it with and how long we keep it, in our privacy \
        policy. By clicking accept you agree to the use of all cookies on this site, \
        and by clicking reject you keep only those the site cannot work without. \
        Your choice is stored for twelve months, after which we will ask you again.";
    assert!(
        (680..800).contains(&english.chars().count()),
        "{}",
        english.chars().count()
    );
    let set = langset::load();
    let mut latvian = Vec::new();
    let mut n = 0;
    for t in set
        .iter()
        .filter(|t| t.latvian && t.name.starts_with("lvs.") && !t.short)
    {
        for p in t.text.split("\n\n") {
            if n < 2500 {
                n += p.chars().count();
                latvian.push(p);
            }
        }
    }
    assert!(n >= 2500, "{n}");
    // A short English line inside the article, kept with it.
    let aside = "Read this story in English on our partner site tomorrow.";
    let mut paras = vec![english];
    paras.extend(&latvian[..3]);
    paras.push(aside);
    paras.extend(&latvian[3..]);
    paras.push(english);
    let crawl = Crawl::new();
    let st = crawl.store();
    // As nlpc-fetch leaves a page: with its body's hash, which nlpc-dump
    // checks.
    let body = page(&paras);
    let mut rec = Record::new("http://mixed.test/", 1_700_000_000);
    rec.state = State::Fresh;
    rec.status = 200;
    rec.fetched = 1_700_000_000;
    rec.content_type = "text/html".into();
    rec.size = body.len() as u64;
    rec.hash = *blake3::hash(body.as_bytes()).as_bytes();
    let key = insert_new(&st, &rec);
    crawl.cache().write(&key, body.as_bytes()).unwrap();
    drop(st);
    crawl.once_ahead(0, "nlpc-vrfy", &["--filter-lang", "lv"]);
    let r = record(&crawl.store(), "http://mixed.test/");
    assert_eq!(
        (r.state, r.language.as_str(), r.reason.as_str()),
        (State::Verified, "lv", "")
    );
    // The corpus holds the article: the English notices are not its main
    // text; the English line inside it is, with its language, and
    // --lang-paragraphs leaves it out.
    let jsonl = crawl.tmp.path().join("out.jsonl");
    let jsonl_s = jsonl.to_str().unwrap();
    let dump = |args: &[&str]| {
        let o = crawl.run("nlpc-dump", args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    let read = || -> serde_json::Value {
        serde_json::from_str(std::fs::read_to_string(&jsonl).unwrap().trim()).unwrap()
    };
    dump(&["--jsonl", jsonl_s]);
    let d = read();
    let text = d["text"].as_str().unwrap();
    assert!(!text.contains("cookies") && text.contains(aside), "{text}");
    let blocks: Vec<&str> = d["block_langs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap_or("-"))
        .collect();
    assert_eq!(blocks.len(), latvian.len() + 1, "{d}");
    assert_eq!(blocks[3], "en", "{d}");
    assert!(
        blocks.iter().enumerate().all(|(i, b)| i == 3 || *b == "lv"),
        "{d}"
    );
    let langs = d["langs"].as_array().unwrap();
    assert_eq!(
        (&langs[0]["lang"], &langs[1]["lang"]),
        (&"lv".into(), &"en".into()),
        "{d}"
    );
    let en = langs[1]["share"].as_f64().unwrap();
    assert!(en > 0.0 && en < 0.05, "{d}");
    dump(&["--jsonl", jsonl_s, "--lang-paragraphs"]);
    let d = read();
    let text = d["text"].as_str().unwrap();
    assert!(!text.contains(aside) && text.contains(latvian[0]), "{text}");
    assert!(
        d["block_langs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b == "lv"),
        "{d}"
    );
    // The vertical text carries the same languages.
    let vert = crawl.tmp.path().join("out.vert");
    dump(&["--vert", vert.to_str().unwrap()]);
    let v = std::fs::read_to_string(&vert).unwrap();
    let doc = v.lines().next().unwrap();
    assert!(doc.contains(" langs=\"lv:0.9"), "{doc}");
    let paragraphs = |lang: &str| {
        v.lines()
            .filter(|l| {
                l.starts_with("<p type=\"text\" ") && l.ends_with(&format!(" lang=\"{lang}\">"))
            })
            .count()
    };
    assert_eq!(paragraphs("en"), 1, "{v}");
    assert_eq!(paragraphs("lv"), latvian.len(), "{v}");
}

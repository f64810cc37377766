//! Duplicates: the marks and the near-duplicate index in a real store
//! (exact and near copies, the earliest first copy, the band lookup at
//! the distance's edge, texts that change, first copies that leave), and a
//! duplicate test web crawled by the real daemons: the same page under
//! several URLs and near-copies differing by a date or a counter, each
//! exported once, `nlpc-list --cluster` showing the cluster, and a
//! re-fetch that changes the first copy's text dissolving its cluster;
//! and `nlpc-dump --dedup-paragraphs` writing each paragraph once.

mod common;

use std::collections::BTreeMap;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::document::fingerprint::minhash::{BANDS, SLOTS};
use nlpcrawl::document::fingerprint::{self, Fingerprint, Signature};
use nlpcrawl::store::dups::{self, Kind, Mark};
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{Key, Store, Table};

fn fp(text: u8, minhash: Signature) -> Fingerprint {
    Fingerprint {
        text: [text; 16],
        minhash,
    }
}

fn plant(st: &Store, url: &str) -> Key {
    let mut r = Record::new(url, 1);
    r.state = State::Verified;
    insert_new(st, &r)
}

/// Records a verification of `key`, in its own transaction, at the
/// default similarity (50%).
fn verify(st: &Store, key: &Key, f: Option<Fingerprint>) -> Option<Mark> {
    let mut w = st.write().unwrap();
    let m = dups::record(&mut w, key, f.as_ref(), dups::DEFAULT_SIMILARITY).unwrap();
    w.commit().unwrap();
    m
}

fn mark(st: &Store, key: &Key) -> Option<Mark> {
    dups::duplicate_of(&st.read().unwrap(), key).unwrap()
}

fn members(st: &Store, key: &Key) -> Vec<(Key, Kind, u32)> {
    dups::cluster(&st.read().unwrap(), key)
        .unwrap()
        .map(|c| {
            c.members
                .iter()
                .map(|(k, m)| (*k, m.kind, m.distance))
                .collect()
        })
        .unwrap_or_default()
}

fn assert_clean(st: &Store) {
    let problems = dups::check(&st.read().unwrap()).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A signature of its own for each seed.
fn sig(seed: u32) -> Signature {
    let mut s = [0u32; SLOTS];
    for (i, v) in s.iter_mut().enumerate() {
        *v = (seed.wrapping_mul(0x9e37_79b9) ^ (i as u32).wrapping_mul(0x85eb_ca6b))
            .rotate_left(13)
            .wrapping_mul(0xc2b2_ae35)
            % u32::MAX;
    }
    Signature(s)
}

/// `s` with the slots `which` picks taken from `sig(seed)`: the two agree
/// in every other slot.
fn alter(s: Signature, seed: u32, which: impl Fn(usize) -> bool) -> Signature {
    let o = sig(seed);
    let mut out = s;
    for i in 0..SLOTS {
        if which(i) {
            out.0[i] = o.0[i];
        }
    }
    out
}

/// The base signature of the tests below.
fn s0() -> Signature {
    sig(1)
}

#[test]
fn exact_and_near_copies_point_to_the_earliest_first_copy() {
    let c = Crawl::new();
    let st = c.store();
    let k: Vec<Key> = (0..8)
        .map(|i| plant(&st, &format!("http://d.test/{i}")))
        .collect();
    let s = s0();
    // A first copy.
    assert_eq!(verify(&st, &k[0], Some(fp(1, s))), None);
    // The same text.
    let m = verify(&st, &k[1], Some(fp(1, s))).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Exact, k[0], 0));
    // A slot changed in every band but the last (97 of 128 slots alike,
    // 75%): only the last band's bucket is shared, and the lookup still
    // finds it.
    let near = alter(s, 2, |i| i % 4 == 0 && i < SLOTS - 4);
    let m = verify(&st, &k[2], Some(fp(2, near))).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, k[0], 25));
    // Another text altogether: a first copy.
    let far = sig(3);
    assert_eq!(verify(&st, &k[3], Some(fp(3, far))), None);
    // Ten slots from the later first copy (92%): its duplicate.
    let m = verify(&st, &k[4], Some(fp(4, alter(far, 4, |i| i < 10)))).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, k[3], 8));
    // Half of k[0] and half of k[3]: the earliest first copy wins.
    let both = alter(s, 3, |i| i >= SLOTS / 2);
    let m = verify(&st, &k[5], Some(fp(5, both))).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, k[0], 50));
    // Like nothing: a first copy.
    assert_eq!(verify(&st, &k[6], Some(fp(6, sig(6)))), None);
    // Two more slots of every band but the last changed from the
    // duplicate k[2] (66 of 128 alike, 51%), 35 alike with its first copy
    // (27%): it joins the cluster through k[2], at its distance from the
    // first copy.
    let via = alter(near, 7, |i| matches!(i % 4, 1 | 2) && i < SLOTS - 4);
    let m = verify(&st, &k[7], Some(fp(7, via))).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, k[0], 73));
    assert_eq!(mark(&st, &k[0]), None);
    // The cluster, from the first copy or from any member, in order.
    let want = vec![
        (k[1], Kind::Exact, 0),
        (k[2], Kind::Near, 25),
        (k[5], Kind::Near, 50),
        (k[7], Kind::Near, 73),
    ];
    assert_eq!(members(&st, &k[0]), want);
    assert_eq!(members(&st, &k[2]), want);
    assert_eq!(members(&st, &k[3]), vec![(k[4], Kind::Near, 8)]);
    assert_eq!(members(&st, &k[6]), Vec::new());
    assert_clean(&st);
    // The check sees damage: a first copy no longer found by its text, and
    // a cluster entry that belongs to nothing.
    let mut w = st.write().unwrap();
    let mut text_entry = vec![b't'];
    text_entry.extend_from_slice(&[1; 16]);
    w.table_del(Table::Dups, &text_entry).unwrap();
    w.table_put(Table::Dups, b"mjunk", &[]).unwrap();
    w.commit().unwrap();
    let problems = dups::check(&st.read().unwrap()).unwrap();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].ends_with("a first copy not found by its text"));
    assert!(problems[1].starts_with("left-over cluster entry"));
}

#[test]
fn a_higher_similarity_leaves_less_alike_pages_apart() {
    let c = Crawl::new();
    let st = c.store();
    let a = plant(&st, "http://h.test/a");
    let b = plant(&st, "http://h.test/b");
    let s = s0();
    let mut w = st.write().unwrap();
    dups::record(&mut w, &a, Some(&fp(1, s)), 90).unwrap();
    // 75% alike: near at 50, not at 90.
    let near = fp(2, alter(s, 2, |i| i % 4 == 0));
    assert_eq!(dups::record(&mut w, &b, Some(&near), 90).unwrap(), None);
    w.commit().unwrap();
    assert_clean(&st);
}

#[test]
fn changed_texts_and_first_copies_that_leave_keep_the_marks_consistent() {
    let c = Crawl::new();
    let st = c.store();
    let k: Vec<Key> = (0..5)
        .map(|i| plant(&st, &format!("http://e.test/{i}")))
        .collect();
    let s = s0();
    verify(&st, &k[0], Some(fp(1, s)));
    verify(&st, &k[1], Some(fp(1, s)));
    verify(&st, &k[2], Some(fp(2, alter(s, 2, |i| i % 32 == 0))));
    verify(&st, &k[3], Some(fp(3, alter(s, 3, |i| i % 16 == 1))));
    let unrelated = sig(4);
    verify(&st, &k[4], Some(fp(4, unrelated)));
    assert_eq!(members(&st, &k[0]).len(), 3);

    // Verified again with the same text: nothing moves.
    let m = verify(&st, &k[1], Some(fp(1, s))).unwrap();
    assert_eq!((m.kind, m.first), (Kind::Exact, k[0]));
    // Rejected on a re-fetch: it leaves its cluster.
    assert_eq!(verify(&st, &k[2], None), None);
    assert_eq!(mark(&st, &k[2]), None);
    assert_eq!(members(&st, &k[2]), Vec::new());
    assert_eq!(
        members(&st, &k[0]).iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![k[1], k[3]]
    );
    assert_clean(&st);

    // The first copy's text changes: its cluster dissolves, the oldest
    // member (an exact copy, which was in no bucket) becomes the first
    // copy, the other a duplicate of it; the old first copy, verified
    // now, is a first copy of its new text.
    assert_eq!(verify(&st, &k[0], Some(fp(9, sig(9)))), None);
    assert_eq!(mark(&st, &k[1]), None);
    let m = mark(&st, &k[3]).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, k[1], 7));
    assert_eq!(members(&st, &k[0]), Vec::new());
    assert_clean(&st);

    // Now it takes the unrelated page's text: an exact duplicate of it.
    let m = verify(&st, &k[0], Some(fp(4, unrelated))).unwrap();
    assert_eq!((m.kind, m.first), (Kind::Exact, k[4]));
    assert_clean(&st);
}

/// Entries written by a version before the signatures (SimHash in the
/// page's entry, its four 16-bit bands under `b`) still open: the marks
/// read, the check passes, and a page verified again is written anew and
/// its old band entries go.
#[test]
fn entries_written_before_the_signatures_still_open() {
    let c = Crawl::new();
    let st = c.store();
    let a = plant(&st, "http://o.test/a");
    let b = plant(&st, "http://o.test/b");
    let simhash = 0x0123_4567_89ab_cdefu64;
    let old_doc = |seq: u64, text: u8, mark: Option<(u8, &Key, u8)>| {
        let mut v = seq.to_le_bytes().to_vec();
        v.extend_from_slice(&simhash.to_le_bytes());
        v.extend_from_slice(&[text; 16]);
        match mark {
            None => v.push(0),
            Some((kind, first, d)) => {
                v.push(kind);
                v.extend_from_slice(&first.0);
                v.push(d);
            }
        }
        v
    };
    let band_key = |band: u8, key: &Key| {
        let bits = ((simhash >> (band * 16)) as u16).to_be_bytes();
        let mut k = vec![b'b', band, bits[0], bits[1]];
        k.extend_from_slice(&key.0);
        k
    };
    let mut w = st.write().unwrap();
    let doc_key = |key: &Key| [&[b'd'][..], &key.0[..]].concat();
    w.table_put(Table::Dups, &doc_key(&a), &old_doc(0, 1, None))
        .unwrap();
    w.table_put(Table::Dups, &doc_key(&b), &old_doc(1, 2, Some((2, &a, 2))))
        .unwrap();
    w.table_put(Table::Dups, &[&[b't'][..], &[1; 16]].concat(), &a.0)
        .unwrap();
    w.table_put(Table::Dups, &[&[b'm'][..], &a.0, &b.0].concat(), &[])
        .unwrap();
    for band in 0..4 {
        for k in [&a, &b] {
            w.table_put(Table::Dups, &band_key(band, k), &simhash.to_le_bytes())
                .unwrap();
        }
    }
    w.commit().unwrap();
    assert_clean(&st);
    let m = mark(&st, &b).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, a, 2));
    // Verified again with the same text: written anew, with a signature.
    let s = s0();
    assert_eq!(verify(&st, &a, Some(fp(1, s))), None);
    let rd = st.read().unwrap();
    for band in 0..4 {
        assert_eq!(
            rd.table_get(Table::Dups, &band_key(band, &a)).unwrap(),
            None
        );
    }
    assert_eq!(dups::bucket_len(&rd, &s, 0).unwrap(), 1);
    drop(rd);
    assert_clean(&st);
    // The old duplicate is handed on when its first copy is rejected.
    assert_eq!(verify(&st, &a, None), None);
    assert_eq!(mark(&st, &b), None);
    assert_clean(&st);
}

#[test]
fn nlpc_up_pruning_a_first_copy_hands_its_cluster_on() {
    let c = Crawl::new();
    let st = c.store();
    let a = plant(&st, "http://p.test/a");
    let b = plant(&st, "http://p.test/b");
    let d = plant(&st, "http://p.test/c");
    let s = s0();
    verify(&st, &a, Some(fp(1, s)));
    verify(&st, &b, Some(fp(1, s)));
    verify(&st, &d, Some(fp(2, alter(s, 2, |i| i == 0))));
    {
        let mut w = st.write().unwrap();
        let mut r = w.get(&a).unwrap().unwrap();
        r.state = State::Dead;
        w.update(&a, &r).unwrap();
        w.commit().unwrap();
    }
    drop(st);
    let o = c.run("nlpc-up", &["--force-del"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let st = c.store();
    assert_eq!(record(&st, "http://p.test/a").state, State::Gone);
    assert_eq!(dups::cluster(&st.read().unwrap(), &a).unwrap(), None);
    assert_eq!(mark(&st, &b), None);
    let m = mark(&st, &d).unwrap();
    assert_eq!((m.kind, m.first, m.distance), (Kind::Near, b, 1));
    assert_clean(&st);
    drop(st);
    let o = c.run("nlpc-list", &["--check"]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// Prose-shaped text, different for each seed: English stop words between
/// made-up content words, so that two articles share words but hardly a
/// sentence; `paragraphs` of four sentences of twelve words.
fn article(seed: u64, paragraphs: usize) -> Vec<String> {
    const STOP: [&str; 14] = [
        "the", "of", "and", "in", "to", "a", "was", "that", "it", "for", "on", "with", "as", "by",
    ];
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ter", "san", "du", "ve", "ris", "po", "nel", "ga", "tu", "mor", "ble",
        "fi", "stan",
    ];
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut pick = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    (0..paragraphs)
        .map(|_| {
            let mut p = String::new();
            for _ in 0..4 {
                for i in 0..12 {
                    let w = if i % 2 == 1 {
                        STOP[pick(STOP.len())].to_string()
                    } else {
                        (0..2 + pick(2)).map(|_| SYL[pick(SYL.len())]).collect()
                    };
                    if i == 0 {
                        let mut c = w.chars();
                        let first = c.next().unwrap().to_ascii_uppercase();
                        p.push(first);
                        p.push_str(c.as_str());
                    } else {
                        p.push(' ');
                        p.push_str(&w);
                    }
                }
                p.push_str(". ");
            }
            p
        })
        .collect()
}

/// A page of the test site: the same header and footer on every page.
fn page(title: &str, paras: &[String]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
         <header><nav><a href=\"/\">Home</a> <a href=\"/news/\">News</a> \
         <a href=\"/contact\">Contact us</a></nav></header><main><article><h1>{title}</h1>"
    );
    for p in paras {
        s.push_str(&format!("<p>{p}</p>"));
    }
    s.push_str(
        "</article></main><footer><p>Copyright the Town Gazette. All rights reserved. \
         Read our privacy policy and our cookie policy before you subscribe.</p></footer>\
         </body></html>",
    );
    s
}

fn with_line(mut paras: Vec<String>, at: usize, line: &str) -> Vec<String> {
    paras.insert(at, line.to_string());
    paras
}

/// The URLs nlpc-vrfy's log says it verified, in order.
fn verified_order(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split("verified ").nth(1))
        .filter_map(|r| r.split(' ').next())
        .map(str::to_string)
        .collect()
}

fn index_urls(dir: &std::path::Path) -> Vec<String> {
    let idx = std::fs::read_to_string(dir.join("index.tsv")).unwrap();
    let mut v: Vec<String> = idx
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap().to_string())
        .collect();
    v.sort();
    v
}

fn run_ok(c: &Crawl, bin: &str, args: &[&str]) -> String {
    let o = c.run(bin, args);
    let err = stderr(&o);
    assert!(o.status.success(), "{bin} {args:?}: {err}");
    err
}

#[test]
fn a_duplicate_web_crawled_is_exported_once_per_page() {
    let srv = Server::start("127.0.0.61");
    let a = article(1, 30);
    let b = article(2, 30);
    let d = article(3, 30);
    // The same page under three URLs on two host names.
    let a_html = page("The bridge", &a);
    let a_urls = [
        srv.url("one.test", "/a.html"),
        srv.url("one.test", "/print/a.html"),
        srv.url("two.test", "/mirror/a.html"),
    ];
    for u in &a_urls {
        let path = &u[u.find(".test:").unwrap() + 6..];
        let path = &path[path.find('/').unwrap()..];
        srv.route(path, Reply::html(a_html.clone()));
    }
    // Near-copies: a date line, then a view counter, changed.
    let dated = |date: &str, views: u32| {
        let p = with_line(
            b.clone(),
            1,
            &format!("This report was last updated on {date} by the editors of the gazette."),
        );
        page(
            "The harbour",
            &with_line(p, 20, &format!("This page has been read {views} times.")),
        )
    };
    let b_pages = [
        ("/b.html", dated("12 March 2024", 1041)),
        ("/b-2.html", dated("14 April 2024", 1041)),
        ("/b-3.html", dated("12 March 2024", 1187)),
    ];
    let mut b_urls = Vec::new();
    for (p, html) in &b_pages {
        srv.route(p, Reply::html(html.clone()));
        b_urls.push(srv.url("one.test", p));
    }
    // A different article with the same header and footer.
    srv.route("/d.html", Reply::html(page("The market", &d)));
    let d_url = srv.url("one.test", "/d.html");

    let c = Crawl::new();
    let st = c.store();
    for u in a_urls.iter().chain(&b_urls).chain([&d_url]) {
        plant_ready(&st, u, &srv.ip());
    }
    drop(st);
    run_ok(&c, "nlpc-fetch", &["--once", "--fetch-polite", "0"]);
    let log = run_ok(&c, "nlpc-vrfy", &["--once"]);
    let order = verified_order(&log);
    assert_eq!(order.len(), 7, "{log}");

    let st = c.store();
    let earliest =
        |urls: &[String]| -> String { order.iter().find(|u| urls.contains(u)).cloned().unwrap() };
    let key = |st: &Store, u: &str| st.read().unwrap().lookup(u).unwrap().unwrap().0;
    let url_of = |st: &Store, k: &Key| st.read().unwrap().get(k).unwrap().unwrap().url;
    // Each group: the first verified is the first copy, the others point
    // to it.
    let mut kinds = BTreeMap::new();
    for group in [&a_urls[..], &b_urls[..]] {
        let first = earliest(group);
        assert_eq!(mark(&st, &key(&st, &first)), None, "{first}");
        for u in group.iter().filter(|u| **u != first) {
            let m = mark(&st, &key(&st, u)).unwrap_or_else(|| panic!("{u} not marked\n{log}"));
            assert_eq!(url_of(&st, &m.first), first, "{u}");
            kinds.insert(u.clone(), (m.kind, m.distance));
        }
    }
    for u in &a_urls[..] {
        if let Some((k, d)) = kinds.get(u) {
            assert_eq!((*k, *d), (Kind::Exact, 0), "{u}");
        }
    }
    // The near-copies are near, not exact: the changed lines are main
    // text. The counter is digits, which the shingles leave out; the month
    // is a word, a few shingles of some 1,400.
    for u in &b_urls {
        if let Some((k, d)) = kinds.get(u) {
            assert_eq!(*k, Kind::Near, "{u}");
            assert!(*d <= 10, "{u}: distance {d}");
        }
    }
    // The page that only shares the header and footer stands alone.
    assert_eq!(mark(&st, &key(&st, &d_url)), None);
    assert_eq!(members(&st, &key(&st, &d_url)), Vec::new());
    assert_clean(&st);
    drop(st);

    // nlpc-list --cluster, from a duplicate: the first copy, then the rest.
    let a_first = earliest(&a_urls);
    let a_dup = a_urls.iter().find(|u| **u != a_first).unwrap().clone();
    let o = c.run("nlpc-list", &["--cluster", &a_dup]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("first\t-\tVERIFIED\t{a_first}"));
    let mut rest: Vec<&str> = lines[1..].to_vec();
    rest.sort();
    let mut want: Vec<String> = a_urls
        .iter()
        .filter(|u| **u != a_first)
        .map(|u| format!("exact\t0\tVERIFIED\t{u}"))
        .collect();
    want.sort();
    assert_eq!(rest, want);
    let o = c.run("nlpc-list", &["--cluster", &b_urls[0], "--json"]);
    let v: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v.len(), 3, "{}", stdout(&o));
    assert_eq!(v[0]["role"], "first");
    assert!(v[1..].iter().all(|m| m["role"] == "near"));
    // The per-record view says what a page duplicates.
    let o = c.run("nlpc-list", &[a_dup.as_str()]);
    let line = stdout(&o);
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields.len(), 14, "{line}");
    assert_eq!(
        fields[10],
        format!("exact duplicate of {a_first}"),
        "{line}"
    );
    let o = c.run("nlpc-list", &["--json", a_dup.as_str()]);
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["duplicate"], "exact");
    assert_eq!(j["duplicate_of"], a_first.as_str());

    // nlpc-dump: each page once; with --duplicates, every copy.
    let out = c.tmp.path().join("text");
    let err = run_ok(&c, "nlpc-dump", &["--text", out.to_str().unwrap()]);
    let mut want = vec![a_first.clone(), earliest(&b_urls), d_url.clone()];
    want.sort();
    assert_eq!(index_urls(&out), want, "{err}");
    assert!(err.contains(", 4 duplicates left out"), "{err}");
    let all = c.tmp.path().join("all");
    run_ok(
        &c,
        "nlpc-dump",
        &["--text", all.to_str().unwrap(), "--duplicates"],
    );
    assert_eq!(index_urls(&all).len(), 7);
    // JSON Lines: each duplicate names its first copy; the first copies
    // and the distinct page name none.
    let jl = c.tmp.path().join("all.jsonl");
    run_ok(
        &c,
        "nlpc-dump",
        &["--jsonl", jl.to_str().unwrap(), "--duplicates"],
    );
    let docs: Vec<serde_json::Value> = std::fs::read_to_string(&jl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 7);
    let b_first = earliest(&b_urls);
    for d in &docs {
        let u = d["url"].as_str().unwrap().to_string();
        let want = if u == a_first || u == b_first || u == d_url {
            serde_json::Value::Null
        } else if a_urls.contains(&u) {
            serde_json::Value::from(a_first.as_str())
        } else {
            serde_json::Value::from(b_first.as_str())
        };
        assert_eq!(d["duplicate_of"], want, "{u}");
    }

    // The first copy of the page is fetched again with another text: its
    // cluster dissolves. The older of the other two becomes the first
    // copy, the younger its exact duplicate, and the page is now a first
    // copy of its own.
    let path = &a_first[a_first.find(".test:").unwrap() + 6..];
    let path = &path[path.find('/').unwrap()..];
    srv.route(path, Reply::html(page("The orchard", &article(4, 30))));
    run_ok(&c, "nlpc-scan", &["--once"]);
    run_ok(&c, "nlpc-up", &["--force-exp", "-s", "scanned", &a_first]);
    run_ok(&c, "nlpc-fetch", &["--once", "--fetch-polite", "0"]);
    let log = run_ok(&c, "nlpc-vrfy", &["--once"]);
    assert!(
        log.contains(&format!("verified {a_first} ")),
        "{a_first} not verified again: {log}"
    );
    let st = c.store();
    let rest: Vec<String> = a_urls.iter().filter(|u| **u != a_first).cloned().collect();
    let older = earliest(&rest);
    let younger = rest.iter().find(|u| **u != older).unwrap();
    assert_eq!(mark(&st, &key(&st, &a_first)), None);
    assert_eq!(members(&st, &key(&st, &a_first)), Vec::new());
    assert_eq!(mark(&st, &key(&st, &older)), None);
    let m = mark(&st, &key(&st, younger)).unwrap();
    assert_eq!(
        (m.kind, url_of(&st, &m.first)),
        (Kind::Exact, older.clone())
    );
    assert_clean(&st);
}

/// A page repeated thousands of times with a changing counter and one of
/// three words (a template, a soft error page under every URL of a
/// site): every copy joins the first copy's cluster, no bucket holds more
/// than its cap, and placing one reads a bounded number of index entries
/// however large the cluster grows, so a crawl of them costs linear work.
#[test]
fn a_huge_cluster_costs_each_copy_a_bounded_lookup() {
    let c = Crawl::new();
    let st = c.store();
    let n = 40 * dups::MAX_BUCKET as u64;
    let keys: Vec<Key> = (0..n)
        .map(|i| plant(&st, &format!("http://a.lv/copy/{i}")))
        .collect();
    let base = "Lapa nav atrasta. Meklētā lapa ir pārvietota vai dzēsta; lūdzu, \
                izmantojiet meklēšanu vai atgriezieties sākumlapā un skatiet jaunākās ziņas";
    let text = |i: u64| {
        format!(
            "{base} {} {i}",
            ["šodien", "vakar", "rīt"][(i % 3) as usize]
        )
    };
    let per_txn = 64;
    for chunk in 0..n / per_txn {
        let mut w = st.write().unwrap();
        for i in chunk * per_txn..(chunk + 1) * per_txn {
            let f = Fingerprint::of(&text(i));
            dups::record(&mut w, &keys[i as usize], Some(&f), 50).unwrap();
        }
        w.commit().unwrap();
    }
    let first = keys[0];
    assert_eq!(mark(&st, &first), None, "the first page is the first copy");
    for i in 1..n {
        let m =
            mark(&st, &keys[i as usize]).unwrap_or_else(|| panic!("copy {i} is not a duplicate"));
        assert_eq!(m.first, first, "copy {i}");
    }
    assert_eq!(members(&st, &first).len() as u64, n - 1);
    let rd = st.read().unwrap();
    let sig = Fingerprint::of(&text(0)).minhash;
    for band in 0..BANDS {
        let len = dups::bucket_len(&rd, &sig, band).unwrap();
        assert!(len <= dups::MAX_BUCKET, "band {band}: {len} in one bucket");
    }
    let cost = dups::lookup_cost(&rd, &sig, 50).unwrap();
    assert!(
        cost <= BANDS * dups::MAX_BUCKET,
        "a lookup read {cost} entries of a cluster of {n}"
    );
    drop(rd);
    assert_clean(&st);
}

/// Pages that share one band of their signatures but are alike in
/// nothing else fill its bucket: it holds MAX_BUCKET of them and no more,
/// a lookup reads at most MAX_BUCKET entries of it, and a page alike in
/// its other bands is still found through them.
#[test]
fn a_crowded_bucket_is_capped() {
    let c = Crawl::new();
    let st = c.store();
    let n = dups::MAX_BUCKET as u32 + 50;
    let s = s0();
    let keys: Vec<Key> = (0..=n)
        .map(|i| plant(&st, &format!("http://b.lv/far/{i}")))
        .collect();
    let mut w = st.write().unwrap();
    for i in 0..n {
        // Band 0 is s's; the other slots are each page's own.
        let f = fp(i as u8, alter(s, 100 + i, |j| j >= 4));
        let mut f = f;
        f.text[..4].copy_from_slice(&i.to_le_bytes());
        dups::record(&mut w, &keys[i as usize], Some(&f), 50).unwrap();
    }
    // One page like s in every band but the first.
    let near = keys[n as usize];
    let mut f = fp(7, alter(s, 7, |j| j == 0));
    f.text = [0xee; 16];
    assert_eq!(dups::record(&mut w, &near, Some(&f), 50).unwrap(), None);
    w.commit().unwrap();
    let rd = st.read().unwrap();
    assert_eq!(dups::bucket_len(&rd, &s, 0).unwrap(), dups::MAX_BUCKET);
    let cost = dups::lookup_cost(&rd, &s, 50).unwrap();
    assert!(
        cost <= dups::MAX_BUCKET + BANDS,
        "a lookup read {cost} entries, {n} share its band"
    );
    drop(rd);
    let k = plant(&st, "http://a.lv/near");
    let m = verify(&st, &k, Some(fp(9, s))).expect("found through another band");
    assert_eq!((m.kind, m.first), (Kind::Near, near));
    assert_clean(&st);
}

/// The on-disk cost of the near-duplicate index per document: 100,000
/// distinct fingerprints (every one a first copy, the costliest case)
/// recorded as nlpc-vrfy records them, then the table's pages counted.
/// Run: cargo test --locked --test dups -- --ignored --nocapture index_bytes
#[test]
#[ignore]
fn index_bytes_per_document() {
    let c = Crawl::new();
    let st = c.store();
    let n = 100_000u64;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for chunk in 0..n / 1000 {
        let mut w = st.write().unwrap();
        for i in 0..1000 {
            let mut k = [0u8; 17];
            k[..8].copy_from_slice(&next().to_le_bytes());
            k[8..16].copy_from_slice(&(chunk * 1000 + i).to_le_bytes());
            let mut f = fp(0, sig(next() as u32));
            f.text[..8].copy_from_slice(&next().to_le_bytes());
            dups::record(&mut w, &Key(k), Some(&f), 50).unwrap();
        }
        w.commit().unwrap();
    }
    let size = dups::size(&st.read().unwrap()).unwrap();
    println!(
        "{n} documents: {} entries, {} bytes, {:.0} bytes per document",
        size.entries,
        size.bytes,
        size.bytes as f64 / n as f64
    );
    assert!(size.entries >= (BANDS as u64 + 2) * n);
}

/// Three paragraphs of a Latvian news story.
const STORY: [&str; 3] = [
    "Rīgas domes satiksmes komiteja otrdien apstiprināja plānu, kas paredz līdz nākamā gada \
     rudenim pārbūvēt Brīvības ielas posmu starp Tērbatas un Ģertrūdes ielu, paplašinot ietves \
     un ierīkojot atsevišķu joslu velosipēdistiem.",
    "Būvdarbu laikā satiksme ielā tiks organizēta pa vienu joslu katrā virzienā, bet sabiedriskā \
     transporta maršruti netiks mainīti. Pašvaldība sola, ka darbi notiks pa posmiem, lai \
     iedzīvotājiem un uzņēmējiem radītu pēc iespējas mazāk neērtību.",
    "Projekta kopējās izmaksas pārsniedz astoņus miljonus eiro, un lielāko daļu finansējuma \
     plānots piesaistīt no Eiropas Savienības fondiem. Iepirkuma konkursu paredzēts izsludināt \
     jau šī gada decembrī.",
];

/// Another story, of other events.
const OTHER: [&str; 3] = [
    "Latvijas Nacionālajā bibliotēkā sestdien tika atklāta izstāde, kas veltīta latviešu \
     grāmatniecības vēsturei no pirmajām iespiestajām grāmatām līdz mūsdienu digitālajiem \
     izdevumiem un to lasītājiem.",
    "Apmeklētāji varēs aplūkot retus izdevumus no bibliotēkas krājuma, tostarp vairākas \
     septiņpadsmitā gadsimta grāmatas, kā arī piedalīties ekskursijās, ko vadīs bibliotēkas \
     pētnieki un restauratori.",
    "Izstāde būs atvērta līdz pavasara beigām, un ieeja tajā ir bez maksas. Skolēnu grupām \
     iepriekš jāpiesakās pa tālruni vai elektroniski bibliotēkas mājaslapā.",
];

/// A page of a Latvian site: the same header, menu and footer on every
/// page.
fn lv_page(title: &str, paras: &[&str]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html lang=lv><head><meta charset=utf-8><title>{title}</title></head>\
         <body><header><nav><a href=\"/\">Sākums</a> <a href=\"/zinas/\">Ziņas</a> \
         <a href=\"/kontakti\">Kontakti</a></nav></header><main><article><h1>{title}</h1>"
    );
    for p in paras {
        s.push_str(&format!("<p>{p}</p>"));
    }
    s.push_str(
        "</article></main><footer><p>Visas tiesības aizsargātas. Lūdzam iepazīties ar mūsu \
         privātuma politiku un sīkdatņu lietošanas noteikumiem.</p></footer></body></html>",
    );
    s
}

/// Two Latvian pages whose three paragraphs are the same but for one
/// word, under different titles, served on loopback and verified by
/// nlpc-vrfy: the later is marked a near duplicate of the earlier (the
/// SimHash within 3 bits left both unmarked). Two pages of the same
/// template with different stories are not marked.
#[test]
fn a_latvian_copy_with_one_word_changed_is_a_near_duplicate() {
    let srv = Server::start("127.0.0.62");
    let edited: Vec<String> = STORY
        .iter()
        .map(|p| p.replace("otrdien", "trešdien"))
        .collect();
    assert_ne!(edited[0], STORY[0]);
    let edited: Vec<&str> = edited.iter().map(String::as_str).collect();
    srv.route(
        "/a.html",
        Reply::html(lv_page("Brīvības ielu pārbūvēs", &STORY)),
    );
    srv.route(
        "/b.html",
        Reply::html(lv_page("Pārbūvēs Brīvības ielas posmu", &edited)),
    );
    srv.route(
        "/c.html",
        Reply::html(lv_page("Atklāta grāmatu izstāde", &OTHER)),
    );
    let urls = [
        srv.url("zinas.lv", "/a.html"),
        srv.url("zinas.lv", "/b.html"),
        srv.url("zinas.lv", "/c.html"),
    ];
    let c = Crawl::new();
    let st = c.store();
    for u in &urls {
        plant_ready(&st, u, &srv.ip());
    }
    drop(st);
    run_ok(&c, "nlpc-fetch", &["--once", "--fetch-polite", "0"]);
    let log = run_ok(&c, "nlpc-vrfy", &["--once"]);
    let order = verified_order(&log);
    assert_eq!(order.len(), 3, "{log}");
    let st = c.store();
    let key = |u: &str| st.read().unwrap().lookup(u).unwrap().unwrap().0;
    let (first, copy) =
        if order.iter().position(|u| *u == urls[0]) < order.iter().position(|u| *u == urls[1]) {
            (&urls[0], &urls[1])
        } else {
            (&urls[1], &urls[0])
        };
    assert_eq!(mark(&st, &key(first)), None);
    let m = mark(&st, &key(copy)).unwrap_or_else(|| panic!("{copy} not marked\n{log}"));
    assert_eq!((m.kind, m.first), (Kind::Near, key(first)), "{log}");
    assert!(m.distance <= 30, "distance {}", m.distance);
    // The SimHash (no longer part of a fingerprint), as before, left
    // them apart.
    let text = |p: &[&str], t: &str| format!("{t}\n{}", p.join("\n"));
    let d = fingerprint::distance(
        fingerprint::simhash(&text(&STORY, "Brīvības ielu pārbūvēs")),
        fingerprint::simhash(&text(&edited, "Pārbūvēs Brīvības ielas posmu")),
    );
    assert!(d > 3, "SimHash distance {d}");
    // The other page of the same template stands alone.
    assert_eq!(mark(&st, &key(&urls[2])), None);
    assert_eq!(members(&st, &key(&urls[2])), Vec::new());
    assert_clean(&st);
    drop(st);
    // nlpc-dump leaves the copy out.
    let out = c.tmp.path().join("text");
    let err = run_ok(&c, "nlpc-dump", &["--text", out.to_str().unwrap()]);
    let mut want = vec![first.clone(), urls[2].clone()];
    want.sort();
    assert_eq!(index_urls(&out), want, "{err}");
}

/// Plants a VERIFIED page with `body` stored as nlpc-fetch stores it.
fn plant_page(c: &Crawl, st: &Store, url: &str, body: &str) -> Key {
    let mut r = Record::new(url, 1_700_000_000);
    r.state = State::Verified;
    r.status = 200;
    r.fetched = 1_700_000_000;
    r.content_type = "text/html".into();
    r.charset = "utf-8".into();
    r.size = body.len() as u64;
    r.hash = *blake3::hash(body.as_bytes()).as_bytes();
    let key = insert_new(st, &r);
    c.cache().write(&key, body.as_bytes()).expect("cache write");
    key
}

#[test]
fn dedup_paragraphs_writes_each_paragraph_once() {
    let c = Crawl::new();
    let st = c.store();
    let notice = "Subscribe to the Town Gazette and read every story of the harbour, the market and the council on the day it is written, for a small price a month.".to_string();
    let a = article(11, 3);
    let b = article(12, 3);
    let pages = vec![
        (
            "http://g.test/one",
            page("One", &[a.clone(), vec![notice.clone()]].concat()),
        ),
        (
            "http://g.test/two",
            page("Two", &[b.clone(), vec![notice.clone()]].concat()),
        ),
        // A paragraph of the first and the notice, and the same page
        // again: whichever of the two is written second has nothing new.
        (
            "http://g.test/three",
            page("Three", &[a[0].clone(), notice.clone()]),
        ),
        (
            "http://g.test/four",
            page("Three", &[a[0].clone(), notice.clone()]),
        ),
    ];
    let mut keys = BTreeMap::new();
    for (u, html) in &pages {
        keys.insert(plant_page(&c, &st, u, html), *u);
    }
    drop(st);
    // The dump walks in key order: what it writes first keeps the notice.
    let order: Vec<&str> = keys.values().copied().collect();

    let dir = c.tmp.path().join("plain");
    run_ok(&c, "nlpc-dump", &["--text", dir.to_str().unwrap()]);
    let texts = |dir: &std::path::Path| -> BTreeMap<String, String> {
        let idx = std::fs::read_to_string(dir.join("index.tsv")).unwrap();
        idx.lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (
                    f[1].to_string(),
                    std::fs::read_to_string(dir.join(f[0])).unwrap(),
                )
            })
            .collect()
    };
    let plain = texts(&dir);
    assert_eq!(plain.len(), 4);
    assert!(plain.values().all(|t| t.contains(&notice)), "{plain:#?}");

    let dir = c.tmp.path().join("dedup");
    let err = run_ok(
        &c,
        "nlpc-dump",
        &["--text", dir.to_str().unwrap(), "--dedup-paragraphs"],
    );
    let dedup = texts(&dir);
    let with_notice: Vec<&String> = dedup
        .iter()
        .filter(|(_, t)| t.contains(&notice))
        .map(|(u, _)| u)
        .collect();
    // The notice once, in the first of the pages written that has it.
    assert_eq!(
        with_notice,
        vec![&order[0].to_string()],
        "{dedup:#?}\n{err}"
    );
    // The page made only of paragraphs written before has no text file.
    assert_eq!(dedup.len(), 3, "{dedup:#?}");
    assert!(
        dedup.contains_key("http://g.test/three") != dedup.contains_key("http://g.test/four"),
        "{dedup:#?}"
    );
    // Every paragraph of the articles is there once.
    for p in a.iter().chain(&b) {
        let n: usize = dedup.values().map(|t| t.matches(p.trim()).count()).sum();
        assert_eq!(n, 1, "{p}");
    }
    // The flag is for the text tree.
    let o = c.run("nlpc-dump", &["--warc", "x.warc.gz", "--dedup-paragraphs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--dedup-paragraphs"), "{}", stderr(&o));
}

/// `--dup-similarity` outside 10 to 100 is refused: one line naming it,
/// and the synopsis.
#[test]
fn a_bad_dup_similarity_is_refused_in_one_line() {
    let c = Crawl::new();
    for v in ["5", "101", "half"] {
        let o = c.run("nlpc-vrfy", &["--once", "--dup-similarity", v]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{v}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{v}: {err}");
        assert!(lines[0].contains("--dup-similarity"), "{v}: {err}");
        assert!(lines[1].starts_with("usage: nlpc-vrfy"), "{v}: {err}");
    }
    drop(c.store());
    let o = c.run("nlpc-vrfy", &["--once", "--dup-similarity", "60"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

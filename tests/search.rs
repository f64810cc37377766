//! nlpc-index and nlpc-search: a small Latvian web crawled by the real
//! daemons and indexed; a page changed on the server and re-fetched; a
//! pruned page; SIGKILL of nlpc-index mid-indexing; concordance and
//! frequency lists on a corpus whose counts are known; diacritics folding;
//! the search page in a headless browser.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::document::charset::Kind;
use nlpcrawl::search::words;
use nlpcrawl::search::{index, schema};
use nlpcrawl::store::record::State;
use nlpcrawl::store::{dups, textcache};
use nlpcrawl::store::{Key, Store};
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Term};

fn index_dir(c: &Crawl) -> PathBuf {
    c.tmp.path().join("index")
}

/// Runs nlpc-index --once; returns its log.
fn index_once(c: &Crawl) -> String {
    let o = c
        .cmd("nlpc-index")
        .args(["--once", "--index"])
        .arg(index_dir(c))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "nlpc-index: {}", stderr(&o));
    stderr(&o)
}

/// nlpc-search ARGS; standard output.
fn search(c: &Crawl, args: &[&str]) -> String {
    let o = c
        .cmd("nlpc-search")
        .arg("--index")
        .arg(index_dir(c))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "nlpc-search {args:?}: {}",
        stderr(&o)
    );
    stdout(&o)
}

/// The URLs a query finds (all of them).
fn found(c: &Crawl, q: &str, extra: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["--limit", "0"];
    args.extend_from_slice(extra);
    args.push(q);
    search(c, &args)
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

/// How many documents the index holds for each record key.
fn docs_per_key(dir: &Path, keys: &[Key]) -> BTreeMap<String, usize> {
    let (index, f) = schema::open(dir, false).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let mut out = BTreeMap::new();
    for k in keys {
        let q = TermQuery::new(
            Term::from_field_text(f.key, &k.hex()),
            IndexRecordOption::Basic,
        );
        out.insert(k.hex(), searcher.search(&q, &Count).unwrap());
    }
    out
}

fn html(title: &str, text: &str) -> String {
    format!("<!DOCTYPE html><html lang=lv><head><meta charset=utf-8><title>{title}</title></head><body><p>{text}</p></body></html>")
}

/// The pages of the test web: path → (title, text).
fn pages() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("/riga", "Rīga", "Rīga ir Latvijas galvaspilsēta un lielākā pilsēta Baltijas valstīs. Pilsēta atrodas pie Rīgas līča, Daugavas grīvā, un tajā dzīvo gandrīz sešsimt tūkstoši iedzīvotāju."),
        ("/daba", "Daba", "Latvijas mežos aug priedes, egles un bērzi. Rudenī cilvēki dodas uz mežu lasīt sēnes un ogas, bet ziemā ezeri aizsalst un bērni slido pa ledu."),
        ("/jura", "Jūra", "Baltijas jūras krasts ir garš un smilšains. Vasarā pludmalēs atpūšas daudz ļaužu, kas peldas siltajā ūdenī un vakarā vēro saulrietu pār jūru."),
        ("/virtuve", "Virtuve", "Tradicionālā latviešu virtuve ietver rupjmaizi, pelēkos zirņus ar speķi, skābētus kāpostus un Jāņu sieru ar ķimenēm, ko ēd vasaras saulgriežos."),
    ]
}

/// Every verified page is found by each word it contains and by none it
/// lacks; a rejected page is found by nothing; a page changed on the
/// server is found by its new words and not its old ones after the
/// re-fetch; a pruned page is found no more.
#[test]
fn the_index_follows_the_crawl() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.61");
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (path, title, text) in pages() {
        srv.route(path, Reply::html(html(title, text)));
        let url = srv.url("lapas.test", path);
        plant_ready(&c.store(), &url, &srv.ip());
        texts.insert(url, format!("{title} {text}"));
    }
    // A page nlpc-vrfy rejects (meta robots noindex): never indexed.
    let banned = srv.url("lapas.test", "/aizliegts");
    srv.route(
        "/aizliegts",
        Reply::html("<html><head><meta name=robots content=noindex></head><body><p>Slepenais vārds zilonis.</p></body></html>"),
    );
    plant_ready(&c.store(), &banned, &srv.ip());

    let fetch = ["--once", "--fetch-polite", "0"];
    let o = c.run("nlpc-fetch", &fetch);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = c.run("nlpc-vrfy", &["--once"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(urls_in(&c.store(), State::Verified).len(), 4);
    assert_eq!(urls_in(&c.store(), State::Rejected), [banned.as_str()]);
    let log = index_once(&c);
    // A new index plans every verified page (some are in the log already,
    // from nlpc-vrfy: applied twice, they replace themselves).
    assert!(log.contains("new index"), "{log}");
    let keys: Vec<Key> = texts.keys().map(|u| st_key(&c, u)).collect();
    let per = docs_per_key(&index_dir(&c), &keys);
    assert!(per.values().all(|&n| n == 1), "{per:?}");

    let mut vocabulary = BTreeSet::new();
    for t in texts.values() {
        vocabulary.extend(words::split(t, false).into_iter().map(|(_, w)| w.norm));
    }
    for w in &vocabulary {
        let want: BTreeSet<String> = texts
            .iter()
            .filter(|(_, t)| words::split(t, false).iter().any(|(_, x)| &x.norm == w))
            .map(|(u, _)| u.clone())
            .collect();
        assert_eq!(found(&c, w, &[]), want, "query {w:?}");
    }
    assert!(found(&c, "zilonis", &[]).is_empty());
    // Phrases, boolean operators, prefixes and filters.
    let u = |p: &str| srv.url("lapas.test", p);
    assert_eq!(
        found(&c, "\"Baltijas jūras\"", &[]),
        BTreeSet::from([u("/jura")])
    );
    assert!(found(&c, "\"jūras Baltijas\"", &[]).is_empty());
    assert_eq!(
        found(&c, "Baltijas NOT jūras", &[]),
        BTreeSet::from([u("/riga")])
    );
    assert_eq!(
        found(&c, "sēnes OR speķi", &[]),
        BTreeSet::from([u("/daba"), u("/virtuve")])
    );
    assert_eq!(found(&c, "galvaspils*", &[]), BTreeSet::from([u("/riga")]));
    assert_eq!(
        found(&c, "host:lapas.test vasarā", &[]),
        BTreeSet::from([u("/jura")])
    );
    assert!(found(&c, "host:cits.test vasarā", &[]).is_empty());
    assert_eq!(
        found(&c, "date:2000.. ledu", &[]),
        BTreeSet::from([u("/daba")])
    );
    assert!(found(&c, "date:..2000 ledu", &[]).is_empty());
    // JSON lines carry the fields.
    let j = search(&c, &["--json", "ķimenēm"]);
    let v: serde_json::Value = serde_json::from_str(j.lines().next().unwrap()).unwrap();
    assert_eq!(v["url"], u("/virtuve"));
    assert_eq!(v["title"], "Virtuve");
    assert!(v["snippet"].as_str().unwrap().contains("[ķimenēm]"), "{v}");

    // The page changes on the server; nlpc-scan, a forced expiry, the
    // re-fetch and its verification bring the new text to the index.
    let changed = u("/daba");
    let key = st_key(&c, &changed);
    srv.route("/daba", Reply::html(html("Daba", "Pavasarī upēs peld laši un foreles, un dzērves atgriežas no dienvidiem ar skaļiem saucieniem pāri laukiem.")));
    for (bin, args) in [
        ("nlpc-scan", vec!["--once"]),
        ("nlpc-up", vec!["--force-exp"]),
        ("nlpc-fetch", fetch.to_vec()),
        ("nlpc-vrfy", vec!["--once"]),
    ] {
        let o = c.run(bin, &args);
        assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
    }
    assert_eq!(record(&c.store(), &changed).state, State::Verified);
    index_once(&c);
    assert_eq!(found(&c, "dzērves", &[]), BTreeSet::from([changed.clone()]));
    assert!(found(&c, "sēnes", &[]).is_empty());
    assert!(found(&c, "priedes", &[]).is_empty());
    assert_eq!(docs_per_key(&index_dir(&c), &[key])[&key.hex()], 1);

    // Killed and pruned: gone from the index.
    let pruned = u("/jura");
    for args in [
        ["--force-dead", "-s", "verified"],
        ["--force-del", "-s", "dead"],
    ] {
        let o = c.cmd("nlpc-up").args(args).arg(&pruned).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert_eq!(record(&c.store(), &pruned).state, State::Gone);
    index_once(&c);
    assert!(found(&c, "pludmalēs", &[]).is_empty());
    assert_eq!(found(&c, "Rīga", &[]), BTreeSet::from([u("/riga")]));
}

fn st_key(c: &Crawl, url: &str) -> Key {
    c.store().read().unwrap().lookup(url).unwrap().unwrap().0
}

/// Plants `n` verified pages with bodies; returns their keys.
fn plant_many(c: &Crawl, n: usize) -> Vec<Key> {
    let st = c.store();
    (0..n)
        .map(|i| {
            let body = format!(
                "<p>Lapa numur {i} stāsta par vārdu v{i} un par kopīgo vārdu kopīgs, ko lasa visi.</p>"
            );
            c.plant(&st, &format!("http://daudz.test/{i}"), State::Verified, "text/html", body.as_bytes())
        })
        .collect()
}

/// SIGKILL after nlpc-index committed a batch, while it works on the
/// next: the next run resumes after the committed batch, and every page is
/// in the index exactly once.
#[test]
fn sigkill_mid_indexing_loses_and_doubles_nothing() {
    let c = Crawl::new();
    let keys = plant_many(&c, 3000);
    sigkill_and_resume(&c, &keys);
}

/// The same with every page's text kept as nlpc-vrfy keeps it (tied to
/// its body's hash), which nlpc-index reads instead of the body: each kept
/// text carries a word its body lacks, found on every page.
#[test]
fn sigkill_mid_indexing_with_kept_texts_loses_and_doubles_nothing() {
    let c = Crawl::new();
    let keys = plant_many(&c, 3000);
    let st = c.store();
    let mut w = st.write().unwrap();
    for k in &keys {
        let mut r = w.get(k).unwrap().unwrap();
        let body = c.cache().read(k).unwrap().unwrap();
        r.hash = *blake3::hash(&body).as_bytes();
        let (title, mut text) = index::main_text(&body, &r, Kind::Html);
        text.push_str("kešots\n");
        textcache::write(&c.cache(), k, &r.hash, &textcache::Text { title, text }).unwrap();
        w.update(k, &r).unwrap();
    }
    w.commit().unwrap();
    sigkill_and_resume(&c, &keys);
    assert_eq!(found(&c, "kešots", &[]).len(), keys.len());
}

/// Runs nlpc-index on the pages `keys` (numbered as [`plant_many`] plants
/// them), SIGKILLs it after its first commit, runs it again, and checks
/// that every page is in the index exactly once.
fn sigkill_and_resume(c: &Crawl, keys: &[Key]) {
    let n = keys.len();
    let mut child = Killed(
        c.cmd("nlpc-index")
            .arg("--index")
            .arg(index_dir(c))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(child.0.stderr.take().unwrap()).lines();
    let mut planted = false;
    let committed = loop {
        let l = lines.next().expect("nlpc-index ended early").unwrap();
        planted |= l.contains(&format!("{n} pages to index"));
        if let Some(rest) = l.split("through change ").nth(1) {
            break rest.trim().parse::<u64>().unwrap();
        }
    };
    // SIGKILL (Child::kill), while it works on the next batch.
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    assert!(planted, "the new index did not plan every page");
    assert!(committed < n as u64, "all {n} committed before the kill");

    let log = index_once(c);
    // Resumed after what was committed: the rest, not everything again.
    let redone: usize = log
        .lines()
        .filter_map(|l| l.split("indexed ").nth(1))
        .map(|r| r.split(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert!(
        redone <= n - committed as usize + nlpcrawl::search::index::BATCH,
        "{redone} indexed after resuming at {committed}"
    );
    assert!(!log.contains("pages to index"), "planted again: {log}");
    let per = docs_per_key(&index_dir(c), keys);
    let wrong: Vec<_> = per.iter().filter(|(_, &v)| v != 1).collect();
    assert!(
        wrong.is_empty(),
        "{} keys not indexed once: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    assert_eq!(found(c, "kopīgs", &[]).len(), n);
    let last = n - 1;
    assert_eq!(
        found(c, &format!("v{last}"), &[]),
        BTreeSet::from([format!("http://daudz.test/{last}")])
    );
    // The applied changes were trimmed from the log (the last one stays).
    let left = c.store().read().unwrap().changes_after(0, 10).unwrap();
    assert_eq!(left.len(), 1, "{left:?}");
}

/// An idle nlpc-index is woken by the commit that logs a change, not by
/// its interval: with --use-interval an hour, pages verified while it
/// sleeps are searchable within seconds, and again for a second page
/// after the first was indexed.
#[test]
fn an_idle_indexer_is_woken_by_a_logged_change_not_its_interval() {
    let c = small_corpus();
    let mut child = idle_indexer(&c, Stdio::null());
    let sock = c.db().join(nlpcrawl::store::wake::DIR).join(format!(
        "{}.{:x}",
        child.0.id(),
        nlpcrawl::store::wake::CHANGES
    ));
    let st = c.store();
    for (i, word) in ["pamodināts", "atkal"].into_iter().enumerate() {
        // Idle: the socket is bound when the log has first been read out.
        wait_until(
            Duration::from_secs(20),
            "nlpc-index's wake-up socket",
            || sock.exists(),
        );
        let url = format!("http://woken{i}.test/");
        plant_changed(&c, &st, &url, format!("<p>Lapa {word}.</p>").as_bytes());
        wait_until(Duration::from_secs(20), "the page in the index", || {
            found(&c, word, &[]) == BTreeSet::from([url.clone()])
        });
    }
    // SIGTERM while asleep: a prompt clean stop that removes the socket.
    stop_cleanly(&mut child);
    assert!(!sock.exists());
}

/// Waits until nlpc-index `child` is idle on its wake-up socket: its index
/// is made and the log read out.
fn wait_idle(c: &Crawl, child: &std::process::Child) {
    let sock = c.db().join(nlpcrawl::store::wake::DIR).join(format!(
        "{}.{:x}",
        child.id(),
        nlpcrawl::store::wake::CHANGES
    ));
    wait_until(
        Duration::from_secs(20),
        "nlpc-index's wake-up socket",
        || sock.exists(),
    );
}

/// Changes that come one a transaction, as nlpc-vrfy's verdicts do during
/// a crawl, are committed to the index together, not one commit each:
/// twenty single-change commits made right after nlpc-index committed
/// the first page all land in one or two more index commits
/// (`search::index::COMMIT_GAP`), and every page is searchable.
#[test]
fn changes_arriving_one_by_one_share_an_index_commit() {
    let c = Crawl::new();
    // The database first: nlpc-index opens it as it starts.
    let st = c.store();
    let mut child = idle_indexer(&c, Stdio::piped());
    wait_idle(&c, &child.0);
    let page = |i: usize| {
        let url = format!("http://pa-vienai{i}.test/");
        plant_changed(
            &c,
            &st,
            &url,
            format!("<p>Lapa vienlaicīgi w{i}.</p>").as_bytes(),
        );
        url
    };
    let first = page(0);
    wait_until(
        Duration::from_secs(20),
        "the first page in the index",
        || found(&c, "w0", &[]) == BTreeSet::from([first.clone()]),
    );
    // Just after that commit: twenty more, each in a transaction of its own.
    let n = 20;
    let mut urls: BTreeSet<String> = (1..=n).map(page).collect();
    urls.insert(first);
    wait_until(Duration::from_secs(30), "every page in the index", || {
        found(&c, "vienlaicīgi", &[]).len() == n + 1
    });
    assert_eq!(found(&c, "vienlaicīgi", &[]), urls);
    stop_cleanly(&mut child);
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut log).unwrap();
    let commits: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("through change"))
        .collect();
    // The first page's commit, then the twenty in at most two.
    assert!(
        (2..=3).contains(&commits.len()),
        "{} index commits for {} changes: {commits:#?}",
        commits.len(),
        n + 1
    );
}

/// A stop signal while changes wait for the commit gap commits them on
/// the way out: the last verdicts of a crawl that ends are searchable.
#[test]
fn changes_waiting_for_the_commit_gap_are_committed_at_a_stop() {
    let c = Crawl::new();
    // The database first: nlpc-index opens it as it starts.
    let st = c.store();
    let mut child = idle_indexer(&c, Stdio::null());
    wait_idle(&c, &child.0);
    let mut urls = BTreeSet::new();
    for (i, word) in ["pirmais", "pedejais"].into_iter().enumerate() {
        let url = format!("http://beigas{i}.test/");
        plant_changed(
            &c,
            &st,
            &url,
            format!("<p>Lapa {word} galā.</p>").as_bytes(),
        );
        urls.insert(url.clone());
        if i == 0 {
            // The first commit: the second change now waits for the gap.
            wait_until(Duration::from_secs(20), "the first page", || {
                found(&c, word, &[]) == BTreeSet::from([url.clone()])
            });
        }
    }
    stop_cleanly(&mut child);
    assert_eq!(found(&c, "galā", &[]), urls);
}

/// The small corpus of the concordance and frequency tests.
fn small_corpus() -> Crawl {
    let c = Crawl::new();
    let st = c.store();
    for (url, text) in [
        ("http://a.test/", "Zāle ir zaļa. Zāle aug ātri."),
        ("http://b.test/", "Suns ēd zāli. Zāle ir mīksta."),
        ("http://c.test/", "Zale bez garumzīmes."),
    ] {
        c.plant(
            &st,
            url,
            State::Verified,
            "text/html",
            format!("<p>{text}</p>").as_bytes(),
        );
    }
    index_once(&c);
    c
}

#[test]
fn concordance_and_frequencies_are_exact() {
    let c = small_corpus();
    let kwic = search(
        &c,
        &[
            "--kwic",
            "--context",
            "12",
            "--sort",
            "right",
            "--limit",
            "0",
            "zāle",
        ],
    );
    assert_eq!(
        kwic,
        "āle ir zaļa. | Zāle | aug ātri.\n\
         uns ēd zāli. | Zāle | ir mīksta.\n             | Zāle | ir zaļa. Zāl\n"
    );
    let kwic = search(
        &c,
        &[
            "--kwic",
            "--context",
            "12",
            "--sort",
            "left",
            "--limit",
            "0",
            "zāle",
        ],
    );
    let hits: Vec<&str> = kwic
        .lines()
        .map(|l| l.split(" | ").next().unwrap().trim())
        .collect();
    // Sorted by the nearest word on the left: none, zaļa, zāli.
    assert_eq!(hits, ["", "āle ir zaļa.", "uns ēd zāli."]);
    let j = search(&c, &["--kwic", "--json", "\"zāle ir\""]);
    let rows: Vec<serde_json::Value> = j
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{j}");
    assert!(rows.iter().all(|r| r["hit"] == "Zāle ir"), "{j}");

    let freq = search(&c, &["--freq", "words", "--limit", "0"]);
    assert_eq!(
        freq,
        "3\t2\tzāle\n2\t2\tir\n1\t1\taug\n1\t1\tbez\n1\t1\tgarumzīmes\n1\t1\tmīksta\n1\t1\tsuns\n\
         1\t1\tzale\n1\t1\tzaļa\n1\t1\tzāli\n1\t1\tātri\n1\t1\tēd\n"
    );
    assert_eq!(
        search(&c, &["--freq", "words", "--limit", "2"]),
        "3\t2\tzāle\n2\t2\tir\n"
    );
    assert_eq!(search(&c, &["--freq", "words", "suns"]).lines().count(), 6);
    assert_eq!(
        search(&c, &["--freq", "right", "zāle"]),
        "2\t2\tir\n1\t1\taug\n"
    );
    assert_eq!(
        search(&c, &["--freq", "left", "zāle"]),
        "1\t1\tzaļa\n1\t1\tzāli\n"
    );
    let j = search(&c, &["--freq", "left", "--json", "zāle"]);
    let first: serde_json::Value = serde_json::from_str(j.lines().next().unwrap()).unwrap();
    assert_eq!(
        first,
        serde_json::json!({"word": "zaļa", "count": 1, "docs": 1})
    );
}

#[test]
fn fold_finds_words_without_diacritics_only_when_asked() {
    let c = small_corpus();
    let exact = found(&c, "zale", &[]);
    assert_eq!(exact, BTreeSet::from(["http://c.test/".to_string()]));
    let folded = found(&c, "zale", &["--fold"]);
    assert_eq!(
        folded,
        ["http://a.test/", "http://b.test/", "http://c.test/"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        found(&c, "zāle", &[]),
        ["http://a.test/", "http://b.test/"]
            .map(String::from)
            .into()
    );
    // Folded concordance: every spelling is a hit.
    let k = search(&c, &["--kwic", "--fold", "--limit", "0", "zale"]);
    assert_eq!(k.lines().count(), 4, "{k}");
    // Bad queries are refused in one line.
    let o = c
        .cmd("nlpc-search")
        .arg("--index")
        .arg(index_dir(&c))
        .arg("(zāle")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("query: a closing parenthesis is missing"),
        "{}",
        stderr(&o)
    );
}

/// A WebDriver session (W3C WebDriver, plain JSON over HTTP) with
/// Debian's chromedriver, which drives chromium as a user would.
struct Browser {
    /// The session's base URL: http://127.0.0.1:PORT/session/ID.
    session: String,
    _driver: Killed,
}

/// One WebDriver call: `method` on `url` with a JSON body; the reply's
/// "value".
fn webdriver(method: &str, url: &str, body: Option<serde_json::Value>) -> serde_json::Value {
    let mut e = curl::easy::Easy::new();
    e.url(url).unwrap();
    e.custom_request(method).unwrap();
    let mut headers = curl::easy::List::new();
    headers.append("Content-Type: application/json").unwrap();
    e.http_headers(headers).unwrap();
    let sent = body.map(|b| b.to_string()).unwrap_or_default();
    if method == "POST" {
        e.post_fields_copy(sent.as_bytes()).unwrap();
    }
    e.timeout(std::time::Duration::from_secs(60)).unwrap();
    let mut got = Vec::new();
    {
        let mut t = e.transfer();
        t.write_function(|d| {
            got.extend_from_slice(d);
            Ok(d.len())
        })
        .unwrap();
        t.perform().unwrap();
    }
    let code = e.response_code().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&got)
        .unwrap_or_else(|e| panic!("{method} {url}: {e}: {}", String::from_utf8_lossy(&got)));
    assert_eq!(code, 200, "{method} {url} {sent}: {v}");
    v["value"].clone()
}

impl Browser {
    /// Starts chromedriver on a loopback port of its choosing and a
    /// headless chromium session whose only reachable host is 127.0.0.1.
    fn start(chromium: &Path, chromedriver: &Path, profile: &Path) -> Browser {
        let mut driver = Killed(
            Command::new(chromedriver)
                .arg("--port=0")
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let mut lines = BufReader::new(driver.0.stdout.take().unwrap()).lines();
        let port = loop {
            let l = lines.next().expect("chromedriver ended").unwrap();
            if let Some(p) = l.split("started successfully on port ").nth(1) {
                break p.trim_end_matches('.').trim().to_string();
            }
        };
        // Its later output is not read; a thread drains it so the driver
        // never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let base = format!("http://127.0.0.1:{port}");
        let caps = serde_json::json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_str().expect("a UTF-8 path"),
                "args": [
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--window-size=900,420",
                    // Nothing but the loopback page: no background
                    // requests, and every host but 127.0.0.1, the page's,
                    // fails to resolve, so nothing can leave the machine.
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        }}});
        let v = webdriver("POST", &format!("{base}/session"), Some(caps));
        let id = v["sessionId"].as_str().expect("a session id").to_string();
        Browser {
            session: format!("{base}/session/{id}"),
            _driver: driver,
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<serde_json::Value>) -> serde_json::Value {
        webdriver(method, &format!("{}{path}", self.session), body)
    }

    fn go(&self, url: &str) {
        self.call("POST", "/url", Some(serde_json::json!({ "url": url })));
    }

    /// The element a CSS selector finds (the first).
    fn element(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            "/element",
            Some(serde_json::json!({"using": "css selector", "value": css})),
        );
        v["element-6066-11e4-a52e-4f735466cecf"]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    fn click(&self, css: &str) {
        let e = self.element(css);
        self.call(
            "POST",
            &format!("/element/{e}/click"),
            Some(serde_json::json!({})),
        );
    }

    /// Types `text` into the element, key by key.
    fn type_into(&self, css: &str, text: &str) {
        let e = self.element(css);
        self.call(
            "POST",
            &format!("/element/{e}/value"),
            Some(serde_json::json!({ "text": text })),
        );
    }

    fn url(&self) -> String {
        self.call("GET", "/url", None).as_str().unwrap().to_string()
    }

    /// The page's DOM as HTML.
    fn source(&self) -> String {
        self.call("GET", "/source", None)
            .as_str()
            .unwrap()
            .to_string()
    }

    fn screenshot(&self) -> Vec<u8> {
        let b64 = self.call("GET", "/screenshot", None);
        data_encoding::BASE64
            .decode(b64.as_str().unwrap().as_bytes())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ends chromium; the driver is killed after.
        let s = std::panic::AssertUnwindSafe(&self.session);
        let _ = std::panic::catch_unwind(|| webdriver("DELETE", &s, None));
    }
}

/// The first of `names` found on PATH, as a full path (chromedriver wants
/// one for the browser).
fn program(names: &[&str], why: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{} is not installed ({why})", names[0]))
}

/// The search page in Debian's chromium, driven through chromedriver as a
/// user would: the form is loaded, the query typed into its text field,
/// "concordance" and "by right context" chosen, the form submitted with
/// its button; the resulting page holds the expected concordance rows,
/// escaped. A screenshot for the README when SEARCH_SCREENSHOT names a
/// file.
#[test]
fn the_search_page_in_a_headless_browser() {
    let chromium = program(
        &["chromium", "chromium-browser"],
        "make test installs chromium (scripts/install-deps test)",
    );
    let chromedriver = program(
        &["chromedriver"],
        "make test installs chromium-driver (scripts/install-deps test)",
    );
    let c = small_corpus();
    // A page whose text holds markup, to see it escaped, verified after
    // the index was made (so logged, as nlpc-vrfy logs it).
    let st = c.store();
    plant_changed(
        &c,
        &st,
        "http://d.test/",
        "<p>Zāle &lt;b&gt;nav&lt;/b&gt; siens.</p>".as_bytes(),
    );
    index_once(&c);
    let mut srv = Killed(
        c.cmd("nlpc-search")
            .arg("--index")
            .arg(index_dir(&c))
            .args(["--serve", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(srv.0.stderr.take().unwrap()).lines();
    let base = loop {
        let l = lines.next().expect("nlpc-search ended").unwrap();
        if let Some(u) = l.split("search page at ").nth(1) {
            break u.trim().to_string();
        }
    };
    let b = Browser::start(&chromium, &chromedriver, &c.tmp.path().join("chromium"));
    b.go(&base);
    let front = b.source();
    assert!(
        front.contains("<form action=\"/search\" method=\"get\">"),
        "{front}"
    );
    b.type_into("form input[name=q]", "zāle");
    b.click("form select[name=mode] option[value=kwic]");
    b.click("form select[name=sort] option[value=right]");
    b.click("form input[type=submit]");
    wait_until(Duration::from_secs(30), "the results page", || {
        b.url().contains("/search?")
    });
    // What was typed and chosen is what the form sent.
    assert_eq!(
        b.url(),
        format!("{base}search?q=z%C4%81le&mode=kwic&sort=right")
    );
    let dom = b.source();
    for row in [
        "<td class=\"left\">Zāle ir zaļa.</td><td class=\"hit\"><a href=\"http://a.test/\">Zāle</a></td><td class=\"right\">aug ātri.</td>",
        "<td class=\"left\">Suns ēd zāli.</td><td class=\"hit\"><a href=\"http://b.test/\">Zāle</a></td><td class=\"right\">ir mīksta.</td>",
        "<td class=\"hit\"><a href=\"http://d.test/\">Zāle</a></td><td class=\"right\">&lt;b&gt;nav&lt;/b&gt; siens.</td>",
    ] {
        assert!(dom.contains(row), "row {row} missing from {dom}");
    }
    assert!(!dom.contains("<b>nav"), "page text not escaped");
    // The answer page keeps the query in its form.
    assert!(
        dom.contains("name=\"q\" size=\"50\" value=\"zāle\""),
        "{dom}"
    );
    if let Some(shot) = std::env::var_os("SEARCH_SCREENSHOT") {
        let png = b.screenshot();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(&shot, png).unwrap();
    }
}

/// nlpc-index over the crawl `c`, asleep between changes (an interval of
/// an hour: only a wake-up makes it look again soon).
fn idle_indexer(c: &Crawl, stderr: Stdio) -> Killed {
    Killed(
        c.cmd("nlpc-index")
            .arg("--index")
            .arg(index_dir(c))
            .args(["--use-interval", "1h"])
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap(),
    )
}

/// Plants a VERIFIED page and logs its change, as nlpc-vrfy's verdict
/// does, in a transaction of its own.
fn plant_changed(c: &Crawl, st: &Store, url: &str, body: &[u8]) {
    let k = c.plant(st, url, State::Verified, "text/html", body);
    let mut w = st.write().unwrap();
    w.log_change(&k, State::Verified).unwrap();
    w.commit().unwrap();
}

/// SIGTERM, and a clean exit.
fn stop_cleanly(child: &mut Killed) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert_eq!(child.0.wait().unwrap().code(), Some(0));
}

/// A child killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// nlpc-vrfy keeps each verified page's title and text beside its body,
/// tied to the body's hash: the very text nlpc-index would extract.
/// nlpc-index indexes a kept text for the current body as it is, and
/// extracts the text from the body again when the kept one is for
/// another body (stale), missing or damaged: the same document as with
/// no cache. A page rejected after a re-fetch loses its text with its
/// body, and so does a page nlpc-up prunes.
#[test]
fn the_text_nlpc_vrfy_keeps_is_indexed_only_for_its_body() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.63");
    let mut urls = Vec::new();
    for (path, title, text) in pages() {
        srv.route(path, Reply::html(html(title, text)));
        let url = srv.url("teksti.test", path);
        plant_ready(&c.store(), &url, &srv.ip());
        urls.push(url);
    }
    let fetch = ["--once", "--fetch-polite", "0"];
    // No tunnelling: with it a rejected page's body stays for nlpc-scan.
    let vrfy = ["--once", "--filter-tunnel", "0"];
    for (bin, args) in [("nlpc-fetch", &fetch[..]), ("nlpc-vrfy", &vrfy[..])] {
        let o = c.run(bin, args);
        assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
    }
    let cache = c.cache();
    let st = c.store();
    let key_rec: Vec<_> = urls
        .iter()
        .map(|u| {
            let (k, r) = st.read().unwrap().lookup(u).unwrap().unwrap();
            assert_eq!(r.state, State::Verified, "{u}");
            (k, r)
        })
        .collect();
    for (k, r) in &key_rec {
        let body = cache.read(k).unwrap().unwrap();
        let (title, text) = index::main_text(&body, r, Kind::Html);
        assert!(!text.is_empty(), "{}", r.url);
        let kept = textcache::read(&cache, k, &r.hash).unwrap();
        assert_eq!(kept, Some(textcache::Text { title, text }), "{}", r.url);
        assert_eq!(
            index::page_text(&cache, k, r).unwrap(),
            kept.map(|t| (t.title, t.text))
        );
    }
    // /riga: a kept text for its body, with a word the body lacks, is
    // what is indexed (so the index did not extract the body again).
    let (k, r) = &key_rec[0];
    let t = textcache::Text {
        title: "Rīga".into(),
        text: "Kamielis staigā pa Rīgu.\n".into(),
    };
    textcache::write(&cache, k, &r.hash, &t).unwrap();
    // /daba: a text kept for another body is stale: never indexed.
    let (k, r) = &key_rec[1];
    let mut other = r.hash;
    other[0] ^= 1;
    let stale = textcache::Text {
        title: "Daba".into(),
        text: "Žirafe ēd lapas.\n".into(),
    };
    textcache::write(&cache, k, &other, &stale).unwrap();
    assert_eq!(textcache::read(&cache, k, &r.hash).unwrap(), None);
    // /jura: none; /virtuve: a damaged one.
    textcache::remove(&cache, &key_rec[2].0).unwrap();
    std::fs::write(
        textcache::path(&cache, &key_rec[3].0),
        b"nlpc-text 1 zz 9\nx",
    )
    .unwrap();
    index_once(&c);
    let keys: Vec<Key> = key_rec.iter().map(|(k, _)| *k).collect();
    let per = docs_per_key(&index_dir(&c), &keys);
    assert!(per.values().all(|&n| n == 1), "{per:?}");
    assert_eq!(
        found(&c, "kamielis", &[]),
        BTreeSet::from([urls[0].clone()])
    );
    assert!(found(&c, "galvaspilsēta", &[]).is_empty());
    assert!(found(&c, "žirafe", &[]).is_empty());
    // The other three were extracted from their bodies: their words are
    // found, each by its own page.
    for (url, word) in [(1, "priedes"), (2, "pludmalēs"), (3, "ķimenēm")] {
        assert_eq!(
            found(&c, word, &[]),
            BTreeSet::from([urls[url].clone()]),
            "{word}"
        );
    }
    assert_eq!(search(&c, &["--json", "ķimenēm"]).lines().count(), 1);

    // /daba changes on the server to a page nlpc-vrfy rejects: its body
    // and its text go together.
    srv.route(
        "/daba",
        Reply::html("<html><head><meta name=robots content=noindex></head><body><p>Slepens.</p></body></html>"),
    );
    let (k, _) = key_rec[1];
    for (bin, args) in [
        ("nlpc-scan", vec!["--once"]),
        ("nlpc-up", vec!["--force-exp"]),
        ("nlpc-fetch", fetch.to_vec()),
    ] {
        let o = c.run(bin, &args);
        assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
    }
    assert!(
        textcache::path(&cache, &k).exists(),
        "the stale text was removed early"
    );
    let o = c.run("nlpc-vrfy", &vrfy);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(record(&c.store(), &urls[1]).state, State::Rejected);
    assert!(!cache.path(&k).exists());
    assert!(!textcache::path(&cache, &k).exists());

    // /riga is pruned by nlpc-up: its body and its kept text go with
    // the record.
    let (k, _) = key_rec[0];
    assert!(
        textcache::path(&cache, &k).exists(),
        "no text kept for /riga"
    );
    let state = format!("{:?}", record(&c.store(), &urls[0]).state).to_lowercase();
    for args in [
        ["--force-dead", "-s", state.as_str()],
        ["--force-del", "-s", "dead"],
    ] {
        let o = c.cmd("nlpc-up").args(args).arg(&urls[0]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert_eq!(record(&c.store(), &urls[0]).state, State::Gone);
    assert!(!cache.path(&k).exists());
    assert!(!textcache::path(&cache, &k).exists());
    index_once(&c);
    assert!(found(&c, "kamielis", &[]).is_empty());
}

/// nlpc-vrfy keeps the text of a first copy only: nlpc-index indexes no
/// duplicate, so a duplicate's text would be written for nothing. Of two
/// pages with one text, the one verified first keeps its text and is
/// found; the exact copy keeps none and is not found; its text, read
/// from its body when asked for, is the first copy's.
#[test]
fn a_duplicate_keeps_no_text_and_only_its_first_copy_is_indexed() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.67");
    let (_, title, text) = pages()[0];
    let mut urls = Vec::new();
    for path in ["/riga", "/riga-kopija"] {
        srv.route(path, Reply::html(html(title, text)));
        let url = srv.url("dubulti.test", path);
        plant_ready(&c.store(), &url, &srv.ip());
        urls.push(url);
    }
    for (bin, args) in [
        ("nlpc-fetch", &["--once", "--fetch-polite", "0"][..]),
        ("nlpc-vrfy", &["--once"][..]),
    ] {
        let o = c.run(bin, args);
        assert_eq!(o.status.code(), Some(0), "{bin}: {}", stderr(&o));
    }
    let cache = c.cache();
    let st = c.store();
    let rd = st.read().unwrap();
    let mut first = Vec::new();
    let mut copies = Vec::new();
    for u in &urls {
        let (k, r) = rd.lookup(u).unwrap().unwrap();
        assert_eq!(r.state, State::Verified, "{u}");
        let kept = textcache::read(&cache, &k, &r.hash).unwrap();
        match dups::duplicate_of(&rd, &k).unwrap() {
            None => {
                assert!(kept.is_some(), "no text kept for the first copy {u}");
                first.push(u.clone());
            }
            Some(m) => {
                assert_eq!(m.kind, dups::Kind::Exact, "{u}");
                assert!(!textcache::path(&cache, &k).exists(), "{u}: {kept:?}");
                let (t, x) = index::page_text(&cache, &k, &r).unwrap().unwrap();
                assert_eq!((t.as_str(), x.trim()), (title, text), "{u}");
                copies.push(u.clone());
            }
        }
    }
    drop(rd);
    assert_eq!((first.len(), copies.len()), (1, 1), "{first:?} {copies:?}");
    index_once(&c);
    assert_eq!(
        found(&c, "galvaspilsēta", &[]),
        BTreeSet::from([first[0].clone()])
    );
}

/// Documents of the hostile test: `NLPC_HOSTILE_DOCS`, else 100,000.
fn hostile_docs() -> usize {
    std::env::var("NLPC_HOSTILE_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// Plants `n` documents straight into a new index (no crawl): 40 words
/// each from a vocabulary of 3,000 made-up Latvian-looking words, many
/// beginning with "a", and the word "kopīgs" in every one.
fn plant_index(dir: &Path, n: usize) {
    use tantivy::{DateTime, TantivyDocument};
    let (index, f) = schema::open(dir, true).unwrap();
    let mut w: tantivy::IndexWriter<TantivyDocument> = index.writer(200 << 20).unwrap();
    let syll = [
        "a", "ab", "ka", "ra", "zā", "le", "mē", "ti", "lū", "pa", "sa", "ņo", "ve", "dī", "gu",
    ];
    let vocab: Vec<String> = (0..3000usize)
        .map(|i| {
            let mut s = String::new();
            let mut x = i;
            for _ in 0..3 {
                s.push_str(syll[x % syll.len()]);
                x /= syll.len();
            }
            s
        })
        .collect();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..n {
        let mut text = String::from("Kopīgs");
        for _ in 0..40 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            text.push(' ');
            text.push_str(&vocab[(x % vocab.len() as u64) as usize]);
        }
        text.push('.');
        let mut d = TantivyDocument::default();
        d.add_text(f.key, format!("{i:032x}"));
        d.add_text(f.url, format!("http://h{}.test/{i}", i % 500));
        d.add_text(f.host, format!("h{}.test", i % 500));
        d.add_text(f.lang, "lv");
        d.add_date(
            f.date,
            DateTime::from_timestamp_secs(1_700_000_000 + i as i64),
        );
        d.add_text(f.title, format!("Lapa {i}"));
        d.add_text(f.text, &text);
        d.add_text(f.title_fold, format!("Lapa {i}"));
        d.add_text(f.text_fold, &text);
        w.add_document(d).unwrap();
    }
    w.commit().unwrap();
}

/// One GET of `target` (a path, or a whole request line's target) on
/// `addr`; the status code (0 when the connection closed without one) and
/// the body.
fn get(addr: &str, target: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let req = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    // A server that refuses a long head may close before it is all sent.
    let _ = s.write_all(req.as_bytes());
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got).into_owned();
    let code = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

/// The peak resident memory of process `pid`, in bytes (VmHWM).
fn peak_memory(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

/// Hostile requests against the search page of a 100,000-document index
/// (NLPC_HOSTILE_DOCS sets another size) while a client asks an ordinary
/// query every 100 ms: every ordinary query is answered within the budget
/// and nine in ten within 0.3 s, each hostile one is answered or refused
/// within its budget, and the server's
/// peak memory stays under 300 MB (doc/BENCHMARKS.md has the figures).
#[test]
fn the_search_page_stays_up_under_hostile_queries() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;
    let c = Crawl::new();
    let dir = index_dir(&c);
    let n = hostile_docs();
    let t = Instant::now();
    plant_index(&dir, n);
    println!(
        "{n} documents planted in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let budget = Duration::from_secs(2);
    let mut srv = Killed(
        c.cmd("nlpc-search")
            .arg("--index")
            .arg(&dir)
            .args([
                "--serve",
                "0",
                "--serve-budget",
                "2s",
                "--serve-workers",
                "2",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(srv.0.stderr.take().unwrap()).lines();
    let base = loop {
        let l = lines.next().expect("nlpc-search ended").unwrap();
        if let Some(u) = l.split("search page at http://").nth(1) {
            break u.trim().trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    // Bound to the loopback address when given a port alone.
    assert!(base.starts_with("127.0.0.1:"), "{base}");
    let (code, page) = get(&base, "/search?q=kop%C4%ABgs");
    assert_eq!(code, 200, "{page}");
    assert!(page.contains(&format!("{n} pages match")), "{page}");
    assert!(page.contains("class=\"next\""), "no next page: {page}");

    let done = Arc::new(AtomicBool::new(false));
    let ordinary = {
        let (done, base) = (done.clone(), base.clone());
        std::thread::spawn(move || {
            let mut times = Vec::new();
            while !done.load(Ordering::Relaxed) {
                let t = Instant::now();
                let (code, page) = get(&base, "/search?q=kop%C4%ABgs+ka");
                times.push((t.elapsed(), code, page.len()));
                std::thread::sleep(Duration::from_millis(100));
            }
            times
        })
    };
    let long = format!("/search?q={}", "ab*+".repeat(1024));
    let hostile: Vec<(&str, String, &str)> = vec![
        ("a*", "/search?q=a*".into(), "at least 2 letters"),
        ("4 KB of prefixes", long, "at most 64"),
        (
            "NOT x, words",
            "/search?q=NOT+x&mode=words".into(),
            "Counted in a sample",
        ),
        (
            "NOT x, left",
            "/search?q=NOT+x&mode=left".into(),
            "<table class=\"freq\">",
        ),
        (
            "NOT x, right",
            "/search?q=NOT+x&mode=right".into(),
            "<table class=\"freq\">",
        ),
        (
            "context sort over every hit",
            "/search?q=kop%C4%ABgs&mode=kwic&sort=left".into(),
            "sorted among the first",
        ),
        (
            "ab* prefix",
            "/search?q=ab*&mode=kwic&sort=right".into(),
            "lines shown",
        ),
        ("don’t*", "/search?q=don%E2%80%99t*".into(), "0 pages match"),
    ];
    for (what, target, want) in &hostile {
        let t = Instant::now();
        let (code, page) = get(&base, target);
        let took = t.elapsed();
        println!("{what}: {code} in {:.2} s", took.as_secs_f64());
        assert_eq!(code, 200, "{what}: {page}");
        assert!(
            page.contains(want),
            "{what}: {}",
            &page[..page.len().min(2000)]
        );
        assert!(
            took < budget + Duration::from_millis(1500),
            "{what} took {took:?}"
        );
    }
    // A 1 MB request line is refused at once.
    let t = Instant::now();
    let (code, _) = get(&base, &format!("/search?q={}", "x".repeat(1 << 20)));
    println!(
        "1 MB request line: {code} in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    assert!(code == 431 || code == 400 || code == 0, "{code}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // 500 connections that send nothing, held for three seconds.
    let idle: Vec<std::net::TcpStream> = (0..500)
        .map(|_| std::net::TcpStream::connect(&base).unwrap())
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    drop(idle);
    done.store(true, Ordering::Relaxed);
    let times = ordinary.join().unwrap();
    let worst = times.iter().map(|(d, _, _)| *d).max().unwrap();
    println!(
        "{} ordinary queries, the slowest {:.3} s; over 0.3 s: {:?}",
        times.len(),
        worst.as_secs_f64(),
        times
            .iter()
            .enumerate()
            .filter(|(_, t)| t.0 > Duration::from_millis(300))
            .map(|(i, t)| (i, t.0.as_millis()))
            .collect::<Vec<_>>()
    );
    assert!(times.len() >= 20, "{} ordinary queries", times.len());
    // Served throughout: none waits as long as a hostile query may run
    // (its budget), and nine in ten are as quick as on an idle server. A
    // single bound of a second failed once on a loaded 2-core CI machine,
    // on one query of 49 while every hostile one took under 0.4 s: noise,
    // not starvation.
    for (d, code, len) in &times {
        assert_eq!(*code, 200, "an ordinary query failed ({len} bytes)");
        assert!(*d < budget, "an ordinary query took {d:?}");
    }
    let quick = times
        .iter()
        .filter(|t| t.0 < Duration::from_millis(300))
        .count();
    assert!(
        quick * 10 >= times.len() * 9,
        "{quick} of {} ordinary queries under 0.3 s",
        times.len()
    );
    let peak = peak_memory(srv.0.id());
    println!("server peak memory {} MB", peak >> 20);
    assert!(peak < 300 << 20, "peak memory {} MB", peak >> 20);
}

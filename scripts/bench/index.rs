//! nlpc-index's CPU per page, and what nlpc-vrfy's text cache saves.
//!
//! cargo bench --bench index
//!     Plants $INDEX_BENCH_PAGES verified pages (default 2000) of about
//!     40 KB (Latvian news pages: a menu, scripts, styles, paragraphs with
//!     inline markup) in a real LMDB store and file cache in a temporary
//!     directory, then indexes them all with `Indexer::step` as nlpc-index
//!     does (the batches of `index::BATCH`, each committed), twice: with no
//!     text cache (every page decoded and extracted again from its body)
//!     and with the text nlpc-vrfy keeps (`store::textcache`). For each it
//!     prints the process's CPU time per page (getrusage, so tantivy's
//!     indexing thread counts) and the MB of text indexed (exact and folded
//!     fields) per second of that CPU, the index's size on disk a page (the
//!     segments of the four commits of 2,000 pages: too few for tantivy's
//!     merge policy, which merges 8 at least, so no merge is in the
//!     figures), the part spent getting the pages' text
//!     (`index::page_text` over every page, alone) and the part spent
//!     cutting it into words (`search::words`: the exact and the folding
//!     tokenizer over each page's title and text, alone, the mean of ten
//!     rounds). It also prints what
//!     keeping the text costs nlpc-vrfy per page (encoding and writing the
//!     file, unsynced).
//!
//! INDEX_BENCH_DOCSTORE=none cargo bench --bench index
//!     The same with tantivy's doc store uncompressed (nlpc-index
//!     compresses it with lz4): its CPU and its size on disk.
//!
//! cargo bench --bench index -- extract | cached
//!     Only that run (for callgrind: `valgrind --tool=callgrind
//!     target/release/deps/index-HASH cached`).

use std::path::{Path, PathBuf};

use nlpcrawl::document::charset::{self, Kind};
use nlpcrawl::document::text;
use nlpcrawl::search::index::{page_text, Config, Indexer};
use nlpcrawl::search::words::Words;
use nlpcrawl::stage::vrfy;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::textcache;
use nlpcrawl::store::{self, Inserted, Key, Store};
use tantivy::tokenizer::{TokenStream, Tokenizer};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy")
}

/// Sentences of the Latvian test pages, to fill paragraphs with.
fn sentences() -> Vec<String> {
    let body = std::fs::read(corpus().join("lv-daugava-utf8.html")).expect("corpus file");
    let det = charset::detect(&body, "", Kind::Html, &charset::Hints::default());
    let doc = charset::decode(&body, &det);
    text::visible(&doc, Kind::Html)
        .text
        .split(". ")
        .filter(|s| s.len() > 20)
        .map(|s| format!("{s}."))
        .collect()
}

/// Page `i`, about `size` bytes: each page's paragraphs start at another
/// sentence, so no two pages are the same text.
fn page(i: usize, size: usize, sent: &[String]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html lang=lv><head><meta charset=utf-8><title>Ziņas {i}</title>\
         <script>var a = 1; function g(){{return a<2;}}</script>\
         <style>.m a{{margin:0 3px}}</style></head><body><nav class=m>"
    );
    for j in 0..30 {
        s.push_str(&format!("<a href=\"/nodala/{j}/\">Nodaļa {j}</a> "));
    }
    s.push_str("</nav><main><article><h1>Raksts</h1>");
    let mut k = i * 7;
    while s.len() + 300 < size {
        s.push_str("<p>");
        for n in 0..3 {
            let t = &sent[k % sent.len()];
            if n == 1 {
                s.push_str(&format!("<a href=\"/r/{k}\">{t}</a> "));
            } else {
                s.push_str(t);
                s.push(' ');
            }
            k += 1;
        }
        s.push_str("&mdash; <em>LETA</em></p>\n");
    }
    s.push_str("</article></main><footer>Visas tiesības aizsargātas.</footer></body></html>");
    s
}

/// CPU seconds of the whole process (every thread) so far.
fn cpu_secs() -> f64 {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes only to the struct it is given.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage failed");
    // SAFETY: getrusage succeeded, so the struct is filled in.
    let u = unsafe { u.assume_init() };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// Plants the pages as verified records with their bodies; with `keep`,
/// keeps each page's text as nlpc-vrfy does and returns the CPU seconds
/// that took.
fn plant(dir: &Path, pages: &[String], keep: bool) -> (Store, Cache, Vec<Key>, f64) {
    // A map of 1 GB, not the default's terabytes, which valgrind cannot map.
    let opts = store::Options {
        map_size: 1 << 30,
        ..store::Options::default()
    };
    let st = Store::open(&dir.join("db"), opts).expect("store");
    let cache = Cache::new(dir.join("cache"));
    let cfg = vrfy::Config::default();
    let mut keys = Vec::new();
    let mut kept = 0.0;
    let mut w = st.write().expect("write");
    for (i, p) in pages.iter().enumerate() {
        let mut r = Record::new(&format!("http://lapas{}.lv/raksts/{i}.html", i % 20), 1);
        r.state = State::Verified;
        r.status = 200;
        r.content_type = "text/html; charset=utf-8".into();
        r.charset = "UTF-8".into();
        r.language = "lv".into();
        r.fetched = 1_700_000_000 + i as u64;
        r.size = p.len() as u64;
        r.hash = *blake3::hash(p.as_bytes()).as_bytes();
        let key = match w.insert(&r).expect("insert") {
            Inserted::New(k) => k,
            other => panic!("planted twice: {other:?}"),
        };
        cache.write(&key, p.as_bytes()).expect("cache write");
        if keep {
            let v = vrfy::verify(&cfg, &r, Some(p.as_bytes()));
            let t = v.main.expect("a verified page");
            let t0 = cpu_secs();
            textcache::write(&cache, &key, &r.hash, &t).expect("text write");
            kept += cpu_secs() - t0;
        }
        keys.push(key);
    }
    w.commit().expect("commit");
    (st, cache, keys, kept)
}

/// Bytes of the files in an index's directory (tantivy keeps them flat).
fn dir_bytes(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .expect("index directory")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

fn run(label: &str, pages: &[String], keep: bool) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (st, cache, keys, kept) = plant(tmp.path(), pages, keep);
    let n = pages.len() as f64;
    // Getting the text alone, every page once.
    let t0 = cpu_secs();
    let mut bytes = 0;
    for k in &keys {
        let rec = st.read().expect("read").get(k).expect("get").expect("rec");
        let (title, text) = page_text(&cache, k, &rec).expect("text").expect("a text");
        bytes += title.len() + text.len();
    }
    let text_cpu = cpu_secs() - t0;
    // The index's word split alone (`search::words`): each page's title
    // and text cut by the exact tokenizer, then by the folding one, as
    // tantivy calls them, ten times over.
    let texts: Vec<(String, String)> = keys
        .iter()
        .map(|k| {
            let rec = st.read().expect("read").get(k).expect("get").expect("rec");
            page_text(&cache, k, &rec).expect("text").expect("a text")
        })
        .collect();
    const ROUNDS: usize = 10;
    let t0 = cpu_secs();
    let mut tokens = 0;
    for _ in 0..ROUNDS {
        for (title, text) in &texts {
            for fold in [false, true] {
                for t in [title, text] {
                    let mut w = Words { fold };
                    let mut s = w.token_stream(t);
                    while s.advance() {
                        tokens += s.token().text.len();
                    }
                }
            }
        }
    }
    let words_cpu = (cpu_secs() - t0) / ROUNDS as f64;
    std::hint::black_box(tokens);
    // The whole of nlpc-index's work: open (which logs a change for each
    // page), then batches until the log is empty.
    let cfg = Config {
        path: tmp.path().join("index"),
        batch: nlpcrawl::search::index::BATCH,
    };
    if std::env::var("INDEX_BENCH_DOCSTORE").as_deref() == Ok("none") {
        // The index made first with an uncompressed doc store, which
        // Indexer::open then opens: what lz4 costs and saves.
        std::fs::create_dir_all(&cfg.path).expect("index directory");
        let settings = tantivy::IndexSettings {
            docstore_compression: tantivy::store::Compressor::None,
            ..tantivy::IndexSettings::default()
        };
        tantivy::Index::builder()
            .schema(nlpcrawl::search::schema::schema().0)
            .settings(settings)
            .create_in_dir(&cfg.path)
            .expect("create index");
    }
    let t0 = cpu_secs();
    let mut ix = Indexer::open(&cfg, &st).expect("open index");
    let mut done = 0;
    loop {
        let d = ix.step(&st, &cache).expect("step");
        if d == 0 {
            break;
        }
        done += d;
    }
    let all = cpu_secs() - t0;
    assert_eq!(done, pages.len());
    drop(ix);
    let on_disk = dir_bytes(&cfg.path);
    println!(
        "{label:>8}: {:.3} ms CPU a page indexed ({:.1} MB/s of text per core, both \
         fields), of which {:.3} ms getting the text and {:.3} ms cutting it into words \
         ({:.1} KB of text a page, {:.1} KB of index on disk a page){}",
        all / n * 1e3,
        bytes as f64 / all.max(1e-9) / 1e6,
        text_cpu / n * 1e3,
        words_cpu / n * 1e3,
        bytes as f64 / n / 1e3,
        on_disk as f64 / n / 1e3,
        if keep {
            format!("; nlpc-vrfy keeping it: {:.3} ms a page", kept / n * 1e3)
        } else {
            String::new()
        }
    );
}

fn main() {
    let n: usize = std::env::var("INDEX_BENCH_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let sent = sentences();
    let pages: Vec<String> = (0..n).map(|i| page(i, 40_000, &sent)).collect();
    let avg = pages.iter().map(String::len).sum::<usize>() / n.max(1);
    println!("{n} pages of {avg} bytes on average");
    for (label, keep) in [("extract", false), ("cached", true)] {
        if only.as_deref().is_none_or(|o| o == label) {
            run(label, &pages, keep);
        }
    }
}

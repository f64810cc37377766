//! The search index: indexing speed, query latency and index size, over
//! synthetic Latvian-like documents.
//!
//! cargo bench --bench search
//!     Builds an index of $SEARCH_BENCH_DOCS documents (default 100000) of
//!     about 300 words each, drawn with a Zipf-like skew from 20000
//!     made-up words spelt with Latvian letters, on one indexing thread;
//!     prints MB/s of main text indexed, then the median and 90th
//!     percentile latency of 200 one-word queries and 200 two-word phrase
//!     queries (top 10, stored fields read, as nlpc-search prints them),
//!     and the index's bytes per document.
//!     SEARCH_BENCH_DOCS=1000000 is the size (about 2 GB of text).

use std::time::Instant;

use nlpcrawl::search::index::make_document;
use nlpcrawl::search::kwic::Corpus;
use nlpcrawl::search::query;
use nlpcrawl::search::schema;

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A rank from 0 to n-1, small ranks far more often (about 1/rank).
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) - 1.0) as usize % n
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "ra", "ma", "lā", "pi", "te", "ri", "ņa", "zu", "ko", "va", "lē", "ši", "ču", "ga", "ķe",
    "dī", "bo", "sa", "ļu", "ne", "žo", "tu", "ģi", "mē", "pa", "jū", "re", "ti", "vi",
];

fn vocabulary(rng: &mut Rng, n: usize) -> Vec<String> {
    let mut v = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    while v.len() < n {
        let len = 1 + rng.below(4);
        let w: String = (0..len)
            .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
            .collect::<String>()
            + ["s", "a", "e", "i", "u", "", "m", "t"][rng.below(8)];
        if seen.insert(w.clone()) {
            v.push(w);
        }
    }
    v
}

fn document(rng: &mut Rng, vocab: &[String]) -> String {
    let mut s = String::with_capacity(2400);
    let words = 250 + rng.below(100);
    for i in 0..words {
        if i > 0 {
            s.push_str(if rng.below(12) == 0 { ". " } else { " " });
        }
        s.push_str(&vocab[rng.zipf(vocab.len())]);
    }
    s.push('.');
    s
}

fn dir_bytes(p: &std::path::Path) -> u64 {
    std::fs::read_dir(p)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let n: usize = std::env::var("SEARCH_BENCH_DOCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("index");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let vocab = vocabulary(&mut rng, 20_000);

    // Indexing: documents made up front in chunks, so making them is not
    // timed; one indexing thread.
    let (index, f) = schema::open(&path, true).unwrap();
    let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 256 << 20).unwrap();
    let mut text_bytes = 0u64;
    let mut secs = 0f64;
    let mut phrases = Vec::new();
    let mut done = 0;
    while done < n {
        let chunk: Vec<String> = (0..(n - done).min(10_000))
            .map(|_| document(&mut rng, &vocab))
            .collect();
        for d in chunk.iter().take(20) {
            let w: Vec<&str> = d.split(' ').collect();
            let i = rng.below(w.len() - 1);
            if !w[i].ends_with('.') {
                phrases.push(format!("\"{} {}\"", w[i], w[i + 1].trim_end_matches('.')));
            }
        }
        let t = Instant::now();
        for (i, text) in chunk.iter().enumerate() {
            let k = done + i;
            text_bytes += text.len() as u64;
            let doc = make_document(
                &f,
                &format!("{k:034x}"),
                &format!("http://s{}.example.lv/{k}", k % 1000),
                &format!("s{}.example.lv", k % 1000),
                "lv",
                1_700_000_000 + k as u64,
                "Virsraksts",
                text,
            );
            writer.add_document(doc).unwrap();
        }
        secs += t.elapsed().as_secs_f64();
        done += chunk.len();
    }
    let t = Instant::now();
    writer.commit().unwrap();
    writer.wait_merging_threads().unwrap();
    secs += t.elapsed().as_secs_f64();
    println!(
        "search index: {n} documents, {:.1} MB of main text in {secs:.1}s: {:.1} MB/s",
        text_bytes as f64 / 1e6,
        text_bytes as f64 / 1e6 / secs
    );
    println!(
        "search index: {} bytes per document ({:.2} bytes per byte of text)",
        dir_bytes(&path) / n as u64,
        dir_bytes(&path) as f64 / text_bytes as f64
    );

    // Queries: mid-frequency words (ranks 50 to 2000) and phrases seen in
    // the documents.
    let corpus = Corpus::open(&path).unwrap();
    let time = |q: &str| {
        let node = query::parse(q).unwrap();
        let t = Instant::now();
        let got = corpus.pages(Some(&node), false, 10).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert!(!got.is_empty() || !q.starts_with('"'), "{q}: nothing");
        ms
    };
    let mut one: Vec<f64> = (0..200)
        .map(|_| {
            let w = vocab[50 + rng.below(1950)].clone();
            time(&w)
        })
        .collect();
    let mut two: Vec<f64> = phrases.iter().cycle().take(200).map(|p| time(p)).collect();
    println!(
        "search query, one word: median {:.2} ms, 90% {:.2} ms",
        percentile(&mut one, 0.5),
        percentile(&mut one, 0.9)
    );
    println!(
        "search query, two-word phrase: median {:.2} ms, 90% {:.2} ms",
        percentile(&mut two, 0.5),
        percentile(&mut two, 0.9)
    );
}

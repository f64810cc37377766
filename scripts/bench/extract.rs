//! Main-text extraction: speed, and the extractor's side of
//! scripts/bench/extract (which measures quality).
//!
//! cargo bench --bench extract
//!     MB/s of HTML through charset detection, decoding and extraction on
//!     one core, over synthetic article pages of about 5, 50 and 500 KB
//!     (menu, cookie banner, sidebar, article, link list, footer); and over
//!     the pages of the extraction dev set as well when $NLPC_DEVSET names
//!     it (any directory: every *.html below it).
//!
//! cargo bench --bench extract -- --map LIST
//!     LIST holds lines "SOURCE.html<TAB>DEST.txt": writes each page's text,
//!     one block a line, as nlpc-dump --text writes it (the corpus formats'
//!     own function, output::corpus::blocks_of).

#[path = "devset.rs"]
mod devset;

use std::path::Path;
use std::time::Instant;

use nlpcrawl::document::charset::{self, Kind};
use nlpcrawl::document::extract;

/// No header and no host name: the charset comes from the page, or is
/// sniffed, as nlpc-vrfy finds it without --use-charset.
const HINTS: charset::Hints<'static> = charset::Hints {
    user: None,
    tld: None,
};

fn extract_bytes(body: &[u8]) -> extract::MainText {
    let det = charset::detect(body, "", Kind::Html, &HINTS);
    let doc = charset::decode(body, &det);
    extract::main_text(&doc, Kind::Html)
}

fn map(list: &Path) {
    let listing = std::fs::read_to_string(list)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", list.display()));
    let mut bytes = 0usize;
    let mut secs = 0f64;
    for line in listing.lines() {
        let Some((src, dst)) = line.split_once('\t') else {
            continue;
        };
        let body = std::fs::read(src).unwrap_or_else(|e| panic!("{src}: cannot read: {e}"));
        let t = Instant::now();
        let det = charset::detect(&body, "", Kind::Html, &HINTS);
        let doc = charset::decode(&body, &det);
        let (_, blocks) = nlpcrawl::output::corpus::blocks_of(&doc, Kind::Html);
        secs += t.elapsed().as_secs_f64();
        bytes += body.len();
        let mut text = String::new();
        for b in &blocks {
            text.push_str(&b.text);
            text.push('\n');
        }
        std::fs::write(dst, text).unwrap_or_else(|e| panic!("{dst}: cannot write: {e}"));
    }
    eprintln!(
        "extract: {} pages, {:.1} MB, {:.1} MB/s",
        listing.lines().count(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs.max(1e-9)
    );
}

const WORDS: &[&str] = &[
    "the",
    "river",
    "crossed",
    "valley",
    "and",
    "of",
    "a",
    "town",
    "where",
    "people",
    "had",
    "been",
    "building",
    "bridges",
    "for",
    "centuries",
    "while",
    "merchants",
    "brought",
    "salt",
    "to",
    "market",
    "in",
    "spring",
    "when",
    "ice",
    "was",
    "gone",
    "they",
    "said",
    "that",
    "it",
    "would",
    "take",
    "years",
    "before",
    "anyone",
    "could",
    "see",
    "how",
    "much",
    "changed",
];

/// A synthetic article page of about `size` bytes, with the boilerplate
/// real pages carry around it.
fn page(seed: usize, size: usize) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>A river town</title>\
         <script>var x='<p>no</p>';</script><style>p{margin:0}</style></head><body>\
         <div id=cookie-banner>We use cookies. <button>Accept</button></div><nav><ul>",
    );
    for j in 0..12 {
        s.push_str(&format!("<li><a href=/s/{j}>Section {j}</a></li>"));
    }
    s.push_str("</ul></nav><div class=sidebar><h3>Popular</h3><ul>");
    for j in 0..8 {
        s.push_str(&format!("<li><a href=/a/{j}>Story number {j}</a></li>"));
    }
    s.push_str("</ul></div><article><h1>The river town</h1>");
    let mut k = seed;
    while s.len() + 400 < size {
        s.push_str("<p>");
        for w in 0..60 {
            let word = WORDS[(k * 7 + w * 13) % WORDS.len()];
            if w % 19 == 7 {
                s.push_str(&format!("<a href=/w/{k}>{word}</a> "));
            } else if w % 23 == 3 {
                s.push_str(&format!("<em>{word}</em> "));
            } else {
                s.push_str(word);
                s.push(' ');
            }
        }
        s.push_str("&mdash; end.</p>\n");
        k += 1;
        if k.is_multiple_of(9) {
            s.push_str("<h2>Another part</h2>");
        }
    }
    s.push_str(
        "</article><div class=related><a href=/r/1>More</a> <a href=/r/2>Other</a></div>\
                <footer>&copy; 2026 The Paper. <a href=/about>About</a></footer></body></html>",
    );
    s
}

/// MB/s over `pages`, the best of three rounds (the machine is shared, so
/// slower rounds measure the neighbours).
fn speed(name: &str, pages: &[Vec<u8>]) {
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    let mut blocks = 0;
    for _ in 0..3 {
        let t = Instant::now();
        blocks = 0;
        for p in pages {
            blocks += extract_bytes(p).blocks.len();
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{name:<28} {:>5} pages {:>8.1} MB {:>7.1} MB/s  ({blocks} blocks)",
        pages.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best.max(1e-9)
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [flag, list] = &args[..] {
        if flag == "--map" {
            map(Path::new(list));
            return;
        }
        if flag == "--explain" {
            let body = std::fs::read(list).expect("page");
            let det = charset::detect(&body, "", Kind::Html, &HINTS);
            for l in extract::explain(&charset::decode(&body, &det)) {
                println!("{l}");
            }
            return;
        }
    }
    for (size, n) in [(5_000, 400), (50_000, 60), (500_000, 6)] {
        let pages: Vec<Vec<u8>> = (0..n).map(|i| page(i, size).into_bytes()).collect();
        speed(&format!("synthetic, {} KB", size / 1000), &pages);
    }
    if let Some(dir) = std::env::var_os("NLPC_DEVSET") {
        let mut files = Vec::new();
        devset::html_below(Path::new(&dir), &mut files);
        files.sort();
        let pages: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
        speed("dev set pages", &pages);
    }
}

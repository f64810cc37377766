//! Charsets of real pages: how nlpc-vrfy decides them, and whether any
//! page of valid UTF-8 is decoded as something else.
//!
//! NLPC_DEVSET=DIR cargo bench --bench charset [-- --out FILE]
//!     Every *.html below DIR (the extraction dev set: pages saved without
//!     their response headers), each sniffed as nlpc-vrfy sniffs a page
//!     whose server sent no charset, without --use-charset or a host name.
//!     Prints the pages per charset source, the pages of valid UTF-8 with
//!     non-ASCII bytes and how many of them are decoded otherwise (the
//!     figure must be 0), those that declare a legacy charset, and the
//!     MB/s of sniffing alone over the pages where chardetng guesses.
//!     The same lines go to FILE (default scripts/bench/charset.txt when
//!     DIR is the default one, ../devset/extraction-devset beside the
//!     project); doc/BENCHMARKS.md's figures come from that file.

#[path = "devset.rs"]
mod devset;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use nlpcrawl::document::charset::{self, Kind, Source};

const HINTS: charset::Hints<'static> = charset::Hints {
    user: None,
    tld: None,
};

/// The bench's own test of valid UTF-8 past ASCII, apart from the
/// library's, so that a fault there cannot hide in the count it checks.
fn valid_utf8_not_ascii(b: &[u8]) -> bool {
    !b.is_ascii() && std::str::from_utf8(b).is_ok()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let default = root.join("../devset/extraction-devset");
    let dir = std::env::var_os("NLPC_DEVSET").map_or(default.clone(), PathBuf::from);
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .or_else(|| (dir == default).then(|| root.join("scripts/bench/charset.txt")));
    let mut files = Vec::new();
    devset::html_below(&dir, &mut files);
    files.sort();
    if files.is_empty() {
        eprintln!(
            "charset: no *.html below {} (set NLPC_DEVSET to the extraction dev set)",
            dir.display()
        );
        return;
    }
    let mut by_source: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut utf8, mut otherwise, mut misdeclared) = (0usize, 0usize, 0usize);
    let mut guessed: Vec<Vec<u8>> = Vec::new();
    for f in &files {
        let Ok(body) = std::fs::read(f) else {
            eprintln!("charset: {}: cannot read", f.display());
            continue;
        };
        let d = charset::detect(&body, "", Kind::Html, &HINTS);
        *by_source.entry(d.source.name()).or_default() += 1;
        let text = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&body);
        if valid_utf8_not_ascii(text) {
            utf8 += 1;
            if d.encoding != encoding_rs::UTF_8 {
                otherwise += 1;
                eprintln!("decoded as {}: {}", d.encoding.name(), f.display());
            }
        }
        if d.source == Source::Misdeclared {
            misdeclared += 1;
        }
        if matches!(d.source, Source::Detected | Source::Fallback) {
            guessed.push(body);
        }
    }
    // Sniffing alone where chardetng runs, best of three passes.
    let bytes: usize = guessed.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for b in &guessed {
            std::hint::black_box(charset::detect(b, "", Kind::Html, &HINTS));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut lines = vec![format!("pages: {}", files.len())];
    for (s, n) in &by_source {
        lines.push(format!("charset source {s}: {n}"));
    }
    lines.push(format!("valid UTF-8 with non-ASCII bytes: {utf8}"));
    lines.push(format!(
        "of those, declaring a legacy charset and read as UTF-8 (misdeclared): {misdeclared}"
    ));
    lines.push(format!("of those, decoded as another charset: {otherwise}"));
    lines.push(format!(
        "sniffing where chardetng guesses ({} pages, {:.1} MB): {:.1} MB/s",
        guessed.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best.max(1e-9)
    ));
    // Whether chardetng could read less: its guess from a shorter sample
    // against the one from the DETECT_LEN it is given, on the pages where
    // it decided.
    let detected: Vec<&Vec<u8>> = guessed.iter().filter(|b| !b.is_ascii()).collect();
    for len in [4096usize, 16384, 32768] {
        let changed = detected
            .iter()
            .filter(|b| {
                charset::guess(b, len, HINTS.tld)
                    != charset::guess(b, charset::DETECT_LEN, HINTS.tld)
            })
            .count();
        lines.push(format!(
            "chardetng fed {} KiB instead of {} KiB: guess changed for {changed} of {} detected pages",
            len / 1024,
            charset::DETECT_LEN / 1024,
            detected.len()
        ));
    }
    let text = lines.join("\n") + "\n";
    print!("{text}");
    if let Some(out) = out {
        if let Err(e) = std::fs::write(&out, &text) {
            eprintln!("charset: {}: cannot write: {e}", out.display());
        }
    }
}

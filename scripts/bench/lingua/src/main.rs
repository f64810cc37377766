//! lingua 1.8, every language model, on every text of the language test
//! set: one line a text, `name TAB top language (ISO 639-3) TAB its
//! confidence TAB Latvian's confidence TAB microseconds`, written to the
//! file of --out; the speed on standard error.

#[path = "../../../../tests/common/langset.rs"]
mod langset;

use std::time::Instant;

use lingua::{Language, LanguageDetectorBuilder};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .expect("--out FILE");
    let set = langset::load();
    let t = Instant::now();
    let det = LanguageDetectorBuilder::from_all_languages()
        .with_preloaded_language_models()
        .build();
    eprintln!("models loaded in {:.1} s", t.elapsed().as_secs_f64());
    // A first pass loads the models each language needs (lazily, even
    // when asked to preload); the second is timed.
    for x in &set {
        std::hint::black_box(det.compute_language_confidence_values(x.text.as_str()));
    }
    let mut lines = String::new();
    let mut bytes = 0;
    let t = Instant::now();
    for x in &set {
        let one = Instant::now();
        let vals = det.compute_language_confidence_values(x.text.as_str());
        let us = one.elapsed().as_secs_f64() * 1e6;
        bytes += x.text.len();
        let (top, conf) = vals
            .first()
            .map(|(l, c)| (l.iso_code_639_3().to_string(), *c))
            .unwrap_or(("-".into(), 0.0));
        let lv = vals
            .iter()
            .find(|(l, _)| *l == Language::Latvian)
            .map_or(0.0, |x| x.1);
        lines.push_str(&format!("{}\t{top}\t{conf:.3}\t{lv:.3}\t{us:.0}\n", x.name));
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} texts, {bytes} bytes in {secs:.2} s: {:.3} MB/s",
        set.len(),
        bytes as f64 / secs / 1e6
    );
    std::fs::write(out, lines).expect("write --out");
}

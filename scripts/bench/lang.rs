//! Language identification on the language test set (tests/data/langset).
//!
//! cargo bench --bench lang -- [--tsv FILE]

#[path = "../../tests/common/langset.rs"]
mod langset;

use nlpcrawl::document::lang::{self, Profile};
use nlpcrawl::stage::vrfy::{judge_text, Config, Verdict};
use whatlang::{Detector, Lang};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tsv = args
        .iter()
        .position(|a| a == "--tsv")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let set = langset::load();
    let full = Detector::new();
    let cfg = Config {
        langs: vec![Lang::Lav],
        ..Config::default()
    };
    let mut out = String::new();
    for t in &set {
        let p = Profile::of(&t.text);
        let costs = p
            .as_ref()
            .map(|p| {
                p.costs
                    .iter()
                    .map(|c| format!("{c:.3}"))
                    .collect::<Vec<_>>()
                    .join("\t")
            })
            .unwrap_or_default();
        let w = lang::detect_in_steps(&full, &t.text, 1024, |g| g.reliable);
        let j = lang::judge(&t.text, 1024);
        let mut v = Verdict::default();
        let rej = judge_text(&cfg, &t.text, &mut v);
        let g = |g: Option<lang::Guess>| {
            g.map_or("-\t0\tfalse".to_string(), |g| {
                format!("{}\t{:.3}\t{}", g.lang.code(), g.confidence, g.reliable)
            })
        };
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            t.name,
            t.code,
            t.latvian,
            t.short,
            t.half.name(),
            p.as_ref().map_or(0, |p| p.letters),
            p.as_ref().map_or(0, |p| p.features),
            g(w),
            g(j),
            if rej.is_none() {
                "VERIFIED"
            } else {
                "REJECTED"
            },
            costs
        ));
    }
    match tsv {
        Some(p) => std::fs::write(p, out).expect("write tsv"),
        None => print!("{out}"),
    }
}

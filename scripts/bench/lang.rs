//! Latvian against every other language on the language test set
//! (tests/data/langset): precision and recall of each witness alone and of
//! nlpc-vrfy's rule, on the tuning and the report half, for short texts
//! (a sentence) and long ones, and the time each takes.
//!
//! cargo bench --bench lang -- [--lingua FILE] [--out FILE]
//!
//! --lingua FILE  lingua 1.8's answers, written by scripts/bench/lingua
//!                (a crate of its own: lingua's models are not part of
//!                nlpcrawl's build), measured beside the others.
//! --out FILE     also write the table there (nothing is written without).
//!
//! A method says "Latvian" or not for each text:
//!   whatlang-8      whatlang restricted to Latvian and the seven languages
//!                   the former rule compared it with, Latvian with at
//!                   least 0.5 confidence (the former rule's detector);
//!   whatlang        whatlang over all its languages names Latvian;
//!   profiles        our letter profiles rank Latvian first;
//!   lingua          lingua over all its 75 languages ranks Latvian first;
//!   lingua+profiles lingua names Latvian and the profiles agree as they
//!                   must with whatlang in the rule;
//!   rule            nlpc-vrfy's verdict under --filter-lang lv;
//!   rule+dict       the same with the test dictionary (--filter-dict).

#[path = "../../tests/common/langset.rs"]
mod langset;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use langset::{Half, Text};
use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::lang::{self, judge, Profile, LATVIAN};
use nlpcrawl::stage::vrfy::{judge_text, Config, Verdict};
use whatlang::{Detector, Lang};

/// Counts of one method on one part of the set.
#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn add(&mut self, latvian: bool, said: bool) {
        match (latvian, said) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => {}
        }
    }
    fn cell(&self) -> String {
        let p = if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        };
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!("{p:.3} / {r:.3} ({} FP, {} FN)", self.fp, self.fn_)
    }
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// lingua's answers by file name: its top language (ISO 639-3) and the
/// microseconds it took.
fn lingua(path: &str) -> HashMap<String, (String, f64)> {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    s.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((
                f.first()?.to_string(),
                (f.get(1)?.to_string(), f.get(4)?.parse().ok()?),
            ))
        })
        .collect()
}

type Method<'a> = (&'static str, Box<dyn Fn(&Text) -> bool + 'a>);

/// A part of the set: a name and which texts are in it.
type Part = (&'static str, fn(&Text) -> bool);

fn main() {
    let set = langset::load();
    let dict =
        Dict::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy/lv.dict"))
            .expect("tests/data/vrfy/lv.dict");
    let lingua = arg("--lingua").map(|p| lingua(&p));
    let eight: Vec<Lang> = vec![
        Lang::Lav,
        Lang::Lit,
        Lang::Est,
        Lang::Rus,
        Lang::Ukr,
        Lang::Bel,
        Lang::Deu,
        Lang::Eng,
    ];
    let restricted = Detector::with_allowlist(eight);
    let all = Detector::new();
    let rule = Config {
        langs: vec![Lang::Lav],
        ..Config::default()
    };
    let with_dict = Config {
        langs: vec![Lang::Lav],
        dict: Some(dict),
        ..Config::default()
    };
    let verdict = |cfg: &Config, t: &Text| {
        let mut v = Verdict::default();
        judge_text(cfg, &t.text, &mut v).is_none()
    };
    let agree = |t: &Text| {
        Profile::of(&t.text).is_some_and(|p| {
            p.cost_of(LATVIAN)
                .is_some_and(|c| c <= judge::MAX_AGREEING_COST)
                && p.lead_of(LATVIAN)
                    .is_some_and(|l| l >= judge::MIN_AGREEING_LEAD)
        })
    };
    let mut methods: Vec<Method<'_>> = vec![
        (
            "whatlang-8",
            Box::new(|t: &Text| {
                lang::detect(&restricted, &t.text, lang::DEFAULT_SAMPLE)
                    .is_some_and(|g| g.lang == LATVIAN && g.confidence >= 0.5)
            }),
        ),
        (
            "whatlang",
            Box::new(|t: &Text| {
                lang::detect(&all, &t.text, lang::DEFAULT_SAMPLE).is_some_and(|g| g.lang == LATVIAN)
            }),
        ),
        (
            "profiles",
            Box::new(|t: &Text| Profile::of(&t.text).is_some_and(|p| p.language() == LATVIAN)),
        ),
    ];
    if let Some(l) = &lingua {
        let said = |t: &Text| l.get(&t.name).is_some_and(|x| x.0 == "lav");
        methods.push(("lingua", Box::new(move |t: &Text| said(t))));
        methods.push((
            "lingua+profiles",
            Box::new(move |t: &Text| said(t) && agree(t)),
        ));
    }
    methods.push(("rule", Box::new(|t: &Text| verdict(&rule, t))));
    methods.push(("rule+dict", Box::new(|t: &Text| verdict(&with_dict, t))));

    let mut out = Vec::new();
    let mut say = |s: String| {
        println!("{s}");
        out.push(s);
    };
    let latvian = set.iter().filter(|t| t.latvian).count();
    // Languages, each once whatever code a file gives it ("lv", "lvs").
    let langs: std::collections::BTreeSet<&str> = set
        .iter()
        .map(|t| lang::parse(&t.code).map_or(t.code.as_str(), |l| l.iso3))
        .collect();
    let in_half = |h: Half, lv: bool| {
        set.iter()
            .filter(|t| t.half == h && (!lv || t.latvian))
            .count()
    };
    say(format!(
        "language test set: {} texts in {} languages, {latvian} Latvian; tuning half {} \
         ({} Latvian), report half {} ({} Latvian)",
        set.len(),
        langs.len(),
        in_half(Half::Tuning, false),
        in_half(Half::Tuning, true),
        in_half(Half::Report, false),
        in_half(Half::Report, true),
    ));
    say(
        "precision / recall of \"Latvian\" (false positives, false negatives), and the \
         time a text (lingua's: its own run)"
            .to_string(),
    );
    let parts: [Part; 3] = [
        ("all", |_| true),
        ("short", |t| t.short),
        ("long", |t| !t.short),
    ];
    say("| method | part | tuning half | report half | us a text |".to_string());
    say("|---|---|---|---|---|".to_string());
    for (name, said) in &methods {
        let mut counts: HashMap<(&str, Half), Counts> = HashMap::new();
        let t0 = Instant::now();
        let answers: Vec<bool> = set.iter().map(said).collect();
        let mut us = t0.elapsed().as_secs_f64() * 1e6 / set.len() as f64;
        if name.starts_with("lingua") {
            let l = lingua.as_ref().map_or(0.0, |l| {
                set.iter()
                    .filter_map(|t| l.get(&t.name))
                    .map(|x| x.1)
                    .sum::<f64>()
            });
            us = l / set.len() as f64;
        }
        for (t, a) in set.iter().zip(&answers) {
            for (part, inside) in &parts {
                if inside(t) {
                    counts.entry((part, t.half)).or_default().add(t.latvian, *a);
                }
            }
        }
        for (part, _) in &parts {
            let c = |h| counts.get(&(*part, h)).copied().unwrap_or_default().cell();
            say(format!(
                "| {name} | {part} | {} | {} | {us:.0} |",
                c(Half::Tuning),
                c(Half::Report)
            ));
        }
    }
    // The rule's mistakes, by name: what the figures are made of.
    for (name, said) in &methods {
        if !name.starts_with("rule") {
            continue;
        }
        let wrong: Vec<String> = set
            .iter()
            .filter(|t| said(t) != t.latvian)
            .map(|t| format!("{} ({})", t.name, t.half.name()))
            .collect();
        say(format!("{name} wrong on: {}", wrong.join(", ")));
    }
    if let Some(p) = arg("--out") {
        std::fs::write(&p, out.join("\n") + "\n").unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

//! The language test set (tests/data/langset/README): texts in some 450
//! languages from the Universal Declaration of Human Rights, texts written
//! for nlpcrawl in Latvian, Latgalian, Võro and Livonian, and the held-out
//! texts of tests/data/lang; each with its language and its half.
//!
//! Shared by the tests and scripts/bench/lang.rs (which includes this file
//! by path), so both read the same set and the same halves.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Which half of the set a text is in: thresholds are chosen on the
/// tuning half only; figures are reported for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Half {
    Tuning,
    Report,
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Half::Tuning => "tuning",
            Half::Report => "report",
        }
    }
}

/// One text of the set.
#[derive(Clone, Debug)]
pub struct Text {
    /// The file's name, e.g. "ces.udhr.short.txt" or "lv-forum.txt".
    pub name: String,
    /// The language's code as the file names it (ISO 639-3 in langset,
    /// the 639-1 code where tests/data/lang has one).
    pub code: String,
    /// Standard Latvian.
    pub latvian: bool,
    /// Fewer than [`SHORT`] characters: a sentence or two.
    pub short: bool,
    pub half: Half,
    pub text: String,
}

/// Texts shorter than this many characters are short.
pub const SHORT: usize = 200;

/// 64-bit FNV-1a: the split's hash, simple enough to redo by hand.
pub fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The key that decides a text's half: its file name without ".txt" and
/// without a final ".short" or ".long", so that the two texts of one
/// declaration fall in the same half.
pub fn split_key(name: &str) -> &str {
    let stem = name.strip_suffix(".txt").unwrap_or(name);
    stem.strip_suffix(".short")
        .or_else(|| stem.strip_suffix(".long"))
        .unwrap_or(stem)
}

/// The half of the text in file `name`: even hashes tune, odd report.
pub fn half_of(name: &str) -> Half {
    if fnv1a(split_key(name)).is_multiple_of(2) {
        Half::Tuning
    } else {
        Half::Report
    }
}

/// tests/data of the nlpcrawl tree this file is built in (the crate may
/// be one of scripts/bench, inside it).
fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|p| p.join("tests/data"))
        .find(|p| p.join("langset").is_dir())
        .unwrap_or_else(|| here.join("tests/data"))
}

/// Standard Latvian's codes in the file names.
fn is_latvian(code: &str) -> bool {
    matches!(code, "lv" | "lvs" | "lav")
}

fn read_dir(dir: &Path, sep: char, out: &mut Vec<Text>) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    for name in names {
        let p = dir.join(&name);
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let code = name.split(sep).next().unwrap_or("").to_string();
        let text = text.trim().to_string();
        let short = text.chars().count() < SHORT;
        out.push(Text {
            latvian: is_latvian(&code),
            half: half_of(&name),
            short,
            code,
            name,
            text,
        });
    }
}

/// Every text of the set, in file name order within each folder.
pub fn load() -> Vec<Text> {
    let mut out = Vec::new();
    read_dir(&root().join("langset/udhr"), '.', &mut out);
    read_dir(&root().join("langset/own"), '.', &mut out);
    read_dir(&root().join("lang"), '-', &mut out);
    out
}

//! Makes the first language witness's profiles (lib/document/lang) from
//! the training texts in data/lang/train: for each bucket of features and
//! each language, the cost of a feature in that bucket, counted with the
//! same code that scores pages.

use std::path::PathBuf;

#[path = "lib/document/lang/features.rs"]
#[allow(dead_code)]
mod features;

use features::{Walk, BUCKETS, CODES, LANES, SCALE};

/// Add-alpha smoothing of the counts: a feature never seen in a
/// language's training text costs as much as one seen a twentieth of a
/// time. Smaller values widen the margins of a page in a profiled
/// language and of wrong guesses alike; this one keeps the held-out
/// texts' best language right (tests/lang_witness.rs).
const ALPHA: f64 = 0.05;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let train = root.join("data/lang/train");
    println!("cargo:rerun-if-changed=lib/document/lang/features.rs");
    println!("cargo:rerun-if-changed=data/lang/train");
    let mut counts = vec![[0u32; LANES]; BUCKETS];
    let mut totals = [0u64; LANES];
    for (l, code) in CODES.iter().enumerate() {
        let f = train.join(format!("{code}.txt"));
        println!("cargo:rerun-if-changed={}", f.display());
        let text = std::fs::read_to_string(&f)
            .unwrap_or_else(|e| panic!("{}: cannot read training text: {e}", f.display()));
        let mut walk = Walk::default();
        let mut count = |b: usize| {
            counts[b][l] += 1;
            totals[l] += 1;
        };
        for line in text.lines() {
            walk.text(line, &mut count, |_| ());
            walk.boundary(&mut count);
        }
    }
    let mut table = Vec::with_capacity(BUCKETS * LANES);
    for row in &counts {
        for l in 0..LANES {
            let cost = if l < CODES.len() {
                let p = (f64::from(row[l]) + ALPHA) / (totals[l] as f64 + ALPHA * BUCKETS as f64);
                (-p.ln() * SCALE).round().clamp(0.0, 255.0) as u8
            } else {
                0
            };
            table.push(cost);
        }
    }
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("lang_profiles.bin");
    std::fs::write(&out, table).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

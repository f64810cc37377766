//! Every fuzz target's function over its seed corpus (fuzz/corpus/TARGET)
//! and over every input a fuzzer ever crashed on
//! (tests/fuzz-regressions/TARGET): the fixed-input part of fuzzing, on the
//! stable toolchain, as part of `make test`.

use std::fs;
use std::path::Path;

#[allow(dead_code)]
mod targets {
    include!("../fuzz/targets.rs");
}

fn inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = rd
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let data = fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), data)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_seed_and_every_past_crash_runs_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, run) in targets::TARGETS {
        let seeds = inputs(&root.join("fuzz/corpus").join(name));
        assert!(!seeds.is_empty(), "no seed corpus for fuzz target {name}");
        let crashes = inputs(&root.join("tests/fuzz-regressions").join(name));
        for (path, data) in seeds.iter().chain(&crashes) {
            // A panic here names the input that brought it back.
            eprintln!("{name}: {path}");
            run(data);
        }
    }
    let _ = fs::remove_dir_all(
        std::env::temp_dir().join(format!("nlpcrawl-fuzz-rep-{}", std::process::id())),
    );
}

#[test]
fn every_fuzz_target_has_a_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, _) in targets::TARGETS {
        let bin = root.join("fuzz/fuzz_targets").join(format!("{name}.rs"));
        assert!(bin.is_file(), "{} missing", bin.display());
    }
}

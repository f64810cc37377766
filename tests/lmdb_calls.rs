//! Where LMDB is called, one answer: the files of the project that name the
//! LMDB crates are exactly those lib/store/mod.rs lists in its module
//! comment, all in lib/store/. A new caller elsewhere, or a list that
//! forgets one, fails.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// True when `src` uses either LMDB crate (a path or an import; a word
/// such as "lmdb" in a comment or a name is not a call).
fn calls_lmdb(src: &str) -> bool {
    src.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|l| l.contains("lmdb::") || l.contains("lmdb_sys::") || l.contains("use lmdb"))
}

/// The modules the comment's sentence "Every LMDB call ... is in this
/// folder, in `a`, `b` ... (" names.
fn listed(store_mod: &str) -> BTreeSet<String> {
    let comment: String = store_mod
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim().to_string() + " ")
        .collect();
    let start = comment
        .find("Every LMDB call")
        .expect("lib/store/mod.rs says where LMDB is called");
    let rest = &comment[start..];
    let sentence = &rest[..rest.find('(').expect("the list ends at a parenthesis")];
    sentence
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn lmdb_is_called_only_in_the_store_files_its_comment_names() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["lib", "bin", "tests", "scripts", "fuzz"] {
        sources(&top.join(d), &mut files);
    }
    let me = Path::new(file!()).file_name().unwrap();
    let callers: BTreeSet<String> = files
        .iter()
        .filter(|f| f.file_name() != Some(me))
        .filter(|f| calls_lmdb(&fs::read_to_string(f).unwrap()))
        .map(|f| f.strip_prefix(top).unwrap().display().to_string())
        .collect();
    let store = fs::read_to_string(top.join("lib/store/mod.rs")).unwrap();
    let named: BTreeSet<String> = listed(&store)
        .into_iter()
        .map(|m| format!("lib/store/{m}.rs"))
        .collect();
    assert!(named.len() >= 2, "{named:?}");
    assert_eq!(
        callers, named,
        "the files that call LMDB differ from those lib/store/mod.rs names"
    );
}

#[test]
fn a_call_is_told_from_a_mention() {
    assert!(calls_lmdb("use lmdb::{Cursor, Transaction};"));
    assert!(calls_lmdb("    Err(lmdb::Error::NotFound) => Ok(None),"));
    assert!(calls_lmdb("unsafe { lmdb_sys::mdb_txn_id(t) }"));
    assert!(!calls_lmdb(
        "// LMDB maps the file; lmdb:: is not called here"
    ));
    assert!(!calls_lmdb("fn layout_matches_lmdb_on_this_platform() {"));
    let m = "//! Every LMDB call of the project is in this folder, in `db` and\n//! `txn` (see below); `check` reads pages.\n";
    assert_eq!(
        listed(m),
        ["db", "txn"].map(String::from).into_iter().collect()
    );
}

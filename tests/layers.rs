//! The house plan of lib/, checked: each folder uses only the folders below
//! it, no module imports another that imports it back, and every folder
//! says in its module comment what it owns.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The folders of lib/, lowest first.
const LAYERS: [&str; 9] = [
    "document", "web", "store", "run", "stage", "cluster", "output", "search", "launch",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file under lib/: lib/stage/fetch/mod.rs is
/// ["stage", "fetch"].
fn module_of(lib: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(lib).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// The `crate::a::b` paths a file names outside its tests.
fn imports(src: &str) -> BTreeSet<Vec<String>> {
    let code = src.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let path: Vec<String> = rest
            .split("::")
            .take(2)
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                    .collect::<String>()
            })
            .take_while(|s| !s.is_empty())
            .collect();
        if !path.is_empty() {
            out.insert(path);
        }
    }
    out
}

fn tree() -> (PathBuf, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("lib");
    let mut files = Vec::new();
    sources(&lib, &mut files);
    let mut graph = BTreeMap::new();
    for f in files {
        let src = fs::read_to_string(&f).unwrap();
        graph.insert(module_of(&lib, &f), imports(&src));
    }
    (lib, graph)
}

#[test]
fn folders_use_only_the_folders_below_them() {
    let (_, graph) = tree();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut upward = Vec::new();
    for (module, deps) in &graph {
        let Some(mine) = module.first().and_then(|f| rank(f)) else {
            continue;
        };
        for d in deps {
            if let Some(theirs) = rank(&d[0]) {
                if theirs > mine {
                    upward.push(format!("{} -> {}", module.join("::"), d.join("::")));
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports against the layers: {upward:?}");
    // Every folder is a layer: a new folder must be placed in the order.
    let folders: BTreeSet<&str> = graph
        .keys()
        .filter(|m| m.len() > 1)
        .map(|m| m[0].as_str())
        .collect();
    for f in folders {
        assert!(rank(f).is_some(), "lib/{f}/ is not in the layer order");
    }
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let (_, graph) = tree();
    // Resolve an import to the module it names: the longest known prefix.
    let target = |p: &Vec<String>| -> Option<Vec<String>> {
        (1..=p.len())
            .rev()
            .map(|n| p[..n].to_vec())
            .find(|m| graph.contains_key(m))
    };
    let edges: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> = graph
        .iter()
        .map(|(m, deps)| {
            let to = deps
                .iter()
                .filter_map(&target)
                .filter(|t| t != m && !m.starts_with(t))
                .collect();
            (m, to)
        })
        .collect();
    let reaches = |from: &Vec<String>, to: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            if &m == to {
                return true;
            }
            if seen.insert(m.clone()) {
                if let Some(next) = edges.get(&m) {
                    stack.extend(next.iter().cloned());
                }
            }
        }
        false
    };
    let mut circles = Vec::new();
    for (m, to) in &edges {
        for t in to {
            if reaches(t, m) {
                circles.push(format!("{} <-> {}", m.join("::"), t.join("::")));
            }
        }
    }
    assert!(circles.is_empty(), "import circles: {circles:?}");
}

#[test]
fn every_folder_says_what_it_owns() {
    let (lib, _) = tree();
    for l in LAYERS {
        let m = lib.join(l).join("mod.rs");
        let src = fs::read_to_string(&m).unwrap_or_else(|e| panic!("{}: {e}", m.display()));
        assert!(
            src.lines().take_while(|l| l.starts_with("//!")).count() >= 2,
            "{} has no module comment",
            m.display()
        );
    }
}

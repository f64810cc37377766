//! The house plan of lib/, checked: each folder uses only the folders below
//! it, no module imports another that imports it back, and every folder
//! says in its module comment what it owns. Imports are read from `crate::`,
//! `super::` and `self::` paths (groups too), in all code but comments,
//! strings and the items under `#[cfg(test)]`.

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

/// The source with its comments removed and its string and character
/// literals emptied: a path in a doc comment or a string is no import.
fn code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                // To the end of the line.
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            'r' if !(prev.is_alphanumeric() || prev == '_')
                && matches!(chars.peek(), Some('#') | Some('"')) =>
            {
                // A raw string: r"..." or r#"..."#.
                let mut hashes = 0;
                while chars.peek() == Some(&'#') {
                    chars.next();
                    hashes += 1;
                }
                if chars.peek() != Some(&'"') {
                    out.push('r');
                    continue;
                }
                chars.next();
                let mut closing = 0usize;
                let mut open = false;
                for d in chars.by_ref() {
                    if open && d == '#' {
                        closing += 1;
                    } else {
                        open = d == '"';
                        closing = 0;
                    }
                    if open && closing == hashes {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            '"' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A character literal ('x', '\n', '\u{7b}'), not a lifetime.
                let mut ahead = chars.clone();
                let lit = match ahead.next() {
                    Some('\\') => ahead.position(|d| d == '\'').map(|k| k + 2),
                    Some(_) => (ahead.next() == Some('\'')).then_some(2),
                    None => None,
                };
                match lit {
                    Some(n) => {
                        for _ in 0..n {
                            chars.next();
                        }
                        out.push_str("' '");
                    }
                    None => out.push('\''),
                }
            }
            _ => out.push(c),
        }
        prev = c;
    }
    out
}

/// The source without its test code: each item under `#[cfg(test)]` (a
/// `mod tests { ... }` to its closing brace, else the item to its `;` or
/// its block), so that what follows a test module is still read.
fn without_tests(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        rest = &rest[i + "#[cfg(test)]".len()..];
        // The item ends at the first `;` outside braces, or at the brace
        // that closes its first block.
        let mut depth = 0usize;
        let mut end = rest.len();
        let mut chars = rest.char_indices().peekable();
        while let Some((j, c)) = chars.next() {
            match c {
                '"' => {
                    // Skip a string literal (escapes included).
                    while let Some((_, d)) = chars.next() {
                        if d == '\\' {
                            chars.next();
                        } else if d == '"' {
                            break;
                        }
                    }
                }
                '\'' => {
                    // A character literal such as '{' or '\u{7b}' (not a
                    // lifetime): skipped to its closing quote.
                    let lit = rest.get(j + 1..).unwrap_or("");
                    let mut it = lit.chars();
                    let close = match it.next() {
                        Some('\\') => lit.get(1..).and_then(|l| l.find('\'')).map(|k| k + 2),
                        Some(c) => it.next().filter(|q| *q == '\'').map(|_| c.len_utf8() + 1),
                        None => None,
                    };
                    if let Some(n) = close {
                        while chars.peek().is_some_and(|(k, _)| *k <= j + n) {
                            chars.next();
                        }
                    }
                }
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let n = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..n]
}

/// The module paths named by one use of a path after its root: `a::b`,
/// `a::{b, c}` (one path for each of b and c), `*` or `{...}` right after
/// the root (the root itself).
fn named_after(base: &[String], rest: &str) -> Vec<Vec<String>> {
    let mut path = base.to_vec();
    let mut rest = rest;
    loop {
        let id = ident(rest);
        if id.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                let paths: Vec<Vec<String>> = inner
                    .split(',')
                    .map(|p| ident(p.trim()))
                    .filter(|p| {
                        !p.is_empty()
                            && *p != "self"
                            && p.starts_with(|c: char| c.is_ascii_lowercase())
                    })
                    .map(|p| {
                        let mut v = path.clone();
                        v.push(p.to_string());
                        v
                    })
                    .collect();
                if !paths.is_empty() {
                    return paths;
                }
            }
            return vec![path];
        }
        // Types, traits and constants end the module path.
        if !id.starts_with(|c: char| c.is_ascii_lowercase()) {
            return vec![path];
        }
        path.push(id.to_string());
        rest = &rest[id.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => return vec![path],
        }
    }
}

/// The modules a file (module `me`) names outside its tests, by `crate::`,
/// `super::` (any number of them) or `self::` paths.
fn imports(me: &[String], src: &str) -> BTreeSet<Vec<String>> {
    let code = without_tests(&code_only(src));
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let prev = code[..i].chars().next_back();
        // A root starts a path: not part of a longer identifier or path.
        let starts = !prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
        let step = rest.chars().next().map_or(1, char::len_utf8);
        if !starts {
            i += step;
            continue;
        }
        let (base, after) = if let Some(r) = rest.strip_prefix("crate::") {
            (Vec::new(), r)
        } else if rest.starts_with("super::") {
            let mut up = 0;
            let mut r = rest;
            while let Some(x) = r.strip_prefix("super::") {
                up += 1;
                r = x;
            }
            (me[..me.len().saturating_sub(up)].to_vec(), r)
        } else if let Some(r) = rest.strip_prefix("self::") {
            (me.to_vec(), r)
        } else {
            i += step;
            continue;
        };
        for p in named_after(&base, after) {
            if !p.is_empty() {
                out.insert(p);
            }
        }
        i += rest.len() - after.len();
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
        let me = module_of(&lib, &f);
        let deps = imports(&me, &src);
        graph.insert(me, deps);
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

#[test]
fn imports_are_read_through_super_self_groups_and_past_tests() {
    let me: Vec<String> = ["store", "db"].map(String::from).to_vec();
    let src = r#"//! Uses [`super::judge`] in a comment only.
use super::txn::{Read, Write};
use super::super::web::{url, admit::Deny};
use self::inner::thing;
const S: &str = "crate::launch::x";
const C: char = '{';
#[cfg(test)]
mod tests {
    use crate::search::words;
    fn f() { let _ = '}'; }
}
use crate::run::clock;
"#;
    let got: Vec<String> = imports(&me, src)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        got,
        [
            "run::clock",
            "store::db::inner::thing",
            "store::txn",
            "web::admit",
            "web::url"
        ]
    );
}

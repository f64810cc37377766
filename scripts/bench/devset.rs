//! The extraction dev set's pages, for the benches that read it.

use std::path::{Path, PathBuf};

/// Appends every *.html below `dir`, at any depth; a directory that cannot
/// be read adds nothing.
pub fn html_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            html_below(&p, out);
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
}

//! Checks of `data.mdb` made by reading the file with `pread`, never by
//! mapping it: LMDB trusts its file and dies by a signal on a truncated or
//! overwritten one, so what it would trust is checked here first.
//!
//! The layout is LMDB 0.9's (the version bundled with the binding): two meta
//! pages (0 and 1), each naming the last page in use, the page size and the
//! roots of the free-page tree and of the main tree, whose leaves name the
//! roots of the named databases. Page numbers, sizes and transaction ids are
//! `size_t` wide. No LMDB call is made here. This file reads the meta
//! pages and the top of each tree at open; `pages` walks every page for
//! `nlpc-list --check`.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// LMDB's magic number and data version, as its meta pages carry them.
const MAGIC: u32 = 0xBEEF_C0DE;
const DATA_VERSION: u32 = 1;
/// Width of `size_t`, which LMDB uses for page numbers and counts.
const W: usize = std::mem::size_of::<usize>();
/// Page header: page number, pad, flags, lower and upper bounds.
const PAGEHDRSZ: usize = W + 8;
/// `MDB_db`: pad, flags, depth, then five `size_t`.
const DB_SIZE: usize = 8 + 5 * W;
/// `MDB_meta`: magic, version, address, map size, two `MDB_db`, last page, txnid.
const META_SIZE: usize = 8 + 2 * W + 2 * DB_SIZE + 2 * W;
/// Node header: two halves of a size or page number, flags, key size.
const NODESIZE: usize = 8;

const P_BRANCH: u16 = 0x01;
const P_LEAF: u16 = 0x02;
const P_OVERFLOW: u16 = 0x04;
const P_META: u16 = 0x08;
const F_BIGDATA: u16 = 0x01;
const F_SUBDATA: u16 = 0x02;
const F_DUPDATA: u16 = 0x04;

/// LMDB's "no page": the root of an empty tree.
const P_INVALID: u64 = if W == 8 { u64::MAX } else { u32::MAX as u64 };

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_ne_bytes([b[off], b[off + 1]])
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn word_at(b: &[u8], off: usize) -> u64 {
    if W == 8 {
        let mut a = [0; 8];
        a.copy_from_slice(&b[off..off + 8]);
        u64::from_ne_bytes(a)
    } else {
        u64::from(u32_at(b, off))
    }
}

/// One tree's description (`MDB_db`), from a meta page or the main tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TreeInfo {
    pub pad: u32,
    pub flags: u16,
    pub depth: u16,
    pub branch_pages: u64,
    pub leaf_pages: u64,
    pub overflow_pages: u64,
    pub entries: u64,
    pub root: u64,
}

impl TreeInfo {
    /// Parses the `MDB_db` at the start of `b`, which holds at least [`DB_SIZE`] bytes.
    pub(crate) fn parse(b: &[u8]) -> Option<TreeInfo> {
        if b.len() < DB_SIZE {
            return None;
        }
        Some(TreeInfo {
            pad: u32_at(b, 0),
            flags: u16_at(b, 4),
            depth: u16_at(b, 6),
            branch_pages: word_at(b, 8),
            leaf_pages: word_at(b, 8 + W),
            overflow_pages: word_at(b, 8 + 2 * W),
            entries: word_at(b, 8 + 3 * W),
            root: word_at(b, 8 + 4 * W),
        })
    }
}

/// A meta page's contents.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    pub psize: u64,
    pub free: TreeInfo,
    pub main: TreeInfo,
    pub last_pg: u64,
    pub txnid: u64,
}

/// Parses a meta page, or says why it is not one.
fn parse_meta(page: &[u8]) -> Result<Meta, String> {
    if page.len() < PAGEHDRSZ + META_SIZE {
        return Err("cut short".into());
    }
    let flags = u16_at(page, W + 2);
    if flags & P_META == 0 {
        return Err(format!("not a meta page (flags {flags:#06x})"));
    }
    let m = &page[PAGEHDRSZ..];
    let magic = u32_at(m, 0);
    if magic != MAGIC {
        return Err(format!("bad magic {magic:#010x}"));
    }
    let version = u32_at(m, 4);
    if version != DATA_VERSION {
        return Err(format!(
            "LMDB data version {version}, expected {DATA_VERSION}"
        ));
    }
    let dbs = 8 + 2 * W;
    let free = TreeInfo::parse(&m[dbs..]).ok_or("cut short")?;
    let main = TreeInfo::parse(&m[dbs + DB_SIZE..]).ok_or("cut short")?;
    let psize = u64::from(free.pad);
    if !(512..=65536).contains(&psize) || !psize.is_power_of_two() {
        return Err(format!("impossible page size {psize}"));
    }
    Ok(Meta {
        psize,
        free,
        main,
        last_pg: word_at(m, dbs + 2 * DB_SIZE),
        txnid: word_at(m, dbs + 2 * DB_SIZE + W),
    })
}

/// What the directory holds.
#[derive(Debug)]
pub(crate) enum Found {
    /// Neither data.mdb nor lock.mdb: nothing was ever created here.
    Nothing,
    /// lock.mdb without data.mdb: the data file was lost.
    LockOnly,
    /// A data.mdb of 0 bytes.
    Empty,
    /// A data.mdb whose meta pages, size and trees' top pages are sound.
    Sound,
    /// Something is wrong; the reason, as one sentence.
    Damaged(String),
}

const RESTORE: &str = "restore it from a backup";

/// Looks at the database directory `dir` without changing anything.
pub(crate) fn inspect(dir: &Path) -> std::io::Result<Found> {
    let data = dir.join("data.mdb");
    let meta = match std::fs::metadata(&data) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(if dir.join("lock.mdb").exists() {
                Found::LockOnly
            } else {
                Found::Nothing
            });
        }
        Err(e) => return Err(e),
    };
    if !meta.is_file() {
        return Ok(Found::Damaged("data.mdb is not a regular file".into()));
    }
    if meta.len() == 0 {
        return Ok(Found::Empty);
    }
    let file = File::open(&data)?;
    // A writer may commit while we read; pages of the newest snapshot can be
    // reused only two commits later, so a finding is trusted when the newest
    // transaction moved on by at most one meanwhile.
    let mut tries = 0;
    loop {
        let size = file.metadata()?.len();
        let found = check_file(&file, size)?;
        let Found::Damaged(_) = &found else {
            return Ok(found);
        };
        tries += 1;
        let before = newest_txnid(&file, size);
        if tries >= 5 || before.is_none() {
            return Ok(found);
        }
        let after = newest_txnid(&file, file.metadata()?.len());
        match (before, after) {
            (Some(a), Some(b)) if b > a.saturating_add(1) => continue,
            _ => return Ok(found),
        }
    }
}

/// The transaction id of the newest valid meta page, if any.
fn newest_txnid(file: &File, size: u64) -> Option<u64> {
    let (m0, m1) = read_metas(file, size).ok()?;
    match (m0, m1) {
        (Ok(a), Ok(b)) => Some(a.txnid.max(b.txnid)),
        (Ok(a), Err(_)) | (Err(_), Ok(a)) => Some(a.txnid),
        _ => None,
    }
}

type MetaResult = Result<Meta, String>;

/// Reads both meta pages. The second lies one page in, so its place comes
/// from the first; when the first is unreadable the usual page sizes are
/// tried, only to say whether the second is intact.
fn read_metas(file: &File, size: u64) -> std::io::Result<(MetaResult, MetaResult)> {
    let mut buf = vec![0; PAGEHDRSZ + META_SIZE];
    let n = read_full(file, &mut buf, 0)?;
    let m0 = parse_meta(&buf[..n]);
    let offsets: Vec<u64> = match &m0 {
        Ok(m) => vec![m.psize],
        Err(_) => vec![4096, 8192, 16384, 32768, 65536, 512, 1024, 2048],
    };
    let mut m1 = Err("beyond the end of the file".to_string());
    for off in offsets {
        if off >= size {
            continue;
        }
        let n = read_full(file, &mut buf, off)?;
        m1 = parse_meta(&buf[..n]);
        if let Ok(m) = &m1 {
            if m.psize != off {
                m1 = Err(format!("page size {} where it lies at {off}", m.psize));
            }
        }
        if m1.is_ok() || m0.is_ok() {
            break;
        }
    }
    Ok((m0, m1))
}

/// Reads as much of `buf` as the file holds at `off`; returns the count.
fn read_full(file: &File, buf: &mut [u8], off: u64) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], off + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The checks LMDB's open and first transactions depend on: both meta
/// pages, the file's length, the whole main tree (a page or two) and the
/// top page of the free-page tree and of every named database.
fn check_file(file: &File, size: u64) -> std::io::Result<Found> {
    let damaged = |s: String| Ok(Found::Damaged(s));
    if size < (PAGEHDRSZ + META_SIZE) as u64 {
        return damaged(format!(
            "data.mdb is {size} bytes, too short to hold LMDB's meta pages: the file is truncated ({RESTORE})"
        ));
    }
    let meta = match read_metas(file, size)? {
        (Ok(a), Ok(b)) => {
            if a.psize != b.psize {
                return damaged(format!(
                    "the meta pages of data.mdb disagree on the page size ({} and {}): the file is damaged ({RESTORE})",
                    a.psize, b.psize
                ));
            }
            if b.txnid > a.txnid {
                b
            } else {
                a
            }
        }
        (Err(a), Err(b)) => {
            return damaged(format!(
                "neither meta page of data.mdb is valid (page 0: {a}; page 1: {b}): it is not an LMDB database or it is damaged ({RESTORE})"
            ))
        }
        // LMDB reads both meta pages and refuses the file if either is bad,
        // so one intact copy does not make it usable.
        (Err(why), Ok(_)) | (Ok(_), Err(why)) => {
            let bad = if read_metas(file, size)?.0.is_err() { 0 } else { 1 };
            return damaged(format!(
                "meta page {bad} of data.mdb is damaged ({why}) while the other is intact, and LMDB needs both ({RESTORE})"
            ));
        }
    };
    let needed = meta
        .last_pg
        .checked_add(1)
        .and_then(|n| n.checked_mul(meta.psize));
    let pages = Pages {
        file,
        psize: meta.psize as usize,
        npages: meta.last_pg.saturating_add(1),
    };
    match needed {
        Some(n) if n <= size => {}
        // Its last pages are free ones LMDB never wrote.
        Some(_) if pages.tail_is_free(&meta.free, size / meta.psize)? => {}
        Some(n) => {
            return damaged(format!(
                "data.mdb is {size} bytes but its meta page says the data ends at {n}: the file is truncated ({RESTORE})"
            ))
        }
        None => {
            return damaged(format!(
                "the meta page of data.mdb names an impossible last page {}: the file is damaged ({RESTORE})",
                meta.last_pg
            ))
        }
    }
    let mut problems = Vec::new();
    let mut named = Vec::new();
    pages.walk(
        "main tree",
        &meta.main,
        false,
        &mut problems,
        &mut |name, db| named.push((String::from_utf8_lossy(name).into_owned(), db)),
    )?;
    pages.check_root("free-page tree", &meta.free, &mut problems)?;
    for (name, db) in &named {
        pages.check_root(name, db, &mut problems)?;
    }
    match problems.into_iter().next() {
        Some(p) => damaged(format!("data.mdb is damaged: {p} ({RESTORE})")),
        None => Ok(Found::Sound),
    }
}

mod pages;

#[cfg(test)]
use pages::mark;
pub(crate) use pages::walk_snapshot;
use pages::Pages;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_lmdb_on_this_platform() {
        // MDB_meta on a 64-bit build: 136 bytes, page header 16.
        if W == 8 {
            assert_eq!(META_SIZE, 136);
            assert_eq!(PAGEHDRSZ, 16);
        }
    }

    #[test]
    fn marks_each_page_once() {
        let mut seen = vec![0u64; 2];
        assert!(mark(&mut seen, 70));
        assert!(!mark(&mut seen, 70));
        assert!(!mark(&mut seen, 200), "out of range counts as seen");
    }
}

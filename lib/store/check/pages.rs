//! The page walk of `nlpc-list --check`: every page of every tree, read
//! with `pread` inside a read transaction so LMDB cannot reuse them meanwhile.

use super::*;

/// What a walk found: pages by kind, and entries.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    branch: u64,
    leaf: u64,
    overflow: u64,
    entries: u64,
}

/// Reads pages of data.mdb by number.
pub(crate) struct Pages<'f> {
    pub(super) file: &'f File,
    pub(super) psize: usize,
    pub(super) npages: u64,
}

/// One node of a B-tree page.
pub(super) struct Node<'p> {
    flags: u16,
    key: &'p [u8],
    /// Leaf: the data in place (or, with F_BIGDATA, the overflow page number's bytes).
    data: &'p [u8],
    /// Leaf: the data's size; branch: the child page.
    size_or_child: u64,
}

impl<'f> Pages<'f> {
    fn read(&self, pgno: u64) -> std::io::Result<Option<Vec<u8>>> {
        let Some(off) = pgno.checked_mul(self.psize as u64) else {
            return Ok(None);
        };
        let mut buf = vec![0; self.psize];
        let n = read_full(self.file, &mut buf, off)?;
        Ok((n == self.psize).then_some(buf))
    }

    /// Checks one B-tree page's header and node bounds; returns its nodes.
    fn nodes<'p>(&self, pgno: u64, page: &'p [u8]) -> Result<(bool, Vec<Node<'p>>), String> {
        let psize = self.psize;
        let stored = word_at(page, 0);
        if stored != pgno {
            return Err(format!("page {pgno} says it is page {stored}"));
        }
        let flags = u16_at(page, W + 2);
        let leaf = match flags & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META) {
            P_BRANCH => false,
            P_LEAF => true,
            _ => {
                return Err(format!(
                    "page {pgno} is not a tree page (flags {flags:#06x})"
                ))
            }
        };
        let (lower, upper) = (
            usize::from(u16_at(page, W + 4)),
            usize::from(u16_at(page, W + 6)),
        );
        if lower < PAGEHDRSZ
            || lower > upper
            || upper > psize
            || !(lower - PAGEHDRSZ).is_multiple_of(2)
        {
            return Err(format!(
                "page {pgno} has impossible bounds (lower {lower}, upper {upper})"
            ));
        }
        let n = (lower - PAGEHDRSZ) / 2;
        if !leaf && n == 0 {
            return Err(format!("branch page {pgno} has no children"));
        }
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let ptr = usize::from(u16_at(page, PAGEHDRSZ + 2 * i));
            if ptr < upper || ptr + NODESIZE > psize {
                return Err(format!("page {pgno}: node {i} lies outside the page"));
            }
            let lo = u64::from(u16_at(page, ptr));
            let hi = u64::from(u16_at(page, ptr + 2));
            let nflags = u16_at(page, ptr + 4);
            let ksize = usize::from(u16_at(page, ptr + 6));
            let kend = ptr + NODESIZE + ksize;
            if kend > psize {
                return Err(format!("page {pgno}: key of node {i} runs off the page"));
            }
            let key = &page[ptr + NODESIZE..kend];
            if leaf {
                let size = lo | hi << 16;
                let inline = if nflags & F_BIGDATA != 0 {
                    W as u64
                } else {
                    size
                };
                let end = (kend as u64).saturating_add(inline);
                if end > psize as u64 {
                    return Err(format!("page {pgno}: data of node {i} runs off the page"));
                }
                out.push(Node {
                    flags: nflags,
                    key,
                    data: &page[kend..end as usize],
                    size_or_child: size,
                });
            } else {
                let child = if W == 8 {
                    lo | hi << 16 | u64::from(nflags) << 32
                } else {
                    lo | hi << 16
                };
                if child < 2 || child >= self.npages {
                    return Err(format!(
                        "page {pgno}: node {i} points to page {child}, outside the file"
                    ));
                }
                out.push(Node {
                    flags: 0,
                    key,
                    data: &[],
                    size_or_child: child,
                });
            }
        }
        Ok((leaf, out))
    }

    fn root_in_range(&self, db: &TreeInfo) -> Result<Option<u64>, String> {
        if db.root == P_INVALID {
            return Ok(None);
        }
        if db.root < 2 || db.root >= self.npages {
            return Err(format!("its top page {} is outside the file", db.root));
        }
        Ok(Some(db.root))
    }

    /// Checks only the top page of a tree.
    pub(super) fn check_root(
        &self,
        name: &str,
        db: &TreeInfo,
        problems: &mut Vec<String>,
    ) -> std::io::Result<()> {
        let root = match self.root_in_range(db) {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(()),
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                return Ok(());
            }
        };
        match self.read(root)? {
            None => problems.push(format!("{name}: its top page {root} is outside the file")),
            Some(p) => {
                if let Err(e) = self.nodes(root, &p) {
                    problems.push(format!("{name}: {e}"));
                }
            }
        }
        Ok(())
    }

    /// Walks a whole tree, checking every page and that the counts match
    /// what the tree's description says; problems are pushed, one line each.
    /// In the main tree (`named` false) sub-database nodes are handed to
    /// `sub`; elsewhere they are damage.
    pub(super) fn walk(
        &self,
        name: &str,
        db: &TreeInfo,
        named: bool,
        problems: &mut Vec<String>,
        sub: &mut dyn FnMut(&[u8], TreeInfo),
    ) -> std::io::Result<()> {
        let root = match self.root_in_range(db) {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(()),
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                return Ok(());
            }
        };
        let before = problems.len();
        let mut counts = Counts::default();
        let mut seen = vec![0u64; (self.npages as usize).div_ceil(64)];
        let mut stack = vec![(root, 1u16)];
        while let Some((pgno, depth)) = stack.pop() {
            if !mark(&mut seen, pgno) {
                problems.push(format!("{name}: page {pgno} is reached twice"));
                continue;
            }
            let Some(page) = self.read(pgno)? else {
                problems.push(format!("{name}: page {pgno} is outside the file"));
                continue;
            };
            let (leaf, nodes) = match self.nodes(pgno, &page) {
                Ok(x) => x,
                Err(e) => {
                    problems.push(format!("{name}: {e}"));
                    continue;
                }
            };
            if leaf != (depth == db.depth) {
                problems.push(format!(
                    "{name}: page {pgno} is a {} page at depth {depth} of {}",
                    if leaf { "leaf" } else { "branch" },
                    db.depth
                ));
                continue;
            }
            if !leaf {
                counts.branch += 1;
                if depth >= db.depth {
                    continue;
                }
                for n in &nodes {
                    stack.push((n.size_or_child, depth + 1));
                }
                continue;
            }
            counts.leaf += 1;
            counts.entries += nodes.len() as u64;
            for (i, n) in nodes.iter().enumerate() {
                if n.flags & F_DUPDATA != 0 || (named && n.flags & F_SUBDATA != 0) {
                    problems.push(format!(
                        "{name}: page {pgno}: node {i} has flags {:#06x} no nlpcrawl table uses",
                        n.flags
                    ));
                    continue;
                }
                if n.flags & F_SUBDATA != 0 {
                    match TreeInfo::parse(n.data) {
                        Some(t) => sub(n.key, t),
                        None => problems.push(format!(
                            "{name}: page {pgno}: node {i} is a short table description"
                        )),
                    }
                    continue;
                }
                if n.flags & F_BIGDATA != 0 {
                    match self.overflow(pgno, word_at(n.data, 0), n.size_or_child, &mut seen)? {
                        Ok(k) => counts.overflow += k,
                        Err(e) => problems.push(format!("{name}: {e}")),
                    }
                }
            }
        }
        if problems.len() == before {
            let want = Counts {
                branch: db.branch_pages,
                leaf: db.leaf_pages,
                overflow: db.overflow_pages,
                entries: db.entries,
            };
            if counts != want {
                problems.push(format!(
                    "{name}: found {} entries on {} branch, {} leaf and {} overflow pages; its description says {}, {}, {} and {}",
                    counts.entries, counts.branch, counts.leaf, counts.overflow,
                    want.entries, want.branch, want.leaf, want.overflow
                ));
            }
        }
        Ok(())
    }

    /// Checks the overflow pages holding one large value; returns how many.
    fn overflow(
        &self,
        from: u64,
        pgno: u64,
        size: u64,
        seen: &mut [u64],
    ) -> std::io::Result<Result<u64, String>> {
        if pgno < 2 || pgno >= self.npages {
            return Ok(Err(format!(
                "page {from}: a large value points to page {pgno}, outside the file"
            )));
        }
        let Some(page) = self.read(pgno)? else {
            return Ok(Err(format!("overflow page {pgno} is outside the file")));
        };
        let stored = word_at(&page, 0);
        let flags = u16_at(&page, W + 2);
        let count = u64::from(u32_at(&page, W + 4));
        if stored != pgno || flags & P_OVERFLOW == 0 {
            return Ok(Err(format!(
                "page {pgno} is not the overflow page page {from} names"
            )));
        }
        let room = count
            .checked_mul(self.psize as u64)
            .map(|b| b.saturating_sub(PAGEHDRSZ as u64));
        let end = pgno.checked_add(count);
        match (room, end) {
            (Some(r), Some(e)) if count > 0 && r >= size && e <= self.npages => {}
            _ => {
                return Ok(Err(format!(
                    "overflow page {pgno}: {count} pages cannot hold {size} bytes within the file"
                )))
            }
        }
        for p in pgno..pgno + count {
            if !mark(seen, p) {
                return Ok(Err(format!("overflow page {p} is reached twice")));
            }
        }
        Ok(Ok(count))
    }
}

impl Pages<'_> {
    /// True when every page from `first` to the last the meta names is in
    /// the free-page tree `free`. LMDB does not write a page it allocated
    /// and freed in the same transaction (a loose page), yet counts it in
    /// the meta's last page: a sound file may end before that page when
    /// its last pages are such, free ones. Any page of the free tree or of
    /// its lists that cannot be read means no.
    pub(super) fn tail_is_free(&self, free: &TreeInfo, first: u64) -> std::io::Result<bool> {
        let Some(missing) = self.npages.checked_sub(first).filter(|n| *n > 0) else {
            return Ok(true);
        };
        // Each missing page is listed in the file, a word each: a damaged
        // meta naming more is refused before anything is sized by it.
        if missing > first.saturating_mul(self.psize as u64) / W as u64 {
            return Ok(false);
        }
        let Ok(Some(root)) = self.root_in_range(free) else {
            return Ok(false);
        };
        let mut left = missing;
        let mut covered = vec![0u64; (missing as usize).div_ceil(64)];
        let mut seen = vec![0u64; (self.npages as usize).div_ceil(64)];
        let mut stack = vec![root];
        while let Some(pgno) = stack.pop() {
            if pgno >= first || !mark(&mut seen, pgno) {
                return Ok(false);
            }
            let Some(page) = self.read(pgno)? else {
                return Ok(false);
            };
            let Ok((leaf, nodes)) = self.nodes(pgno, &page) else {
                return Ok(false);
            };
            if !leaf {
                stack.extend(nodes.iter().map(|n| n.size_or_child));
                continue;
            }
            for n in &nodes {
                // A list of page numbers: its length, then the numbers,
                // each a size_t, in place or on overflow pages.
                let list = if n.flags & F_BIGDATA != 0 {
                    let at = word_at(n.data, 0);
                    let end = at
                        .checked_mul(self.psize as u64)
                        .and_then(|o| o.checked_add(PAGEHDRSZ as u64 + n.size_or_child));
                    match end {
                        Some(e) if e <= first.saturating_mul(self.psize as u64) => {}
                        _ => return Ok(false),
                    }
                    let Ok(len) = usize::try_from(n.size_or_child) else {
                        return Ok(false);
                    };
                    let mut buf = vec![0; len];
                    let off = at * self.psize as u64 + PAGEHDRSZ as u64;
                    if read_full(self.file, &mut buf, off)? != len {
                        return Ok(false);
                    }
                    buf
                } else {
                    n.data.to_vec()
                };
                for p in list.chunks_exact(W).skip(1).map(|c| word_at(c, 0)) {
                    if p >= first && p < self.npages && mark(&mut covered, p - first) {
                        left -= 1;
                    }
                }
            }
        }
        Ok(left == 0)
    }
}

/// Marks page `p` as seen; false if it already was.
pub(super) fn mark(seen: &mut [u64], p: u64) -> bool {
    let (i, bit) = ((p / 64) as usize, 1u64 << (p % 64));
    match seen.get_mut(i) {
        Some(w) if *w & bit == 0 => {
            *w |= bit;
            true
        }
        _ => false,
    }
}

/// What a walk of every page found.
pub(crate) struct Structure {
    /// One line each.
    pub problems: Vec<String>,
    /// The trees with a problem, by name ("main tree", "free-page tree", a
    /// table's name): LMDB must not be let loose on them.
    pub damaged: Vec<String>,
}

/// Walks every page of the snapshot whose meta has transaction id `txnid`,
/// or returns None when no meta page carries that id any more (a writer
/// overwrote it; take a newer snapshot and try again). The caller holds a
/// read transaction on that snapshot, which keeps LMDB from reusing any of
/// its pages meanwhile.
pub(crate) fn walk_snapshot(dir: &Path, txnid: u64) -> std::io::Result<Option<Structure>> {
    let file = File::open(dir.join("data.mdb"))?;
    let size = file.metadata()?.len();
    let meta = match read_metas(&file, size)? {
        (Ok(a), _) if a.txnid == txnid => a,
        (_, Ok(b)) if b.txnid == txnid => b,
        _ => return Ok(None),
    };
    let pages = Pages {
        file: &file,
        psize: meta.psize as usize,
        npages: (size / meta.psize).min(meta.last_pg.saturating_add(1)),
    };
    let mut s = Structure {
        problems: Vec::new(),
        damaged: Vec::new(),
    };
    let mut named = Vec::new();
    let walk =
        |s: &mut Structure, name: &str, db: &TreeInfo, sub: &mut dyn FnMut(&[u8], TreeInfo)| {
            let before = s.problems.len();
            pages.walk(name, db, name != "main tree", &mut s.problems, sub)?;
            if s.problems.len() > before {
                s.damaged.push(name.to_string());
            }
            std::io::Result::Ok(())
        };
    walk(&mut s, "main tree", &meta.main, &mut |name, db| {
        named.push((String::from_utf8_lossy(name).into_owned(), db))
    })?;
    walk(&mut s, "free-page tree", &meta.free, &mut |_, _| {})?;
    for (name, db) in &named {
        walk(&mut s, name, db, &mut |_, _| {})?;
    }
    Ok(Some(s))
}

//! The shape of the database: each B-tree's depth and pages, the free
//! pages, and the environment's last page and transaction numbers. What a
//! benchmark reads before and after a daemon's run to tell which tables a
//! write touches in a large database and how many commits it made; and
//! the pages a commit wrote ([`super::Write::commit_pages`]), by which
//! nlpc-up bounds its transactions. Like `db` and `txn`, this calls LMDB
//! directly.

use lmdb::Transaction;

use super::db::*;
use crate::error::Result;

/// One B-tree of the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub name: &'static str,
    /// Levels from the root to the leaves (0: empty).
    pub depth: u32,
    pub branch: u64,
    pub leaf: u64,
    pub overflow: u64,
    pub entries: u64,
}

/// The environment as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The record tables and their indexes, largest first as they grow with
    /// the records: `records`, `index`, `sched`, `due`.
    pub trees: Vec<Tree>,
    /// The highest page number in use: the file's extent in pages.
    pub last_page: u64,
    /// The last committed transaction's number: commits between two
    /// readings are their difference.
    pub last_txn: u64,
    /// Pages on the free list, reusable by later writes.
    pub free_pages: u64,
}

impl Tree {
    /// The pages a transaction is expected to dirty in this tree when it
    /// writes `k` keys that are neighbours in key order among `of` keys
    /// spread at random over it (`of` at most `k`: the `k` spread at random
    /// themselves). At each level the `k` fall on the pages of their
    /// stretch of the key space, `k / of` of the level, and hit as many
    /// distinct pages as `k` random draws among those. In a small tree the
    /// keys share leaves; in a large one each key dirties a leaf and,
    /// unless its neighbours are near, branch pages of its own.
    pub fn pages_for(&self, k: u64, of: u64) -> f64 {
        if self.depth == 0 || k == 0 {
            return 0.0;
        }
        let share = if of > k { k as f64 / of as f64 } else { 1.0 };
        let leaves = (self.leaf as f64).max(1.0);
        // Pages a level holds, from the leaves up, by the mean fanout
        // that takes the leaves to one root in `depth` levels.
        let fanout = match self.depth {
            1 => 1.0,
            d => leaves.powf(1.0 / f64::from(d - 1)).max(2.0),
        };
        let mut n = leaves;
        let mut total = 0.0;
        for _ in 0..self.depth {
            let stretch = n * share;
            total += if stretch <= 1.0 {
                1.0
            } else {
                stretch * (1.0 - (1.0 - 1.0 / stretch).powf(k as f64))
            };
            n = (n / fanout).max(1.0);
        }
        total
    }
}

impl Store {
    /// The shape of the database as of its last commit.
    pub fn shape(&self) -> Result<Shape> {
        let info = self
            .env
            .info()
            .map_err(|e| self.err("cannot read environment info", e))?;
        let free_pages = self
            .env
            .freelist()
            .map_err(|e| self.err("cannot read the free list", e))? as u64;
        Ok(Shape {
            trees: self.trees()?,
            last_page: info.last_pgno() as u64,
            last_txn: info.last_txnid() as u64,
            free_pages,
        })
    }

    /// The record tables' and indexes' trees (see [`Shape::trees`]); cheap:
    /// LMDB keeps these figures in each tree's root.
    pub fn trees(&self) -> Result<Vec<Tree>> {
        let txn = self
            .env
            .begin_ro_txn()
            .map_err(|e| self.err("cannot begin read transaction", e))?;
        let mut trees = Vec::new();
        let named = [
            ("records", Some(self.records)),
            ("index", Some(self.index)),
            ("sched", self.sched),
            ("due", self.due),
            ("ready", self.ready),
        ];
        for (name, db) in named {
            let Some(db) = db else { continue };
            let st = txn
                .stat(db)
                .map_err(|e| self.err("cannot read table size", e))?;
            trees.push(Tree {
                name,
                depth: st.depth(),
                branch: st.branch_pages() as u64,
                leaf: st.leaf_pages() as u64,
                overflow: st.overflow_pages() as u64,
                entries: st.entries() as u64,
            });
        }
        Ok(trees)
    }
}

/// Bytes this thread has handed to write calls, from
/// /proc/thread-self/io; None where that cannot be read.
fn thread_written() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/thread-self/io").ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse().ok())
}

impl super::Write<'_> {
    /// Commits, and returns the pages the commit wrote: LMDB writes every
    /// page a write transaction dirtied (and held in the heap till then)
    /// at its commit, with write calls of the committing thread, then its
    /// meta page. Counted from the bytes this thread wrote during the
    /// commit, so what a daemon holds is measured, not estimated; None
    /// where the kernel does not say (no /proc).
    pub fn commit_pages(self) -> Result<Option<u64>> {
        let page = self
            .store
            .env
            .stat()
            .map(|s| u64::from(s.page_size()).max(1))
            .map_err(|e| self.store.err("cannot read environment", e))?;
        let before = thread_written();
        self.commit()?;
        Ok(before
            .zip(thread_written())
            .map(|(b, a)| a.saturating_sub(b) / page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::{Record, State};

    #[test]
    fn the_shape_counts_commits_and_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let st = Store::open(tmp.path(), Options::default()).unwrap();
        let before = st.shape().unwrap();
        let recs: Vec<Record> = (0..3000)
            .map(|i| {
                let mut r = Record::new(&format!("http://h{}.test/p/{i}", i % 7), 1000);
                r.state = State::Scanned;
                r.fetched = 1000;
                r
            })
            .collect();
        let mut w = st.write().unwrap();
        w.insert_batch(&recs).unwrap();
        w.commit().unwrap();
        let after = st.shape().unwrap();
        assert_eq!(after.last_txn, before.last_txn + 1, "one commit");
        assert!(after.last_page > before.last_page);
        let tree = |name: &str| after.trees.iter().find(|t| t.name == name).unwrap();
        let records = tree("records");
        assert_eq!(records.entries, 3000);
        assert_eq!(tree("index").entries, 3000);
        // Every SCANNED record waits for nlpc-up: one due entry each.
        assert_eq!(tree("due").entries, 3000);
        assert!(records.depth >= 2 && records.leaf > 10, "{records:?}");
        // One key: a page a level. Many more keys than leaves: every
        // leaf, and no more pages than the tree has.
        let one = records.pages_for(1, 1);
        assert!((one - f64::from(records.depth)).abs() < 1e-9, "{one}");
        let all = records.pages_for(100 * records.leaf, 0);
        let pages = (records.leaf + records.branch) as f64;
        assert!(
            all >= records.leaf as f64 * 0.99 && all <= pages,
            "{all} of {pages}"
        );
        // Neighbours in key order touch fewer pages than as many at random.
        assert!(records.pages_for(50, 3000) < records.pages_for(50, 0));
    }
}

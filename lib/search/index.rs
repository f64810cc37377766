//! nlpc-index: keeps the search index up to date by following the store's
//! change log (`store::changes`).
//!
//! Each step reads a batch of changes after the index's cursor, deletes
//! every named page's document by its key and adds the page again if it is
//! still in the corpus, and commits the index with the batch's last
//! sequence as the commit's payload: the documents and the cursor commit
//! together, so after SIGKILL the daemon resumes after the last committed
//! batch, and a page applied twice is replaced, never doubled. Then it
//! trims the log up to the cursor, which bounds the log by what the index
//! has not yet read.
//!
//! An idle nlpc-index sleeps on its wake-up socket for the change log
//! (`store::wake::CHANGES`): every commit that logs a change (nlpc-vrfy's
//! verdicts, nlpc-up's removals) wakes it at once; `--use-interval` stays
//! the longest it waits when a wake-up is lost or cannot be had.

use std::path::PathBuf;

use tantivy::schema::Term;
use tantivy::{DateTime, Index, IndexWriter, TantivyDocument};

use crate::document::charset::{self, Kind};
use crate::document::extract;
use crate::error::Result;
use crate::run::daemon::catch_panic;
use crate::run::options::Parsed;
use crate::search::schema::{self, index_error, Fields};
use crate::store::cache::Cache;
use crate::store::changes::Event;
use crate::store::dups;
use crate::store::record::{Record, State};
use crate::store::textcache;
use crate::store::{Key, Read, Store};
use crate::{debug, info};

/// How nlpc-index works.
#[derive(Clone, Debug)]
pub struct Config {
    /// `--index`: the index's directory.
    pub path: PathBuf,
    /// Changes applied per index commit.
    pub batch: usize,
}

/// Changes per commit: a commit costs a few file syncs, so batches keep
/// their number low, and a killed daemon redoes at most one.
pub const BATCH: usize = 512;

/// The least time between two commits of a batch smaller than [`BATCH`].
/// During a crawl the changes come a few at a time, and a commit per
/// wake-up made hundreds of tiny segments and the merges that fold them
/// (most of nlpc-index's CPU, and most of the crawl's, in
/// `scripts/bench/compare`); a page waits this much longer at most before
/// it is searchable. A full batch commits at once.
pub const COMMIT_GAP: std::time::Duration = std::time::Duration::from_secs(2);

/// Memory tantivy's writer may use before it writes a segment.
const WRITER_MEMORY: usize = 64 << 20;

/// The states whose records hold a verified body in the file cache. A
/// record re-fetched and not yet judged (FRESH) is left out until
/// nlpc-vrfy logs its verdict.
pub const INDEXED: [State; 5] = [
    State::Verified,
    State::Scanned,
    State::Dirty,
    State::Unreach,
    State::Dead,
];

impl Config {
    /// The index path of `--index`, or `index` beside the database (so
    /// DIR/index when -p is not given).
    pub fn path_of(o: &Parsed) -> PathBuf {
        o.path("index")
            .unwrap_or_else(|| o.common.db.with_file_name("index"))
    }

    pub fn from_options(o: &Parsed) -> Result<Config> {
        Ok(Config {
            path: Config::path_of(o),
            batch: BATCH,
        })
    }
}

/// Each text is indexed once: true for a page marked an exact or near
/// duplicate of another (`store::dups`), whose first copy is indexed in its
/// place. A mark always names a page still in the database, and when a
/// cluster is re-formed its members are logged again (`dups::forget`), so
/// the index follows the marks.
fn skip_as_duplicate(rd: &Read<'_>, key: &Key) -> Result<bool> {
    Ok(dups::duplicate_of(rd, key)?.is_some())
}

/// The committed cursor in a commit payload.
fn parse_payload(p: Option<&str>) -> Option<u64> {
    p?.strip_prefix("cursor ")?.trim().parse().ok()
}

/// The open index and its writer.
pub struct Indexer {
    cfg: Config,
    index: Index,
    writer: IndexWriter<TantivyDocument>,
    f: Fields,
    /// The last change applied and committed.
    cursor: u64,
    /// When this run last committed (none yet: the first batch goes at once).
    committed: Option<std::time::Instant>,
}

impl Indexer {
    /// Opens (or creates) the index. A new index (no commit yet) first
    /// logs a change for every page already in the corpus, so a crawl
    /// older than the index is indexed whole.
    pub fn open(cfg: &Config, store: &Store) -> Result<Indexer> {
        let (index, f) = schema::open(&cfg.path, true)?;
        let writer = index
            .writer_with_num_threads(1, WRITER_MEMORY)
            .map_err(|e| {
                index_error(
                    &cfg.path,
                    "cannot take the writer (is another nlpc-index running?)",
                    e,
                )
            })?;
        let metas = index
            .load_metas()
            .map_err(|e| index_error(&cfg.path, "cannot read", e))?;
        let mut ix = Indexer {
            cfg: cfg.clone(),
            index,
            writer,
            f,
            cursor: 0,
            committed: None,
        };
        match parse_payload(metas.payload.as_deref()) {
            Some(c) => ix.cursor = c,
            None => {
                let n = plant(store)?;
                info!("new index {}: {n} pages to index", cfg.path.display());
                // An empty commit with cursor 0: the planted changes are
                // now the index's to apply, and are not planted again.
                ix.commit(0)?;
                // The pages planted are indexed at once, not a gap later.
                ix.committed = None;
            }
        }
        Ok(ix)
    }

    /// The cursor: the last change applied.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// True when the log holds a change after the cursor: what an idle
    /// nlpc-index looks at after arming its wake-up, before it sleeps.
    pub fn pending(&self, store: &Store) -> Result<bool> {
        Ok(!store.read()?.changes_after(self.cursor, 1)?.is_empty())
    }

    fn commit(&mut self, cursor: u64) -> Result<()> {
        let path = &self.cfg.path;
        let mut p = self
            .writer
            .prepare_commit()
            .map_err(|e| index_error(path, "cannot commit", e))?;
        p.set_payload(&format!("cursor {cursor}"));
        p.commit()
            .map_err(|e| index_error(path, "cannot commit", e))?;
        self.cursor = cursor;
        self.committed = Some(std::time::Instant::now());
        Ok(())
    }

    /// How long to wait before the next [`Indexer::step`] so that its
    /// commit is not the second within [`COMMIT_GAP`]; None when it may go
    /// now: the gap has passed, the log holds a full batch, or it is empty
    /// (nothing to wait for).
    pub fn hold(&self, store: &Store) -> Result<Option<std::time::Duration>> {
        let left = self.committed.map_or(std::time::Duration::ZERO, |t| {
            COMMIT_GAP.saturating_sub(t.elapsed())
        });
        if left.is_zero() {
            return Ok(None);
        }
        let n = store
            .read()?
            .changes_after(self.cursor, self.cfg.batch)?
            .len();
        Ok((n > 0 && n < self.cfg.batch).then_some(left))
    }

    /// On the way out (a stop signal): commits the changes left waiting
    /// for [`COMMIT_GAP`], a batch at most, so the last verdicts of a crawl
    /// that ends (`nlpcd --once`) are searchable. A longer backlog waits
    /// for the next run rather than hold the stop up.
    pub fn flush(&mut self, store: &Store, cache: &Cache) -> Result<usize> {
        let n = store
            .read()?
            .changes_after(self.cursor, self.cfg.batch + 1)?
            .len();
        if n == 0 || n > self.cfg.batch {
            return Ok(0);
        }
        self.step(store, cache)
    }

    /// Applies one batch of changes; returns how many it applied (0: the
    /// log has nothing after the cursor).
    pub fn step(&mut self, store: &Store, cache: &Cache) -> Result<usize> {
        let rd = store.read()?;
        let changes = rd.changes_after(self.cursor, self.cfg.batch)?;
        let Some(last) = changes.last().map(|c| c.seq) else {
            return Ok(0);
        };
        let (mut added, mut removed) = (0, 0);
        for c in &changes {
            self.writer
                .delete_term(Term::from_field_text(self.f.key, &c.key.hex()));
            let rec = match c.event {
                Event::Verified => rd.get(&c.key)?,
                Event::Removed => None,
            };
            let doc = match rec {
                Some(r) if INDEXED.contains(&r.state) && !skip_as_duplicate(&rd, &c.key)? => {
                    self.document(cache, &c.key, &r)?
                }
                _ => None,
            };
            match doc {
                Some(d) => {
                    self.writer
                        .add_document(d)
                        .map_err(|e| index_error(&self.cfg.path, "cannot add", e))?;
                    added += 1;
                }
                None => removed += 1,
            }
        }
        drop(rd);
        self.commit(last)?;
        info!("indexed {added} pages, removed {removed}, through change {last}");
        let mut w = store.write()?;
        w.trim_changes(last)?;
        w.commit()?;
        Ok(changes.len())
    }

    /// The document of page `key`: the text nlpc-vrfy kept for its body
    /// (`store::textcache`), else extracted again from the cached body;
    /// None when there is no body or it is not text. A page the extractor
    /// fails on is logged and left out rather than stopping the index.
    fn document(&self, cache: &Cache, key: &Key, rec: &Record) -> Result<Option<TantivyDocument>> {
        let Some((title, text)) = page_text(cache, key, rec)? else {
            return Ok(None);
        };
        let d = make_document(
            &self.f,
            &key.hex(),
            &rec.url,
            &rec.host().to_ascii_lowercase(),
            &rec.language,
            rec.fetched,
            &title,
            &text,
        );
        Ok(Some(d))
    }

    /// The index, for tests and tools.
    pub fn index(&self) -> &Index {
        &self.index
    }
}

/// One page's document: `key` (the record key in hex) is its identity.
#[allow(clippy::too_many_arguments)]
pub fn make_document(
    f: &Fields,
    key: &str,
    url: &str,
    host: &str,
    lang: &str,
    fetched: u64,
    title: &str,
    text: &str,
) -> TantivyDocument {
    let mut d = TantivyDocument::default();
    d.add_text(f.key, key);
    d.add_text(f.url, url);
    d.add_text(f.host, host);
    d.add_text(f.lang, lang);
    let t = i64::try_from(fetched).unwrap_or(i64::MAX);
    d.add_date(f.date, DateTime::from_timestamp_secs(t));
    d.add_text(f.title, title);
    d.add_text(f.title_fold, title);
    d.add_text(f.text, text);
    d.add_text(f.text_fold, text);
    d
}

/// The title and main text of page `key` for the index: nlpc-vrfy's, when
/// it kept them for the body the record names, else [`main_text`] of the
/// cached body. None when the page is not text, has no body, or the
/// extractor fails on it (logged).
pub fn page_text(cache: &Cache, key: &Key, rec: &Record) -> Result<Option<(String, String)>> {
    let Some(kind) = Kind::of(&rec.content_type) else {
        return Ok(None);
    };
    if let Some(t) = textcache::read(cache, key, &rec.hash)? {
        return Ok(Some((t.title, t.text)));
    }
    let Some(body) = cache.read(key)? else {
        debug!("{}: no stored body, not indexed", rec.url);
        return Ok(None);
    };
    match catch_panic(&rec.url, || main_text(&body, rec, kind)) {
        Ok(t) => Ok(Some(t)),
        Err(why) => {
            crate::error!("{}: not indexed: {why}", rec.url);
            Ok(None)
        }
    }
}

/// The title and main text of a page, as nlpc-dump writes them: decoded
/// as nlpc-vrfy decoded it, the main text's blocks a line each; empty
/// for a page with no main text, which is not in the corpus.
pub fn main_text(body: &[u8], rec: &Record, kind: Kind) -> (String, String) {
    let hints = charset::Hints {
        user: None,
        tld: Some(rec.host()),
    };
    let det = charset::detect(body, &rec.charset, kind, &hints);
    let doc = charset::decode(body, &det);
    let main = extract::main_text(&doc, kind);
    let text = main.text();
    (main.title, text)
}

/// Logs a change for every page in the corpus (those in [`INDEXED`]
/// states, leased or not); returns how many.
pub fn plant(store: &Store) -> Result<usize> {
    let mut w = store.write()?;
    let mut keys = Vec::new();
    for s in INDEXED {
        for leased in [false, true] {
            w.walk_keys(s, leased, None, |k| {
                keys.push(k);
                Ok(true)
            })?;
        }
    }
    for k in &keys {
        w.log_change(k, State::Verified)?;
    }
    w.commit()?;
    Ok(keys.len())
}

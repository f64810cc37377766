//! nlpc-scan: seeding, and the VERIFIED → SCANNED step that turns a verified
//! document's links into NEW records.

use encoding_rs::{Encoding, UTF_8};

use crate::document::charset;
use crate::error::Result;
use crate::run::clock;
use crate::run::daemon::{Contained, Daemon};
use crate::store::cache::Cache;
use crate::store::record::{Flags, Record, State};
use crate::store::{scope, tunnel, Inserted, Store};
use crate::web::admit::{self, Filter, Refusal};
use crate::web::links::{self, Links};
use crate::web::url::{self, Base};
use crate::{debug, info};

/// One seed: its line (or operand) number, and its text or why the line
/// was refused before it could be read as a URL.
pub type Seed = (usize, std::result::Result<String, String>);

/// The longest seed line read; the rest of a longer line is skipped
/// unread, so a 1 GB line costs no memory.
pub const MAX_SEED_LINE: usize = 64 * 1024;

/// Seed lines from a reader (standard input), numbered from 1, read as
/// they are needed so a huge list never sits in memory. Blank lines and
/// `#` comments are skipped; a UTF-8 byte order mark opening the first
/// line is dropped. A line that is not UTF-8 or longer than
/// [`MAX_SEED_LINE`] comes out as an `Err` naming why, and the lines after
/// it are read as usual. A read error is handed to `fail`, which must not
/// return.
pub fn seed_lines<R: std::io::BufRead>(
    mut r: R,
    fail: impl Fn(String) -> std::convert::Infallible,
) -> impl Iterator<Item = Seed> {
    let mut n = 0usize;
    let mut buf = Vec::new();
    std::iter::from_fn(move || loop {
        n += 1;
        let (len, ended) = match read_capped(&mut r, &mut buf, MAX_SEED_LINE) {
            Ok(x) => x,
            Err(e) => match fail(format!("line {n}: {e}")) {},
        };
        if len == 0 && !ended {
            return None;
        }
        if n == 1 && buf.starts_with(b"\xef\xbb\xbf") {
            buf.drain(..3);
        }
        if len > MAX_SEED_LINE {
            return Some((
                n,
                Err(format!(
                    "{}...: line too long ({len} bytes, limit {MAX_SEED_LINE})",
                    utf8_head(&buf[..admit::SHOWN])
                )),
            ));
        }
        let text = match std::str::from_utf8(&buf) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                return Some((
                    n,
                    Err(format!(
                        "{}: not UTF-8 (byte {} of {len})",
                        admit::shown(utf8_head(&buf[..at])),
                        at + 1
                    )),
                ));
            }
        };
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return Some((n, Ok(t.to_string())));
    })
}

/// Reads one line into `buf` (without its newline, nor a carriage return
/// before it), keeping at most `max + 1` bytes and skipping the rest
/// unread; returns the line's full length and whether a newline ended it.
fn read_capped<R: std::io::BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    buf.clear();
    let mut len = 0usize;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((trim_cr(buf, len), false));
        }
        let (part, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        let room = (max + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        len = len.saturating_add(part.len());
        let used = part.len() + usize::from(ended);
        r.consume(used);
        if ended {
            return Ok((trim_cr(buf, len), true));
        }
    }
}

/// The UTF-8 text `b` opens with, up to its first byte that is not.
fn utf8_head(b: &[u8]) -> &str {
    match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Drops a carriage return ending a CRLF line; returns the length without it.
fn trim_cr(buf: &mut Vec<u8>, len: usize) -> usize {
    if len == buf.len() && buf.last() == Some(&b'\r') {
        buf.pop();
        return len - 1;
    }
    len
}

/// Seed operands (command-line arguments), numbered from 1. Unlike a seed
/// file's lines, none is skipped: an empty operand is refused by name.
pub fn seed_args(args: Vec<String>) -> impl Iterator<Item = Seed> {
    args.into_iter().enumerate().map(|(i, u)| (i + 1, Ok(u)))
}

/// How nlpc-scan works.
#[derive(Clone, Debug)]
pub struct Config {
    pub filter: Filter,
    /// `--filter-ascend`: also enqueue the parent directories of new links.
    pub ascend: bool,
    /// `--filter-ascend-scan`: enqueue the parent directories of scanned
    /// (verified) documents only.
    pub ascend_scan: bool,
    /// `--filter-tunnel`: follow the links of rejected pages, up to this
    /// many rejected pages in a row (`store::tunnel`); 0 follows none.
    pub tunnel: u8,
    /// Records taken per transaction.
    pub batch: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            filter: Filter::default(),
            ascend: false,
            ascend_scan: false,
            tunnel: 2,
            batch: 64,
        }
    }
}

impl Config {
    /// nlpc-scan's configuration from its options.
    pub fn from_options(o: &crate::run::options::Parsed) -> Result<Config> {
        Ok(Config {
            filter: crate::stage::admission(o)?,
            ascend: o.flag("filter-ascend"),
            ascend_scan: o.flag("filter-ascend-scan"),
            tunnel: o.int("filter-tunnel")?,
            ..Config::default()
        })
    }
}

/// How the seeding went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SeedReport {
    pub added: usize,
    pub known: usize,
    pub bad: usize,
}

/// Inserts seed URLs as NEW records; `(line, text)` pairs let errors name
/// their line. Known URLs are left as they are; bad ones (lines that could
/// not be read, and URLs not admitted) are reported on standard error, one
/// line each, and counted.
pub fn seed(
    store: &Store,
    filter: &Filter,
    urls: impl IntoIterator<Item = Seed>,
) -> Result<SeedReport> {
    let mut rep = SeedReport::default();
    let now = clock::now();
    let mut pending = Vec::new();
    for (line, raw) in urls {
        let raw = match &raw {
            Ok(raw) => raw.trim(),
            Err(why) => {
                info!("line {line}: {why}");
                rep.bad += 1;
                continue;
            }
        };
        if raw.is_empty() {
            info!("line {line}: empty URL");
            rep.bad += 1;
            continue;
        }
        let u = match filter.admit(raw, None) {
            Ok(u) => u,
            Err(why) => {
                info!("line {line}: {}: {why}", admit::shown(raw));
                rep.bad += 1;
                continue;
            }
        };
        let mut rec = Record::new(&u, now);
        rec.flags |= Flags::SEED;
        pending.push(rec);
        // Commit in slices so a huge seed list never holds the writer long.
        if pending.len() == SEED_SLICE {
            insert_seeds(store, filter, &mut pending, &mut rep)?;
        }
    }
    insert_seeds(store, filter, &mut pending, &mut rep)?;
    Ok(rep)
}

/// Seeds inserted per transaction: large enough that the B-tree pages a
/// slice dirties are shared by many inserts.
const SEED_SLICE: usize = 100_000;

fn insert_seeds(
    store: &Store,
    filter: &Filter,
    pending: &mut Vec<Record>,
    rep: &mut SeedReport,
) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    // In key order: neighbouring keys share B-tree pages.
    pending.sort_by_cached_key(|r| store.hash(&r.url));
    let mut w = store.write()?;
    for r in pending.iter() {
        match scope::insert(&mut w, r, filter)? {
            Ok(Inserted::New(_)) => rep.added += 1,
            Ok(Inserted::Known(..)) => rep.known += 1,
            Ok(Inserted::Forwarded(p)) => {
                debug!("{}: forwarded to node {p}", admit::shown(&r.url));
                rep.added += 1;
            }
            Err(why) => {
                info!("{}: {why}", admit::shown(&r.url));
                rep.bad += 1;
            }
        }
    }
    w.commit()?;
    pending.clear();
    Ok(())
}

/// What one document yields.
#[derive(Debug, Default)]
pub struct Found {
    /// URLs (request form) to insert, filtered, without duplicates.
    pub urls: Vec<String>,
    /// The document asked that its links not be followed.
    pub nofollow: bool,
    pub noindex: bool,
    /// Distinct links not read because the page had
    /// `--filter-page-links` already.
    pub dropped: usize,
}

/// How the stored body of a record should be read for links.
fn doc_kind(content_type: &str) -> Option<bool> {
    let ct = content_type.to_ascii_lowercase();
    let mime = ct.split(';').next().unwrap_or("").trim();
    match mime {
        "" | "text/html" | "application/xhtml+xml" => Some(false),
        "text/xml" | "application/xml" => Some(true),
        m if m.ends_with("+xml") => Some(true),
        _ => None,
    }
}

/// Extracts the links of `rec`'s body and admits them (resolved,
/// normalised, filtered: [`Filter::admit_link`]), up to
/// `--filter-page-links` of them in the page's order; the distinct links
/// after those are counted, not read, and named in one line.
pub fn links_of(rec: &Record, body: &[u8], cfg: &Config) -> Found {
    let mut found = Found::default();
    let enc: &'static Encoding = charset::resolve(&rec.charset).unwrap_or(UTF_8);
    let l: Links = match doc_kind(&rec.content_type) {
        Some(false) => links::extract_html(body, enc),
        Some(true) => links::extract_xml(body, enc),
        None => Links::default(),
    };
    found.noindex = l.noindex;
    found.nofollow = l.nofollow || rec.flags & Flags::NOFOLLOW != 0;
    let Ok(doc) = Base::parse(&rec.url) else {
        return found;
    };
    let base = l
        .base
        .as_deref()
        .and_then(|b| doc.join(b).ok())
        .and_then(|b| Base::parse(&b).ok())
        .unwrap_or(doc);
    let cap = cfg.filter.page_link_cap();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut add = |u: String, found: &mut Found| {
        if found.urls.len() < cap && !url::same_resource(&u, &rec.url) && seen.insert(u.clone()) {
            found.urls.push(u);
        }
    };
    // Every URL found goes through admission; a refusal is a debug line,
    // since pages are full of links to elsewhere.
    let skip = |what: &str, why: Refusal| {
        debug!("{}: skip {}: {why}", rec.url, admit::shown(what));
    };
    if !found.nofollow {
        // Menus repeat the same references on every page; resolve each once.
        let mut raw = rustc_hash::FxHashSet::default();
        for r in &l.refs {
            if !raw.insert(r.as_str()) {
                continue;
            }
            // A hostile page can hold hundreds of thousands of links: past
            // the cap they are counted, not resolved.
            if found.urls.len() >= cap {
                found.dropped += 1;
                continue;
            }
            let u = match cfg.filter.admit_link(r, Some(&base), rec.depth) {
                Ok(u) => u,
                Err(why) => {
                    skip(r, why);
                    continue;
                }
            };
            if cfg.ascend {
                for p in url::parents(&u) {
                    match cfg.filter.admit_link(&p, None, rec.depth) {
                        Ok(p) => add(p, &mut found),
                        Err(why) => skip(&p, why),
                    }
                }
            }
            add(u, &mut found);
        }
    }
    if cfg.ascend_scan {
        for p in url::parents(&rec.url) {
            match cfg.filter.admit_link(&p, None, rec.depth) {
                Ok(p) => add(p, &mut found),
                Err(why) => skip(&p, why),
            }
        }
    }
    if found.dropped > 0 {
        info!(
            "{}: {} links taken, {} more not read (--filter-page-links {cap})",
            rec.url,
            found.urls.len(),
            found.dropped
        );
    }
    found
}

/// One VERIFIED → SCANNED step over up to `cfg.batch` records; returns how
/// many records were scanned.
pub fn step(d: &Daemon, cfg: &Config, cache: &Cache) -> Result<usize> {
    let (lease, batch) = d.lease_batch(State::Verified, cfg.batch)?;
    if batch.is_empty() {
        return Ok(0);
    }
    // Reading and parsing happen outside the write transaction, so other
    // daemons are not held up by it, and one record at a time inside
    // `contain`, so an unreadable body or a panic in the link extractor
    // sets that record aside instead of killing the daemon on it forever.
    let mut results = Vec::with_capacity(batch.len());
    let mut stop = None;
    for (key, rec) in &batch {
        match d.contain(&rec.url, || {
            Ok(cache.read(key)?.map(|body| links_of(rec, &body, cfg)))
        }) {
            Ok(found) => results.push(found),
            Err(e) => {
                stop = Some(e);
                break;
            }
        }
    }
    let results_len = results.len();
    let now = clock::now();
    let mut w = d.store.write()?;
    let mut scanned = 0;
    for ((key, rec), found) in batch.iter().zip(results) {
        crate::run::daemon::test_escape(&rec.url);
        let mut done = rec.clone();
        done.state = State::Scanned;
        done.changed = now;
        let (mut new, mut known, mut refused) = (0, 0, 0);
        let found = match found {
            Contained::Done(found) => found,
            Contained::Quarantine(why) => {
                done.state = State::Quarantined;
                done.reason = why;
                if w.finish(key, &done, lease)? {
                    scanned += 1;
                }
                continue;
            }
        };
        match &found {
            Some(f) => {
                if f.nofollow {
                    done.flags |= Flags::NOFOLLOW;
                }
            }
            None => done.reason = "no stored body".into(),
        }
        if !w.finish(key, &done, lease)? {
            debug!("{}: lease lost, skipped", rec.url);
            continue;
        }
        for u in found.map(|f| f.urls).unwrap_or_default() {
            let mut r = Record::new(&u, now);
            r.depth = rec.depth.saturating_add(1);
            match scope::insert(&mut w, &r, &cfg.filter)? {
                Ok(Inserted::New(_)) => new += 1,
                Ok(Inserted::Known(k, _)) => {
                    known += 1;
                    tunnel::linked_from_accepted(&mut w, &k)?;
                }
                Ok(Inserted::Forwarded(p)) => {
                    debug!("{}: {} forwarded to node {p}", rec.url, admit::shown(&u))
                }
                Err(why) => {
                    refused += 1;
                    debug!("{}: skip {}: {why}", rec.url, admit::shown(&u))
                }
            }
        }
        scanned += 1;
        if done.reason.is_empty() {
            info!(
                "scanned {} ({new} new, {known} known{})",
                rec.url,
                refused_by_count(refused)
            );
        } else {
            info!("scanned {}: {}", rec.url, done.reason);
        }
    }
    // Stopping on an error: what was done is kept, and the records not
    // reached go back as they were.
    for (key, rec) in &batch[results_len..] {
        w.finish(key, rec, lease)?;
    }
    w.commit()?;
    match stop {
        Some(e) => Err(e),
        None => Ok(scanned),
    }
}

/// The end of a scanned page's line when the store's counts (a host's
/// quota, a path's query variants) refused links the page gave: each is a
/// debug line, their number is said with the page.
pub(crate) fn refused_by_count(refused: usize) -> String {
    match refused {
        0 => String::new(),
        n => format!(", {n} refused"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_read_no_further_than_the_cap() {
        let mut input = vec![b'x'; 3 * MAX_SEED_LINE];
        input.extend_from_slice(b"\nnext\r\n");
        let mut r = std::io::BufReader::with_capacity(4096, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_capped(&mut r, &mut buf, MAX_SEED_LINE).unwrap(),
            (3 * MAX_SEED_LINE, true)
        );
        assert_eq!(buf.len(), MAX_SEED_LINE + 1);
        assert_eq!(
            read_capped(&mut r, &mut buf, MAX_SEED_LINE).unwrap(),
            (4, true)
        );
        assert_eq!(buf, b"next");
        assert_eq!(
            read_capped(&mut r, &mut buf, MAX_SEED_LINE).unwrap(),
            (0, false)
        );
    }
}

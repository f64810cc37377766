//! nlpc-list: selecting records and printing them for people and programs.

use std::io::Write;
use std::path::PathBuf;

use crate::document::escape::{controls, json_controls};
use crate::error::{Error, Result};
use crate::run::clock::iso8601;
use crate::run::options::Parsed;
use crate::store::archive::{self, Archive};
use crate::store::cache::Cache;
use crate::store::dups::{self, Mark};
use crate::store::record::{Record, State};
use crate::store::select::Selector;
use crate::store::{hex, Key, Read};

/// What nlpc-list is to print.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `-s`, `--auth` and the pattern.
    pub select: Selector,
    /// `-c`: per-state counts instead of records.
    pub counts: bool,
    /// `--json`: JSON lines.
    pub json: bool,
    /// `--history`: the versions of this URL.
    pub history: Option<String>,
    /// `--cluster`: the duplicates cluster of this URL.
    pub cluster: Option<String>,
    /// `--check`: check the whole database instead of listing.
    pub check: bool,
    /// `--backup`: copy the database into this directory instead of listing.
    pub backup: Option<std::path::PathBuf>,
}

impl Config {
    /// nlpc-list's configuration from its options.
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let cfg = Config {
            select: o.selector()?,
            counts: o.flag("c"),
            json: o.flag("json"),
            history: o.text("history"),
            cluster: o.text("cluster"),
            check: o.flag("check"),
            backup: o.path("backup"),
        };
        let s = &cfg.select;
        if cfg.history.is_some()
            && (cfg.counts || s.pattern.is_some() || !s.states.is_empty() || !s.auth.is_empty())
        {
            return Err(Error::Usage(
                "--history takes no other selector and no -c".into(),
            ));
        }
        if cfg.cluster.is_some()
            && (cfg.counts
                || cfg.history.is_some()
                || s.pattern.is_some()
                || !s.states.is_empty()
                || !s.auth.is_empty())
        {
            return Err(Error::Usage(
                "--cluster takes no other selector, no --history and no -c".into(),
            ));
        }
        let selected = cfg.counts
            || cfg.history.is_some()
            || cfg.cluster.is_some()
            || s.pattern.is_some()
            || !s.states.is_empty()
            || !s.auth.is_empty();
        if (cfg.check || cfg.backup.is_some()) && (selected || (cfg.check && cfg.backup.is_some()))
        {
            return Err(Error::Usage(
                "--check and --backup take no other option but the paths".into(),
            ));
        }
        Ok(cfg)
    }
}

/// One version of a page in its history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// False for an archived version, true for the body in the file cache.
    pub current: bool,
    pub version: archive::Version,
    /// Where the body lives.
    pub path: PathBuf,
}

/// The versions of the record under `key`: the archived ones, oldest
/// first, then the current one if a body is stored (a pruned record has
/// none, but keeps its archive).
pub fn history(
    rd: &Read<'_>,
    cache: &Cache,
    arch: &Archive,
    key: &Key,
    rec: &Record,
) -> Result<Vec<HistoryEntry>> {
    let mut out: Vec<HistoryEntry> = archive::versions(rd, key)?
        .into_iter()
        .map(|v| HistoryEntry {
            current: false,
            path: arch.path(key, v.fetched, &v.hash),
            version: v,
        })
        .collect();
    if rec.hash != [0; 32] {
        out.push(HistoryEntry {
            current: true,
            version: archive::Version::of(rec),
            path: cache.path(key),
        });
    }
    Ok(out)
}

/// A history entry as a tab-separated line: fetch time, `current` or
/// `archived`, HTTP status, size, hash, content type, charset, file.
pub fn history_tsv(h: &HistoryEntry) -> String {
    let v = &h.version;
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        iso8601(v.fetched),
        if h.current { "current" } else { "archived" },
        if v.status == 0 {
            "-".to_string()
        } else {
            v.status.to_string()
        },
        v.size,
        hex(&v.hash),
        controls(dash(&v.content_type)),
        controls(dash(&v.charset)),
        controls(&h.path.display().to_string())
    )
}

/// A history entry as a JSON line.
pub fn history_json(url: &str, h: &HistoryEntry) -> String {
    let v = &h.version;
    let j = serde_json::json!({
        "url": url,
        "version": if h.current { "current" } else { "archived" },
        "fetched": iso8601(v.fetched),
        "status": v.status,
        "size": v.size,
        "hash": hex(&v.hash),
        "content_type": v.content_type,
        "charset": v.charset,
        "path": h.path.display().to_string(),
    })
    .to_string();
    json_controls(j)
}

fn dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

/// One tab-separated line: state, URL, address, HTTP status, language,
/// size, created, fetched, modified, expires, reason, then (added after
/// the first eleven, so their places stay) the language's confidence, the
/// charset and how it was decided; control characters (tab and newline
/// among them) escaped in the text fields.
pub fn tsv_line(r: &Record) -> String {
    let status = if r.status == 0 {
        "-".to_string()
    } else {
        r.status.to_string()
    };
    let confidence = if r.language.is_empty() {
        "-".to_string()
    } else {
        format!("{:.3}", f64::from(r.lang_conf) / 1000.0)
    };
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        r.state,
        controls(&r.url),
        controls(dash(&r.addr)),
        status,
        controls(dash(&r.language)),
        r.size,
        iso8601(r.created),
        iso8601(r.fetched),
        iso8601(r.modified),
        iso8601(r.expires),
        controls(dash(&r.reason)),
        confidence,
        controls(dash(&r.charset)),
        r.charset_source.map_or("-", |s| s.name()),
    )
}

/// One JSON object (a line of JSON lines) with every field of the record;
/// DEL and C1 controls escaped like the C0 ones.
pub fn json_line(k: &Key, r: &Record) -> String {
    let v = serde_json::json!({
        "key": k.hex(),
        "state": r.state.name(),
        "url": r.url,
        "leased": r.lease.is_some(),
        "depth": r.depth,
        "addr": r.addr,
        "status": r.status,
        "reason": r.reason,
        "language": r.language,
        "lang_confidence": r.lang_conf as f64 / 1000.0,
        "dict_ratio": r.dict_ratio as f64 / 1000.0,
        "charset": r.charset,
        "charset_source": r.charset_source.map_or("", |s| s.name()),
        "content_type": r.content_type,
        "size": r.size,
        "hash": if r.hash == [0; 32] { String::new() } else { hex(&r.hash) },
        "etag": r.etag,
        "last_modified": r.last_modified,
        "revivals": r.revivals,
        "created": iso8601(r.created),
        "changed": iso8601(r.changed),
        "fetched": iso8601(r.fetched),
        "modified": iso8601(r.modified),
        "expires": iso8601(r.expires),
    });
    json_controls(v.to_string())
}

/// In a node of a cluster, the links in the outbox waiting for
/// nlpc-relay (`nlpc-list -c` shows them under TOTAL); None elsewhere.
pub fn outbox_count(rd: &Read<'_>) -> Result<Option<u64>> {
    match crate::store::outbox::map(rd)? {
        Some(_) => Ok(Some(crate::store::outbox::len(rd)?)),
        None => Ok(None),
    }
}

/// Per-state counts of the selected records, every state listed.
pub fn counts(rd: &Read<'_>, sel: &Selector) -> Result<Vec<(State, u64)>> {
    let wanted = |s: &State| sel.states.is_empty() || sel.states.contains(s);
    if sel.states_only() {
        let mut out = Vec::new();
        for s in State::ALL.iter().filter(|s| wanted(s)) {
            out.push((*s, rd.count(*s, false)? + rd.count(*s, true)?));
        }
        return Ok(out);
    }
    let mut n = [0u64; 256];
    sel.walk(rd, |_, r| {
        n[r.state as usize] += 1;
        Ok(true)
    })?;
    Ok(State::ALL
        .iter()
        .filter(|s| wanted(s))
        .map(|s| (*s, n[*s as usize]))
        .collect())
}

/// Writes a line to standard output; a closed pipe (`| head`) ends the
/// listing quietly by returning Ok(false).
pub fn emit(out: &mut impl Write, line: &str) -> Result<bool> {
    match writeln!(out, "{line}") {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Error::io("standard output", "cannot write", e)),
    }
}

/// What the per-record view says of a duplicate: "exact duplicate of URL"
/// or "near duplicate of URL (distance N)"; None for any other record.
pub fn duplicate_note(rd: &Read<'_>, key: &Key) -> Result<Option<(Mark, String)>> {
    let Some(m) = dups::duplicate_of(rd, key)? else {
        return Ok(None);
    };
    let url = rd.get(&m.first)?.map(|r| r.url).unwrap_or_default();
    let note = match m.kind {
        dups::Kind::Exact => format!("exact duplicate of {url}"),
        dups::Kind::Near => format!("near duplicate of {url} (distance {})", m.distance),
    };
    Ok(Some((m, note)))
}

/// A record's line with its duplicate mark, if it has one: in the TSV the
/// reason column (empty for a verified page) says "... duplicate of URL";
/// the JSON object gains `duplicate` (`exact` or `near`), `duplicate_of`
/// (the first copy's URL) and `distance`.
pub fn record_line(rd: &Read<'_>, k: &Key, r: &Record, json: bool) -> Result<String> {
    let note = duplicate_note(rd, k)?;
    Ok(match (note, json) {
        (None, true) => json_line(k, r),
        (None, false) => tsv_line(r),
        (Some((m, _)), true) => {
            let line = json_line(k, r);
            let mut v: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| Error::Input(format!("{}: {e}", r.url)))?;
            let first = rd.get(&m.first)?.map(|r| r.url).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("duplicate".into(), m.kind.name().into());
                o.insert("duplicate_of".into(), first.into());
                o.insert("distance".into(), m.distance.into());
            }
            json_controls(v.to_string())
        }
        (Some((_, note)), false) => {
            let mut r = r.clone();
            if r.reason.is_empty() {
                r.reason = note;
            }
            tsv_line(&r)
        }
    })
}

/// `--cluster`: the first copy of the text of the record under `key`,
/// then each of its duplicates in the order they were verified, a line
/// each. TSV: role (`first`, `exact`, `near`), distance (`-` for the first
/// copy), state, URL. JSON: `role`, `distance` (null for the first copy),
/// `state`, `url`. Empty when the record is not a verified page.
pub fn cluster_lines(rd: &Read<'_>, key: &Key, json: bool) -> Result<Vec<String>> {
    let Some(c) = dups::cluster(rd, key)? else {
        return Ok(Vec::new());
    };
    let mut rows: Vec<(&str, Option<u32>, Key)> = vec![("first", None, c.first)];
    for (k, m) in &c.members {
        rows.push((m.kind.name(), Some(m.distance), *k));
    }
    let mut out = Vec::new();
    for (role, d, k) in rows {
        let (state, url) = match rd.get(&k)? {
            Some(r) => (r.state.name(), r.url),
            None => ("-", k.hex()),
        };
        out.push(if json {
            json_controls(
                serde_json::json!({"role": role, "distance": d, "state": state, "url": url})
                    .to_string(),
            )
        } else {
            let d = d.map_or("-".to_string(), |d| d.to_string());
            format!("{role}\t{d}\t{state}\t{}", controls(&url))
        });
    }
    Ok(out)
}

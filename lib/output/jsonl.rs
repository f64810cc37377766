//! JSON Lines: one JSON object a line per version of a page, with its
//! metadata and main text (`nlpc-dump --jsonl`; keys in nlpc-dump(1)).

use std::path::Path;

use serde_json::{json, Value};

use crate::document::escape::json_controls;
use crate::error::Result;
use crate::output::corpus::Document;
use crate::output::file::Dest;
use crate::run::clock;

/// What separates the blocks (paragraphs, headings, list items) in `text`.
pub const BLOCK_SEPARATOR: &str = "\n\n";

/// RFC 3339 UTC, or null for an unknown time.
fn time(t: u64) -> Value {
    if t == 0 {
        Value::Null
    } else {
        Value::String(clock::iso8601(t))
    }
}

fn opt(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        Value::String(s.to_string())
    }
}

/// The JSON object of one document.
pub fn object(d: &Document) -> Value {
    // Three decimals, as the record keeps them: f64 thousandths would
    // print 0.9570000000000001.
    let thousandths = |x: f64| (x * 1000.0).round() / 1000.0;
    json!({
        "url": d.url,
        "final_url": d.final_url,
        "redirects": d.redirects,
        "fetched": time(d.fetched),
        "title": opt(&d.title),
        "lang": opt(&d.lang),
        "lang_conf": d.lang_conf.map(thousandths),
        "langs": d
            .langs
            .iter()
            .map(|(l, share)| json!({"lang": l, "share": thousandths(*share)}))
            .collect::<Vec<_>>(),
        "block_langs": d.block_langs,
        "charset": d.charset,
        "charset_source": d.charset_source,
        "dict_ratio": thousandths(d.dict_ratio),
        "duplicate_of": d.duplicate_of,
        "hash": d.hash,
        "version": if d.current { "current" } else { "archived" },
        "text": d.text(BLOCK_SEPARATOR),
    })
}

/// The JSON Lines side of a dump.
pub struct Jsonl {
    dest: Dest,
}

impl Jsonl {
    pub fn open(path: &Path) -> Result<Jsonl> {
        Ok(Jsonl {
            dest: Dest::open(path)?,
        })
    }

    pub fn document(&mut self, d: &Document) -> Result<()> {
        // serde_json escapes the C0 controls; DEL and the C1 controls,
        // which JSON allows raw, are escaped too so that no line holds a
        // terminal escape.
        let mut line = json_controls(object(d).to_string());
        line.push('\n');
        self.dest.write_all(line.as_bytes())
    }

    pub fn finish(self) -> Result<()> {
        self.dest.finish()
    }

    pub fn abandon(&self) {
        self.dest.abandon()
    }
}

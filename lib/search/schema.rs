//! The index's fields, and opening (or creating) the index with the
//! tokenizers registered.

use std::path::Path;

use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, Schema, TextFieldIndexing,
    TextOptions, STORED, STRING,
};
use tantivy::Index;

use crate::error::{Error, Result};
use crate::search::words::{Words, EXACT, FOLDED};

/// The fields of one page's document.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// The record key in hex: the document's identity, for delete-then-add.
    pub key: Field,
    pub url: Field,
    /// Lower-case host, for `host:`.
    pub host: Field,
    /// ISO 639-1 code as nlpc-vrfy recorded it, for `lang:`.
    pub lang: Field,
    /// The fetch time, for `date:`.
    pub date: Field,
    pub title: Field,
    /// The main text, stored for snippets and concordances.
    pub text: Field,
    /// Title and text again, folded (not stored), for `--fold`.
    pub title_fold: Field,
    pub text_fold: Field,
}

fn text_opts(tokenizer: &str, stored: bool) -> TextOptions {
    let o = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    if stored {
        o.set_stored()
    } else {
        o
    }
}

/// The schema and its fields.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED),
        url: b.add_text_field("url", STRING | STORED),
        host: b.add_text_field("host", STRING | STORED),
        lang: b.add_text_field("lang", STRING | STORED),
        date: b.add_date_field(
            "date",
            DateOptions::default()
                .set_indexed()
                .set_stored()
                .set_fast()
                .set_precision(DateTimePrecision::Seconds),
        ),
        title: b.add_text_field("title", text_opts(EXACT, true)),
        text: b.add_text_field("text", text_opts(EXACT, true)),
        title_fold: b.add_text_field("title_fold", text_opts(FOLDED, false)),
        text_fold: b.add_text_field("text_fold", text_opts(FOLDED, false)),
    };
    (b.build(), f)
}

/// A tantivy failure as the library's error.
pub fn index_error(path: &Path, what: &'static str, e: impl std::fmt::Display) -> Error {
    Error::Index {
        path: path.to_path_buf(),
        what,
        why: e.to_string(),
    }
}

/// Opens the index at `path`; with `create`, makes it where there is none.
pub fn open(path: &Path, create: bool) -> Result<(Index, Fields)> {
    let (schema, f) = schema();
    let exists = path.join("meta.json").exists();
    let index = if exists {
        let dir = tantivy::directory::MmapDirectory::open(path)
            .map_err(|e| index_error(path, "cannot open", e))?;
        let index = Index::open(dir).map_err(|e| index_error(path, "cannot open", e))?;
        if index.schema() != schema {
            return Err(index_error(
                path,
                "made by another version",
                "remove it and run nlpc-index again",
            ));
        }
        index
    } else if create {
        std::fs::create_dir_all(path).map_err(|e| Error::io(path, "cannot create", e))?;
        let dir = tantivy::directory::MmapDirectory::open(path)
            .map_err(|e| index_error(path, "cannot open", e))?;
        Index::create(dir, schema, tantivy::IndexSettings::default())
            .map_err(|e| index_error(path, "cannot create", e))?
    } else {
        return Err(index_error(
            path,
            "no index here",
            "run nlpc-index first (or give --index)",
        ));
    };
    let t = index.tokenizers();
    t.register(EXACT, Words { fold: false });
    t.register(FOLDED, Words { fold: true });
    Ok((index, f))
}

//! One version of a page as the corpus formats see it: decoded as nlpc-vrfy
//! decoded it, its main text in blocks, and what the record knows of it.
//! The text tree, JSON Lines, vertical text and WET all start from here,
//! so they hold the same text.

use std::borrow::Cow;

use crate::document::charset::{self, Kind};
use crate::document::extract::{self, Block};
use crate::document::lang;
use crate::error::Result;
use crate::store::archive::Version;
use crate::store::dups;
use crate::store::record::Record;
use crate::store::{Key, Read};

/// A page's text and what is known of it.
#[derive(Clone, Debug)]
pub struct Document {
    /// The record's URL.
    pub url: String,
    /// The URL the text came from. A redirect's target is a record of its
    /// own, so this is the record's URL too; see [`Document::redirects`].
    pub final_url: String,
    /// Redirects followed to reach `final_url` from the URL first found.
    pub redirects: u8,
    /// When this version was fetched (Unix seconds; 0 unknown).
    pub fetched: u64,
    /// The `<title>`, white space collapsed; empty when none.
    pub title: String,
    /// nlpc-vrfy's language code; empty when none was detected.
    pub lang: String,
    /// Its confidence, 0 to 1; None with no language.
    pub lang_conf: Option<f64>,
    /// The charset the text was decoded from (its WHATWG name, as the
    /// record and index.tsv write it).
    pub charset: String,
    /// How nlpc-vrfy decided it: known for the current version of a
    /// verified record only.
    pub charset_source: Option<&'static str>,
    /// Share of the words found in the dictionary, 0 to 1.
    pub dict_ratio: f64,
    /// The URL of the page this one duplicates, if any.
    pub duplicate_of: Option<String>,
    /// The stored body's BLAKE3 hash, hex.
    pub hash: String,
    /// Whether this is the version the record describes (else archived).
    pub current: bool,
    /// The main text; empty for a page with none, which the corpus
    /// formats leave out.
    pub blocks: Vec<Block>,
    /// The language of each block, in the order of `blocks`; None where
    /// a block is too short or unclear to tell (`lang::of_blocks`).
    pub block_langs: Vec<Option<&'static str>>,
    /// The share (0 to 1) of the main text's letters in each language,
    /// largest first; None for the letters of blocks of no language.
    pub langs: Vec<(Option<&'static str>, f64)>,
}

impl Document {
    /// Leaves out the blocks in a language other than the document's
    /// (`nlpc-dump --lang-paragraphs`): those whose language is known and
    /// is not `lang`, the document's. Returns how many were left out.
    pub fn keep_language(&mut self) -> usize {
        let own = self.lang.as_str();
        if own.is_empty() || self.block_langs.len() != self.blocks.len() {
            return 0;
        }
        let before = self.blocks.len();
        let mut langs = self.block_langs.iter();
        self.blocks
            .retain(|_| langs.next().is_some_and(|l| l.is_none_or(|l| l == own)));
        self.block_langs.retain(|l| l.is_none_or(|l| l == own));
        before - self.blocks.len()
    }

    /// The blocks joined with `sep` (and nothing after the last).
    pub fn text(&self, sep: &str) -> String {
        let mut s = String::new();
        for (i, b) in self.blocks.iter().enumerate() {
            if i > 0 {
                s.push_str(sep);
            }
            s.push_str(&b.text);
        }
        s
    }
}

/// The URL of the first copy of the page under `key`, which the page
/// duplicates (exactly or nearly, `store::dups`); None when it is the
/// first or only copy of its text.
pub fn duplicate_of(rd: &Read<'_>, key: &Key) -> Result<Option<String>> {
    let Some(m) = dups::duplicate_of(rd, key)? else {
        return Ok(None);
    };
    Ok(rd.get(&m.first)?.map(|r| r.url))
}

/// The title and main text of a decoded body. A page with no main text (a
/// menu, a form, a calendar, a page of links) has no blocks: its visible
/// text is what the main text leaves out, and the corpus is the better
/// without it.
pub fn blocks_of(doc: &str, kind: Kind) -> (String, Vec<Block>) {
    let main = extract::main_text(doc, kind);
    (main.title, main.blocks)
}

/// The decoded body of a version: the charset found and the text. None
/// when the version is not a text document.
pub fn decode<'a>(
    rec: &Record,
    v: &Version,
    body: &'a [u8],
) -> Option<(Kind, charset::Detected, Cow<'a, str>)> {
    let kind = Kind::of(&v.content_type)?;
    // Decoded as nlpc-vrfy decoded it: the charset it found is the
    // record's, which detection takes as given (after a byte order mark,
    // which nlpc-vrfy honoured first too). A version never verified is
    // sniffed as nlpc-vrfy would without --use-charset.
    let hints = charset::Hints {
        user: None,
        tld: Some(rec.host()),
    };
    let det = charset::detect(body, &v.charset, kind, &hints);
    let doc = charset::decode(body, &det);
    Some((kind, det, doc))
}

/// The document of one version; None when it is not a text document.
pub fn document(
    rec: &Record,
    v: &Version,
    current: bool,
    body: &[u8],
    duplicate_of: Option<String>,
) -> Option<Document> {
    let (kind, det, doc) = decode(rec, v, body)?;
    let (title, blocks) = blocks_of(&doc, kind);
    let judged = lang::of_blocks(
        blocks.iter().map(|b| b.text.as_str()),
        lang::DEFAULT_SAMPLE,
        lang::judge::MAX_BLOCKS,
    );
    Some(Document {
        url: rec.url.clone(),
        final_url: rec.url.clone(),
        redirects: rec.redirects,
        fetched: v.fetched,
        title,
        lang: rec.language.clone(),
        lang_conf: (!rec.language.is_empty()).then(|| f64::from(rec.lang_conf) / 1000.0),
        charset: det.encoding.name().to_string(),
        charset_source: match rec.charset_source {
            Some(s) if current => Some(s.name()),
            _ => None,
        },
        dict_ratio: f64::from(rec.dict_ratio) / 1000.0,
        duplicate_of,
        hash: crate::store::hex(&v.hash),
        current,
        blocks,
        block_langs: judged.blocks.iter().map(|l| l.map(|l| l.code())).collect(),
        langs: judged
            .shares
            .iter()
            .map(|(l, s)| (l.map(|l| l.code()), *s))
            .collect(),
    })
}

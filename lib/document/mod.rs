//! The document: what a fetched body says, read without the network or the
//! database. Charsets and decoding, the HTML tokenizer, visible text,
//! language identification and the dictionary. Uses nothing else of the
//! library but `error`.

pub mod charset;
pub mod dict;
pub mod extract;
pub mod lang;
pub mod markup;
pub mod text;
pub mod words;

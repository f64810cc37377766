//! The document: what a fetched body says, read without the network or the
//! database. Charsets and decoding, the HTML tokenizer, visible text, main
//! text, its fingerprints (for duplicates), language identification, the
//! dictionary, words (one split for every use) and the tokens and
//! sentences of Latvian text, and control characters escaped for output.
//! Uses nothing else of the library but `error`.

pub mod charset;
pub mod dict;
mod entities;
pub mod escape;
pub mod extract;
pub mod fingerprint;
pub mod lang;
pub(crate) mod letters;
pub(crate) mod lower;
pub mod markup;
mod swar;
pub mod text;
pub mod tokens;
pub mod words;
#[cfg(test)]
pub(crate) mod xorshift;

//! Search over the corpus: nlpc-index keeps a tantivy word index of every
//! verified page's main text up to date by following the store's change
//! log; nlpc-search queries it (ranked results, concordances, frequency
//! lists) and serves a search page. Uses `stage`'s neighbours below it
//! (`store`, `run`, `document`); only `launch` uses it.

pub mod cli;
pub mod index;
pub mod kwic;
pub mod query;
pub mod schema;
pub mod serve;
pub mod words;

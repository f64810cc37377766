//! What leaves the database for people and programs: `list` (records,
//! counts, history), `dump` (the corpus as text files and WARC) and the
//! WARC writer. Read-only; uses the stages' filters and everything below.

pub mod dump;
pub mod hosts;
pub mod list;
pub mod warc;

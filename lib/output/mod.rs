//! What leaves the database for people and programs: `list` (records,
//! counts, history), `dump` (the corpus as text files and WARC), the
//! WARC writer and `stat` (the statistics history as tables and charts).
//! Read-only; uses the stages' filters and everything below.

pub mod dump;
pub mod list;
pub mod stat;
pub mod warc;

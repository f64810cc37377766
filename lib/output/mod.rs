//! What leaves the database for people and programs: `list` (records,
//! counts, history), `dump` (the corpus as text files and WARC), the
//! paragraphs a dump has written (`paragraphs`) and the WARC writer. Read-only; uses the stages' filters and everything below.

pub mod dump;
pub mod list;
pub mod paragraphs;
pub mod warc;

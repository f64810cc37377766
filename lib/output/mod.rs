//! What leaves the database for people and programs: `list` (records,
//! counts, history), `dump` (the corpus as text files and WARC, and in the
//! corpus formats: `jsonl`, `vert`, `wet`, each from a `corpus` document)
//! the paragraphs a dump has written (`paragraphs`), the WARC writer and
//! `stat` (the statistics history as tables and charts).
//! Read-only but for the export cursors
//! (`incremental`); uses `run`, `store`, `web` and `document`, not `stage`.

pub mod corpus;
pub mod dump;
pub mod file;
pub mod formats;
pub mod hosts;
pub mod incremental;
pub mod jsonl;
pub mod list;
pub mod paragraphs;
pub mod stat;
pub mod vert;
pub mod warc;
pub mod wet;

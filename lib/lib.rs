//! nlpcrawl: a suite of small cooperating daemons that crawl the web for
//! pages in one language, keep them fresh and archive every changed version.
//!
//! The executables in `bin/` parse options and call into this library, which
//! holds all the logic. Its folders are layered by role; a folder may use
//! the folders below it and never one above:
//!
//! | folder      | role                                                        |
//! |-------------|-------------------------------------------------------------|
//! | `launch`    | nlpcd: seeding, starting and tending the daemons, the monitor |
//! | `search`    | the word index (nlpc-index) and its queries (nlpc-search) |
//! | `output`    | what leaves the database: listings, text and WARC exports   |
//! | `cluster`   | several machines: nlpc-relay over NATS JetStream            |
//! | `stage`     | one module per daemon: each moves records between states    |
//! | `run`       | what every daemon shares: options, the work loop, logs, time |
//! | `store`     | the LMDB database, the record format, the files beside it   |
//! | `web`       | URLs, HTTP, robots.txt, politeness, links                   |
//! | `document`  | charsets, markup, visible text, language, dictionaries      |
//!
//! `error` holds the one error type and `stored` the macro for enums stored
//! as bytes; both sit below them all.

pub mod cluster;
pub mod document;
pub mod error;
pub mod launch;
pub mod output;
pub mod run;
pub mod search;
pub mod stage;
pub mod store;
pub mod stored;
pub mod web;

pub use error::{Error, Result};

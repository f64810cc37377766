//! The store: the one LMDB environment every daemon shares, the record
//! format and its states, and the files beside the database: the file cache
//! of current bodies, the archive of earlier versions, the robots.txt
//! cache, and the wake-up sockets (`wake`). Uses `web` (URL forms,
//! robots.txt) and `document`.
//!
//! Every LMDB call of the project is in this folder, in `db`, `index`,
//! `txn`, `due`, `ready`, `changes`, `maint`, `shape` and `guard`
//! (tests/lmdb_calls.rs holds this list to the code); `check` reads
//! data.mdb's pages itself, before LMDB maps them.

pub mod archive;
pub mod cache;
pub mod changes;
mod check;
pub mod cursor;
mod db;
mod due;
pub mod dups;
mod guard;
pub mod harvest;
mod index;
mod maint;
pub mod outbox;
mod ready;
pub mod record;
pub mod rep;
pub mod sched;
pub mod scope;
pub mod select;
pub mod series;
mod shape;
pub mod textcache;
pub mod tunnel;
mod txn;
pub mod wake;

pub use db::*;
pub use maint::CheckReport;
pub use ready::{ReadyPlace, Step};
pub use shape::{Shape, Tree};

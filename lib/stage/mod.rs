//! The stages: one module per daemon, each moving records from its input
//! states to the next ones.
//!
//! | stage     | takes              | gives                                           |
//! |-----------|--------------------|-------------------------------------------------|
//! | `scan`    | seeds, VERIFIED    | NEW records; VERIFIED → SCANNED                  |
//! | `resolve` | NEW                | READY, UNREACH                                  |
//! | `fetch`   | READY, DIRTY       | FRESH, REJECTED, EXCLUDED, REDIRECT, UNREACH     |
//! | `vrfy`    | FRESH              | VERIFIED, REJECTED                              |
//! | `up`      | SCANNED, UNREACH, DEAD | DIRTY, DEAD, GONE                            |
//!
//! Uses `run` and everything below it.

pub mod fetch;
pub mod resolve;
pub mod scan;
pub mod up;
pub mod vrfy;

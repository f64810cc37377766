//! nlpcrawl: a suite of small cooperating daemons that crawl the web for
//! pages in one language, keep them fresh and archive every changed version.
//!
//! The executables in `bin/` parse options and call into this library, which
//! holds all the logic, one module per concept.

pub mod archive;
pub mod cache;
pub mod charset;
pub mod clock;
pub mod daemon;
pub mod dict;
pub mod dump;
pub mod error;
pub mod fetch;
pub mod http;
pub mod lang;
pub mod links;
pub mod list;
pub mod log;
pub mod markup;
pub mod monitor;
pub mod options;
pub mod politeness;
pub mod record;
pub mod resolve;
pub mod robots;
pub mod scan;
pub mod store;
pub mod supervisor;
pub mod text;
pub mod up;
pub mod url;
pub mod vrfy;
pub mod warc;

pub use error::{Error, Result};

//! The stages: a module for each of the five crawling daemons, each moving
//! records from its input states to the next ones, and `tunnel`, nlpc-scan's
//! following of rejected pages' links (`--filter-tunnel`).
//!
//! | stage     | takes                                        | gives                                       |
//! |-----------|----------------------------------------------|---------------------------------------------|
//! | `scan`    | seeds, VERIFIED                              | NEW records; VERIFIED → SCANNED             |
//! | `resolve` | NEW                                          | READY, UNREACH                              |
//! | `fetch`   | READY, DIRTY                                 | FRESH, REJECTED, EXCLUDED, REDIRECT, UNREACH |
//! | `vrfy`    | FRESH                                        | VERIFIED, REJECTED                          |
//! | `up`      | SCANNED, REJECTED, EXCLUDED, REDIRECT, UNREACH, DEAD; any with `--force-*` | DIRTY, NEW, DEAD, GONE |
//!
//! Any stage sets a record it fails on aside as QUARANTINED. This file
//! holds what the stages share: the URL admission filter and the JSON of
//! the figures a daemon publishes for nlpcd's monitor. Uses `run` and
//! everything below it.

pub mod fetch;
pub mod resolve;
pub mod scan;
pub mod tunnel;
pub mod up;
pub mod vrfy;

use crate::error::Result;
use crate::run::options::Parsed;
use crate::web::admit::Filter;

/// A daemon's figures as the JSON object it publishes in `Table::Stats`
/// for nlpcd's monitor. Numbers, strings and string-keyed maps always
/// serialise; the fallback only keeps unwrap out.
pub fn figures_to_json<T: serde::Serialize>(figures: &T) -> String {
    serde_json::to_string(figures).unwrap_or_else(|_| "{}".into())
}

/// Figures read back from `Table::Stats`; None unless `v` is a JSON
/// object of them (serde alone would also take an array as the fields in
/// order).
pub fn figures_from_json<T: serde::de::DeserializeOwned>(v: &[u8]) -> Option<T> {
    match serde_json::from_slice(v).ok()? {
        o @ serde_json::Value::Object(_) => T::deserialize(o).ok(),
        _ => None,
    }
}

/// The URL admission filter of nlpc-scan's links and seeds and nlpc-fetch's
/// redirects: `--filter-scheme`, `--filter-auth`, the `--max-*` guards and
/// the scope options.
pub fn admission(o: &Parsed) -> Result<Filter> {
    Ok(Filter {
        schemes: o.schemes("filter-scheme")?,
        auth: o.hosts("filter-auth")?,
        max_len: o.int("max-url-length")?,
        max_depth: o.int("max-path-depth")?,
        max_repeat: o.int("max-repeat")?,
        allow_private: o.flag("allow-private"),
        deny: o.denies("filter-deny")?,
        include: o.patterns("filter-include")?,
        exclude: o.patterns("filter-exclude")?,
        // Only nlpc-scan makes links; a redirect keeps its source's depth.
        link_depth: match o.program {
            crate::run::options::Program::Scan | crate::run::options::Program::Nlpcd => {
                o.int_opt("filter-depth")?
            }
            _ => None,
        },
        quota: o.int("filter-quota")?,
        query_variants: o.int("filter-query-variants")?,
        page_links: match o.program {
            crate::run::options::Program::Scan | crate::run::options::Program::Nlpcd => {
                o.int("filter-page-links")?
            }
            _ => crate::web::admit::DEFAULT_PAGE_LINKS,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::options::{Parser, Program};

    #[test]
    fn the_filter_by_default_is_the_tables_defaults() {
        for p in [Program::Scan, Program::Fetch] {
            let f = admission(&Parser::new(p).parse(["-p", "/x/db"]).unwrap()).unwrap();
            let d = Filter::default();
            assert_eq!(
                (f.max_len, f.max_depth, f.max_repeat, f.quota),
                (d.max_len, d.max_depth, d.max_repeat, d.quota),
                "{p:?}"
            );
            assert_eq!(f.query_variants, d.query_variants, "{p:?}");
            assert_eq!(f.page_links, d.page_links, "{p:?}");
        }
        let f = admission(
            &Parser::new(Program::Scan)
                .parse(["--filter-page-links", "0", "--filter-query-variants", "7"])
                .unwrap(),
        )
        .unwrap();
        assert_eq!((f.page_links, f.query_variants), (0, 7));
    }
}

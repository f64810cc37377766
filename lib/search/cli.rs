//! nlpc-search's command line: one query, answered on standard output as
//! ranked results, a concordance or a frequency list, in text or JSON
//! lines; or the search page (`--serve`).

use std::io::Write;
use std::net::SocketAddr;

use crate::document::escape::{controls, json_controls};
use crate::error::{Error, Result};
use crate::run::options::Parsed;
use crate::search::index;
use crate::search::kwic::{self, Corpus, FreqOf, Sort};
use crate::search::serve;

/// What nlpc-search was asked.
#[derive(Clone, Debug)]
pub struct Config {
    pub index: std::path::PathBuf,
    pub query: Option<String>,
    pub json: bool,
    pub kwic: bool,
    pub freq: Option<FreqOf>,
    pub width: usize,
    pub sort: Sort,
    pub fold: bool,
    pub limit: usize,
    pub serve: Option<SocketAddr>,
    pub workers: usize,
    pub budget: std::time::Duration,
    pub connections: usize,
}

impl Config {
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let q = o.free().join(" ");
        let freq = o
            .text("freq")
            .filter(|s| !s.is_empty())
            .map(|s| FreqOf::parse(&s))
            .transpose()?;
        let serve = match o.text("serve").filter(|s| !s.is_empty()) {
            None => None,
            // A port alone is on the loopback address: exposing the page
            // is a choice made by naming an address.
            Some(s) => Some(match s.trim().parse::<u16>() {
                Ok(port) => SocketAddr::from(([127, 0, 0, 1], port)),
                Err(_) => s.parse::<SocketAddr>().map_err(|_| {
                    Error::Usage(format!(
                        "--serve: {s:?}: give a port (on 127.0.0.1) or an address and port, as 127.0.0.1:8470"
                    ))
                })?,
            }),
        };
        let cfg = Config {
            index: index::Config::path_of(o),
            query: (!q.trim().is_empty()).then_some(q),
            json: o.flag("json"),
            kwic: o.flag("kwic"),
            freq,
            width: o.int("context")?,
            sort: Sort::parse(&o.text("sort").unwrap_or_default())?,
            fold: o.flag("fold"),
            limit: o.int("limit")?,
            serve,
            workers: o.int("serve-workers")?,
            budget: o.duration("serve-budget")?,
            connections: o.int("serve-connections")?,
        };
        if cfg.kwic && cfg.freq.is_some() {
            return Err(Error::Usage("--kwic and --freq: choose one".into()));
        }
        if cfg.serve.is_none() && cfg.query.is_none() && cfg.freq != Some(FreqOf::Words) {
            return Err(Error::Usage(
                "give a query (or --freq words, or --serve)".into(),
            ));
        }
        Ok(cfg)
    }
}

fn json_line(v: serde_json::Value) -> String {
    json_controls(v.to_string())
}

/// Runs the command line's query, writing to `out`.
pub fn run(cfg: &Config, out: &mut impl Write) -> Result<()> {
    let corpus = Corpus::open(&cfg.index)?;
    if let Some(addr) = cfg.serve {
        let page = serve::Config {
            width: cfg.width,
            limit: cfg.limit,
            workers: cfg.workers,
            budget: cfg.budget,
            connections: cfg.connections,
        };
        return serve::serve(corpus, addr, &page);
    }
    let w = |out: &mut dyn Write, s: &str| {
        out.write_all(s.as_bytes())
            .map_err(|e| Error::io("standard output", "cannot write", e))
    };
    if let Some(of) = cfg.freq {
        for r in corpus.freq(cfg.query.as_deref(), cfg.fold, of, cfg.limit)? {
            let line = if cfg.json {
                json_line(serde_json::json!({"word": r.word, "count": r.count, "docs": r.docs}))
            } else {
                format!("{}\t{}\t{}", r.count, r.docs, controls(&r.word))
            };
            w(out, &(line + "\n"))?;
        }
        return Ok(());
    }
    let q = cfg.query.as_deref().unwrap_or_default();
    if cfg.kwic {
        let lines = corpus.kwic(q, cfg.fold, cfg.width, cfg.sort, cfg.limit)?;
        if cfg.json {
            for l in &lines {
                let v = serde_json::json!({"url": l.url, "left": l.left, "hit": l.hit, "right": l.right});
                w(out, &(json_line(v) + "\n"))?;
            }
        } else {
            w(out, &kwic::kwic_text(&lines, cfg.width))?;
        }
        return Ok(());
    }
    for (i, h) in corpus.results(q, cfg.fold, cfg.limit)?.iter().enumerate() {
        let p = &h.page;
        let line = if cfg.json {
            json_line(serde_json::json!({
                "rank": i + 1,
                "score": h.score,
                "url": p.url,
                "title": p.title,
                "host": p.host,
                "lang": p.lang,
                "fetched": kwic::date_text(p.date),
                "snippet": h.snippet,
            }))
        } else {
            format!(
                "{}\t{}\t{}",
                controls(&p.url),
                controls(&p.title),
                controls(&h.snippet)
            )
        };
        w(out, &(line + "\n"))?;
    }
    Ok(())
}

//! `nlpc-search --serve`: a search page. One HTML form (GET, so a query is
//! a link and no JavaScript is needed), results and concordance pages,
//! UTF-8 throughout, everything that came from pages HTML-escaped. Served
//! by tiny_http, one request at a time: the page is for a person or two
//! looking at the corpus, not for the public.

use std::fmt::Write as _;
use std::net::SocketAddr;

use crate::error::{Error, Result};
use crate::info;
use crate::search::kwic::{self, Corpus, FreqOf, Sort};

/// What the command line sets for the page's answers.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// `--context`: concordance context.
    pub width: usize,
    /// `--limit`: results, lines or words shown (0: all).
    pub limit: usize,
}

/// `s` safe inside HTML text and attribute values.
pub fn html(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if crate::document::escape::is_control(c) => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// The request's form fields.
#[derive(Clone, Debug, Default)]
pub struct Form {
    pub q: String,
    /// results, kwic, words, left or right.
    pub mode: String,
    pub fold: bool,
    pub sort: String,
}

impl Form {
    /// The form of a request URL's query string.
    pub fn of(url: &str) -> Form {
        let mut f = Form::default();
        let qs = url.split_once('?').map_or("", |(_, q)| q);
        for (k, v) in url::form_urlencoded::parse(qs.as_bytes()) {
            match k.as_ref() {
                "q" => f.q = v.chars().take(crate::search::query::MAX_QUERY).collect(),
                "mode" => f.mode = v.into_owned(),
                "fold" => f.fold = !v.is_empty(),
                "sort" => f.sort = v.into_owned(),
                _ => {}
            }
        }
        f
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:1em 2em}\
table.kwic{border-collapse:collapse;font-family:monospace}\
table.kwic td{padding:0 .4em;white-space:nowrap}\
td.left{text-align:right}td.hit{font-weight:bold;color:#a00}\
.url{color:#060;font-size:90%}li{margin-bottom:.8em}\
table.freq td{padding:0 .6em}";

fn select(name: &str, cur: &str, opts: &[(&str, &str)]) -> String {
    let mut s = format!("<select name=\"{name}\">");
    for (v, label) in opts {
        let sel = if *v == cur { " selected" } else { "" };
        let _ = write!(s, "<option value=\"{v}\"{sel}>{label}</option>");
    }
    s + "</select>"
}

fn form_html(f: &Form) -> String {
    format!(
        "<form action=\"/search\" method=\"get\">\
<input type=\"text\" name=\"q\" size=\"50\" value=\"{}\" autofocus> \
{} {} <label><input type=\"checkbox\" name=\"fold\" value=\"1\"{}> without diacritics</label> \
<input type=\"submit\" value=\"Search\"></form>",
        html(&f.q),
        select(
            "mode",
            &f.mode,
            &[
                ("results", "results"),
                ("kwic", "concordance"),
                ("words", "word frequencies"),
                ("left", "left neighbours"),
                ("right", "right neighbours"),
            ]
        ),
        select(
            "sort",
            &f.sort,
            &[
                ("", "by rank"),
                ("left", "by left context"),
                ("right", "by right context")
            ]
        ),
        if f.fold { " checked" } else { "" }
    )
}

/// The page for one request.
pub fn page(corpus: &Corpus, f: &Form, cfg: &Config) -> String {
    let mut body = String::new();
    if !f.q.trim().is_empty() {
        match answer(corpus, f, cfg) {
            Ok(s) => body = s,
            Err(e) => body = format!("<p class=\"error\">{}</p>", html(&e.to_string())),
        }
    }
    format!(
        "<!DOCTYPE html><html lang=\"lv\"><head><meta charset=\"utf-8\">\
<title>nlpcrawl search{}</title><style>{STYLE}</style></head><body>\
<h1>nlpcrawl search</h1>{}<p>{} pages indexed.</p>{body}</body></html>\n",
        if f.q.is_empty() {
            String::new()
        } else {
            format!(": {}", html(&f.q))
        },
        form_html(f),
        corpus.num_docs()
    )
}

fn answer(corpus: &Corpus, f: &Form, cfg: &Config) -> Result<String> {
    let mut s = String::new();
    match f.mode.as_str() {
        "kwic" => {
            let lines = corpus.kwic(&f.q, f.fold, cfg.width, Sort::parse(&f.sort)?, cfg.limit)?;
            let _ = write!(s, "<p>{} lines.</p><table class=\"kwic\">", lines.len());
            for l in lines {
                let _ = write!(
                    s,
                    "<tr><td class=\"left\">{}</td><td class=\"hit\"><a href=\"{}\">{}</a></td><td class=\"right\">{}</td></tr>",
                    html(&l.left),
                    html(&l.url),
                    html(&l.hit),
                    html(&l.right)
                );
            }
            s.push_str("</table>");
        }
        m @ ("words" | "left" | "right") => {
            let rows = corpus.freq(Some(&f.q), f.fold, FreqOf::parse(m)?, cfg.limit)?;
            s.push_str("<table class=\"freq\"><tr><th>word</th><th>count</th><th>pages</th></tr>");
            for r in rows {
                let _ = write!(
                    s,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    html(&r.word),
                    r.count,
                    r.docs
                );
            }
            s.push_str("</table>");
        }
        _ => {
            let hits = corpus.results(&f.q, f.fold, cfg.limit)?;
            let _ = write!(s, "<ol class=\"results\">");
            for h in hits {
                let p = &h.page;
                let title = if p.title.is_empty() { &p.url } else { &p.title };
                let _ = write!(
                    s,
                    "<li><a href=\"{}\">{}</a><br><span class=\"url\">{} · {} · {}</span><br>{}</li>",
                    html(&p.url),
                    html(title),
                    html(&p.url),
                    html(&p.lang),
                    kwic::date_text(p.date),
                    html(&h.snippet)
                );
            }
            s.push_str("</ol>");
        }
    }
    Ok(s)
}

/// Serves the search page at `addr` until the process is stopped.
pub fn serve(corpus: &Corpus, addr: SocketAddr, cfg: &Config) -> Result<()> {
    let server = tiny_http::Server::http(addr)
        .map_err(|e| Error::Usage(format!("--serve {addr}: cannot listen: {e}")))?;
    let at = server
        .server_addr()
        .to_ip()
        .map_or_else(|| addr.to_string(), |a| a.to_string());
    info!("serving the search page at http://{at}/");
    loop {
        let req = match server.recv() {
            Ok(r) => r,
            Err(e) => return Err(Error::io("search page", "cannot accept", e)),
        };
        let url = req.url().to_string();
        let path = url.split('?').next().unwrap_or("");
        let (code, text) = if path == "/" || path == "/search" {
            // Each request sees the index's latest commit.
            corpus.reload()?;
            (200, page(corpus, &Form::of(&url), cfg))
        } else {
            (
                404,
                "<!DOCTYPE html><title>not found</title><p>Not found.</p>\n".to_string(),
            )
        };
        let ctype =
            tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..])
                .map_err(|_| Error::Usage("content type header".into()))?;
        let resp = tiny_http::Response::from_string(text)
            .with_status_code(code)
            .with_header(ctype);
        // A client that went away is its own business.
        let _ = req.respond(resp);
    }
}

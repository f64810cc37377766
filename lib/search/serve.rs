//! `nlpc-search --serve`: a search page. One HTML form (GET, so a query is
//! a link and no JavaScript is needed), results and concordance pages,
//! UTF-8 throughout, everything that came from pages HTML-escaped.
//!
//! No request can exhaust it. hyper's HTTP/1 parser bounds a request's
//! head ([`MAX_HEAD`] bytes, [`MAX_HEADERS`] headers) and the time to send
//! it ([`HEAD_TIME`]); a connection lives at most [`CONNECTION_TIME`], and
//! at most `--serve-connections` are open (one more is closed at once).
//! Queries run on a pool of `--serve-workers` threads; one that finds no
//! worker within [`QUEUE_TIME`] is told the page is busy. Each answer is
//! bounded ([`Bounds`]): at most [`MAX_ROWS`] rows shown with a link to
//! the next, concordances sorted among at most [`MAX_LINES`] lines,
//! frequency lists counted in at most [`SAMPLE`] pages, everything within
//! `--serve-budget`, and the page says what it did not cover. An index
//! that cannot be reloaded is logged and the last one read is served.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use tokio::sync::Semaphore;

use crate::error::{Error, Result};
use crate::info;
use crate::search::kwic::{self, Bounds, Corpus, Cover, FreqOf, Sort};

/// The most bytes of a request's line and headers.
pub const MAX_HEAD: usize = 16 * 1024;
/// The most headers of a request.
pub const MAX_HEADERS: usize = 64;
/// The longest a client may take to send a request's head.
pub const HEAD_TIME: Duration = Duration::from_secs(5);
/// The longest a connection stays open, requests and all.
pub const CONNECTION_TIME: Duration = Duration::from_secs(60);
/// The longest a query waits for a worker.
pub const QUEUE_TIME: Duration = Duration::from_secs(1);
/// The most results, lines or words one page shows.
pub const MAX_ROWS: usize = 1000;
/// The furthest a page may skip into the results.
pub const MAX_START: usize = 10_000;
/// The most concordance lines taken (and sorted) for one page.
pub const MAX_LINES: usize = 10_000;
/// The most pages a frequency list reads for one page.
pub const SAMPLE: usize = 1000;

/// What the command line sets for the page.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// `--context`: concordance context.
    pub width: usize,
    /// `--limit`: results, lines or words shown (0: [`MAX_ROWS`]).
    pub limit: usize,
    /// `--serve-workers`.
    pub workers: usize,
    /// `--serve-budget`.
    pub budget: Duration,
    /// `--serve-connections`.
    pub connections: usize,
}

impl Config {
    fn rows(&self) -> usize {
        if self.limit == 0 {
            MAX_ROWS
        } else {
            self.limit.min(MAX_ROWS)
        }
    }
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
    /// Results skipped: the page's paging.
    pub start: usize,
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
                "start" => f.start = v.parse::<usize>().unwrap_or(0).min(MAX_START),
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

/// The page for one request, its answer bounded by `cfg` from now.
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

/// A link to the same query `start` results on.
fn link(f: &Form, start: usize) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("q", &f.q);
    q.append_pair("mode", &f.mode);
    if f.fold {
        q.append_pair("fold", "1");
    }
    q.append_pair("sort", &f.sort);
    q.append_pair("start", &start.to_string());
    format!("/search?{}", q.finish())
}

/// What an answer did not cover, in words.
fn said(c: &Cover, cfg: &Config) -> String {
    let mut s = String::new();
    for n in &c.notes {
        let _ = write!(s, "<p class=\"note\">{}.</p>", html(n));
    }
    if c.late {
        let _ = write!(
            s,
            "<p class=\"note\">The time for one query ({:.1} s) was spent: this is what was found by then, from {} of the {} matching pages. A narrower query (a filter such as host: or lang:, fewer prefixes) is answered whole.</p>",
            cfg.budget.as_secs_f64(),
            c.read,
            c.matched
        );
    }
    s
}

fn answer(corpus: &Corpus, f: &Form, cfg: &Config) -> Result<String> {
    let b = Bounds {
        deadline: Some(Instant::now() + cfg.budget),
        max_lines: MAX_LINES,
        sample: SAMPLE,
        start: 0,
    };
    let rows = cfg.rows();
    let mut s = String::new();
    match f.mode.as_str() {
        "kwic" => {
            let (lines, c) =
                corpus.kwic_within(&f.q, f.fold, cfg.width, Sort::parse(&f.sort)?, rows, &b)?;
            let sorted = Sort::parse(&f.sort)? != Sort::Rank;
            let _ = write!(
                s,
                "<p>{} lines shown, from {} of the {} matching pages{}.</p>",
                lines.len(),
                c.read,
                c.matched,
                if c.more && sorted {
                    format!(", sorted among the first {MAX_LINES} lines at most")
                } else if c.more {
                    "; more lines follow in the pages not read".into()
                } else {
                    String::new()
                }
            );
            s.push_str(&said(&c, cfg));
            s.push_str("<table class=\"kwic\">");
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
            let (freq, c) = corpus.freq_within(Some(&f.q), f.fold, FreqOf::parse(m)?, rows, &b)?;
            let _ = write!(
                s,
                "<p>{}</p>",
                if c.read < c.matched {
                    format!(
                        "Counted in a sample: the {} best ranked of the {} matching pages.",
                        c.read, c.matched
                    )
                } else {
                    format!("Counted in all {} matching pages.", c.matched)
                }
            );
            s.push_str(&said(&c, cfg));
            s.push_str("<table class=\"freq\"><tr><th>word</th><th>count</th><th>pages</th></tr>");
            for r in freq {
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
            let b = Bounds {
                start: f.start,
                ..b
            };
            let (hits, c) = corpus.results_within(&f.q, f.fold, rows, &b)?;
            let _ = write!(
                s,
                "<p>{} pages match{}.</p>",
                c.matched,
                if hits.is_empty() {
                    String::new()
                } else {
                    format!("; {} to {} shown", f.start + 1, f.start + hits.len())
                }
            );
            s.push_str(&said(&c, cfg));
            let _ = write!(s, "<ol class=\"results\" start=\"{}\">", f.start + 1);
            let n = hits.len();
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
            let next = f.start + n;
            if c.more && !c.late && next <= MAX_START {
                let _ = write!(
                    s,
                    "<p><a class=\"next\" href=\"{}\">next</a></p>",
                    html(&link(f, next))
                );
            }
        }
    }
    Ok(s)
}

/// What every connection shares.
struct Shared {
    corpus: Corpus,
    cfg: Config,
    /// Queries being answered.
    workers: Arc<Semaphore>,
    /// When the index was last reloaded.
    reloaded: Mutex<Option<Instant>>,
    /// True while reloading fails (logged once).
    stale: AtomicBool,
}

impl Shared {
    /// Sees the index's latest commit, at most once a second; a failure
    /// is logged once and the index last read is served.
    fn reload(&self) {
        let mut at = match self.reloaded.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if at.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return;
        }
        *at = Some(Instant::now());
        match self.corpus.reload() {
            Ok(()) => {
                if self.stale.swap(false, Ordering::Relaxed) {
                    info!("the index reloads again");
                }
            }
            Err(e) => {
                if !self.stale.swap(true, Ordering::Relaxed) {
                    info!("{e}; serving the index as last read");
                }
            }
        }
    }
}

fn reply(code: StatusCode, text: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(text)));
    *r.status_mut() = code;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

fn short_page(title: &str, text: &str) -> String {
    format!("<!DOCTYPE html><meta charset=\"utf-8\"><title>{title}</title><p>{text}</p>\n")
}

/// Answers one request.
async fn handle(
    shared: Arc<Shared>,
    req: Request<hyper::body::Incoming>,
) -> std::result::Result<Response<Full<Bytes>>, std::convert::Infallible> {
    if req.method() != hyper::Method::GET && req.method() != hyper::Method::HEAD {
        return Ok(reply(
            StatusCode::METHOD_NOT_ALLOWED,
            short_page("not allowed", "Only GET."),
        ));
    }
    let path = req.uri().path();
    if path != "/" && path != "/search" {
        return Ok(reply(
            StatusCode::NOT_FOUND,
            short_page("not found", "Not found."),
        ));
    }
    let url = req.uri().to_string();
    let permit =
        match tokio::time::timeout(QUEUE_TIME, shared.workers.clone().acquire_owned()).await {
            Ok(Ok(p)) => p,
            _ => {
                return Ok(reply(
                    StatusCode::SERVICE_UNAVAILABLE,
                    short_page(
                        "busy",
                        "The search page is busy answering other queries; try again in a moment.",
                    ),
                ))
            }
        };
    let s = shared.clone();
    let work = tokio::task::spawn_blocking(move || {
        // The worker is held until the answer is made, even if the client
        // has gone: the pool bounds the work, not the connections.
        let _permit = permit;
        s.reload();
        page(&s.corpus, &Form::of(&url), &s.cfg)
    });
    // The answer stops itself at the budget; this is the backstop.
    match tokio::time::timeout(shared.cfg.budget + Duration::from_secs(5), work).await {
        Ok(Ok(text)) => Ok(reply(StatusCode::OK, text)),
        _ => Ok(reply(
            StatusCode::SERVICE_UNAVAILABLE,
            short_page("too long", "This query took too long to answer."),
        )),
    }
}

/// Serves the search page at `addr` until the process is stopped.
pub fn serve(corpus: Corpus, addr: SocketAddr, cfg: &Config) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(cfg.workers + 1)
        .build()
        .map_err(|e| Error::io("tokio", "cannot start the search page's runtime", e))?;
    let shared = Arc::new(Shared {
        corpus,
        cfg: *cfg,
        workers: Arc::new(Semaphore::new(cfg.workers)),
        reloaded: Mutex::new(None),
        stale: AtomicBool::new(false),
    });
    let connections = Arc::new(Semaphore::new(cfg.connections));
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::Usage(format!("--serve {addr}: cannot listen: {e}")))?;
        let at = listener
            .local_addr()
            .map_or_else(|_| addr.to_string(), |a| a.to_string());
        info!("serving the search page at http://{at}/");
        let mut refused = 0u64;
        loop {
            let stream = match listener.accept().await {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of descriptors, say: a pause, not an end.
                    info!("search page: cannot accept: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let Ok(permit) = connections.clone().try_acquire_owned() else {
                refused += 1;
                if refused.is_power_of_two() {
                    info!(
                        "search page: {refused} connections closed at once, {} being open",
                        cfg.connections
                    );
                }
                drop(stream);
                continue;
            };
            let shared = shared.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let io = hyper_util::rt::TokioIo::new(stream);
                let svc = hyper::service::service_fn(move |req| handle(shared.clone(), req));
                let mut b = hyper::server::conn::http1::Builder::new();
                b.timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEAD_TIME)
                    .max_buf_size(MAX_HEAD)
                    .max_headers(MAX_HEADERS);
                let _ = tokio::time::timeout(CONNECTION_TIME, b.serve_connection(io, svc)).await;
            });
        }
    })
}

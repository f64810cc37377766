//! HTTP through libcurl's multi interface: many transfers at once, one
//! persistent connection per host (HTTP/1.1 keep-alive, HTTP/2 multiplexing
//! where offered), early rejection from the response headers, and bounded
//! size and time.
//!
//! curl never resolves a name here: every request carries the address
//! nlpc-resolve chose (CURLOPT_RESOLVE), and redirects are not followed by
//! curl, so no request can reach an address the resolver did not approve.
//! curl speaks only HTTP and HTTPS (CURLOPT_PROTOCOLS_STR and
//! CURLOPT_REDIR_PROTOCOLS_STR), whatever URL it is handed.

use std::collections::HashMap;
use std::io::Read;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use curl::easy::{Easy2, Handler, HttpVersion, List, WriteError};
use curl::multi::{Easy2Handle, Multi};

use encoding_rs::Encoding;

use crate::document::charset;
use crate::document::lang::{self, Language};
use crate::error::{Error, Result};

/// What a response must be to be read past its headers.
#[derive(Clone, Debug, Default)]
pub struct HeaderFilter {
    /// Accepted MIME types, lowercase; empty accepts any.
    pub types: Vec<String>,
    /// Accepted charsets; empty accepts any.
    pub charsets: Vec<&'static Encoding>,
    /// Accepted languages; empty accepts any.
    pub langs: Vec<Language>,
}

/// How the client talks to servers.
#[derive(Clone, Debug)]
pub struct Config {
    pub user_agent: String,
    /// The From header: an address to contact about the crawl.
    pub from: Option<String>,
    /// The Accept header.
    pub accept: String,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    /// Abort a transfer slower than `min_speed` bytes/s for `slow_time`.
    pub min_speed: u32,
    pub slow_time: Duration,
    /// Largest body accepted, before and after content decoding.
    pub max_size: u64,
    pub filter: HeaderFilter,
    /// Connections kept open across bursts.
    pub max_connections: usize,
    /// Requests in flight on one HTTP/2 connection.
    pub pipeline: usize,
    /// Certificates to trust instead of the system's, for HTTPS servers of
    /// a private certificate authority.
    pub ca_file: Option<std::path::PathBuf>,
}

/// Is this request for a page, or for a robots.txt (which is never
/// rejected by the header filter)?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Page,
    Robots,
}

/// One request.
#[derive(Clone, Debug)]
pub struct Request {
    /// The caller's name for this request; comes back in the response.
    pub tag: u64,
    pub url: String,
    /// The address to connect to, as resolved.
    pub addr: IpAddr,
    pub kind: Kind,
    /// Extra request headers (If-None-Match, If-Modified-Since).
    pub headers: Vec<String>,
}

/// The response headers nlpcrawl uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    /// MIME type, lowercase, without parameters.
    pub content_type: String,
    /// The charset parameter of Content-Type, as sent.
    pub charset: String,
    /// Content-Language tags, lowercase.
    pub languages: Vec<String>,
    pub content_encoding: String,
    pub etag: String,
    pub last_modified: String,
    pub expires: String,
    pub cache_control: String,
    pub location: String,
    /// Every X-Robots-Tag value.
    pub x_robots_tag: Vec<String>,
    pub content_length: Option<u64>,
}

/// Why a transfer did not bring a usable response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The headers failed the filter; the body was not read.
    Rejected(String),
    TooLarge,
    Timeout,
    TooSlow,
    /// Connecting failed (refused, unreachable).
    Connect(String),
    /// Anything else on the wire: a bad response, a reset.
    Transfer(String),
    /// The Content-Encoding could not be decoded.
    Decode(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rejected(why) => write!(f, "{why}"),
            Failure::TooLarge => f.write_str("too large"),
            Failure::Timeout => f.write_str("timeout"),
            Failure::TooSlow => f.write_str("too slow"),
            Failure::Connect(m) => write!(f, "cannot connect: {m}"),
            Failure::Transfer(m) => write!(f, "transfer failed: {m}"),
            Failure::Decode(m) => write!(f, "cannot decode body: {m}"),
        }
    }
}

/// A finished transfer.
#[derive(Debug)]
pub struct Response {
    pub tag: u64,
    pub url: String,
    pub addr: IpAddr,
    pub kind: Kind,
    /// The HTTP status, 0 when none arrived.
    pub status: u16,
    pub headers: Headers,
    /// The body, content-decoded.
    pub body: Vec<u8>,
    /// Bytes received off the wire (the body as sent).
    pub wire_bytes: u64,
    /// The transfer opened a new connection rather than reusing one.
    pub new_connection: bool,
    /// The response came over HTTP/2 or later, which multiplexes.
    pub multiplexed: bool,
    pub failure: Option<Failure>,
    pub started: Instant,
    pub finished: Instant,
}

/// Splits a Content-Type value into the MIME type and charset parameter.
pub fn split_content_type(v: &str) -> (String, String) {
    let mut parts = v.split(';');
    let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, v)| v.trim().trim_matches(['"', '\'']).to_string())
        .unwrap_or_default();
    (mime, charset)
}

impl HeaderFilter {
    /// Why these headers fail the filter, or None when they pass.
    pub fn refuse(&self, h: &Headers) -> Option<String> {
        if !self.types.is_empty()
            && !h.content_type.is_empty()
            && !self.types.contains(&h.content_type)
        {
            return Some(format!("content type {}", h.content_type));
        }
        if !self.charsets.is_empty() && !h.charset.is_empty() {
            match charset::resolve(&h.charset) {
                Some(e) if self.charsets.contains(&e) => {}
                Some(e) => return Some(format!("charset {}", charset::name(e))),
                None => return Some(format!("unknown charset {}", h.charset)),
            }
        }
        // A tag the language table does not know matches nothing.
        if !self.langs.is_empty()
            && !h.languages.is_empty()
            && !h
                .languages
                .iter()
                .any(|t| lang::of_tag(t).is_some_and(|l| self.langs.contains(&l)))
        {
            return Some(format!("language {}", h.languages.join(",")));
        }
        None
    }
}

/// Collects one transfer's headers and body, and enforces the filter and
/// the size limit as the data arrives.
struct Collector {
    kind: Kind,
    filter: HeaderFilter,
    max_size: u64,
    status: u16,
    multiplexed: bool,
    headers: Headers,
    body: Vec<u8>,
    failure: Option<Failure>,
}

impl Collector {
    fn header_line(&mut self, line: &str) {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.starts_with("HTTP/") {
            // A new response (after 100 Continue): start over.
            self.status = line
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            self.headers = Headers::default();
            self.multiplexed = line.starts_with("HTTP/2") || line.starts_with("HTTP/3");
            return;
        }
        let Some((name, value)) = line.split_once(':') else {
            return;
        };
        let value = value.trim();
        let h = &mut self.headers;
        match name.trim().to_ascii_lowercase().as_str() {
            "content-type" => (h.content_type, h.charset) = split_content_type(value),
            "content-language" => {
                h.languages = value
                    .split(',')
                    .map(|t| t.trim().to_ascii_lowercase())
                    .filter(|t| !t.is_empty())
                    .collect()
            }
            "content-encoding" => h.content_encoding = value.to_ascii_lowercase(),
            "content-length" => h.content_length = value.parse().ok(),
            "etag" => h.etag = value.to_string(),
            "last-modified" => h.last_modified = value.to_string(),
            "expires" => h.expires = value.to_string(),
            "cache-control" => h.cache_control = value.to_ascii_lowercase(),
            "location" => h.location = value.to_string(),
            "x-robots-tag" => h.x_robots_tag.push(value.to_string()),
            _ => {}
        }
    }

    /// Called at the blank line that ends the headers: false aborts.
    fn headers_done(&mut self) -> bool {
        if self.kind != Kind::Page || !(200..300).contains(&self.status) {
            return true;
        }
        if let Some(why) = self.filter.refuse(&self.headers) {
            self.failure = Some(Failure::Rejected(why));
            return false;
        }
        if self
            .headers
            .content_length
            .is_some_and(|n| n > self.max_size)
        {
            self.failure = Some(Failure::TooLarge);
            return false;
        }
        true
    }
}

impl Handler for Collector {
    fn header(&mut self, data: &[u8]) -> bool {
        let line = String::from_utf8_lossy(data);
        if line.trim().is_empty() {
            return self.headers_done();
        }
        self.header_line(&line);
        true
    }

    fn write(&mut self, data: &[u8]) -> std::result::Result<usize, WriteError> {
        if self.body.len() as u64 + data.len() as u64 > self.max_size {
            self.failure = Some(Failure::TooLarge);
            // A short count makes curl abort the transfer.
            return Ok(0);
        }
        self.body.extend_from_slice(data);
        Ok(data.len())
    }
}

/// Decodes a body by its Content-Encoding, refusing output beyond `max`.
pub fn decode_body(
    encoding: &str,
    body: Vec<u8>,
    max: u64,
) -> std::result::Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let res = match encoding.trim() {
        "" | "identity" => return Ok(body),
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(&body[..])
            .take(max + 1)
            .read_to_end(&mut out),
        // "deflate" is zlib-wrapped by the standard, raw by some servers.
        "deflate" => match flate2::read::ZlibDecoder::new(&body[..])
            .take(max + 1)
            .read_to_end(&mut out)
        {
            Ok(n) => Ok(n),
            Err(_) => {
                out.clear();
                flate2::read::DeflateDecoder::new(&body[..])
                    .take(max + 1)
                    .read_to_end(&mut out)
            }
        },
        "br" => brotli_decompressor::Decompressor::new(&body[..], 4096)
            .take(max + 1)
            .read_to_end(&mut out),
        other => return Err(Failure::Decode(format!("unknown content encoding {other}"))),
    };
    match res {
        Ok(_) if out.len() as u64 > max => Err(Failure::TooLarge),
        Ok(_) => Ok(out),
        Err(e) => Err(Failure::Decode(e.to_string())),
    }
}

struct Transfer {
    handle: Easy2Handle<Collector>,
    url: String,
    addr: IpAddr,
    kind: Kind,
    started: Instant,
}

/// Many transfers in flight over libcurl's multi interface.
pub struct Client {
    cfg: Config,
    multi: Multi,
    transfers: HashMap<usize, Transfer>,
    tags: HashMap<usize, u64>,
    next_token: usize,
}

fn curl_err(what: &'static str, e: impl std::fmt::Display) -> Error {
    Error::Input(format!("libcurl: {what}: {e}"))
}

/// Lets libcurl speak only HTTP and HTTPS, on the first request and on any
/// redirect it might follow: the libcurl built here also reads file:// and
/// others, and a record that reached the fetcher by another way than
/// admission must not make it read a local file. The curl crate has no
/// setter for these options.
fn http_only(e: &Easy2<Collector>) -> std::result::Result<(), curl::Error> {
    // curl.h numbers them; curl-sys names only the older bitmask forms.
    const CURLOPT_PROTOCOLS_STR: curl_sys::CURLoption = curl_sys::CURLOPTTYPE_OBJECTPOINT + 318;
    const CURLOPT_REDIR_PROTOCOLS_STR: curl_sys::CURLoption =
        curl_sys::CURLOPTTYPE_OBJECTPOINT + 319;
    const PROTOCOLS: &std::ffi::CStr = c"http,https";
    for opt in [CURLOPT_PROTOCOLS_STR, CURLOPT_REDIR_PROTOCOLS_STR] {
        // SAFETY: the handle is live (owned by `e`), both options take a
        // NUL-terminated string that libcurl copies, and PROTOCOLS is static.
        let rc = unsafe { curl_sys::curl_easy_setopt(e.raw(), opt, PROTOCOLS.as_ptr()) };
        if rc != curl_sys::CURLE_OK {
            return Err(curl::Error::new(rc));
        }
    }
    Ok(())
}

/// The port a URL connects to.
pub fn port_of(url: &str) -> Option<u16> {
    let auth = crate::web::url::authority_of(url);
    let hostport = auth.rsplit_once('@').map(|(_, h)| h).unwrap_or(auth);
    let after_host = match hostport.rfind(']') {
        Some(i) => &hostport[i + 1..],
        None => hostport,
    };
    match after_host.rsplit_once(':') {
        Some((_, p)) if !p.is_empty() => p.parse().ok(),
        _ => match crate::web::url::scheme_of(url) {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        },
    }
}

impl Client {
    pub fn new(cfg: Config) -> Result<Client> {
        let mut multi = Multi::new();
        // One connection per host: a burst reuses it (keep-alive) or
        // multiplexes over it (HTTP/2), never opens a second one.
        multi
            .set_max_host_connections(1)
            .map_err(|e| curl_err("max host connections", e))?;
        multi
            .set_max_connects(cfg.max_connections.max(4))
            .map_err(|e| curl_err("max connects", e))?;
        multi
            .pipelining(false, true)
            .map_err(|e| curl_err("multiplexing", e))?;
        multi
            .set_max_concurrent_streams(cfg.pipeline.max(1))
            .map_err(|e| curl_err("concurrent streams", e))?;
        Ok(Client {
            cfg,
            multi,
            transfers: HashMap::new(),
            tags: HashMap::new(),
            next_token: 1,
        })
    }

    /// Transfers in flight.
    pub fn in_flight(&self) -> usize {
        self.transfers.len()
    }

    fn easy(&self, req: &Request) -> std::result::Result<Easy2<Collector>, curl::Error> {
        let mut e = Easy2::new(Collector {
            kind: req.kind,
            filter: self.cfg.filter.clone(),
            max_size: self.cfg.max_size,
            status: 0,
            multiplexed: false,
            headers: Headers::default(),
            body: Vec::new(),
            failure: None,
        });
        e.url(&req.url)?;
        // Never let libcurl resolve a name or use a proxy from the
        // environment: the resolver already chose the address.
        e.proxy("")?;
        let host = crate::web::url::host_of(&req.url);
        if !host.starts_with('[') && host.parse::<IpAddr>().is_err() {
            let port = port_of(&req.url).unwrap_or(80);
            let addr = match req.addr {
                IpAddr::V6(a) => format!("[{a}]"),
                IpAddr::V4(a) => a.to_string(),
            };
            let mut resolve = List::new();
            resolve.append(&format!("{host}:{port}:{addr}"))?;
            e.resolve(resolve)?;
        }
        e.signal(false)?;
        e.follow_location(false)?;
        http_only(&e)?;
        e.useragent(&self.cfg.user_agent)?;
        let mut headers = List::new();
        headers.append(&format!("Accept: {}", self.cfg.accept))?;
        // Decoded here rather than by libcurl, so the size limit also
        // bounds the decoded body, and brotli works without libcurl's.
        headers.append("Accept-Encoding: gzip, deflate, br")?;
        if let Some(from) = &self.cfg.from {
            headers.append(&format!("From: {from}"))?;
        }
        for h in &req.headers {
            headers.append(h)?;
        }
        e.http_headers(headers)?;
        e.http_content_decoding(false)?;
        e.http_version(HttpVersion::V2TLS)?;
        e.pipewait(true)?;
        e.connect_timeout(self.cfg.connect_timeout)?;
        e.timeout(self.cfg.timeout)?;
        e.low_speed_limit(self.cfg.min_speed)?;
        e.low_speed_time(self.cfg.slow_time)?;
        e.max_filesize(self.cfg.max_size)?;
        e.tcp_nodelay(true)?;
        if let Some(ca) = &self.cfg.ca_file {
            e.cainfo(ca)?;
        }
        Ok(e)
    }

    /// Starts a request.
    pub fn start(&mut self, req: Request) -> Result<()> {
        let easy = self.easy(&req).map_err(|e| curl_err("request setup", e))?;
        let mut handle = self
            .multi
            .add2(easy)
            .map_err(|e| curl_err("add transfer", e))?;
        let token = self.next_token;
        self.next_token += 1;
        handle
            .set_token(token)
            .map_err(|e| curl_err("transfer token", e))?;
        self.tags.insert(token, req.tag);
        self.transfers.insert(
            token,
            Transfer {
                handle,
                url: req.url,
                addr: req.addr,
                kind: req.kind,
                started: Instant::now(),
            },
        );
        Ok(())
    }

    /// Runs the transfers for up to `wait` and returns those that finished.
    pub fn poll(&mut self, wait: Duration) -> Result<Vec<Response>> {
        self.multi.perform().map_err(|e| curl_err("perform", e))?;
        let mut done = self.collect()?;
        if done.is_empty() && !self.transfers.is_empty() {
            self.multi
                .wait(&mut [], wait)
                .map_err(|e| curl_err("wait", e))?;
            self.multi.perform().map_err(|e| curl_err("perform", e))?;
            done = self.collect()?;
        } else if self.transfers.is_empty() && !wait.is_zero() {
            std::thread::sleep(wait.min(Duration::from_millis(50)));
        }
        Ok(done)
    }

    fn collect(&mut self) -> Result<Vec<Response>> {
        let mut finished = Vec::new();
        self.multi.messages(|m| {
            if let (Ok(token), Some(res)) = (m.token(), m.result()) {
                finished.push((token, res));
            }
        });
        let mut out = Vec::with_capacity(finished.len());
        for (token, res) in finished {
            let Some(t) = self.transfers.remove(&token) else {
                continue;
            };
            let tag = self.tags.remove(&token).unwrap_or(0);
            let mut easy = self
                .multi
                .remove2(t.handle)
                .map_err(|e| curl_err("remove transfer", e))?;
            let new_connection = easy.num_connects().unwrap_or(0) > 0;
            // A reused connection reports no connect time.
            let connected = !new_connection || easy.connect_time().is_ok_and(|t| !t.is_zero());
            let c = easy.get_mut();
            let body = std::mem::take(&mut c.body);
            let wire_bytes = body.len() as u64;
            let mut failure = c.failure.take();
            if failure.is_none() {
                if let Err(e) = res {
                    let elapsed = t.started.elapsed();
                    failure = Some(classify(&e, connected, c.status, elapsed, self.cfg.timeout));
                }
            }
            let headers = std::mem::take(&mut c.headers);
            let status = c.status;
            let multiplexed = c.multiplexed;
            let body = if failure.is_none() {
                match decode_body(&headers.content_encoding, body, self.cfg.max_size) {
                    Ok(b) => b,
                    Err(f) => {
                        failure = Some(f);
                        Vec::new()
                    }
                }
            } else {
                Vec::new()
            };
            out.push(Response {
                tag,
                url: t.url,
                addr: t.addr,
                kind: t.kind,
                status,
                headers,
                body,
                wire_bytes,
                new_connection,
                multiplexed,
                failure,
                started: t.started,
                finished: Instant::now(),
            });
        }
        Ok(out)
    }

    /// Abandons every transfer in flight (on shutdown).
    pub fn abort_all(&mut self) {
        for (_, t) in self.transfers.drain() {
            let _ = self.multi.remove2(t.handle);
        }
        self.tags.clear();
    }
}

/// Names a libcurl failure. libcurl reports a total timeout, a connect
/// timeout and the low-speed abort with one code, so the transfer's own
/// progress tells them apart: no connection, no answer at all, or an
/// answer that came too slowly.
fn classify(
    e: &curl::Error,
    connected: bool,
    status: u16,
    elapsed: Duration,
    timeout: Duration,
) -> Failure {
    if e.is_operation_timedout() {
        if !connected {
            Failure::Connect("connect timeout".into())
        } else if status == 0 || elapsed >= timeout.mul_f64(0.95) {
            Failure::Timeout
        } else {
            Failure::TooSlow
        }
    } else if e.is_filesize_exceeded() {
        Failure::TooLarge
    } else if e.is_unsupported_protocol() {
        Failure::Rejected(format!(
            "only http and https are fetched: {}",
            e.extra_description().unwrap_or(e.description())
        ))
    } else if e.is_couldnt_connect() || e.is_couldnt_resolve_host() {
        Failure::Connect(e.extra_description().unwrap_or(e.description()).to_string())
    } else {
        Failure::Transfer(e.extra_description().unwrap_or(e.description()).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libcurl, handed a URL of another scheme, refuses it without
    /// touching the file or the network.
    #[test]
    fn libcurl_speaks_only_http_and_https() {
        let dir = std::env::temp_dir().join(format!("nlpc-proto-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret = dir.join("secret.txt");
        std::fs::write(&secret, "not for the crawler").unwrap();
        let mut c = Client::new(Config {
            user_agent: "t".into(),
            from: None,
            accept: "*/*".into(),
            connect_timeout: Duration::from_secs(2),
            timeout: Duration::from_secs(5),
            min_speed: 0,
            slow_time: Duration::from_secs(5),
            max_size: 1 << 20,
            filter: HeaderFilter::default(),
            max_connections: 4,
            pipeline: 1,
            ca_file: None,
        })
        .unwrap();
        let urls = [
            format!("file://{}", secret.display()),
            "ftp://127.0.0.1:9/x".to_string(),
        ];
        for (i, u) in urls.iter().enumerate() {
            c.start(Request {
                tag: i as u64,
                url: u.clone(),
                addr: IpAddr::from([127, 0, 0, 1]),
                kind: Kind::Page,
                headers: Vec::new(),
            })
            .unwrap();
        }
        let mut done = Vec::new();
        while done.len() < urls.len() {
            done.extend(c.poll(Duration::from_millis(100)).unwrap());
        }
        std::fs::remove_dir_all(&dir).unwrap();
        for r in done {
            assert!(r.body.is_empty(), "{}: read {:?}", r.url, r.body);
            match &r.failure {
                Some(Failure::Rejected(why)) => {
                    assert!(why.starts_with("only http and https are fetched"), "{why}")
                }
                other => panic!("{}: {other:?}", r.url),
            }
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(
            split_content_type("Text/HTML; Charset=\"UTF-8\""),
            ("text/html".into(), "UTF-8".into())
        );
        assert_eq!(
            split_content_type("text/plain"),
            ("text/plain".into(), "".into())
        );
        assert_eq!(
            crate::document::charset::canonical("latin1").as_deref(),
            Some("windows-1252")
        );
        assert_eq!(crate::document::charset::canonical("nonsense"), None);
    }

    #[test]
    fn languages() {
        let accepted = |tag: &str, filter: &str| {
            HeaderFilter {
                langs: vec![lang::parse(filter).unwrap()],
                ..HeaderFilter::default()
            }
            .refuse(&Headers {
                languages: vec![tag.to_ascii_lowercase()],
                ..Headers::default()
            })
            .is_none()
        };
        assert!(accepted("lv-LV", "lv"));
        assert!(accepted("lav", "lv"));
        assert!(!accepted("ru", "lv"));
        assert!(accepted("lv", "lav"));
        assert!(accepted("LV", "lvs"));
        assert!(accepted("lvs", "latvian"));
        assert!(!accepted("ltg", "lv"));
        assert!(!accepted("x-lv", "lv"));
    }

    #[test]
    fn filter() {
        let f = HeaderFilter {
            types: vec!["text/html".into()],
            charsets: vec![encoding_rs::UTF_8, encoding_rs::WINDOWS_1257],
            langs: vec![lang::parse("lv").unwrap()],
        };
        let mut h = Headers {
            content_type: "text/html".into(),
            charset: "UTF-8".into(),
            ..Headers::default()
        };
        assert_eq!(f.refuse(&h), None);
        h.charset = "koi8-r".into();
        assert_eq!(f.refuse(&h).as_deref(), Some("charset koi8-r"));
        h.charset = "cp1257".into();
        assert_eq!(f.refuse(&h), None);
        h.languages = vec!["ru".into(), "en".into()];
        assert_eq!(f.refuse(&h).as_deref(), Some("language ru,en"));
        h.languages = vec!["ru".into(), "lv".into()];
        assert_eq!(f.refuse(&h), None);
        h.content_type = "image/png".into();
        assert_eq!(f.refuse(&h).as_deref(), Some("content type image/png"));
    }

    #[test]
    fn decoding() {
        use std::io::Write;
        let text = b"Labdien, pasaule! ".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(decode_body("gzip", gz.clone(), 1 << 20).unwrap(), text);
        assert_eq!(decode_body("gzip", gz, 100), Err(Failure::TooLarge));
        assert!(matches!(
            decode_body("zstd", vec![1], 100),
            Err(Failure::Decode(_))
        ));
        assert!(matches!(
            decode_body("gzip", vec![1, 2, 3], 100),
            Err(Failure::Decode(_))
        ));
    }

    #[test]
    fn ports() {
        assert_eq!(port_of("http://h/"), Some(80));
        assert_eq!(port_of("https://h/"), Some(443));
        assert_eq!(port_of("http://h:8080/x"), Some(8080));
        assert_eq!(port_of("http://[::1]:81/"), Some(81));
        assert_eq!(port_of("http://[::1]/"), Some(80));
    }
}

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
use crate::web::robots;

mod body;
mod client;

use body::ROBOTS_WIRE_MAX;
pub use body::{decode_body, decode_robots};
pub use client::{port_of, Client};
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

impl Config {
    /// Refuses settings that leave a transfer without any bound in time: a
    /// silent server would hold its connection forever.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.timeout.is_zero() && (self.min_speed == 0 || self.slow_time.is_zero()) {
            return Err(
                "--fetch-timeout 0 with --fetch-min-speed 0 (or --fetch-slow-time 0) leaves a transfer without a time limit"
                    .into(),
            );
        }
        Ok(())
    }
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
    /// Retry-After, as sent (seconds or an HTTP date).
    pub retry_after: String,
    /// Every X-Robots-Tag value.
    pub x_robots_tag: Vec<String>,
    pub content_length: Option<u64>,
}

impl Headers {
    /// Takes one header line ("Name: value") into the fields nlpcrawl
    /// reads; other headers and lines without a colon are passed over.
    pub fn add(&mut self, line: &str) {
        let Some((name, value)) = line.split_once(':') else {
            return;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-type" => (self.content_type, self.charset) = split_content_type(value),
            "content-language" => {
                self.languages = value
                    .split(',')
                    .map(|t| t.trim().to_ascii_lowercase())
                    .filter(|t| !t.is_empty())
                    .collect()
            }
            "content-encoding" => self.content_encoding = value.to_ascii_lowercase(),
            "content-length" => self.content_length = value.parse().ok(),
            "etag" => self.etag = value.to_string(),
            "last-modified" => self.last_modified = value.to_string(),
            "expires" => self.expires = value.to_string(),
            "cache-control" => self.cache_control = value.to_ascii_lowercase(),
            "location" => self.location = value.to_string(),
            "retry-after" => self.retry_after = value.to_string(),
            "x-robots-tag" => self.x_robots_tag.push(value.to_string()),
            _ => {}
        }
    }
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

    /// What `--filter-charset` says of a 2xx page from its headers and
    /// its body so far (`complete` once it is all in, decoded). The
    /// charset judged is the one nlpc-vrfy decides (document::charset): a
    /// byte order mark overrides the header's label; a label WHATWG does
    /// not know is ignored, as browsers ignore it, and the page passes
    /// (nlpc-vrfy judges the charset it finds in the body); a legacy label
    /// over a body of valid UTF-8 with non-ASCII bytes means UTF-8. So a
    /// refused label refuses the page as soon as its body has a byte that
    /// is not valid UTF-8, often in the first packet, and the rest is not
    /// downloaded. `valid_upto` keeps how much of the body is known to be
    /// valid UTF-8 between calls, so each byte is checked once.
    pub fn judge_charset(
        &self,
        h: &Headers,
        body: &[u8],
        complete: bool,
        valid_upto: &mut usize,
    ) -> CharsetVerdict {
        let allowed = |e| self.charsets.contains(&e);
        if self.charsets.is_empty() {
            return CharsetVerdict::Pass;
        }
        if body.len() < BOM_BYTES && !complete {
            return CharsetVerdict::Wait;
        }
        let refuse = |e| CharsetVerdict::Refuse(format!("charset {}", charset::name(e)));
        if let Some((e, _)) = encoding_rs::Encoding::for_bom(body) {
            return if allowed(e) {
                CharsetVerdict::Pass
            } else {
                refuse(e)
            };
        }
        let Some(e) = charset::resolve(&h.charset) else {
            return CharsetVerdict::Pass;
        };
        if allowed(e) {
            return CharsetVerdict::Pass;
        }
        // Refused as labelled, unless the body turns out to be UTF-8.
        if !e.is_ascii_compatible() || !allowed(encoding_rs::UTF_8) {
            return refuse(e);
        }
        if complete {
            return if charset::misdeclared(e, body) {
                CharsetVerdict::Pass
            } else {
                refuse(e)
            };
        }
        if *valid_upto > body.len() {
            // Another body than the one measured: start over.
            *valid_upto = 0;
        }
        let rest = body.get(*valid_upto..).unwrap_or_default();
        match std::str::from_utf8(rest) {
            Ok(_) => *valid_upto = body.len(),
            // A character cut at the end of what has arrived so far.
            Err(err) if err.error_len().is_none() => *valid_upto += err.valid_up_to(),
            Err(_) => return refuse(e),
        }
        CharsetVerdict::Wait
    }
}

/// What `--filter-charset` says of a page (see [`HeaderFilter::judge_charset`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CharsetVerdict {
    Pass,
    Refuse(String),
    /// Not yet known: more of the body is needed.
    Wait,
}

/// The longest byte order mark (UTF-8's): what a body must have of itself
/// before its charset is judged.
pub const BOM_BYTES: usize = 3;

#[cfg(test)]
mod tests;

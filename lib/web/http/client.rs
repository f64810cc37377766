//! The client: libcurl's multi interface, one easy handle per transfer,
//! the headers collected as they arrive so a body the filter refuses is
//! never downloaded, and each transfer's end classified.

use super::*;
use curl::multi::WaitFd;
use std::os::fd::RawFd;

/// Collects one transfer's headers and body, and enforces the filter and
/// the size limit as the data arrives.
pub(super) struct Collector {
    kind: Kind,
    filter: HeaderFilter,
    max_size: u64,
    /// A robots.txt is read up to [`robots::MAX_SIZE`] and cut there
    /// (RFC 9309 2.5): set once the rest was left unread.
    cut: bool,
    status: u16,
    multiplexed: bool,
    headers: Headers,
    body: Vec<u8>,
    failure: Option<Failure>,
    /// The charset filter has judged this body (see `judge_charset`).
    charset_judged: bool,
    /// How much of the body is known to be valid UTF-8 (for that filter).
    utf8_upto: usize,
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
            self.charset_judged = false;
            self.utf8_upto = 0;
            self.multiplexed = line.starts_with("HTTP/2") || line.starts_with("HTTP/3");
            return;
        }
        self.headers.add(line);
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
        if self.kind == Kind::Robots {
            // What fits is kept and parsed; the rest is not worth reading.
            let room = ROBOTS_WIRE_MAX.saturating_sub(self.body.len());
            if data.len() > room {
                self.body.extend_from_slice(&data[..room]);
                self.cut = true;
                return Ok(0);
            }
            self.body.extend_from_slice(data);
            return Ok(data.len());
        }
        if self.body.len() as u64 + data.len() as u64 > self.max_size {
            self.failure = Some(Failure::TooLarge);
            // A short count makes curl abort the transfer.
            return Ok(0);
        }
        self.body.extend_from_slice(data);
        // An uncompressed body is judged as it arrives; a compressed one
        // once it is decoded.
        let plain = matches!(self.headers.content_encoding.as_str(), "" | "identity");
        if plain && !self.judge_charset(None) {
            return Ok(0);
        }
        Ok(data.len())
    }
}

impl Collector {
    /// Applies `--filter-charset` to a 2xx page, on its whole `decoded`
    /// body or on the body as it arrives: false when refused.
    fn judge_charset(&mut self, decoded: Option<&[u8]>) -> bool {
        if self.charset_judged || self.kind != Kind::Page || !(200..300).contains(&self.status) {
            return true;
        }
        let complete = decoded.is_some();
        let body = decoded.unwrap_or(&self.body);
        match self
            .filter
            .judge_charset(&self.headers, body, complete, &mut self.utf8_upto)
        {
            CharsetVerdict::Wait => true,
            CharsetVerdict::Pass => {
                self.charset_judged = true;
                true
            }
            CharsetVerdict::Refuse(why) => {
                self.charset_judged = true;
                self.failure = Some(Failure::Rejected(why));
                false
            }
        }
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
    /// Transfers were started since the last wait: the next wait is short
    /// (see [`KICK`]).
    sent: bool,
}

/// The longest wait right after transfers were started. A transfer
/// started on a kept-alive connection often went on the wire only at the
/// perform after the next wait, and libcurl gave that wait no timer nor
/// socket to end it: with `--fetch-polite 0` one address was asked about
/// every 60 ms (the 50 ms wait of nlpc-fetch's loop and the rest) instead
/// of as soon as its last answer ended (tests/fetch.rs,
/// an_address_without_rest_is_kept_busy_while_its_next_records_are_leased).
const KICK: Duration = Duration::from_millis(1);

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
            sent: false,
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
            cut: false,
            status: 0,
            multiplexed: false,
            headers: Headers::default(),
            body: Vec::new(),
            failure: None,
            charset_judged: false,
            utf8_upto: 0,
        });
        // Never credentials: an admitted URL has no userinfo, and one kept
        // from before that rule is not sent as Basic authorization either.
        e.url(&crate::web::url::without_userinfo(&req.url))?;
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
        // A robots.txt of any announced size is read up to its own limit
        // and cut there; a page larger than the limit is refused at once.
        if req.kind == Kind::Page {
            e.max_filesize(self.cfg.max_size)?;
        }
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

    /// Drives the transfers without waiting: requests just started go on
    /// the wire now rather than at the next [`Client::poll`]. Transfers
    /// that finish meanwhile are returned by that poll.
    pub fn send(&mut self) -> Result<()> {
        self.multi.perform().map_err(|e| curl_err("perform", e))?;
        self.sent = true;
        Ok(())
    }

    /// Runs the transfers for up to `wait` and returns those that finished.
    pub fn poll(&mut self, wait: Duration) -> Result<Vec<Response>> {
        Ok(self.poll_or_wake(wait, None)?.0)
    }

    /// [`Client::poll`], also waking when `wake`, a descriptor of the
    /// caller's, becomes readable; then the flag returned is true. With no
    /// transfer in flight it sleeps on `wake` alone (at most 50 ms).
    pub fn poll_or_wake(
        &mut self,
        wait: Duration,
        wake: Option<RawFd>,
    ) -> Result<(Vec<Response>, bool)> {
        self.multi.perform().map_err(|e| curl_err("perform", e))?;
        // A look without waiting leaves the short wait to the next poll.
        let wait = if self.sent && !wait.is_zero() {
            self.sent = false;
            wait.min(KICK)
        } else {
            wait
        };
        let mut done = self.collect()?;
        let mut fds: Vec<WaitFd> = Vec::new();
        if let Some(fd) = wake {
            let mut w = WaitFd::new();
            w.set_fd(fd);
            w.poll_on_read(true);
            fds.push(w);
        }
        let mut woken = false;
        if done.is_empty() && (!self.transfers.is_empty() || (!fds.is_empty() && !wait.is_zero())) {
            let wait = if self.transfers.is_empty() {
                wait.min(Duration::from_millis(50))
            } else {
                wait
            };
            self.multi
                .wait(&mut fds, wait)
                .map_err(|e| curl_err("wait", e))?;
            woken = fds.first().is_some_and(|w| w.received_read());
            self.multi.perform().map_err(|e| curl_err("perform", e))?;
            done = self.collect()?;
        } else if self.transfers.is_empty() && !wait.is_zero() {
            std::thread::sleep(wait.min(Duration::from_millis(50)));
        }
        Ok((done, woken))
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
            // A robots.txt cut at its limit was aborted on purpose: what
            // arrived is the answer.
            let cut = c.cut;
            if failure.is_none() && !cut {
                if let Err(e) = res {
                    let elapsed = t.started.elapsed();
                    failure = Some(classify(&e, connected, c.status, elapsed, self.cfg.timeout));
                }
            }
            let body = if failure.is_none() {
                let decoded = if t.kind == Kind::Robots {
                    decode_robots(&c.headers.content_encoding, body)
                } else {
                    decode_body(&c.headers.content_encoding, body, self.cfg.max_size)
                };
                match decoded {
                    // A body too short or compressed to be judged as it
                    // arrived is judged now.
                    Ok(b) if !c.judge_charset(Some(&b)) => {
                        failure = c.failure.take();
                        Vec::new()
                    }
                    Ok(b) => b,
                    Err(f) => {
                        failure = Some(f);
                        Vec::new()
                    }
                }
            } else {
                Vec::new()
            };
            let headers = std::mem::take(&mut c.headers);
            let status = c.status;
            let multiplexed = c.multiplexed;
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

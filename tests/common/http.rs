//! A real HTTP/1.1 server for the tests: keep-alive, one thread per
//! connection, routes that can change while it runs, and a log of every
//! request (when it arrived, on which connection, what it asked, how many
//! body bytes went out) so tests can assert politeness from the server's
//! side.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server answers for a path.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Send the body in pieces of this size with `pause` between them.
    pub chunk: usize,
    pub pause: Duration,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            delay: Duration::ZERO,
            chunk: 0,
            pause: Duration::ZERO,
        }
    }
    pub fn html(body: impl Into<Vec<u8>>) -> Reply {
        Reply::new(200, "text/html; charset=utf-8", body)
    }
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn redirect(status: u16, to: &str) -> Reply {
        Reply::new(status, "text/html", "moved").header("Location", to)
    }
    pub fn slow(mut self, chunk: usize, pause: Duration) -> Reply {
        self.chunk = chunk;
        self.pause = pause;
        self
    }
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Hit {
    pub conn: usize,
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub host: String,
    pub headers: HashMap<String, String>,
    /// Body bytes written before the client went away (or all of them).
    pub sent: usize,
    pub body_len: usize,
}

#[derive(Default)]
struct Shared {
    /// Routes by "host path" first, then by path alone.
    routes: Mutex<HashMap<String, Reply>>,
    /// Replies for the next page requests (robots.txt left out), in
    /// order, before the routes answer: a server in distress for a while.
    script: Mutex<std::collections::VecDeque<Reply>>,
    hits: Mutex<Vec<Hit>>,
    conns: AtomicUsize,
    stop: AtomicBool,
}

/// A server listening on one loopback address.
pub struct Server {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// Listens on `ip` (a 127.0.0.0/8 address) at an ephemeral port.
    pub fn start(ip: &str) -> Server {
        Server::start_at(ip, 0)
    }

    /// Listens on `ip` at `port` (0: an ephemeral one), as a host that
    /// moved keeps its port on its new address.
    pub fn start_at(ip: &str, port: u16) -> Server {
        let ip: IpAddr = ip.parse().expect("address");
        assert!(ip.is_loopback(), "test servers listen on loopback only");
        let listener = TcpListener::bind((ip, port)).expect("bind");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let id = s.conns.fetch_add(1, Ordering::SeqCst) + 1;
                let s = s.clone();
                std::thread::spawn(move || serve(stream, id, s));
            }
        });
        Server { addr, shared }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn ip(&self) -> String {
        self.addr.ip().to_string()
    }

    /// A URL on this server under host name `host`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port())
    }

    /// Answers `path` (for any host) with `reply`.
    pub fn route(&self, path: &str, reply: Reply) {
        self.shared
            .routes
            .lock()
            .unwrap()
            .insert(path.to_string(), reply);
    }

    /// Answers `path` on virtual host `host` with `reply`.
    pub fn route_host(&self, host: &str, path: &str, reply: Reply) {
        self.shared
            .routes
            .lock()
            .unwrap()
            .insert(format!("{host} {path}"), reply);
    }

    /// Answers the next page requests (robots.txt left out), whatever
    /// their path, with `replies` in order; then the routes answer again.
    pub fn script(&self, replies: Vec<Reply>) {
        self.shared.script.lock().unwrap().extend(replies);
    }

    /// Every request so far, in arrival order.
    pub fn hits(&self) -> Vec<Hit> {
        let mut h = self.shared.hits.lock().unwrap().clone();
        h.sort_by_key(|h| h.at);
        h
    }

    /// Requests for pages (robots.txt left out).
    pub fn page_hits(&self) -> Vec<Hit> {
        self.hits()
            .into_iter()
            .filter(|h| h.path != "/robots.txt")
            .collect()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.conns.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(100));
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

fn serve(stream: TcpStream, conn: usize, s: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut out = stream;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let at = Instant::now();
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("/").to_string();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            match reader.read_line(&mut h) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let host = headers
            .get("host")
            .map(|h| h.split(':').next().unwrap_or("").to_string())
            .unwrap_or_default();
        let scripted = if path == "/robots.txt" {
            None
        } else {
            s.script.lock().unwrap().pop_front()
        };
        let reply = if let Some(r) = scripted {
            r
        } else {
            let routes = s.routes.lock().unwrap();
            routes
                .get(&format!("{host} {path}"))
                .or_else(|| routes.get(&path))
                .cloned()
                .unwrap_or_else(|| Reply::new(404, "text/html", "not found"))
        };
        let close = headers
            .get("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        let idx = {
            let mut hits = s.hits.lock().unwrap();
            hits.push(Hit {
                conn,
                at,
                method: method.clone(),
                path: path.clone(),
                host,
                headers: headers.clone(),
                sent: 0,
                body_len: reply.body.len(),
            });
            hits.len() - 1
        };
        if !reply.delay.is_zero() {
            std::thread::sleep(reply.delay);
        }
        // Conditional requests: an If-None-Match equal to our ETag is a 304.
        let etag = reply
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("etag"))
            .map(|(_, v)| v.clone());
        let not_modified =
            reply.status == 200 && etag.is_some() && headers.get("if-none-match") == etag.as_ref();
        let (status, body): (u16, &[u8]) = if not_modified {
            (304, b"")
        } else {
            (reply.status, &reply.body)
        };
        let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        if out.write_all(head.as_bytes()).is_err() {
            return;
        }
        let send = if method == "HEAD" { &body[..0] } else { body };
        let chunk = if reply.chunk == 0 {
            64 * 1024
        } else {
            reply.chunk
        };
        let mut sent = 0;
        for piece in send.chunks(chunk) {
            if out.write_all(piece).is_err() {
                break;
            }
            sent += piece.len();
            s.hits.lock().unwrap()[idx].sent = sent;
            if !reply.pause.is_zero() {
                std::thread::sleep(reply.pause);
            }
        }
        let _ = out.flush();
        if sent < send.len() || close {
            return;
        }
    }
}

//! A small, real DNS server for tests and benchmarks: it answers UDP queries
//! on 127.0.0.1 at an ephemeral port from a zone the test sets (and may
//! change while it runs), and logs every query's arrival time, name and
//! type, so tests can count queries and measure the gaps between them.
//!
//! Names not in the zone get NXDOMAIN. A name can be made silent (the query
//! is logged and never answered), and so can the whole server.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hickory_proto::op::{Message, MessageType, OpCode, ResponseCode};
use hickory_proto::rr::rdata::{A, AAAA};
use hickory_proto::rr::{RData, Record, RecordType};

/// What the server says about one name.
#[derive(Clone, Debug)]
pub enum Answer {
    /// These addresses, with this TTL; a type without addresses gets an
    /// empty NOERROR answer ("no data").
    Addrs {
        v4: Vec<Ipv4Addr>,
        v6: Vec<Ipv6Addr>,
        ttl: u32,
    },
    /// The name does not exist.
    NxDomain,
    /// The server failed (SERVFAIL).
    ServFail,
    /// Never answered.
    Silent,
}

/// One query as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub at: Instant,
    /// Lowercase, without the trailing dot.
    pub name: String,
    pub qtype: RecordType,
}

#[derive(Default)]
struct State {
    zone: HashMap<String, Answer>,
    silent: bool,
    log: Vec<Seen>,
}

/// A running server; it stops when dropped.
pub struct DnsServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

fn key(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl DnsServer {
    /// Starts a server with an empty zone.
    pub fn start() -> DnsServer {
        let sock = UdpSocket::bind("127.0.0.1:0").expect("bind DNS test server");
        // Short reads so the thread notices the stop flag promptly.
        sock.set_read_timeout(Some(Duration::from_millis(20)))
            .expect("socket timeout");
        let addr = sock.local_addr().expect("local address");
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || serve(sock, state, stop))
        };
        DnsServer {
            addr,
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// Where the server listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server as an `--nameserver` argument.
    pub fn arg(&self) -> String {
        self.addr.to_string()
    }

    /// Sets what the server says about `name`.
    pub fn set(&self, name: &str, answer: Answer) -> &DnsServer {
        self.lock().zone.insert(key(name), answer);
        self
    }

    /// `name` has A records `v4` with `ttl`.
    pub fn a(&self, name: &str, v4: &[&str], ttl: u32) -> &DnsServer {
        self.addrs(name, v4, &[], ttl)
    }

    /// `name` has A records `v4` and AAAA records `v6`, all with `ttl`.
    pub fn addrs(&self, name: &str, v4: &[&str], v6: &[&str], ttl: u32) -> &DnsServer {
        let v4 = v4
            .iter()
            .map(|a| a.parse().expect("IPv4 address"))
            .collect();
        let v6 = v6
            .iter()
            .map(|a| a.parse().expect("IPv6 address"))
            .collect();
        self.set(name, Answer::Addrs { v4, v6, ttl })
    }

    /// Makes the whole server silent (true) or answering (false).
    pub fn set_silent(&self, silent: bool) {
        self.lock().silent = silent;
    }

    /// Every query seen so far, in arrival order.
    pub fn queries(&self) -> Vec<Seen> {
        self.lock().log.clone()
    }

    /// How many queries named `name`.
    pub fn count(&self, name: &str) -> usize {
        let k = key(name);
        self.lock().log.iter().filter(|s| s.name == k).count()
    }

    /// How many queries in all.
    pub fn total(&self) -> usize {
        self.lock().log.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for DnsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(sock: UdpSocket, state: Arc<Mutex<State>>, stop: Arc<AtomicBool>) {
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        let (n, peer) = match sock.recv_from(&mut buf) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let at = Instant::now();
        let Ok(query) = Message::from_vec(&buf[..n]) else {
            continue;
        };
        let Some(q) = query.queries.first().cloned() else {
            continue;
        };
        let name = key(&q.name().to_ascii());
        let answer = {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            st.log.push(Seen {
                at,
                name: name.clone(),
                qtype: q.query_type(),
            });
            if st.silent {
                None
            } else {
                Some(st.zone.get(&name).cloned().unwrap_or(Answer::NxDomain))
            }
        };
        let mut resp = Message::new(query.metadata.id, MessageType::Response, OpCode::Query);
        resp.metadata.recursion_desired = query.metadata.recursion_desired;
        resp.metadata.recursion_available = true;
        resp.metadata.authoritative = true;
        resp.add_query(q.clone());
        match answer {
            None | Some(Answer::Silent) => continue,
            Some(Answer::NxDomain) => resp.metadata.response_code = ResponseCode::NXDomain,
            Some(Answer::ServFail) => resp.metadata.response_code = ResponseCode::ServFail,
            Some(Answer::Addrs { v4, v6, ttl }) => {
                let owner = q.name().clone();
                let rdata: Vec<RData> = match q.query_type() {
                    RecordType::A => v4.iter().map(|a| RData::A(A(*a))).collect(),
                    RecordType::AAAA => v6.iter().map(|a| RData::AAAA(AAAA(*a))).collect(),
                    _ => Vec::new(),
                };
                for d in rdata {
                    resp.add_answer(Record::from_rdata(owner.clone(), ttl, d));
                }
            }
        }
        if let Ok(bytes) = resp.to_vec() {
            let _ = sock.send_to(&bytes, peer);
        }
    }
}

/// Arrival times of the queries, sorted.
pub fn arrivals(seen: &[Seen]) -> Vec<Instant> {
    let mut v: Vec<Instant> = seen.iter().map(|s| s.at).collect();
    v.sort();
    v
}

/// An IPv4 address for test host `i` that the refused-address table takes
/// for public (the documentation ranges are refused now). Only DNS answers
/// carry it: no test sends anything to it.
pub fn test_addr(i: usize) -> IpAddr {
    let nets = [[100, 128, 0], [100, 128, 1], [100, 128, 3]];
    let n = nets[(i / 254) % 3];
    IpAddr::V4(Ipv4Addr::new(n[0], n[1], n[2], (i % 254) as u8 + 1))
}

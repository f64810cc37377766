//! A NATS cluster with JetStream on loopback, for the cluster tests:
//! Debian's nats-server (make test installs it, through
//! scripts/install-deps; without it a test fails rather than skips), each
//! server with its own store directory, client, route and monitoring port.
//! Ready means every server's monitoring
//! endpoint /healthz answers "ok" (JetStream up and in step with its meta
//! leader), polled with a deadline.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::nginx::free_port;

/// The server executable.
pub fn executable() -> PathBuf {
    ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("nats-server is not installed (apt-get install nats-server; make test does)")
}

struct Server {
    name: String,
    port: u16,
    route: u16,
    monitor: u16,
    dir: PathBuf,
    child: Option<Child>,
}

/// A running cluster; every server is killed when it is dropped.
pub struct Nats {
    servers: Vec<Server>,
    _tmp: tempfile::TempDir,
}

impl Nats {
    /// Starts `n` servers in one cluster and waits until all are ready.
    /// The ports are picked free and then released, so a test running
    /// beside this one may take one before a server binds it; a server
    /// that exits while starting is therefore tried again, the whole
    /// cluster on fresh ports (its routes name every port), a few times.
    pub fn start(n: usize) -> Nats {
        let mut tries = 0;
        loop {
            let mut c = Nats::on_fresh_ports(n);
            for i in 0..n {
                c.spawn(i);
            }
            match (0..n).try_for_each(|i| c.ready_or_exited(i)) {
                Ok(()) => return c,
                Err(i) if tries < 3 => {
                    tries += 1;
                    eprintln!(
                        "nats-server {i} exited while starting, trying again on other ports:\n{}",
                        c.log(i)
                    );
                }
                Err(i) => panic!("nats-server {i} exited while starting:\n{}", c.log(i)),
            }
        }
    }

    fn on_fresh_ports(n: usize) -> Nats {
        let tmp = tempfile::tempdir().expect("temporary directory");
        let servers = (0..n)
            .map(|i| Server {
                name: format!("n{i}"),
                port: free_port("127.0.0.1"),
                route: free_port("127.0.0.1"),
                monitor: free_port("127.0.0.1"),
                dir: tmp.path().join(format!("n{i}")),
                child: None,
            })
            .collect();
        Nats { servers, _tmp: tmp }
    }

    /// Waits until server `i` is ready; Err(i) if it exits first. A server
    /// still running and not ready after the limit fails the test, with
    /// its log.
    fn ready_or_exited(&mut self, i: usize) -> Result<(), usize> {
        match self.wait(i, Duration::from_secs(60)) {
            Wait::Ready => Ok(()),
            Wait::Exited => Err(i),
            Wait::Late => panic!(
                "timed out waiting for nats-server {i} to be ready; its log:\n{}",
                self.log(i)
            ),
        }
    }

    /// Polls server `i`'s health until it is ready, exits, or `limit`
    /// passes.
    fn wait(&mut self, i: usize, limit: Duration) -> Wait {
        let port = self.servers[i].monitor;
        let start = std::time::Instant::now();
        while !healthz(port) {
            let exited = self.servers[i]
                .child
                .as_mut()
                .is_none_or(|c| !matches!(c.try_wait(), Ok(None)));
            if exited {
                return Wait::Exited;
            }
            if start.elapsed() >= limit {
                return Wait::Late;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Wait::Ready
    }

    fn spawn(&mut self, i: usize) {
        let routes: Vec<String> = self
            .servers
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, s)| format!("nats://127.0.0.1:{}", s.route))
            .collect();
        let s = &mut self.servers[i];
        std::fs::create_dir_all(&s.dir).expect("server directory");
        let log = s.dir.join("server.log");
        let mut c = Command::new(executable());
        c.args(["-js", "-a", "127.0.0.1", "-n", &s.name])
            .arg("-sd")
            .arg(&s.dir)
            .args(["-p", &s.port.to_string(), "-m", &s.monitor.to_string()])
            .args(["--cluster_name", "nlpctest"])
            .args(["--cluster", &format!("nats://127.0.0.1:{}", s.route)])
            .args(["--routes", &routes.join(",")])
            .arg("-l")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        s.child = Some(c.spawn().expect("start nats-server"));
    }

    /// The client URLs, comma-separated, for --cluster.
    pub fn urls(&self) -> String {
        self.servers
            .iter()
            .map(|s| format!("nats://127.0.0.1:{}", s.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Kills server `i` at once (SIGKILL).
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.servers[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts server `i` again over its store and waits until it is ready.
    /// nats-server 2.9.10 restarted after a SIGKILL has been seen to log
    /// its meta leader and yet answer /healthz with "has not established
    /// contact with a meta leader" for over a minute (a loaded machine, the
    /// full suite running); one stuck so is started once more, as an
    /// operator would, up to three times.
    pub fn restart(&mut self, i: usize) {
        for attempt in 1..=3 {
            self.kill(i);
            self.spawn(i);
            match self.wait(i, Duration::from_secs(30)) {
                Wait::Ready => return,
                Wait::Exited => panic!("nats-server {i} exited while restarting:\n{}", self.log(i)),
                Wait::Late => eprintln!(
                    "nats-server {i} not ready 30 s after restart {attempt}; its log:\n{}",
                    self.log(i)
                ),
            }
        }
        panic!(
            "nats-server {i} not ready after three restarts:\n{}",
            self.log(i)
        );
    }

    /// Server `i`'s log, for a failure message.
    pub fn log(&self, i: usize) -> String {
        std::fs::read_to_string(self.servers[i].dir.join("server.log")).unwrap_or_default()
    }

    pub fn dir(&self, i: usize) -> &Path {
        &self.servers[i].dir
    }
}

enum Wait {
    Ready,
    Exited,
    Late,
}

/// True when the monitoring endpoint answers /healthz with "ok".
fn healthz(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut body = String::new();
    let _ = s.read_to_string(&mut body);
    (body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200")) && body.contains("ok")
}

impl Drop for Nats {
    fn drop(&mut self) {
        for i in 0..self.servers.len() {
            self.kill(i);
        }
    }
}

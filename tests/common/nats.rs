//! A NATS cluster with JetStream on loopback, for the cluster tests:
//! Debian's nats-server (make test installs it, through
//! scripts/install-deps; without it a test fails rather than skips), each
//! server with its own store directory, client, route and monitoring port.
//! Ready means every server's monitoring
//! endpoint /healthz answers "ok" (JetStream up and in step with its meta
//! leader), polled with a deadline.
//!
//! [`Nats::start_secure`] starts the cluster as one on an open network
//! would run: TLS with a CA and certificates made with openssl at run
//! time (clients must show a certificate of that CA), and an account whose
//! users each need their password.
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
    /// With TLS and accounts: the files and users.
    pub secure: Option<Secure>,
    _tmp: tempfile::TempDir,
}

/// What a client of a secured cluster needs: the CA, a client certificate
/// and its key, and each user's password file.
pub struct Secure {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    /// (user, password, the file holding the password).
    pub users: Vec<(String, String, PathBuf)>,
    /// A user known by an nkey: its public key and the file holding its
    /// seed.
    pub nkey: (String, PathBuf),
    /// The seed of an nkey the servers do not know, and its file.
    pub stranger_nkey: (String, PathBuf),
}

impl Secure {
    /// The password file of `user`.
    pub fn password_file(&self, user: &str) -> &Path {
        &self
            .users
            .iter()
            .find(|(u, _, _)| u == user)
            .expect("a user of the cluster")
            .2
    }

    /// nlpcd's and nlpc-relay's options for `user` (None: TLS only).
    pub fn args(&self, user: Option<&str>) -> Vec<String> {
        let mut a = vec![
            "--nats-ca".to_string(),
            self.ca.display().to_string(),
            "--nats-cert".into(),
            self.cert.display().to_string(),
            "--nats-key".into(),
            self.key.display().to_string(),
        ];
        if let Some(u) = user {
            a.extend([
                "--nats-user".into(),
                u.to_string(),
                "--nats-password".into(),
                self.password_file(u).display().to_string(),
            ]);
        }
        a
    }
}

/// Runs openssl with `args` in `dir`; fails the test with its output.
fn openssl(dir: &Path, args: &[&str]) {
    let o = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl is not installed (apt-get install openssl; make test does)");
    assert!(
        o.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate,
/// all of it made now (EC P-256 keys: quick to make), and a password file
/// for each of `users`.
fn make_secure(dir: &Path, users: &[&str]) -> Secure {
    std::fs::create_dir_all(dir).expect("certificate directory");
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=nlpcrawl test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    openssl(dir, &ca);
    for (name, ext) in [
        (
            "server",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        ),
        ("client", "extendedKeyUsage=clientAuth\n"),
    ] {
        let mut req = vec!["req"];
        req.extend(ec);
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let subj = format!("/CN=nlpcrawl test {name}");
        req.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
        openssl(dir, &req);
        let extfile = format!("{name}.ext");
        std::fs::write(dir.join(&extfile), ext).expect("extensions file");
        let pem = format!("{name}.pem");
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                &pem,
                "-days",
                "2",
                "-extfile",
                &extfile,
            ],
        );
    }
    let users = users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let pw = format!("pw-{u}-{i}-{}", std::process::id());
            let file = dir.join(format!("{u}.password"));
            std::fs::write(&file, format!("{pw}\n")).expect("password file");
            (u.to_string(), pw, file)
        })
        .collect();
    let nkey = |name: &str| {
        let k = nkeys::KeyPair::new_user();
        let seed = k.seed().expect("nkey seed");
        let file = dir.join(format!("{name}.nk"));
        std::fs::write(&file, format!("{seed}\n")).expect("nkey seed file");
        (k.public_key(), seed, file)
    };
    let (public, _, seed_file) = nkey("node-nkey");
    let (_, stranger_seed, stranger_file) = nkey("stranger");
    Secure {
        ca: dir.join("ca.pem"),
        cert: dir.join("client.pem"),
        key: dir.join("client.key"),
        server_cert: dir.join("server.pem"),
        server_key: dir.join("server.key"),
        users,
        nkey: (public, seed_file),
        stranger_nkey: (stranger_seed, stranger_file),
    }
}

impl Nats {
    /// Starts `n` servers in one cluster and waits until all are ready.
    /// The ports are picked free and then released, so a test running
    /// beside this one may take one before a server binds it; a server
    /// that exits while starting is therefore tried again, the whole
    /// cluster on fresh ports (its routes name every port), a few times.
    pub fn start(n: usize) -> Nats {
        Nats::start_with(n, &[])
    }

    /// Starts `n` servers that require TLS with client certificates, and
    /// a password of each of `users`, the users of one account with
    /// JetStream.
    pub fn start_secure(n: usize, users: &[&str]) -> Nats {
        Nats::start_with(n, users)
    }

    fn start_with(n: usize, users: &[&str]) -> Nats {
        let mut tries = 0;
        loop {
            let mut c = Nats::on_fresh_ports(n);
            if !users.is_empty() {
                c.secure = Some(make_secure(&c._tmp.path().join("tls"), users));
            }
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
        Nats {
            servers,
            secure: None,
            _tmp: tmp,
        }
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
        let secure = self.secure.as_ref().map(|x| self.config(i, x, &routes));
        let s = &mut self.servers[i];
        std::fs::create_dir_all(&s.dir).expect("server directory");
        let log = s.dir.join("server.log");
        let mut c = Command::new(executable());
        if let Some(conf) = secure {
            let file = s.dir.join("server.conf");
            std::fs::write(&file, conf).expect("server configuration");
            c.arg("-c")
                .arg(&file)
                .arg("-l")
                .arg(&log)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            s.child = Some(c.spawn().expect("start nats-server"));
            return;
        }
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

    /// Server `i`'s configuration in a secured cluster: TLS that verifies
    /// clients, one account with JetStream and a user for each password.
    fn config(&self, i: usize, x: &Secure, routes: &[String]) -> String {
        let s = &self.servers[i];
        let users: Vec<String> = x
            .users
            .iter()
            .map(|(u, pw, _)| format!("      {{ user: \"{u}\", password: \"{pw}\" }}"))
            .collect();
        let users: Vec<String> = users
            .into_iter()
            .chain([format!("      {{ nkey: \"{}\" }}", x.nkey.0)])
            .collect();
        format!(
            r#"server_name: "{name}"
listen: "127.0.0.1:{port}"
http: "127.0.0.1:{monitor}"
jetstream {{
  store_dir: "{dir}"
}}
tls {{
  cert_file: "{cert}"
  key_file: "{key}"
  ca_file: "{ca}"
  verify: true
  timeout: 5
}}
accounts {{
  CRAWL {{
    jetstream: enabled
    users: [
{users}
    ]
  }}
}}
cluster {{
  name: "nlpctest"
  listen: "127.0.0.1:{route}"
  routes: [{routes}]
}}
"#,
            name = s.name,
            port = s.port,
            monitor = s.monitor,
            dir = s.dir.display(),
            cert = x.server_cert.display(),
            key = x.server_key.display(),
            ca = x.ca.display(),
            users = users.join("\n"),
            route = s.route,
            routes = routes
                .iter()
                .map(|r| format!("\"{r}\""))
                .collect::<Vec<_>>()
                .join(", "),
        )
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

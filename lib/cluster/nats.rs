//! How nlpc-relay reaches the NATS cluster: the servers, who this node is
//! to them (a credentials file, an nkey seed file, a token file, or a user
//! with a password file: secrets only ever in files, never on a command
//! line or among the crawl's stored settings), TLS with a CA file and a
//! client certificate, the links stream's limits; and the connection,
//! which tells a cluster that refuses this node (credentials it lacks or
//! that are wrong, TLS it cannot do) from one that is not there yet.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_nats::jetstream::stream::DiscardPolicy;
use async_nats::{Client, ConnectErrorKind, ConnectOptions};

use crate::error::{Error, Result};
use crate::run::options::Parsed;
use crate::web::partition::Partition;

/// How long a JetStream request may take before the round gives up on it,
/// and the one deadline of a batch's acknowledgements.
pub const REQUEST: Duration = Duration::from_secs(5);

/// The largest secret file read: a credentials file is a few hundred bytes.
const MAX_SECRET: u64 = 64 * 1024;

/// Who this node is to the servers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Auth {
    /// Nothing: for a cluster that asks for nothing.
    #[default]
    None,
    /// `--nats-creds`: a user JWT and its nkey seed, as `nsc` writes them.
    Creds(PathBuf),
    /// `--nats-nkey`: a file holding an nkey seed.
    Nkey(PathBuf),
    /// `--nats-token`: a file holding the token.
    Token(PathBuf),
    /// `--nats-user` with `--nats-password`: the name, and the file
    /// holding the password.
    User { name: String, password: PathBuf },
}

/// TLS beyond what the URL asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tls {
    /// `--nats-ca`: the CA certificates the servers' are checked against;
    /// given, TLS is required.
    pub ca: Option<PathBuf>,
    /// `--nats-cert` and `--nats-key`: this node's client certificate.
    pub cert: Option<(PathBuf, PathBuf)>,
}

/// The links stream's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `--nats-max-bytes`.
    pub max_bytes: u64,
    /// `--nats-max-age`; zero for none.
    pub max_age: Duration,
    /// `--nats-max-msg`.
    pub max_msg: u64,
    /// `--nats-discard`: true to drop the oldest links when full, false to
    /// refuse new ones (which then wait in the senders' outboxes).
    pub discard_old: bool,
}

impl Default for Limits {
    /// The table's defaults.
    fn default() -> Limits {
        Limits {
            max_bytes: 1 << 30,
            max_age: Duration::from_secs(30 * 86_400),
            max_msg: 8 << 10,
            discard_old: false,
        }
    }
}

impl Limits {
    pub fn discard(&self) -> DiscardPolicy {
        if self.discard_old {
            DiscardPolicy::Old
        } else {
            DiscardPolicy::New
        }
    }
}

/// What nlpc-relay is told.
#[derive(Clone, Debug)]
pub struct Config {
    pub servers: Vec<String>,
    pub node: Partition,
    pub stat_every: Duration,
    pub auth: Auth,
    pub tls: Tls,
    pub limits: Limits,
}

impl Config {
    /// A node of `servers` with no credentials, no TLS file and the
    /// default limits (the tests' plain cluster).
    pub fn plain(servers: Vec<String>, node: Partition) -> Config {
        Config {
            servers,
            node,
            stat_every: Duration::from_secs(60),
            auth: Auth::None,
            tls: Tls::default(),
            limits: Limits::default(),
        }
    }

    pub fn from_options(o: &Parsed) -> Result<Config> {
        let servers = o.list("nats");
        if servers.is_empty() {
            return Err(Error::Usage(
                "give the NATS servers with --nats nats://HOST:PORT,...".into(),
            ));
        }
        let node = o
            .text("node")
            .ok_or_else(|| Error::Usage("--nats needs --node I/N".into()))?;
        let node = Partition::parse(&node).map_err(|e| Error::Usage(format!("--node {e}")))?;
        let path = |k: &str| o.path(k).filter(|p| !p.as_os_str().is_empty());
        let user = o.text("nats-user").filter(|u| !u.is_empty());
        let mut given: Vec<(&str, Auth)> = Vec::new();
        if let Some(p) = path("nats-creds") {
            given.push(("--nats-creds", Auth::Creds(p)));
        }
        if let Some(p) = path("nats-nkey") {
            given.push(("--nats-nkey", Auth::Nkey(p)));
        }
        if let Some(p) = path("nats-token") {
            given.push(("--nats-token", Auth::Token(p)));
        }
        match (user, path("nats-password")) {
            (Some(name), Some(password)) => {
                given.push(("--nats-user", Auth::User { name, password }))
            }
            (Some(_), None) => {
                return Err(Error::Usage(
                    "--nats-user needs --nats-password FILE".into(),
                ))
            }
            (None, Some(_)) => {
                return Err(Error::Usage("--nats-password needs --nats-user".into()))
            }
            (None, None) => {}
        }
        if given.len() > 1 {
            let names: Vec<&str> = given.iter().map(|(n, _)| *n).collect();
            return Err(Error::Usage(format!(
                "{}: give one way of proving who this node is",
                names.join(" and ")
            )));
        }
        let auth = given.pop().map(|(_, a)| a).unwrap_or_default();
        let cert = match (path("nats-cert"), path("nats-key")) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            (Some(_), None) => return Err(Error::Usage("--nats-cert needs --nats-key".into())),
            (None, Some(_)) => return Err(Error::Usage("--nats-key needs --nats-cert".into())),
        };
        let discard_old = match o.text("nats-discard").as_deref() {
            None | Some("new") => false,
            Some("old") => true,
            Some(x) => {
                return Err(Error::Usage(format!(
                    "--nats-discard: {x:?}: give new or old"
                )))
            }
        };
        let max_msg = o.size("nats-max-msg")?;
        if !(1024..=1 << 20).contains(&max_msg) {
            return Err(Error::Usage(format!(
                "--nats-max-msg: {max_msg} bytes: give 1k to 1M (a link is its URL and 6 bytes)"
            )));
        }
        Ok(Config {
            servers,
            node,
            stat_every: o.duration("stat-every")?,
            auth,
            tls: Tls {
                ca: path("nats-ca"),
                cert,
            },
            limits: Limits {
                max_bytes: o.size("nats-max-bytes")?,
                max_age: o.duration("nats-max-age")?,
                max_msg,
                discard_old,
            },
        })
    }

    /// JetStream copies: one per server, at most 3 (a majority survives
    /// the loss of one).
    pub fn replicas(&self) -> usize {
        self.servers.len().clamp(1, 3)
    }

    /// The servers, as logged.
    pub fn shown(&self) -> String {
        crate::run::log::redact(&self.servers.join(",")).into_owned()
    }
}

/// The secret in file `p`, without the line end; its content is never
/// part of an error.
fn secret(p: &Path, what: &str) -> Result<String> {
    use std::io::Read;
    let f = std::fs::File::open(p).map_err(|e| Error::io(p, "cannot read", e))?;
    let mut s = String::new();
    f.take(MAX_SECRET + 1)
        .read_to_string(&mut s)
        .map_err(|e| Error::io(p, "cannot read", e))?;
    if s.len() as u64 > MAX_SECRET {
        return Err(Error::Usage(format!(
            "{}: longer than {MAX_SECRET} bytes; is it the {what}?",
            p.display()
        )));
    }
    let s = s.trim().to_string();
    if s.is_empty() {
        return Err(Error::Usage(format!(
            "{}: empty; it should hold the {what}",
            p.display()
        )));
    }
    Ok(s)
}

/// The client's options for `cfg`: credentials read from their files now,
/// TLS files named (the client reads them as it connects).
pub fn options(cfg: &Config) -> Result<ConnectOptions> {
    let mut o = ConnectOptions::new();
    o = match &cfg.auth {
        Auth::None => o,
        Auth::Creds(p) => {
            // Read here, so a missing file is named as such.
            let creds = secret(p, "NATS credentials")?;
            o.credentials(&creds).map_err(|e| {
                Error::Usage(format!(
                    "{}: not a NATS credentials file ({})",
                    p.display(),
                    e.kind()
                ))
            })?
        }
        Auth::Nkey(p) => o.nkey(secret(p, "nkey seed")?),
        Auth::Token(p) => o.token(secret(p, "token")?),
        Auth::User { name, password } => {
            o.user_and_password(name.clone(), secret(password, "password")?)
        }
    };
    if let Some(ca) = &cfg.tls.ca {
        if !ca.is_file() {
            return Err(Error::Usage(format!(
                "--nats-ca {}: no such file",
                ca.display()
            )));
        }
        o = o.add_root_certificates(ca.clone()).require_tls(true);
    }
    if let Some((c, k)) = &cfg.tls.cert {
        for p in [c, k] {
            if !p.is_file() {
                return Err(Error::Usage(format!("{}: no such file", p.display())));
            }
        }
        o = o.add_client_certificate(c.clone(), k.clone());
    }
    Ok(o)
}

/// The server addresses of `cfg`.
pub fn addrs(cfg: &Config) -> Result<Vec<async_nats::ServerAddr>> {
    cfg.servers
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|e| Error::Usage(format!("NATS: {}: {e}", crate::run::log::redact(s))))
        })
        .collect()
}

/// What a failed connection says about this node: `Err` when the cluster
/// refuses it (no point trying again: the line says what to give), `Ok`
/// with the error's words when it may only not be there yet.
pub fn refusal(cfg: &Config, e: &async_nats::ConnectError) -> Result<String> {
    let servers = cfg.shown();
    match e.kind() {
        ConnectErrorKind::AuthorizationViolation | ConnectErrorKind::Authentication => {
            let hint = match cfg.auth {
                Auth::None => "the cluster asks for credentials this node does not have: give --nats-user with --nats-password FILE, --nats-token FILE, --nats-nkey FILE or --nats-creds FILE",
                _ => "the cluster refuses this node's credentials: check the file given",
            };
            Err(Error::Input(format!("NATS {servers}: {e}: {hint}")))
        }
        // A failed handshake may come as an I/O error with rustls's words.
        ConnectErrorKind::Io if is_handshake(&e.to_string()) => tls_refusal(cfg, e),
        ConnectErrorKind::Tls => tls_refusal(cfg, e),
        _ => Ok(e.to_string()),
    }
}

/// True when a connection error's words are those of a TLS handshake
/// that failed.
fn is_handshake(why: &str) -> bool {
    let w = why.to_ascii_lowercase();
    ["certificate", "handshake", "tls", "unknownissuer"]
        .iter()
        .any(|k| w.contains(k))
}

fn tls_refusal(cfg: &Config, e: &async_nats::ConnectError) -> Result<String> {
    let hint = match (&cfg.tls.ca, &cfg.tls.cert) {
        (None, _) => "if the servers use TLS with their own CA, give it with --nats-ca FILE",
        (Some(_), None) => "if the servers verify clients, give --nats-cert and --nats-key",
        _ => "check --nats-ca, --nats-cert and --nats-key",
    };
    Err(Error::Input(format!(
        "NATS {}: TLS failed ({e}): {hint}",
        cfg.shown()
    )))
}

/// One try to connect, for nlpcd before it starts anything: Err when the
/// cluster refuses this node, in one line; Ok when it let this node in or
/// could not be reached (nlpc-relay then keeps trying).
pub fn probe(cfg: &Config) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("tokio", "cannot start the NATS runtime", e))?;
    let opts = options(cfg)?
        .name(format!("nlpcd {} (checking credentials)", cfg.node))
        .connection_timeout(REQUEST);
    let addrs = addrs(cfg)?;
    let r: std::result::Result<Client, _> = rt.block_on(opts.connect(addrs));
    match r {
        Ok(c) => {
            let _ = rt.block_on(c.drain());
            Ok(())
        }
        Err(e) => refusal(cfg, &e).map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::options::{Parser, Program};

    fn cfg(args: &[&str]) -> Result<Config> {
        let mut a: Vec<std::ffi::OsString> = vec!["--nats".into(), "nats://n1:4222".into()];
        a.extend(["--node".into(), "0/2".into()]);
        a.extend(args.iter().map(|s| s.into()));
        let o = Parser::new(Program::Relay)
            .parse(&a)
            .map_err(|_| Error::Usage("parse".into()))?;
        Config::from_options(&o)
    }

    #[test]
    fn one_way_of_proving_who_this_node_is() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.auth, Auth::None);
        assert_eq!(c.limits, Limits::default());
        let c = cfg(&["--nats-user", "n0", "--nats-password", "/p"]).unwrap();
        assert_eq!(
            c.auth,
            Auth::User {
                name: "n0".into(),
                password: "/p".into()
            }
        );
        assert!(cfg(&["--nats-user", "n0"]).is_err());
        assert!(cfg(&["--nats-password", "/p"]).is_err());
        let e = cfg(&["--nats-token", "/t", "--nats-creds", "/c"]).unwrap_err();
        assert!(
            e.to_string().contains("--nats-creds and --nats-token"),
            "{e}"
        );
        assert!(cfg(&["--nats-cert", "/c"]).is_err());
        let c = cfg(&["--nats-ca", "/ca", "--nats-cert", "/c", "--nats-key", "/k"]).unwrap();
        assert_eq!(c.tls.cert, Some(("/c".into(), "/k".into())));
        assert!(cfg(&["--nats-discard", "both"]).is_err());
        assert!(cfg(&["--nats-max-msg", "100"]).is_err());
        let c = cfg(&["--nats-discard", "old", "--nats-max-age", "0"]).unwrap();
        assert!(c.limits.discard_old);
        assert_eq!(c.limits.max_age, Duration::ZERO);
    }

    #[test]
    fn a_secret_is_read_trimmed_and_never_shown() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("pw");
        std::fs::write(&p, "s3cr3t\n").unwrap();
        assert_eq!(secret(&p, "password").unwrap(), "s3cr3t");
        std::fs::write(&p, "\n").unwrap();
        let e = secret(&p, "password").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        std::fs::write(&p, "x".repeat(70_000)).unwrap();
        let e = secret(&p, "password").unwrap_err().to_string();
        assert!(!e.contains("xxx"), "{e}");
        assert!(secret(&d.path().join("none"), "token").is_err());
    }
}

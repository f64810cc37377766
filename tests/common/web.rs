//! The test web of scripts/testweb, for whole-crawl tests: gen.py writes
//! the pages, an nginx and a dnsmasq configuration and the ground truth of
//! a correct Latvian crawl; scripts/testweb/serve runs nginx and dnsmasq on
//! loopback; this reads the truth and nginx's access log back. The demo
//! and the benchmarks use the same generator and the same server script.
//!
//! nginx and dnsmasq come from Debian (nginx-light, dnsmasq-base); .ci/run
//! installs them, and without them a test fails rather than skips.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::stderr;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/testweb")
        .join(name)
}

fn installed(prog: &str) -> bool {
    ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        .iter()
        .any(|d| Path::new(d).join(prog).exists())
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// One line of truth/outcomes.txt: what a correct crawl makes of a URL it
/// does not verify.
#[derive(Debug)]
pub struct Outcome {
    pub url: String,
    /// The record's state, as nlpc-list names it.
    pub state: String,
    /// What the record's reason contains (may be empty).
    pub reason: String,
}

/// One request in nginx's access log (the generator's log format).
#[derive(Debug)]
pub struct Hit {
    pub url: String,
    pub status: u16,
    pub bytes: u64,
    pub agent: String,
}

/// A generated web, served until dropped (also when the test fails).
pub struct Web {
    /// What gen.py wrote (web.json, truth/, logs/).
    pub dir: PathBuf,
    pub port: u64,
    pub nameserver: String,
    pub filter_lang: String,
    pub filter_charset: String,
    pub seeds: Vec<String>,
    /// What a correct crawl verifies, the trap aside.
    pub verified: BTreeSet<String>,
    /// Every URL a correct crawl requests, robots.txt aside.
    pub requested: BTreeSet<String>,
    /// Linked URLs robots.txt disallows.
    pub forbidden: BTreeSet<String>,
    pub outcomes: Vec<Outcome>,
    /// The calendar trap's URL prefix, and the most of its pages a crawl
    /// bounded by nlpc-scan's defaults verifies.
    pub trap: (String, usize),
    /// Generator's summary line.
    pub summary: String,
    // Last, so the web is stopped before its directory goes.
    tmp: tempfile::TempDir,
}

impl Web {
    /// The small web of the nlpcd tests: 6 hosts of 12 pages on
    /// 127.0.0.`base` to `base`+2, its DNS server on 127.0.0.`base`, pages
    /// of 2 to 4 KB. Seed 3 has pages of every kind the tests ask about (a
    /// KOI8-R one too).
    pub fn start(base: u8) -> Web {
        Web::generate(
            base,
            &[
                "--hosts", "6", "--pages", "12", "--max-kb", "4", "--seed", "3",
            ],
        )
    }

    /// Generates a web with gen.py's `args` on addresses from 127.0.0.`base`
    /// (2 virtual hosts each), its DNS server on 127.0.0.`base`, and serves
    /// it. Tests that run at once give distinct bases, so no two nginx or
    /// dnsmasq can want the same address and port.
    pub fn generate(base: u8, args: &[&str]) -> Web {
        for (prog, pkg) in [("nginx", "nginx-light"), ("dnsmasq", "dnsmasq-base")] {
            assert!(
                installed(prog),
                "{prog} is not installed: apt-get install {pkg} (make test does)"
            );
        }
        let tmp = tempfile::tempdir().expect("temporary directory");
        let dir = tmp.path().join("web");
        let addr = format!("127.0.0.{base}");
        let gen = Command::new("python3")
            .arg(script("gen.py"))
            .arg("--out")
            .arg(&dir)
            .args(["--addr-base", &addr, "--dns-addr", &addr])
            .args(args)
            .output()
            .expect("run python3 scripts/testweb/gen.py");
        assert!(gen.status.success(), "gen.py failed: {}", stderr(&gen));
        let summary = String::from_utf8_lossy(&gen.stdout).trim().to_string();
        let info: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("web.json")).expect("web.json"))
                .expect("web.json is JSON");
        let field = |k: &str| {
            info[k]
                .as_str()
                .unwrap_or_else(|| panic!("web.json: no {k}"))
                .to_string()
        };
        let truth = |name: &str| lines(&dir.join("truth").join(name));
        let trap = truth("trap.txt");
        let (prefix, max) = trap
            .first()
            .and_then(|l| l.split_once('\t'))
            .expect("trap.txt: prefix TAB max");
        let outcomes = truth("outcomes.txt")
            .iter()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 3, "odd outcomes.txt line {l:?}");
                Outcome {
                    url: f[0].into(),
                    state: f[1].into(),
                    reason: f[2].into(),
                }
            })
            .collect();
        let web = Web {
            port: info["port"].as_u64().expect("web.json: port"),
            nameserver: field("nameserver"),
            filter_lang: field("filter_lang"),
            filter_charset: field("filter_charset"),
            seeds: truth("seeds.txt"),
            verified: truth("verified.txt").into_iter().collect(),
            requested: truth("requested.txt").into_iter().collect(),
            forbidden: truth("forbidden.txt").into_iter().collect(),
            outcomes,
            trap: (prefix.to_string(), max.parse().expect("trap max")),
            summary,
            dir,
            tmp,
        };
        let out = Command::new(script("serve"))
            .arg("start")
            .arg(&web.dir)
            .output()
            .expect("run scripts/testweb/serve");
        // Dropping `web` now stops whichever of the two did start.
        assert!(out.status.success(), "serve start failed: {}", stderr(&out));
        web
    }

    /// The first seed.
    pub fn seed(&self) -> &str {
        &self.seeds[0]
    }

    /// The nlpcd options that crawl this web: its DNS server, private
    /// addresses allowed, no politeness rest (loopback), its filters, and
    /// no tunnelling: the generator's truth is the strict focused crawl's
    /// (tunnelling is tested in tests/scope.rs).
    pub fn nlpcd_args(&self) -> Vec<String> {
        [
            "--nameserver",
            &self.nameserver,
            "--allow-private",
            "--fetch-polite",
            "0",
            "--filter-tunnel",
            "0",
            "--filter-lang",
            &self.filter_lang,
            "--filter-charset",
            &self.filter_charset,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// Every request nginx has logged so far.
    pub fn hits(&self) -> Vec<Hit> {
        std::fs::read_to_string(self.dir.join("logs/access.log"))
            .expect("access log")
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert!(f.len() >= 7, "odd access log line {l:?}");
                Hit {
                    url: format!("http://{}:{}{}", f[0], self.port, f[2]),
                    status: f[3].parse().expect("status"),
                    bytes: f[4].parse().expect("bytes"),
                    agent: f[6].to_string(),
                }
            })
            .collect()
    }

    /// Every URL requested so far, robots.txt aside.
    pub fn requests(&self) -> BTreeSet<String> {
        self.hits()
            .into_iter()
            .map(|h| h.url)
            .filter(|u| !u.ends_with("/robots.txt"))
            .collect()
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = Command::new(script("serve"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// What differs between two sets, for a failure message.
pub fn diff(got: &BTreeSet<String>, want: &BTreeSet<String>) -> String {
    let missing: Vec<_> = want.difference(got).collect();
    let extra: Vec<_> = got.difference(want).collect();
    format!("missing {missing:#?}\nextra {extra:#?}")
}

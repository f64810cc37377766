//! `nlpcd --once` with the Latvian filters over the test web of
//! scripts/testweb: nginx on several loopback addresses with several virtual
//! hosts each, names from dnsmasq on a loopback port. The verified pages must
//! be the generator's ground truth, the requests in nginx's access log
//! exactly those a correct crawl makes (nothing robots.txt disallows, the
//! calendar trap bounded), and the harvest rate and the bytes spent on
//! rejected pages are printed.
//!
//! nginx and dnsmasq come from Debian (nginx-light, dnsmasq-base); .ci/run
//! installs them, and without them this test fails rather than skips.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use nlpcrawl::store::record::State;

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

/// The served web; stopped when dropped, also when the test fails.
struct Served(PathBuf);

impl Served {
    fn start(dir: &Path) -> Served {
        let out = Command::new(script("serve"))
            .arg("start")
            .arg(dir)
            .output()
            .expect("run scripts/testweb/serve");
        assert!(out.status.success(), "serve start failed: {}", stderr(&out));
        Served(dir.to_path_buf())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = Command::new(script("serve"))
            .arg("stop")
            .arg(&self.0)
            .status();
    }
}

fn lines(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// What differs between two sets, for a failure message.
fn diff(got: &BTreeSet<String>, want: &BTreeSet<String>) -> String {
    let missing: Vec<_> = want.difference(got).collect();
    let extra: Vec<_> = got.difference(want).collect();
    format!("missing {missing:#?}\nextra {extra:#?}")
}

/// One request in nginx's access log (the generator's log format).
struct Hit {
    url: String,
    status: u16,
    bytes: u64,
    agent: String,
}

fn access_log(dir: &Path, port: u64) -> Vec<Hit> {
    std::fs::read_to_string(dir.join("logs/access.log"))
        .expect("access log")
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 7, "odd access log line {l:?}");
            Hit {
                url: format!("http://{}:{port}{}", f[0], f[2]),
                status: f[3].parse().expect("status"),
                bytes: f[4].parse().expect("bytes"),
                agent: f[6].to_string(),
            }
        })
        .collect()
}

#[test]
fn nlpcd_crawls_the_test_web_as_the_ground_truth_says() {
    for (prog, pkg) in [("nginx", "nginx-light"), ("dnsmasq", "dnsmasq-base")] {
        assert!(
            installed(prog),
            "{prog} is not installed: apt-get install {pkg} (.ci/run does)"
        );
    }
    let c = Crawl::new();
    let dir = c.tmp.path().join("web");
    let gen = Command::new("python3")
        .arg(script("gen.py"))
        .arg("--out")
        .arg(&dir)
        .args(["--hosts", "6", "--pages", "30", "--seed", "1"])
        .output()
        .expect("run python3 scripts/testweb/gen.py");
    assert!(gen.status.success(), "gen.py failed: {}", stderr(&gen));
    println!("{}", stdout(&gen).trim());
    let web: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("web.json")).expect("web.json"))
            .expect("web.json is JSON");
    let port = web["port"].as_u64().expect("port");
    let _served = Served::start(&dir);

    let mut cmd = c.cmd("nlpcd");
    cmd.args(["--once", "--allow-private", "--fetch-polite", "0"])
        .args(["--nameserver", web["nameserver"].as_str().unwrap()])
        .args(["--filter-lang", web["filter_lang"].as_str().unwrap()])
        .args(["--filter-charset", web["filter_charset"].as_str().unwrap()])
        .args(lines(&dir.join("truth/seeds.txt")));
    let started = Instant::now();
    let mut child = spawn(cmd);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("nlpcd --once did not finish in 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().expect("nlpcd output");
    assert!(status.success(), "nlpcd failed: {}", stderr(&out));
    let secs = started.elapsed().as_secs_f64();

    let st = c.store();
    assert_consistent(&st, true);
    let mut verified: BTreeSet<String> = urls_in(&st, State::Verified).into_iter().collect();
    verified.extend(urls_in(&st, State::Scanned));

    // The calendar trap: Latvian pages for ever, bounded by nlpc-scan.
    let trap = std::fs::read_to_string(dir.join("truth/trap.txt")).expect("trap.txt");
    let (prefix, max) = trap.trim().split_once('\t').expect("prefix TAB max");
    let max: usize = max.parse().expect("trap max");
    let trapped = verified.iter().filter(|u| u.starts_with(prefix)).count();
    assert!(
        (1..=max).contains(&trapped),
        "{trapped} trap pages verified; a bounded crawl verifies 1 to {max}"
    );
    let outside: BTreeSet<String> = verified
        .iter()
        .filter(|u| !u.starts_with(prefix))
        .cloned()
        .collect();
    let truth = lines(&dir.join("truth/verified.txt"));
    assert!(
        outside == truth,
        "verified pages differ from the ground truth:\n{}",
        diff(&outside, &truth)
    );

    let hits = access_log(&dir, port);
    let forbidden = lines(&dir.join("truth/forbidden.txt"));
    let bad: Vec<&str> = hits
        .iter()
        .map(|h| h.url.as_str())
        .filter(|u| forbidden.contains(*u))
        .collect();
    assert!(
        bad.is_empty(),
        "robots.txt disallows what was requested: {bad:#?}"
    );
    for h in &hits {
        assert!(
            h.agent.starts_with("nlpcrawl/"),
            "a request not from nlpcrawl: {}",
            h.agent
        );
    }
    let pages: Vec<&Hit> = hits
        .iter()
        .filter(|h| !h.url.ends_with("/robots.txt"))
        .collect();
    let mut times: BTreeMap<&str, usize> = BTreeMap::new();
    for h in &pages {
        *times.entry(&h.url).or_default() += 1;
    }
    let twice: Vec<_> = times.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:#?}");
    let requested: BTreeSet<String> = times.keys().map(|u| u.to_string()).collect();
    let want = lines(&dir.join("truth/requested.txt"));
    assert!(
        requested == want,
        "the requests differ from those of a correct crawl:\n{}",
        diff(&requested, &want)
    );

    let rejected: Vec<&&Hit> = pages
        .iter()
        .filter(|h| h.status == 200 && !verified.contains(&h.url))
        .collect();
    let total: u64 = pages.iter().map(|h| h.bytes).sum();
    let wasted: u64 = rejected.iter().map(|h| h.bytes).sum();
    println!(
        "testweb: {} pages verified ({trapped} of them in the trap, at most {max}) of {} fetched: \
         harvest rate {:.0}%; {} bytes of {} sent for {} pages rejected ({:.0}%); \
         {} robots.txt requests; {secs:.1} s",
        verified.len(),
        pages.len(),
        verified.len() as f64 / pages.len() as f64 * 100.0,
        wasted,
        total,
        rejected.len(),
        wasted as f64 / total.max(1) as f64 * 100.0,
        hits.len() - pages.len(),
    );
}

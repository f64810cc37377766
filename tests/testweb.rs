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
use std::time::{Duration, Instant};

use common::web::{diff, Hit, Web};
use common::*;
use nlpcrawl::store::record::State;

#[test]
fn nlpcd_crawls_the_test_web_as_the_ground_truth_says() {
    let web = Web::generate(100, &["--hosts", "6", "--pages", "30", "--seed", "1"]);
    println!("{}", web.summary);
    let c = Crawl::new();

    let mut cmd = c.cmd("nlpcd");
    cmd.arg("--once").args(web.nlpcd_args()).args(&web.seeds);
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
    let (prefix, max) = (web.trap.0.as_str(), web.trap.1);
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
    assert!(
        outside == web.verified,
        "verified pages differ from the ground truth:\n{}",
        diff(&outside, &web.verified)
    );

    let hits = web.hits();
    let bad: Vec<&str> = hits
        .iter()
        .map(|h| h.url.as_str())
        .filter(|u| web.forbidden.contains(*u))
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
    assert!(
        requested == web.requested,
        "the requests differ from those of a correct crawl:\n{}",
        diff(&requested, &web.requested)
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

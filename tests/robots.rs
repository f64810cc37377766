//! robots.txt parsing and matching per RFC 9309, case by case.

use std::time::Duration;

use nlpcrawl::web::robots::{Entry, Robots};

/// (robots.txt, path with query, allowed?)
const CASES: &[(&str, &str, bool)] = &[
    // 2.2.1: our product token selects our group over "*".
    ("User-agent: *\nDisallow: /\n\nUser-agent: nlpcrawl\nDisallow: /x\n", "/a", true),
    ("User-agent: *\nDisallow: /\n\nUser-agent: nlpcrawl\nDisallow: /x\n", "/x/y", false),
    // Matching is case-insensitive, and a version after the token is fine.
    ("User-agent: NLPCrawl\nDisallow: /x\n", "/x", false),
    ("User-agent: nlpcrawl/0.1\nDisallow: /x\n", "/x", false),
    // Another crawler's group is not ours.
    ("User-agent: nlpcrawler\nDisallow: /\n", "/x", true),
    ("User-agent: otherbot\nDisallow: /\n", "/x", true),
    // Without our group, "*" applies; without either, everything is allowed.
    ("User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n", "/private/a", false),
    ("User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n", "/public", true),
    // Several user-agent lines share one group; blank lines do not end it.
    ("User-agent: a\n\nUser-agent: nlpcrawl\nUser-agent: b\nDisallow: /shared\n", "/shared", false),
    // Two groups for us are merged.
    ("User-agent: nlpcrawl\nDisallow: /one\n\nUser-agent: x\nDisallow: /\n\nUser-agent: nlpcrawl\nDisallow: /two\n", "/two", false),
    ("User-agent: nlpcrawl\nDisallow: /one\n\nUser-agent: x\nDisallow: /\n\nUser-agent: nlpcrawl\nDisallow: /two\n", "/one", false),
    // 2.2.2: the longest match wins; Allow wins a tie.
    ("User-agent: *\nDisallow: /folder\nAllow: /folder/page\n", "/folder/page", true),
    ("User-agent: *\nDisallow: /folder\nAllow: /folder/page\n", "/folder/other", false),
    ("User-agent: *\nAllow: /folder/page\nDisallow: /folder/page.html\n", "/folder/page.html", false),
    ("User-agent: *\nDisallow: /same\nAllow: /same\n", "/same", true),
    ("User-agent: *\nAllow: /same\nDisallow: /same\n", "/same", true),
    // An empty Disallow disallows nothing.
    ("User-agent: *\nDisallow:\n", "/anything", true),
    // 2.2.3: "*" matches any run, "$" the end.
    ("User-agent: *\nDisallow: /*.gif\n", "/img/a.gif", false),
    ("User-agent: *\nDisallow: /*.gif\n", "/img/a.gifs", false),
    ("User-agent: *\nDisallow: /*.php$\n", "/index.php", false),
    ("User-agent: *\nDisallow: /*.php$\n", "/index.php?x=1", true),
    ("User-agent: *\nDisallow: /*.php$\n", "/index.phps", true),
    ("User-agent: *\nDisallow: /fish*\n", "/fishheads", false),
    ("User-agent: *\nDisallow: /fish\n", "/Fish.asp", true),
    ("User-agent: *\nDisallow: /*?\n", "/page?q=1", false),
    ("User-agent: *\nDisallow: /*?\n", "/page", true),
    ("User-agent: *\nAllow: /$\nDisallow: /\n", "/", true),
    ("User-agent: *\nAllow: /$\nDisallow: /\n", "/page", false),
    // 2.2.2: percent-encoding compares octets, encoded or not.
    ("User-agent: *\nDisallow: /%7Ejoe\n", "/~joe/index.html", false),
    ("User-agent: *\nDisallow: /~joe\n", "/%7Ejoe/index.html", false),
    ("User-agent: *\nDisallow: /ä\n", "/%C3%A4/x", false),
    ("User-agent: *\nDisallow: /%c3%a4\n", "/%C3%A4", false),
    ("User-agent: *\nDisallow: /a%2Fb\n", "/a/b", true),
    // Query strings are part of the match.
    ("User-agent: *\nDisallow: /search?q=\n", "/search?q=lv", false),
    ("User-agent: *\nDisallow: /search?q=\n", "/search", true),
    // 2.2.2: /robots.txt itself is always allowed.
    ("User-agent: *\nDisallow: /\n", "/robots.txt", true),
    // Rules before any user-agent line belong to no group.
    ("Disallow: /\nUser-agent: *\nDisallow: /x\n", "/y", true),
    // Keys are case-insensitive; comments and junk lines are skipped.
    ("USER-AGENT: *  # all\nDISALLOW: /x # no\nthis is not a rule\n", "/x", false),
    // A byte-order mark does not hide the first line.
    ("\u{feff}User-agent: *\nDisallow: /x\n", "/x", false),
    // CR LF line ends.
    ("User-agent: *\r\nDisallow: /x\r\n", "/x", false),
];

#[test]
fn rfc9309_cases() {
    for (i, (txt, path, want)) in CASES.iter().enumerate() {
        let r = Robots::parse(txt.as_bytes());
        assert_eq!(r.allowed(path), *want, "case {i}: {path} with\n{txt}");
    }
}

#[test]
fn only_the_first_500_kib_are_read() {
    let mut txt = String::from("User-agent: *\n");
    while txt.len() < 600 * 1024 {
        txt.push_str("# padding padding padding padding padding padding padding\n");
    }
    txt.push_str("Disallow: /late\n");
    assert!(Robots::parse(txt.as_bytes()).allowed("/late"));
    let early = format!("User-agent: *\nDisallow: /early\n{txt}");
    assert!(!Robots::parse(early.as_bytes()).allowed("/early"));
}

#[test]
fn status_codes_per_rfc9309() {
    let e = |status: u16| Entry {
        origin: "http://h".into(),
        fetched: 0,
        expires: 1,
        status,
        body: b"User-agent: *\nDisallow: /\n".to_vec(),
    };
    assert!(!e(200).robots().allowed("/x"));
    for s in [401, 403, 404, 410] {
        assert!(e(s).robots().allowed("/x"), "{s} must allow all");
    }
    for s in [0, 500, 503] {
        let r = e(s).robots();
        assert!(r.denies_all() && !r.allowed("/x"), "{s} must disallow all");
    }
}

#[test]
fn draft_extensions_and_sitemaps() {
    let r = Robots::parse(
        b"Sitemap: http://h/sitemap.xml\nUser-agent: *\nCrawl-delay: 7\n\nUser-agent: nlpcrawl\nCrawl-delay: 2.5\nRequest-rate: 1/10\nVisit-time: 0100-0600\nSitemap: http://h/other.xml\n",
    );
    assert_eq!(r.crawl_delay, Some(Duration::from_millis(2500)));
    assert_eq!(r.request_interval, Some(Duration::from_secs(10)));
    assert_eq!(r.delay(), Some(Duration::from_secs(10)));
    assert!(r.visit_allowed(120));
    assert!(!r.visit_allowed(420));
    assert_eq!(r.sitemaps, ["http://h/sitemap.xml", "http://h/other.xml"]);
    // A window that wraps past midnight.
    let w = Robots::parse(b"User-agent: *\nVisit-time: 2200-0200\n");
    assert!(w.visit_allowed(23 * 60) && w.visit_allowed(60) && !w.visit_allowed(12 * 60));
    // Another group's Crawl-delay is not ours.
    let other =
        Robots::parse(b"User-agent: otherbot\nCrawl-delay: 30\n\nUser-agent: *\nDisallow: /x\n");
    assert_eq!(other.delay(), None);
}

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
    // 2.2: a lone CR ends a line too, also mixed with the others.
    ("User-agent: *\rDisallow: /x\r", "/x", false),
    ("User-agent: *\rDisallow: /x\r", "/y", true),
    ("User-agent: nlpcrawl\r\nDisallow: /a\rDisallow: /b\nAllow: /b/c\r", "/b/d", false),
    ("User-agent: nlpcrawl\r\nDisallow: /a\rDisallow: /b\nAllow: /b/c\r", "/b/c", true),
    ("User-agent: other\rDisallow: /\r\rUser-agent: nlpcrawl\rDisallow: /x\r", "/y", true),
    // 2.2 and 2.2.4: only a rule ends the user-agent lines of a group; a
    // line we do not know, a Sitemap line, an extension or a comment
    // between them does not start a new group.
    ("User-agent: nlpcrawl\nUnknown-field: 1\nUser-agent: other\nDisallow: /x\n", "/x", false),
    ("User-agent: nlpcrawl\nSitemap: http://h/s.xml\nUser-agent: other\nDisallow: /x\n", "/x", false),
    ("User-agent: nlpcrawl\n# note\nUser-agent: other\nDisallow: /x\n", "/x", false),
    // ... nor do they end the rules of a group.
    ("User-agent: *\nDisallow: /a\nSitemap: http://h/s.xml\nDisallow: /b\n", "/b", false),
    ("User-agent: *\nDisallow: /a\nUnknown-field: 1\nDisallow: /b\n", "/b", false),
    // A rule does end them: the next user-agent line opens a new group. So
    // does an extension we read (Crawl-delay, Request-rate, Visit-time): it
    // is a record of the group before it.
    ("User-agent: nlpcrawl\nCrawl-delay: 1\nUser-agent: other\nDisallow: /x\n", "/x", true),
    ("User-agent: nlpcrawl\nDisallow: /a\nUser-agent: other\nDisallow: /x\n", "/x", true),
    ("User-agent: nlpcrawl\nDisallow:\nUser-agent: other\nDisallow: /\n", "/x", true),
    // 2.2.1: the product token of a value is its leading letters, "_" and
    // "-", compared without regard to case.
    ("User-agent: nlpcrawl;v2\nDisallow: /x\n", "/x", false),
    ("User-agent: NLPCRAWL 1.0 (Latvian)\nDisallow: /x\n", "/x", false),
    ("User-agent: nlpcrawl-beta\nDisallow: /\n", "/x", true),
    ("User-agent: nlp\nDisallow: /\n", "/x", true),
    // "*" shares a group with other agents; several "*" groups merge.
    ("User-agent: other\nUser-agent: *\nDisallow: /x\n", "/x", false),
    ("User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "/b", false),
    ("User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "/a", false),
    // Our group, even one that allows everything, replaces "*".
    ("User-agent: nlpcrawl\nAllow: /\n\nUser-agent: *\nDisallow: /\n", "/x", true),
    ("User-agent: nlpcrawl\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "/x", true),
    ("User-agent: *\nDisallow: /\n\nUser-agent: nlpcrawl\n", "/x", true),
    // A user-agent line directly before "*" joins its group.
    ("User-agent: nlpcrawl\n\nUser-agent: *\nDisallow: /\n", "/x", false),
    // 2.2.2: the longest pattern wins, wildcards counted as written.
    ("User-agent: *\nAllow: /page\nDisallow: /*.html\n", "/page.html", false),
    ("User-agent: *\nAllow: /page*\nDisallow: /page\n", "/page.html", true),
    // 2.2.3: "$" other than at the end, and "%2A" and "%24", are the
    // characters themselves.
    ("User-agent: *\nDisallow: /a$b\n", "/a$b", false),
    ("User-agent: *\nDisallow: /a$b\n", "/a", true),
    ("User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "/path/file-with-a-*.html", false),
    ("User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "/path/file-with-a-x.html", true),
    ("User-agent: *\nDisallow: /price%24\n", "/price$", false),
    ("User-agent: *\nDisallow: /price%24\n", "/price", true),
    // 2.2.2's table: encoded unreserved characters are compared decoded,
    // others and UTF-8 octets encoded.
    ("User-agent: *\nDisallow: /foo/bar/baz\n", "/foo/bar/%62%61%7A", false),
    ("User-agent: *\nDisallow: /foo/bar/\u{30c4}\n", "/foo/bar/%E3%83%84", false),
    ("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "/foo/bar/%e3%83%84", false),
    // Comments anywhere: alone, after a value, inside a path.
    ("# head\nUser-agent: * # everyone\n# between\nDisallow: /x # why\n", "/x", false),
    ("User-agent: *\nDisallow: /a#b\n", "/ab", false),
    ("User-agent: #nobody\nDisallow: /\n", "/x", true),
    // Spaces and tabs around keys, colons and values.
    ("  User-agent  :  *  \n\tDisallow :/x\t\n", "/x", false),
    // A byte-order mark before a lone-CR file.
    ("\u{feff}User-agent: *\rDisallow: /x\r", "/x", false),
];

#[test]
fn rfc9309_cases() {
    let wrong: Vec<String> = CASES
        .iter()
        .enumerate()
        .filter(|(_, (txt, path, want))| Robots::parse(txt.as_bytes()).allowed(path) != *want)
        .map(|(i, (txt, path, want))| {
            format!("case {i}: {path} should be allowed={want} with\n{txt:?}")
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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
fn a_line_cut_by_the_500_kib_limit_is_dropped() {
    // "Allow: /public-area" cut to "Allow: /pub" would allow "/pub".
    let mut txt = String::from("User-agent: *\nDisallow: /\n");
    while txt.len() + 20 < 500 * 1024 - 11 {
        txt.push_str("# padding\n");
    }
    // One comment line that ends exactly 11 bytes before the limit.
    txt.push('#');
    while txt.len() < 500 * 1024 - 12 {
        txt.push('-');
    }
    txt.push('\n');
    let line = "Allow: /public-area\n";
    let cut_at = 500 * 1024 - txt.len();
    txt.push_str(line);
    assert_eq!(
        &line[..cut_at],
        "Allow: /pub",
        "the limit must cut the line"
    );
    let r = Robots::parse(txt.as_bytes());
    assert!(!r.allowed("/pub"));
    assert!(!r.allowed("/public-area"));
    // A line that ends exactly at the limit is whole, and kept.
    let mut whole = String::from("User-agent: *\nDisallow: /\n");
    let last = "Allow: /kept\n";
    while whole.len() < 500 * 1024 - last.len() {
        whole.push('\n');
    }
    whole.push_str(last);
    whole.push_str("Allow: /late\n");
    let r = Robots::parse(whole.as_bytes());
    assert!(r.allowed("/kept"));
    assert!(!r.allowed("/late"));
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
    // Two groups of ours merge: the longer Crawl-delay holds, and the
    // first Visit-time. "*"'s extensions are not ours once we have a group.
    let merged = Robots::parse(
        b"User-agent: *\nCrawl-delay: 60\n\nUser-agent: nlpcrawl\nCrawl-delay: 2\nVisit-time: 0100-0200\nDisallow: /a\n\nUser-agent: nlpcrawl\nCrawl-delay: 5\nVisit-time: 0300-0400\n",
    );
    assert_eq!(merged.delay(), Some(Duration::from_secs(5)));
    assert!(merged.visit_allowed(90) && !merged.visit_allowed(200));
    // A Crawl-delay after user-agent lines is theirs, and ends them; a line
    // we do not know there does not.
    let after = Robots::parse(
        b"User-agent: otherbot\nCrawl-delay: 3\nUser-agent: nlpcrawl\nDisallow: /x\n",
    );
    assert_eq!(after.delay(), None);
    assert!(!after.allowed("/x"));
    let shared = Robots::parse(
        b"User-agent: nlpcrawl\nX-unknown: 1\nUser-agent: otherbot\nCrawl-delay: 3\n",
    );
    assert_eq!(shared.delay(), Some(Duration::from_secs(3)));
    // Crawl-delay longer than Request-rate's interval: the longer wins.
    let longer = Robots::parse(b"User-agent: *\nCrawl-delay: 20\nRequest-rate: 1/5\n");
    assert_eq!(longer.delay(), Some(Duration::from_secs(20)));
}

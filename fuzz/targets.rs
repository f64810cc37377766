// What each fuzz target does to one input, shared by the cargo-fuzz targets
// (fuzz/fuzz_targets/*.rs) and the stable regression test
// (tests/fuzz_regressions.rs), which include!() this file. Only public
// library functions are called; a panic or a failed assertion is a finding.

use nlpcrawl::cluster::check;
use nlpcrawl::document::charset::{self, Kind};
use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::fingerprint::{self, Fingerprint};
use nlpcrawl::document::{lang, text, words};
use nlpcrawl::run::clock;
use nlpcrawl::search::serve::{self, Form};
use nlpcrawl::search::{kwic, query as search_query};
use nlpcrawl::stage::fetch::{expiry, x_robots};
use nlpcrawl::stage::resolve::HostEntry;
use nlpcrawl::stage::vrfy;
use nlpcrawl::store::archive::Version;
use nlpcrawl::store::outbox;
use nlpcrawl::store::record::Record;
use nlpcrawl::store::rep::RepCache;
use nlpcrawl::web::http::{self, HeaderFilter, Headers};
use nlpcrawl::web::admit::Filter;
use nlpcrawl::web::links;
use nlpcrawl::web::partition::Partition;
use nlpcrawl::web::robots::{Entry, Robots};
use nlpcrawl::web::url::{self, Base};

/// html5gum's reading of a document, for the differential target.
mod markup_ref {
    include!("markup_ref.rs");
}

/// What a target does to one input.
pub type Target = fn(&[u8]);

/// Every target, by the name its directories and fuzz binary have.
pub const TARGETS: &[(&str, Target)] = &[
    ("url", url),
    ("robots", robots),
    ("links", links),
    ("charset", charset),
    ("text", text),
    ("record", record),
    ("http", http),
    ("markup", markup),
    ("query", query),
    ("cluster", cluster),
];

const KINDS: [Kind; 4] = [Kind::Html, Kind::Xhtml, Kind::Xml, Kind::Plain];
const LABELS: [&str; 6] = ["", "utf-8", "windows-1257", "utf-16le", "shift_jis", "bogus"];

/// The first byte picks among `n` choices; the rest is the input proper.
fn pick(data: &[u8], n: usize) -> (usize, &[u8]) {
    match data.split_first() {
        Some((&b, rest)) => (b as usize % n, rest),
        None => (0, data),
    }
}

/// The questions the daemons ask of a (normalised or not) URL.
fn url_parts(u: &str) {
    let _ = url::scheme_of(u);
    let _ = url::host_of(u);
    let _ = url::authority_of(u);
    let _ = url::origin_of(u);
    let _ = url::path_of(u);
    let _ = url::path_depth(u);
    let _ = url::max_repeated_segment(u);
    let _ = url::parents(u);
    let _ = url::strip_session_ids(u.to_string());
    let _ = http::port_of(u);
}

/// A base URL on the first line, a reference on the second.
pub fn url(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let (base, reference) = s.split_once('\n').unwrap_or((&s, ""));
    let _ = url::normalise_percent(base);
    url_parts(base);
    url_parts(reference);
    if let Ok(n) = url::normalise(base) {
        url_parts(&n);
        // Two spellings of one resource must give one record. Only http and
        // https become records (the url crate re-reads some file: URLs
        // differently, which does not matter here).
        if matches!(url::scheme_of(&n), "http" | "https") {
            assert_eq!(url::normalise(&n).as_ref(), Ok(&n), "normalise is not idempotent");
            // The key form of the URL as requested is the normalised URL.
            let r = url::request_form(base).unwrap_or_default();
            assert_eq!(url::key_form(&r), n, "the key form of the request form differs");
            // No userinfo is ever kept: it would be sent as credentials.
            assert!(!url::authority_of(&n).contains('@'), "userinfo kept");
        }
    }
    if let Ok(b) = Base::parse(base) {
        let fast = b.join(reference);
        // The concatenation shortcut must agree with the URL parser.
        assert_eq!(fast, b.join_parsed(reference), "fast join disagrees");
        if let Ok(j) = fast {
            url_parts(&j);
            if matches!(url::scheme_of(&j), "http" | "https") {
                assert!(!url::authority_of(&j).contains('@'), "userinfo kept in a join");
            }
        }
    }
}

/// The path to ask about on the first line, a robots.txt after it.
pub fn robots(data: &[u8]) {
    let (path, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b"/"[..], data),
    };
    let path = String::from_utf8_lossy(path);
    let r = Robots::parse(body);
    let _ = r.allowed(&path);
    let _ = r.allowed("/");
    let _ = r.delay();
    for minute in [0, 59, 720, 1439, 1440, u32::MAX] {
        let _ = r.visit_allowed(minute);
    }
    for s in &r.sitemaps {
        let _ = url::normalise(s);
    }
    for status in [0, 200, 304, 404, 503] {
        let e = Entry {
            origin: "http://h".into(),
            fetched: 0,
            expires: 0,
            status,
            body: body.to_vec(),
        };
        let _ = e.robots().allowed(&path);
    }
}

/// A document in one of a few encodings, as HTML and as XML; every link
/// resolved against a base.
pub fn links(data: &[u8]) {
    let (i, doc) = pick(data, LABELS.len());
    let enc = charset::resolve(LABELS[i]).unwrap_or(charset::resolve("utf-8").unwrap());
    let base = Base::parse("http://h.example/a/b.html").unwrap();
    for l in [links::extract_html(doc, enc), links::extract_xml(doc, enc)] {
        let here = match l.base.as_deref().map(|b| base.join(b)) {
            Some(Ok(b)) => Base::parse(&b).unwrap_or(base.clone()),
            _ => base.clone(),
        };
        for r in &l.refs {
            let _ = here.join(r);
        }
    }
}

/// A body with a document kind and a server-sent label.
pub fn charset(data: &[u8]) {
    let (i, body) = pick(data, KINDS.len() * LABELS.len());
    let kind = KINDS[i % KINDS.len()];
    let label = LABELS[i / KINDS.len()];
    // Both ways a page without a declaration is decided: the user's
    // charset, or the detector with a top-level domain's hint.
    let hints = if i % 2 == 0 {
        charset::Hints {
            user: charset::resolve("windows-1252"),
            tld: None,
        }
    } else {
        charset::Hints {
            user: None,
            tld: Some("lv"),
        }
    };
    let d = charset::detect(body, label, kind, &hints);
    assert!(d.bom_len <= body.len(), "byte order mark past the end");
    // Valid UTF-8 is never read as a legacy charset, whatever is declared
    // (a byte order mark, or a charset that is not ASCII-compatible, aside).
    if !body.is_ascii() && std::str::from_utf8(body).is_ok() && d.source != charset::Source::Bom
    {
        assert!(
            d.encoding.name() == "UTF-8" || !d.encoding.is_ascii_compatible(),
            "valid UTF-8 decoded as {}",
            d.encoding.name()
        );
    }
    // nlpc-fetch never refuses a page nlpc-vrfy would accept, whole or
    // judged piece by piece as it arrives.
    let filter = HeaderFilter {
        charsets: vec![d.encoding],
        ..HeaderFilter::default()
    };
    let h = Headers {
        charset: label.to_string(),
        ..Headers::default()
    };
    let whole = filter.judge_charset(&h, body, true, &mut 0);
    assert!(
        !matches!(whole, http::CharsetVerdict::Refuse(_)),
        "nlpc-fetch refuses {} that nlpc-vrfy decides",
        d.encoding.name()
    );
    let mut upto = 0;
    let mut ends = [1, 3, 7, body.len() / 2, body.len()];
    ends.sort_unstable();
    for end in ends {
        let part = body.get(..end).unwrap_or(body);
        let v = filter.judge_charset(&h, part, false, &mut upto);
        assert!(upto <= part.len());
        assert!(
            !matches!(v, http::CharsetVerdict::Refuse(_)),
            "refused on a part of a page it accepts whole"
        );
        if v == http::CharsetVerdict::Pass {
            break;
        }
    }
    let text = charset::decode(body, &d);
    let q = charset::Quality::of(&text);
    assert!(q.solid <= q.chars && q.replaced <= q.chars);
    let _ = q.replaced_share();
    let _ = charset::prescan(body);
    let _ = charset::xml_declaration(body);
    let _ = charset::charset_from_content(body);
    let lossy = String::from_utf8_lossy(body);
    let _ = charset::Kind::of(&lossy);
    let _ = charset::content_type_charset(&lossy);
    let _ = http::split_content_type(&lossy);
    let _ = charset::resolve(&lossy).map(charset::name);
}

/// A decoded document: its visible text in every kind, the language
/// sample and the dictionary words of that text; the input as a word list.
pub fn text(data: &[u8]) {
    let doc = String::from_utf8_lossy(data);
    let dict = Dict::from_bytes(data.to_vec()).ok();
    // The fingerprint's one pass gives what its two definitions give.
    let f = Fingerprint::of(&doc);
    assert_eq!(f.text, fingerprint::text_hash(&doc), "text hash");
    assert_eq!(f.minhash, fingerprint::minhash(&doc), "minhash");
    // The SimHash, no part of the fingerprint, reads the same words.
    let _ = fingerprint::simhash(&doc);
    // nlpc-vrfy takes the main text's fingerprint from extraction's pass
    // over the words: it must be the text's own, with and without a
    // dictionary (which changes the pass).
    let mut rec = Record::new("http://h.example.lv/", 1);
    rec.content_type = "text/html".into();
    for dict in [None, Dict::from_bytes(b"latvija\nir\nun\nr\xc4\xabga\n".to_vec()).ok()] {
        let cfg = vrfy::Config {
            dict,
            ..vrfy::Config::default()
        };
        let v = vrfy::verify(&cfg, &rec, Some(data));
        // A page with no main text keeps none (it is not in the corpus);
        // its fingerprint is of the visible text it was judged by.
        if let (Some(f), Some(main)) = (v.fingerprint, v.main.as_ref()) {
            if !main.text.is_empty() {
                assert_eq!(f, Fingerprint::of(&main.text), "verified page's fingerprint");
            }
        }
    }
    for kind in KINDS {
        let v = text::visible(&doc, kind);
        for cap in [0, 1, 7, 64, 1000] {
            let _ = lang::sample(&v.text, cap);
        }
        let mut n = 0usize;
        words::for_each_word(&v.text, |_| n += 1);
        if let Some(d) = &dict {
            let r = d.ratio(&v.text);
            assert!(r.found <= r.words, "more words found than seen");
        }
    }
}

/// Bytes as the store would hand them back: a record, a history entry, a
/// host entry and a REP cache file. What decodes must encode back to itself.
pub fn record(data: &[u8]) {
    if let Ok(r) = Record::decode(data) {
        // A record written while leases lived in records decodes with its
        // lease; encode leaves it out (the store keeps it in the leased
        // index), so the round trip holds for every field but the lease.
        let mut want = r.clone();
        want.lease = None;
        assert_eq!(Record::decode(&r.encode()), Ok(want), "record round trip");
    }
    let _ = Record::decode_url(data);
    let _ = Record::decode_addr(data);
    let (k, v) = data.split_at(data.len().min(24));
    if let Some(ver) = Version::decode(k, v) {
        assert_eq!(Version::decode(k, &ver.encode()), Some(ver), "history round trip");
    }
    if let Ok(h) = HostEntry::decode(data) {
        assert_eq!(HostEntry::decode(&h.encode()), Ok(h), "host entry round trip");
    }
    rep_file(data);
}

/// Loads `data` as a REP cache file, through the one public way in.
fn rep_file(data: &[u8]) {
    use std::sync::OnceLock;
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        std::env::temp_dir().join(format!("nlpcrawl-fuzz-rep-{}", std::process::id()))
    });
    let cache = RepCache::new(dir);
    let origin = "http://h.example";
    let path = cache.path(origin);
    if let Some(parent) = path.parent() {
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
    }
    if std::fs::write(&path, data).is_ok() {
        if let Ok(Some(e)) = cache.load(origin) {
            let _ = e.robots();
        }
        let _ = std::fs::remove_file(&path);
    }
}

/// Response header lines, taken in as nlpc-fetch takes them, then every
/// check made of them; the input is also a compressed body.
pub fn http(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut h = Headers::default();
    for line in text.lines() {
        h.add(line);
    }
    let filter = HeaderFilter {
        types: vec!["text/html".into()],
        charsets: ["utf-8", "windows-1257"]
            .iter()
            .filter_map(|l| charset::resolve(l))
            .collect(),
        langs: ["lv", "et"].iter().filter_map(|c| lang::of_tag(c)).collect(),
    };
    let _ = filter.refuse(&h);
    for t in &h.languages {
        let _ = lang::of_tag(t);
    }
    let _ = lang::of_header(&text);
    let _ = x_robots(&h.x_robots_tag);
    for now in [0, 1_700_000_000, u64::MAX] {
        let e = expiry(&h, now);
        // Without Expires, an expiry is a max-age after now, never before.
        if h.expires.is_empty() {
            assert!(e == 0 || e >= now, "expiry {e} before the fetch at {now}");
        }
    }
    let _ = clock::parse_http_date(&h.expires);
    let _ = clock::parse_http_date(&h.last_modified);
    let _ = clock::parse_http_date(&text);
    if let Ok(b) = Base::parse("http://h.example/a") {
        let _ = b.join(&h.location);
    }
    for enc in ["gzip", "deflate", "br", &h.content_encoding] {
        let _ = http::decode_body(enc, data.to_vec(), 1 << 16);
    }
}

/// Our tokenizer and html5gum make the same calls on a sink for any input,
/// in every mode (fuzz/markup_ref.rs says where the reference is corrected).
pub fn markup(data: &[u8]) {
    markup_ref::assert_same(data);
}

/// A search request's query string (up to the first newline) and a text
/// to search (the rest): the form, the query parser, the patterns the
/// concordance shows and their hits in the text, `date:` values, and the
/// escaping of what goes back into the page.
pub fn query(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let (qs, text) = s.split_once('\n').unwrap_or((&s, ""));
    let f = Form::of(&format!("/?{qs}"));
    assert!(f.q.chars().count() <= search_query::MAX_QUERY);
    assert!(f.start <= serve::MAX_START);
    for q in [qs, f.q.as_str()] {
        let _ = search_query::date_bounds(q);
        let Ok(n) = search_query::parse(q) else {
            continue;
        };
        for fold in [false, true] {
            let patterns = search_query::patterns(&n, fold);
            for p in &patterns {
                let own: Vec<&str> = p.words.iter().map(String::as_str).collect();
                assert!(!own.is_empty() && p.matches(&own), "{p:?}");
            }
            let mut end = 0;
            for (a, b, first, last) in kwic::find_hits(text, &patterns, fold) {
                // In order, apart, within the text, on its characters.
                assert!(end <= a && a < b && b <= text.len() && first <= last, "{a}..{b}");
                assert!(text.is_char_boundary(a) && text.is_char_boundary(b));
                end = b;
            }
        }
    }
    let shown = serve::html(qs);
    assert!(!shown.contains(['<', '>', '"', '\'']), "{shown}");
}

/// What nlpc-relay takes from the cluster, as node 0 of 2: a link message
/// (as it came, and with the partition of this node before it), a
/// counters row from node 1, and a sender header. What passes is passed
/// again as itself: an admitted URL is this node's and admitted unchanged,
/// and a counters row as filed is filed again unchanged.
pub fn cluster(data: &[u8]) {
    let me = Partition { node: 0, of: 2 };
    let filter = Filter::default();
    let _ = check::sender(me.of, std::str::from_utf8(data).ok());
    let mut framed = 0u32.to_le_bytes().to_vec();
    framed.extend_from_slice(data);
    for payload in [data, &framed[..]] {
        let Ok(a) = check::link(me, &filter, payload) else {
            continue;
        };
        assert!(me.owns(&url::host_of(&a.url).to_ascii_lowercase()), "{}", a.url);
        assert!(a.url.len() <= filter.max_len, "{} bytes", a.url.len());
        let again = outbox::Entry {
            hash: [0; 16],
            partition: me.node,
            depth: a.depth,
            url: a.url.clone(),
        }
        .encode();
        let b = check::link(me, &filter, &again).map(|b| (b.url, b.depth));
        assert_eq!(b, Ok((a.url, a.depth)), "admitted again differently");
    }
    if let Ok(row) = check::stats_row(me, 1, data) {
        assert!(row.len() <= check::MAX_STATS, "{} bytes", row.len());
        assert_eq!(check::stats_row(me, 1, &row), Ok(row.clone()), "filed again differently");
    }
}

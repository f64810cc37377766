//! Tests of header checks, body decoding and transfers.

use super::*;

/// libcurl, handed a URL of another scheme, refuses it without
/// touching the file or the network.
#[test]
fn libcurl_speaks_only_http_and_https() {
    let dir = std::env::temp_dir().join(format!("nlpc-proto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "not for the crawler").unwrap();
    let mut c = Client::new(Config {
        user_agent: "t".into(),
        from: None,
        accept: "*/*".into(),
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        min_speed: 0,
        slow_time: Duration::from_secs(5),
        max_size: 1 << 20,
        filter: HeaderFilter::default(),
        max_connections: 4,
        pipeline: 1,
        ca_file: None,
    })
    .unwrap();
    let urls = [
        format!("file://{}", secret.display()),
        "ftp://127.0.0.1:9/x".to_string(),
    ];
    for (i, u) in urls.iter().enumerate() {
        c.start(Request {
            tag: i as u64,
            url: u.clone(),
            addr: IpAddr::from([127, 0, 0, 1]),
            kind: Kind::Page,
            headers: Vec::new(),
        })
        .unwrap();
    }
    let mut done = Vec::new();
    while done.len() < urls.len() {
        done.extend(c.poll(Duration::from_millis(100)).unwrap());
    }
    std::fs::remove_dir_all(&dir).unwrap();
    for r in done {
        assert!(r.body.is_empty(), "{}: read {:?}", r.url, r.body);
        match &r.failure {
            Some(Failure::Rejected(why)) => {
                assert!(why.starts_with("only http and https are fetched"), "{why}")
            }
            other => panic!("{}: {other:?}", r.url),
        }
    }
}

#[test]
fn content_types() {
    assert_eq!(
        split_content_type("Text/HTML; Charset=\"UTF-8\""),
        ("text/html".into(), "UTF-8".into())
    );
    assert_eq!(
        split_content_type("text/plain"),
        ("text/plain".into(), "".into())
    );
    assert_eq!(
        crate::document::charset::canonical("latin1").as_deref(),
        Some("windows-1252")
    );
    assert_eq!(crate::document::charset::canonical("nonsense"), None);
}

#[test]
fn languages() {
    let accepted = |tag: &str, filter: &str| {
        HeaderFilter {
            langs: vec![lang::parse(filter).unwrap()],
            ..HeaderFilter::default()
        }
        .refuse(&Headers {
            languages: vec![tag.to_ascii_lowercase()],
            ..Headers::default()
        })
        .is_none()
    };
    assert!(accepted("lv-LV", "lv"));
    assert!(accepted("lav", "lv"));
    assert!(!accepted("ru", "lv"));
    assert!(accepted("lv", "lav"));
    assert!(accepted("LV", "lvs"));
    assert!(accepted("lvs", "latvian"));
    assert!(!accepted("ltg", "lv"));
    assert!(!accepted("x-lv", "lv"));
}

#[test]
fn filter() {
    let f = HeaderFilter {
        types: vec!["text/html".into()],
        charsets: vec![encoding_rs::UTF_8, encoding_rs::WINDOWS_1257],
        langs: vec![lang::parse("lv").unwrap()],
    };
    let mut h = Headers {
        content_type: "text/html".into(),
        charset: "UTF-8".into(),
        ..Headers::default()
    };
    assert_eq!(f.refuse(&h), None);
    let judge =
        |h: &Headers, body: &[u8], complete: bool| f.judge_charset(h, body, complete, &mut 0);
    use CharsetVerdict::{Pass, Refuse, Wait};
    let koi8 = || Refuse("charset koi8-r".into());
    assert_eq!(judge(&h, b"<ht", false), Pass);
    h.charset = "koi8-r".into();
    // The charset is judged on the body, not the headers alone.
    assert_eq!(f.refuse(&h), None);
    assert_eq!(judge(&h, b"<p", false), Wait);
    assert_eq!(judge(&h, b"<p>", false), Wait);
    assert_eq!(judge(&h, b"<p>", true), koi8());
    // A byte that is not UTF-8 settles it at once.
    assert_eq!(judge(&h, b"<p>\xf0\xd2\xc9", false), koi8());
    // Valid UTF-8 under a legacy label is UTF-8, once all of it is in;
    // a character cut at the end of a packet is no evidence yet.
    let utf8 = "<p>Rīgā</p>".as_bytes();
    assert_eq!(judge(&h, &utf8[..6], false), Wait);
    assert_eq!(judge(&h, utf8, false), Wait);
    assert_eq!(judge(&h, utf8, true), Pass);
    let mut upto = 0;
    for end in 3..utf8.len() {
        assert_eq!(f.judge_charset(&h, &utf8[..end], false, &mut upto), Wait);
        assert!(upto <= end);
    }
    // Measured past the end of a shorter body (another one): measured anew.
    let mut upto = 7;
    assert_eq!(f.judge_charset(&h, &utf8[..5], false, &mut upto), Wait);
    assert_eq!(f.judge_charset(&h, utf8, false, &mut upto), Wait);
    // A byte order mark overrides the header, as the HTML standard says.
    assert_eq!(judge(&h, b"\xEF\xBB\xBF", false), Pass);
    h.charset = "utf-8".into();
    assert_eq!(
        judge(&h, b"\xFF\xFEa", false),
        Refuse("charset utf-16le".into())
    );
    // A label WHATWG does not know is ignored: nlpc-vrfy decides.
    h.charset = "x-no-such-charset".into();
    assert_eq!(judge(&h, b"<p>\xf0\xd2", false), Pass);
    h.charset = "cp1257".into();
    assert_eq!(f.refuse(&h), None);
    assert_eq!(judge(&h, b"", true), Pass);
    // Without UTF-8 among the accepted, a refused label refuses at once.
    let latin = HeaderFilter {
        charsets: vec![encoding_rs::WINDOWS_1257],
        ..HeaderFilter::default()
    };
    h.charset = "koi8-r".into();
    assert_eq!(latin.judge_charset(&h, b"<p>", false, &mut 0), koi8());
    h.languages = vec!["ru".into(), "en".into()];
    assert_eq!(f.refuse(&h).as_deref(), Some("language ru,en"));
    h.languages = vec!["ru".into(), "lv".into()];
    assert_eq!(f.refuse(&h), None);
    h.content_type = "image/png".into();
    assert_eq!(f.refuse(&h).as_deref(), Some("content type image/png"));
}

#[test]
fn decoding() {
    use std::io::Write;
    let text = b"Labdien, pasaule! ".repeat(100);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(decode_body("gzip", gz.clone(), 1 << 20).unwrap(), text);
    assert_eq!(decode_body("gzip", gz, 100), Err(Failure::TooLarge));
    assert!(matches!(
        decode_body("zstd", vec![1], 100),
        Err(Failure::Decode(_))
    ));
    assert!(matches!(
        decode_body("gzip", vec![1, 2, 3], 100),
        Err(Failure::Decode(_))
    ));
}

#[test]
fn robots_bodies_are_cut_not_refused() {
    use std::io::Write;
    let max = robots::MAX_SIZE;
    let text = b"Disallow: /x\n".repeat(100_000);
    assert!(text.len() > max);
    assert_eq!(decode_robots("", text.clone()).unwrap(), &text[..max]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(decode_robots("gzip", gz.clone()).unwrap(), &text[..max]);
    // A compressed stream cut on the wire gives what it decoded.
    let cut = decode_robots("gzip", gz[..gz.len() / 2].to_vec()).unwrap();
    assert!(!cut.is_empty() && text.starts_with(&cut));
    assert!(matches!(
        decode_robots("gzip", vec![1, 2, 3]),
        Err(Failure::Decode(_))
    ));
}

#[test]
fn unbounded_transfers_are_refused() {
    let c = Config {
        user_agent: String::new(),
        from: None,
        accept: String::new(),
        connect_timeout: Duration::from_secs(10),
        timeout: Duration::ZERO,
        min_speed: 0,
        slow_time: Duration::from_secs(30),
        max_size: 1,
        filter: HeaderFilter::default(),
        max_connections: 1,
        pipeline: 1,
        ca_file: None,
    };
    let e = c.validate().unwrap_err();
    assert!(e.contains("--fetch-timeout 0") && e.contains("--fetch-min-speed 0"));
    assert!(Config {
        min_speed: 10,
        ..c.clone()
    }
    .validate()
    .is_ok());
    assert!(Config {
        min_speed: 10,
        slow_time: Duration::ZERO,
        ..c.clone()
    }
    .validate()
    .is_err());
    assert!(Config {
        timeout: Duration::from_secs(1),
        ..c
    }
    .validate()
    .is_ok());
}

#[test]
fn ports() {
    assert_eq!(port_of("http://h/"), Some(80));
    assert_eq!(port_of("https://h/"), Some(443));
    assert_eq!(port_of("http://h:8080/x"), Some(8080));
    assert_eq!(port_of("http://[::1]:81/"), Some(81));
    assert_eq!(port_of("http://[::1]/"), Some(80));
}

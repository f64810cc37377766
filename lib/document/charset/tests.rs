//! Tests of charset sniffing, detection and decoding.

use super::*;
use crate::document::xorshift::xorshift;
use encoding_rs::{ISO_8859_13, ISO_8859_4, KOI8_R, WINDOWS_1251, WINDOWS_1257};

fn html(body: &[u8], http: &str) -> Detected {
    detect(body, http, Kind::Html, &Hints::default())
}

#[test]
fn kinds() {
    assert_eq!(Kind::of(""), Some(Kind::Html));
    assert_eq!(Kind::of("Text/HTML; charset=utf-8"), Some(Kind::Html));
    assert_eq!(Kind::of("application/xhtml+xml"), Some(Kind::Xhtml));
    assert_eq!(Kind::of("application/rss+xml"), Some(Kind::Xml));
    assert_eq!(Kind::of("text/plain"), Some(Kind::Plain));
    assert_eq!(Kind::of("image/png"), None);
    assert_eq!(
        content_type_charset("text/html; charset=\"koi8-r\""),
        Some("koi8-r")
    );
    assert_eq!(content_type_charset("text/html"), None);
}

#[test]
fn labels() {
    // Every spelling of one encoding is one canonical name.
    for l in [
        "latin1",
        "ISO-8859-1",
        " windows-1252 ",
        "cp1252",
        "US-ASCII",
    ] {
        assert_eq!(canonical(l).as_deref(), Some("windows-1252"), "{l}");
    }
    assert_eq!(canonical("cp1257").as_deref(), Some("windows-1257"));
    assert_eq!(canonical("UTF8").as_deref(), Some("utf-8"));
    assert_eq!(canonical("sjis").as_deref(), Some("shift_jis"));
    assert_eq!(canonical("nonsense"), None);
    assert_eq!(parse("koi8-r"), Ok(KOI8_R));
    let e = parse("latin-99").unwrap_err();
    assert_eq!(e.to_string(), "unknown charset \"latin-99\"");
    assert_eq!(name(WINDOWS_1257), "windows-1257");
}

#[test]
fn order_bom_http_meta_default() {
    let meta = b"<html><head><meta charset=windows-1257></head>";
    let d = html(meta, "");
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Meta));
    let d = html(meta, "koi8-r");
    assert_eq!((d.encoding, d.source), (KOI8_R, Source::Http));
    // An unknown HTTP label is ignored.
    let d = html(meta, "x-no-such-charset");
    assert_eq!(d.encoding, WINDOWS_1257);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(meta);
    let d = html(&bom, "koi8-r");
    assert_eq!((d.encoding, d.source, d.bom_len), (UTF_8, Source::Bom, 3));
    let d = html(b"\xFF\xFE<\0h\0", "");
    assert_eq!((d.encoding, d.bom_len), (UTF_16LE, 2));
    // All ASCII, nothing declared, no domain: the generic fallback.
    let d = html(b"<p>nothing", "");
    assert_eq!((d.encoding, d.source), (WINDOWS_1252, Source::Fallback));
    // ISO-8859-1 is windows-1252 to WHATWG.
    assert_eq!(html(b"", "ISO-8859-1").encoding, WINDOWS_1252);
}

#[test]
fn meta_forms() {
    let p = |s: &str| prescan(s.as_bytes());
    assert_eq!(p("<META CHARSET='ISO-8859-13'>"), Some(ISO_8859_13));
    assert_eq!(
        p("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-4\">"),
        Some(ISO_8859_4)
    );
    assert_eq!(
        p("<meta content='text/html;charset=windows-1251' http-equiv=content-type>"),
        Some(WINDOWS_1251)
    );
    // content without http-equiv content-type does not count.
    assert_eq!(p("<meta content=\"text/html; charset=koi8-r\">"), None);
    // Comments, other tags' attribute values and bogus markup hide it.
    assert_eq!(p("<!-- <meta charset=koi8-r> --><p>"), None);
    assert_eq!(p("<a title='<meta charset=koi8-r>'>"), None);
    assert_eq!(
        p("<!--><meta charset=koi8-r>"),
        Some(KOI8_R),
        "<!--> is a whole comment"
    );
    // In-document UTF-16 means UTF-8.
    assert_eq!(p("<meta charset=utf-16le>"), Some(UTF_8));
    // A bad label, then nothing: no charset.
    assert_eq!(p("<meta charset=bogus>"), None);
    // Past the first 1024 bytes the prescan does not see it; the
    // parser's later change of encoding does.
    let late = format!("<p>{}</p><meta charset=koi8-r>", "x".repeat(1100));
    assert_eq!(prescan(&late.as_bytes()[..PRESCAN_LEN]), None);
    let d = html(late.as_bytes(), "");
    assert_eq!((d.encoding, d.source), (KOI8_R, Source::MetaLate));
    assert_eq!(
        charset_from_content(b"text/html; charset =\"utf-8\""),
        Some(UTF_8)
    );
    assert_eq!(
        charset_from_content(b"charsetx; charset=koi8-r;"),
        Some(KOI8_R)
    );
    assert_eq!(charset_from_content(b"charset="), None);
}

#[test]
fn xml_declarations() {
    let x = b"<?xml version=\"1.0\" encoding='ISO-8859-13'?><a/>";
    assert_eq!(xml_declaration(x), Some(ISO_8859_13));
    let d = detect(x, "", Kind::Xml, &Hints::default());
    assert_eq!(
        (d.encoding, d.source),
        (ISO_8859_13, Source::XmlDeclaration)
    );
    // XML without a declaration is UTF-8, whatever the default.
    let hints = Hints {
        user: Some(WINDOWS_1252),
        tld: Some("lv"),
    };
    let d = detect(b"<rss/>", "", Kind::Xml, &hints);
    assert_eq!((d.encoding, d.source), (UTF_8, Source::XmlDefault));
    // In HTML the meta wins over the declaration.
    let both = b"<?xml version='1.0' encoding='iso-8859-4'?><html><meta charset=windows-1257>";
    assert_eq!(html(both, "").encoding, WINDOWS_1257);
    assert_eq!(
        detect(both, "", Kind::Xhtml, &Hints::default()).encoding,
        ISO_8859_4
    );
    assert_eq!(xml_declaration(b"<?xmlfoo encoding='koi8-r'?>"), None);
    assert_eq!(xml_declaration(b"<?xml version='1.0'?>"), None);
}

/// A sample of the WHATWG Encoding Standard's labels for each of its
/// encodings, with the encoding's name: every one resolves, whatever
/// its case and surrounding white space.
const LABELS: &[(&str, &[&str])] = &[
    (
        "UTF-8",
        &[
            "unicode-1-1-utf-8",
            "unicode11utf8",
            "utf8",
            "x-unicode20utf8",
        ],
    ),
    ("IBM866", &["866", "cp866", "csibm866", "ibm866"]),
    (
        "ISO-8859-2",
        &[
            "csisolatin2",
            "iso-ir-101",
            "iso_8859-2:1987",
            "l2",
            "latin2",
        ],
    ),
    ("ISO-8859-3", &["csisolatin3", "iso-ir-109", "l3", "latin3"]),
    (
        "ISO-8859-4",
        &[
            "csisolatin4",
            "iso-ir-110",
            "iso_8859-4:1988",
            "l4",
            "latin4",
        ],
    ),
    (
        "ISO-8859-5",
        &["csisolatincyrillic", "cyrillic", "iso-ir-144", "iso8859-5"],
    ),
    (
        "ISO-8859-6",
        &[
            "arabic",
            "asmo-708",
            "ecma-114",
            "iso-8859-6-i",
            "iso-ir-127",
        ],
    ),
    (
        "ISO-8859-7",
        &["ecma-118", "elot_928", "greek", "greek8", "sun_eu_greek"],
    ),
    (
        "ISO-8859-8",
        &["csisolatinhebrew", "hebrew", "iso-8859-8-e", "visual"],
    ),
    ("ISO-8859-8-I", &["csiso88598i", "iso-8859-8-i", "logical"]),
    (
        "ISO-8859-10",
        &["csisolatin6", "iso-ir-157", "l6", "latin6"],
    ),
    ("ISO-8859-13", &["iso-8859-13", "iso8859-13", "iso885913"]),
    ("ISO-8859-14", &["iso-8859-14", "iso8859-14", "iso885914"]),
    ("ISO-8859-15", &["csisolatin9", "iso_8859-15", "l9"]),
    ("ISO-8859-16", &["iso-8859-16"]),
    ("KOI8-R", &["cskoi8r", "koi", "koi8", "koi8_r"]),
    ("KOI8-U", &["koi8-ru", "koi8-u"]),
    ("macintosh", &["csmacintosh", "mac", "x-mac-roman"]),
    ("windows-874", &["dos-874", "iso-8859-11", "tis-620"]),
    ("windows-1250", &["cp1250", "x-cp1250"]),
    ("windows-1251", &["cp1251", "x-cp1251"]),
    (
        "windows-1252",
        &[
            "ansi_x3.4-1968",
            "ascii",
            "cp819",
            "ibm819",
            "iso-ir-100",
            "l1",
            "us-ascii",
        ],
    ),
    ("windows-1253", &["cp1253", "x-cp1253"]),
    (
        "windows-1254",
        &["cp1254", "csisolatin5", "iso-8859-9", "l5", "latin5"],
    ),
    ("windows-1255", &["cp1255", "x-cp1255"]),
    ("windows-1256", &["cp1256", "x-cp1256"]),
    ("windows-1257", &["cp1257", "windows-1257", "x-cp1257"]),
    ("windows-1258", &["cp1258", "x-cp1258"]),
    ("x-mac-cyrillic", &["x-mac-cyrillic", "x-mac-ukrainian"]),
    (
        "GBK",
        &[
            "chinese",
            "csgb2312",
            "gb2312",
            "gb_2312-80",
            "iso-ir-58",
            "x-gbk",
        ],
    ),
    ("gb18030", &["gb18030"]),
    ("Big5", &["big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
    ("EUC-JP", &["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]),
    ("ISO-2022-JP", &["csiso2022jp", "iso-2022-jp"]),
    (
        "Shift_JIS",
        &["csshiftjis", "ms932", "ms_kanji", "sjis", "windows-31j"],
    ),
    (
        "EUC-KR",
        &[
            "cseuckr",
            "korean",
            "ks_c_5601-1987",
            "ksc5601",
            "windows-949",
        ],
    ),
    (
        "replacement",
        &["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-kr"],
    ),
    ("UTF-16BE", &["unicodefffe", "utf-16be"]),
    (
        "UTF-16LE",
        &["csunicode", "ucs-2", "unicode", "unicodefeff", "utf-16"],
    ),
    ("x-user-defined", &["x-user-defined"]),
];

#[test]
fn every_whatwg_encoding_by_a_sample_of_its_labels() {
    assert_eq!(LABELS.len(), 40, "the standard has 40 encodings");
    for (want, labels) in LABELS {
        for l in *labels {
            for spelled in [l.to_string(), l.to_uppercase(), format!(" \t{l}\n")] {
                let e = parse(&spelled).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(e.name(), *want, "{spelled:?}");
                assert_eq!(canonical(&spelled), Some(want.to_ascii_lowercase()));
            }
        }
    }
}

#[test]
fn every_label_of_the_standard_names_its_encoding() {
    // The standard's whole table, kept as test data apart from the code
    // (which takes encoding_rs's), so a label lost or mapped elsewhere
    // by either fails here.
    let table = include_str!("../../../tests/data/whatwg-labels.txt");
    let (mut encodings, mut labels) = (0, 0);
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (want, ls) = line.split_once('\t').expect("name, tab, labels");
        encodings += 1;
        for l in ls.split(' ') {
            labels += 1;
            for spelled in [l.to_string(), l.to_ascii_uppercase(), format!("\x0C{l} ")] {
                assert_eq!(canonical(&spelled).as_deref(), Some(want), "{spelled:?}");
                let e = parse(&spelled).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(name(e), want, "{spelled:?}");
            }
        }
    }
    assert_eq!((encodings, labels), (40, 217));
    // Not labels: near misses are refused by name.
    for bad in ["utf-7", "latin-99", "windows-1257x", "", "utf 8"] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}

fn undeclared_hints<'a>(user: Option<&'static Encoding>, tld: Option<&'a str>) -> Hints<'a> {
    Hints { user, tld }
}

#[test]
fn pages_that_name_nothing() {
    let lv = "<p>Rīgā šodien līst, bet rīt būs saulaina diena ar vēju no jūras.</p>";
    let utf8 = lv.as_bytes();
    let (w1257, _, _) = WINDOWS_1257.encode(lv);
    let none = undeclared_hints(None, None);
    // Valid UTF-8 is UTF-8, whatever the user or the domain says.
    for h in [none, undeclared_hints(Some(WINDOWS_1257), Some("lv"))] {
        let d = detect(utf8, "", Kind::Html, &h);
        assert_eq!((d.encoding, d.source), (UTF_8, Source::ValidUtf8));
        let d = detect(utf8, "", Kind::Plain, &h);
        assert_eq!((d.encoding, d.source), (UTF_8, Source::ValidUtf8));
    }
    // Legacy bytes: the user's charset, else chardetng's guess.
    let d = detect(
        &w1257,
        "",
        Kind::Html,
        &undeclared_hints(Some(ISO_8859_4), None),
    );
    assert_eq!((d.encoding, d.source), (ISO_8859_4, Source::Override));
    let d = detect(&w1257, "", Kind::Html, &undeclared_hints(None, Some("lv")));
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Detected));
    // All ASCII: the domain's usual charset.
    let ascii = b"<p>Riga sodien list</p>";
    let d = detect(ascii, "", Kind::Html, &undeclared_hints(None, Some("lv")));
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Fallback));
    let d = detect(ascii, "", Kind::Html, &undeclared_hints(None, Some("com")));
    assert_eq!((d.encoding, d.source), (WINDOWS_1252, Source::Fallback));
    // A declaration wins over all of it, but for valid UTF-8 (below).
    let d = detect(&w1257, "windows-1257", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Http));
}

#[test]
fn valid_utf8_is_never_decoded_as_the_legacy_charset_it_is_declared_in() {
    let lv = "<p>Rīgā šodien līst, bet rīt būs saulaina diena ar vēju no jūras.</p>";
    let none = undeclared_hints(None, None);
    let misdeclared = |d: Detected| (d.encoding, d.source) == (UTF_8, Source::Misdeclared);
    // By the server, by a <meta> in the prescan, by an XML declaration.
    for (http, page, kind) in [
        ("iso-8859-1", lv.to_string(), Kind::Html),
        ("windows-1257", lv.to_string(), Kind::Plain),
        ("", format!("<meta charset=windows-1252>{lv}"), Kind::Html),
        (
            "",
            format!("<meta http-equiv=Content-Type content='text/html; charset=latin1'>{lv}"),
            Kind::Html,
        ),
        (
            "",
            format!("<?xml version='1.0' encoding='iso-8859-13'?>{lv}"),
            Kind::Xml,
        ),
        ("gbk", lv.to_string(), Kind::Html),
    ] {
        let d = detect(page.as_bytes(), http, kind, &none);
        assert!(misdeclared(d), "{http} {page:.60}: {d:?}");
        assert_eq!(decode(page.as_bytes(), &d), page);
    }
    // Declared legacy and really legacy: as declared.
    let (w1257, _, _) = WINDOWS_1257.encode(lv);
    let d = detect(&w1257, "windows-1257", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::Http));
    // All ASCII: nothing tells, the declaration stands.
    let d = detect(b"<p>Riga</p>", "iso-8859-13", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (ISO_8859_13, Source::Http));
    // Declared UTF-8, or a byte order mark: as they say.
    let d = detect(lv.as_bytes(), "utf-8", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (UTF_8, Source::Http));
    let mut bom = b"\xFF\xFE".to_vec();
    bom.extend(lv.encode_utf16().flat_map(u16::to_le_bytes));
    let d = detect(&bom, "iso-8859-1", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (UTF_16LE, Source::Bom));
    // A declared charset that is not ASCII-compatible is not second-guessed
    // from bytes read as ASCII.
    let d = detect(lv.as_bytes(), "utf-16be", Kind::Html, &none);
    assert_eq!((d.encoding, d.source), (UTF_16BE, Source::Http));
}

#[test]
fn late_meta_changes_a_tentative_charset() {
    let pad = "<p>".to_string() + &"teksts ".repeat(200) + "</p>";
    let page = |meta: &str| format!("<html><head><title>x</title>{pad}{meta}<p>\u{e9}");
    let h = undeclared_hints(Some(WINDOWS_1252), Some("lv"));
    let late = page("<meta charset=windows-1257>");
    // The \u{e9} written as UTF-8 would make it valid UTF-8: use the
    // legacy byte.
    let bytes = late.replace('\u{e9}', "").into_bytes();
    let mut legacy = bytes.clone();
    legacy.push(0xE9);
    let d = detect(&legacy, "", Kind::Html, &h);
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::MetaLate));
    // All ASCII too.
    let d = detect(&bytes, "", Kind::Html, &h);
    assert_eq!((d.encoding, d.source), (WINDOWS_1257, Source::MetaLate));
    // Any case of the tag's name (the quick check for a "<meta" anywhere
    // must not miss it).
    for tag in [
        "<META charset=windows-1257>",
        "<Meta\tcharset=windows-1257>",
    ] {
        let b = page(tag).replace('\u{e9}', "").into_bytes();
        let d = detect(&b, "", Kind::Html, &h);
        assert_eq!(
            (d.encoding, d.source),
            (WINDOWS_1257, Source::MetaLate),
            "{tag}"
        );
    }
    // Not for plain text, nor over a declaration, nor over valid UTF-8.
    assert_eq!(
        detect(&legacy, "", Kind::Plain, &h).source,
        Source::Override
    );
    assert_eq!(
        detect(&legacy, "koi8-r", Kind::Html, &h).source,
        Source::Http
    );
    let d = detect(late.as_bytes(), "", Kind::Html, &h);
    assert_eq!(d.source, Source::ValidUtf8);
    // Inside a script, a comment or an attribute value it is no element.
    for hidden in [
        "<script>var m = '<meta charset=koi8-r>';</script>",
        "<SCRIPT type=x>document.write(\"<meta charset=koi8-r>\")</Script>",
        "<!-- <meta charset=koi8-r> -->",
        "<a title='<meta charset=koi8-r>'>x</a>",
        "<textarea><meta charset=koi8-r></textarea>",
    ] {
        let mut b = page(hidden).replace('\u{e9}', "").into_bytes();
        b.push(0xE9);
        let d = detect(&b, "", Kind::Html, &h);
        assert_eq!(d.source, Source::Override, "{hidden}");
    }
    // After the script, a real one counts; UTF-16 in a document means
    // UTF-8.
    assert_eq!(
        late_meta(b"<script>'<meta charset=koi8-r>'</script><meta charset=iso-8859-13>"),
        Some(ISO_8859_13)
    );
    assert_eq!(late_meta(b"<meta charset=utf-16le>"), Some(UTF_8));
    assert_eq!(late_meta(b"<plaintext><meta charset=koi8-r>"), None);
    assert_eq!(late_meta(b"<script><meta charset=koi8-r>"), None);
}

#[test]
fn sources_and_domains() {
    for s in Source::ALL {
        assert_eq!(Source::from_u8(s as u8), Some(s));
    }
    assert_eq!(Source::from_u8(0), None);
    let names: std::collections::HashSet<_> = Source::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names.len(), Source::ALL.len());
    assert_eq!(tld_of("www.example.LV").as_deref(), Some("lv"));
    assert_eq!(tld_of("example.lv.").as_deref(), Some("lv"));
    assert_eq!(tld_of("xn--p1ai").as_deref(), Some("xn--p1ai"));
    assert_eq!(tld_of("127.0.0.1").as_deref(), Some("1"));
    assert_eq!(tld_of("[::1]"), None);
    assert_eq!(tld_of(""), None);
    assert_eq!(tld_of("bad_label.l v"), None);
}

#[test]
fn quality_counts() {
    let q = Quality::of("ab c\u{FFFD}\u{85}\0\x01\té");
    assert_eq!(q.chars, 10);
    assert_eq!(q.replaced, 2);
    assert_eq!(q.controls, 2);
    assert_eq!(q.solid, 6);
    let q = Quality::of("");
    assert_eq!(q.replaced_share(), 0.0);
    // Long enough that the per-lane counts of the word-at-a-time path
    // are summed many times over.
    let long = "Rīga ir Latvijas galvaspilsēta; a b  c\tdefgh\n".repeat(999);
    assert_eq!(Quality::of(&long), quality_by_char(&long));
}

/// The counts by the character, as `Quality` defines them, for checking
/// the counts of a text given in pieces.
fn quality_by_char(s: &str) -> Quality {
    let mut q = Quality::default();
    for c in s.chars() {
        q.chars += 1;
        let space = matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ');
        if c < ' ' && !space {
            q.controls += 1;
        } else if !space {
            q.solid += 1;
        }
        if c == '\u{FFFD}' || ('\u{80}'..='\u{9F}').contains(&c) {
            q.replaced += 1;
        }
    }
    q
}

#[test]
fn quality_whole_and_in_pieces_agrees_with_characters() {
    let pieces = [
        "<p class=x>",
        "Rīga ",
        "  ",
        "\t\n",
        "\r",
        "\u{FFFD}",
        "\u{85}",
        "\0",
        "\x7F",
        "abcdefgh",
        "ūdens",
        "语",
        "🙂",
        " ",
        "&amp;",
        "\x0C",
        "\x1B",
        // Past the word-at-a-time path: C2 and EF lead bytes that are no
        // replacement, a control that is not white space, long runs.
        "\u{A0}",
        "©",
        "\u{9F}",
        "\u{FFFE}",
        "ｅ",
        "\x0B",
        "ą ž ē ī ū",
        "pilsētas galvaspilsēta ",
        "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ];
    let mut x: u32 = 0x9E37_79B9;
    for _ in 0..2000 {
        let mut s = String::new();
        for _ in 0..x % 120 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            s.push_str(pieces[x as usize % pieces.len()]);
        }
        let want = quality_by_char(&s);
        assert_eq!(Quality::of(&s), want, "{s:?}");
        // Cut at a character boundary, in two pieces.
        let cut = s
            .char_indices()
            .map(|(i, _)| i)
            .nth(x as usize % (s.chars().count() + 1))
            .unwrap_or(s.len());
        let mut q = Quality::default();
        q.add(&s.as_bytes()[..cut]);
        q.add(&s.as_bytes()[cut..]);
        assert_eq!(q, want, "{s:?} cut at {cut}");
    }
}

/// `Quality::clean` against the counts: clean exactly when there is no
/// control and nothing replaced, at every alignment of the eight-byte
/// words and in the tail after them.
#[test]
fn clean_is_no_control_and_nothing_replaced() {
    let pieces = [
        "Rīga ", "abcdefg", " ", "\t", "\n", "\r", "\x0C", "\x0B", "\0", "\x1B", "\x1F", "\x7F",
        "\u{80}", "\u{9F}", "\u{A0}", "©", "\u{FFFD}", "\u{FFFE}", "\u{FEFF}", "\u{EFFF}", "ūdens",
        "语", "🙂",
    ];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut clean = 0;
    for round in 0..20_000 {
        x = xorshift(x);
        let mut s = "a".repeat(round % 9);
        // Mostly clean pieces, so that one bad piece anywhere is tried.
        for _ in 0..x % 40 {
            x = xorshift(x);
            let r = (x >> 16) as usize;
            let p = if r.is_multiple_of(5) {
                pieces[(r >> 3) % pieces.len()]
            } else {
                pieces[(r >> 3) % 2]
            };
            s.push_str(p);
        }
        let q = Quality::of(&s);
        let want = q.controls == 0 && q.replaced == 0;
        assert_eq!(Quality::clean(&s), want, "{s:?}");
        clean += usize::from(want);
    }
    // Both answers were given often.
    assert!(clean > 2000 && clean < 18_000, "{clean}");
}

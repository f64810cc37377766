//! RFC 3986 reference resolution (section 5.4) and normalisation (section 6).

use nlpcrawl::web::url::{normalise, Base};

const BASE: &str = "http://a/b/c/d;p?q";

/// RFC 3986 5.4.1 and 5.4.2. Expected values are compared after the same
/// normalisation (empty path = "/", fragment dropped), which RFC 3986 6.2.3
/// says does not change the resource.
const EXAMPLES: &[(&str, &str)] = &[
    ("g:h", "g:h"),
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("", "http://a/b/c/d;p?q"),
    (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../", "http://a/b/"),
    ("../g", "http://a/b/g"),
    ("../..", "http://a/"),
    ("../../", "http://a/"),
    ("../../g", "http://a/g"),
    // 5.4.2 abnormal examples
    ("../../../g", "http://a/g"),
    ("../../../../g", "http://a/g"),
    ("/./g", "http://a/g"),
    ("/../g", "http://a/g"),
    ("g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g#s/../x", "http://a/b/c/g#s/../x"),
    // RFC 3986 allows either answer for "http:g"; browsers and we take the
    // backward-compatible one.
    ("http:g", "http://a/b/c/g"),
];

#[test]
fn rfc3986_section_5_4_examples() {
    let base = Base::parse(BASE).unwrap();
    for (reference, expected) in EXAMPLES {
        let got = base.join(reference).unwrap();
        let want = normalise(expected).unwrap();
        assert_eq!(got, want, "reference {reference:?}");
    }
}

#[test]
fn fragments_are_dropped_and_empty_paths_are_root() {
    assert_eq!(normalise("http://g").unwrap(), "http://g/");
    assert_eq!(normalise("http://a/b#frag").unwrap(), "http://a/b");
}

#[test]
fn normalisation_of_case_port_dots_percent_and_idna() {
    let cases = [
        (
            "HTTP://www.Example.LV:80/%7Ea/./b/../c#x",
            "http://www.example.lv/~a/c",
        ),
        ("https://h:443/", "https://h/"),
        ("http://h:8080/", "http://h:8080/"),
        ("http://h/a%2fb%2Fc", "http://h/a%2Fb%2Fc"),
        ("http://h/%41%42?q=%7e%2a", "http://h/AB?q=~%2A"),
        ("http://ēka.lv/ceļš", "http://xn--ka-vma.lv/ce%C4%BC%C5%A1"),
        ("http://h/a b", "http://h/a%20b"),
        ("  http://h/trimmed  ", "http://h/trimmed"),
    ];
    for (input, want) in cases {
        assert_eq!(normalise(input).unwrap(), want, "{input}");
    }
    // Two spellings of one resource normalise to one string.
    assert_eq!(
        normalise("http://EXAMPLE.lv/%7euser").unwrap(),
        normalise("http://example.lv:80/~user").unwrap()
    );
}

#[test]
fn malformed_urls_are_errors_that_name_the_url() {
    for bad in [
        "",
        "not a url",
        "http://",
        "http://exa mple.lv/",
        "/relative/only",
    ] {
        let e = normalise(bad).unwrap_err();
        assert_eq!(e.url, bad.trim());
        assert!(!e.why.is_empty());
    }
}

//! Language identification of short and long texts in Latvian and its
//! neighbours (tests/data/lang, written for these tests), under
//! nlpc-vrfy's rule: whatlang's guess and confidence, with the dictionary
//! as the second witness.

use std::path::PathBuf;

use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::lang;
use nlpcrawl::stage::vrfy::{judge_text, Config, Rejection, Verdict};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(name: &str) -> String {
    let p = root().join("tests/data/lang").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn latvian(dict: bool) -> Config {
    Config {
        langs: vec![lang::parse_detectable("lv").unwrap()],
        dict: dict.then(|| Dict::load(&root().join("tests/data/vrfy/lv.dict")).unwrap()),
        ..Config::default()
    }
}

/// The verdict on one text: what was recorded and why it failed.
fn judge(cfg: &Config, name: &str) -> (Verdict, Option<Rejection>) {
    let mut v = Verdict::default();
    let r = judge_text(cfg, &text(name), &mut v);
    (v, r)
}

fn code(v: &Verdict) -> &'static str {
    v.language.map_or("-", |g| g.lang.code())
}

#[test]
fn every_text_is_identified_without_a_filter() {
    let open = Config::default();
    for (file, want) in [
        ("lv-long.txt", "lv"),
        ("lv-short.txt", "lv"),
        ("lv-long-ascii.txt", "lv"),
        ("lt-long.txt", "lt"),
        ("lt-short.txt", "lt"),
        ("et-long.txt", "et"),
        ("et-short.txt", "et"),
        ("ru-long.txt", "ru"),
        ("ru-short.txt", "ru"),
    ] {
        let (v, r) = judge(&open, file);
        assert_eq!(r, None, "{file}: no filter, no rejection");
        assert_eq!(code(&v), want, "{file}");
        let g = v.language.unwrap();
        // Long texts are certain; a confidence is stored either way.
        if file.contains("long") {
            assert!(g.reliable && g.confidence > 0.9, "{file}: {g:?}");
        }
        assert!((0.0..=1.0).contains(&g.confidence), "{file}: {g:?}");
    }
}

#[test]
fn one_latvian_sentence_is_judged_by_confidence_not_length() {
    // Formerly rejected as too little text (under 200 characters).
    let t = text("lv-short.txt");
    assert!(t.chars().count() < 50);
    for dict in [false, true] {
        let (v, r) = judge(&latvian(dict), "lv-short.txt");
        assert_eq!(r, None, "dictionary {dict}");
        assert_eq!(code(&v), "lv");
        assert!(v.language.unwrap().confidence >= 0.5);
    }
    // The floor is still there for whoever asks for it.
    let cfg = Config {
        lang_min_text: 200,
        ..latvian(false)
    };
    assert!(matches!(
        judge(&cfg, "lv-short.txt").1,
        Some(Rejection::TooLittleText(n)) if n < 50
    ));
}

#[test]
fn the_neighbours_are_rejected_by_name_short_or_long() {
    for dict in [false, true] {
        let cfg = latvian(dict);
        for (file, want) in [
            ("lt-long.txt", "lt"),
            ("lt-short.txt", "lt"),
            ("et-long.txt", "et"),
            ("et-short.txt", "et"),
            ("ru-long.txt", "ru"),
            ("ru-short.txt", "ru"),
        ] {
            let (v, r) = judge(&cfg, file);
            assert_eq!(
                r,
                Some(Rejection::Language(want)),
                "{file}, dictionary {dict}"
            );
            // The language recorded is whatlang's.
            assert_eq!(code(&v), want, "{file}");
        }
    }
}

#[test]
fn a_sentence_without_diacritics_needs_the_dictionary() {
    // whatlang cannot place a short Latvian sentence written without
    // diacritics: its guess is some other language, and unreliable.
    let (v, r) = judge(&latvian(false), "lv-short-ascii.txt");
    let g = v.language.unwrap();
    assert!(!g.reliable, "{g:?}");
    assert_ne!(code(&v), "lv", "{g:?}");
    assert_eq!(r, Some(Rejection::Language(code(&v))));
    // The dictionary, the second witness, overrules the unreliable guess:
    // recorded as the filter's language, with no confidence of whatlang's.
    let (v, r) = judge(&latvian(true), "lv-short-ascii.txt");
    assert_eq!(r, None);
    assert_eq!(code(&v), "lv");
    assert_eq!(v.language.unwrap().confidence, 0.0);
    assert!(v.dict_ratio.unwrap() >= 0.1, "{:?}", v.dict_ratio);
    // A long text without diacritics is still Latvian to whatlang.
    let (v, r) = judge(&latvian(true), "lv-long-ascii.txt");
    assert_eq!((code(&v), r), ("lv", None));
    assert!(v.language.unwrap().reliable);
}

#[test]
fn latgalian_is_latgalian_with_or_without_the_dictionary() {
    // whatlang has no Latgalian and calls these texts Latvian, and sure of
    // it; the profiles have one and name it, and the page is rejected by
    // name, the dictionary not asked.
    for file in ["ltg-long.txt", "ltg-forum.txt"] {
        let w = lang::detect(&whatlang::Detector::new(), &text(file), 0).unwrap();
        assert_eq!((w.lang.code(), w.reliable), ("lv", true), "{file}");
        for dict in [false, true] {
            let (v, r) = judge(&latvian(dict), file);
            assert_eq!(
                (code(&v), r),
                ("ltg", Some(Rejection::Language("ltg"))),
                "{file}, dictionary {dict}"
            );
            assert_eq!(v.dict_ratio, None, "{file}");
        }
    }
}

#[test]
fn a_filter_does_not_change_the_language_named() {
    // The rule names a text's language alike under a filter and without
    // one; the filter only decides which languages pass.
    let open = Config::default();
    let cfg = Config {
        langs: vec![
            lang::parse_detectable("lv").unwrap(),
            lang::parse_detectable("lt").unwrap(),
        ],
        ..Config::default()
    };
    for f in [
        "lv-long.txt",
        "lv-short.txt",
        "lt-long.txt",
        "lt-short.txt",
        "et-long.txt",
        "ru-long.txt",
        "ltg-long.txt",
    ] {
        let (a, _) = judge(&open, f);
        let (b, _) = judge(&cfg, f);
        assert_eq!(code(&a), code(&b), "{f}");
    }
}

#[test]
fn other_languages_are_rejected_by_name() {
    // whatlang weighs every language it knows, so a text in another
    // language is recorded as that language, never as the filter's, and
    // rejected.
    for (what, t) in [
        (
            "fi",
            "Helsinki on Suomen pääkaupunki ja maan suurin kaupunki. Kesällä aurinko \
             paistaa lähes koko yön, ja ihmiset viettävät aikaa mökeillä järvien rannoilla.",
        ),
        (
            "pl",
            "Warszawa jest stolicą Polski i największym miastem kraju. Przez miasto płynie \
             Wisła, a wieczorami mieszkańcy chętnie spacerują po bulwarach nad rzeką.",
        ),
        (
            "sv",
            "Stockholm är Sveriges huvudstad och ligger där Mälaren möter Östersjön. På \
             sommaren åker många människor ut till skärgården för att bada och segla.",
        ),
        (
            "fr",
            "Paris est la capitale de la France et la ville la plus peuplée du pays. Le soir, \
             les habitants aiment se promener le long de la Seine et s'asseoir aux terrasses.",
        ),
        (
            "es",
            "Madrid es la capital de España y la ciudad más poblada del país. Por la noche, \
             la gente sale a cenar tarde y las calles del centro se llenan de vida.",
        ),
    ] {
        for dict in [false, true] {
            let cfg = latvian(dict);
            let mut v = Verdict::default();
            let r = judge_text(&cfg, t, &mut v);
            assert_eq!(
                (code(&v), r),
                (what, Some(Rejection::Language(what))),
                "{what}, dictionary {dict}: {v:?}"
            );
        }
        // Unfiltered, the same language.
        let mut v = Verdict::default();
        judge_text(&Config::default(), t, &mut v);
        assert_eq!(code(&v), what);
    }
}

#[test]
fn a_long_latvian_text_between_english_paragraphs_is_latvian() {
    // The samples whatlang is asked about come from the inside of a long
    // text, so English at its ends (a menu or cookie notice the extractor
    // kept) does not decide its language.
    let english = "We use cookies to remember your choices and to measure how the site \
                   is used; read our privacy policy and change your settings at any time. ";
    let t = format!(
        "{}\n{}\n{}",
        english.repeat(3),
        text("lv-long.txt").repeat(20),
        english.repeat(3)
    );
    assert!(t.len() > 8 * 1024);
    for dict in [false, true] {
        let cfg = latvian(dict);
        let mut v = Verdict::default();
        let r = judge_text(&cfg, &t, &mut v);
        assert_eq!((code(&v), r), ("lv", None), "dictionary {dict}");
        let g = v.language.unwrap();
        assert!(g.reliable && g.confidence >= cfg.lang_min_conf, "{g:?}");
    }
}

#[test]
fn neighbours_written_without_diacritics_are_still_rejected() {
    for dict in [false, true] {
        let cfg = latvian(dict);
        for (file, want, sure) in [
            ("et-ascii.txt", "et", true),
            ("lt-ascii.txt", "lt", true),
            // One sentence: whatlang is unsure, but the profiles agree
            // with it, and two witnesses agreeing are sure.
            ("et-short-ascii.txt", "et", true),
        ] {
            let (v, r) = judge(&cfg, file);
            assert_eq!(
                (code(&v), r),
                (want, Some(Rejection::Language(want))),
                "{file}, dictionary {dict}"
            );
            assert_eq!(v.language.unwrap().reliable, sure, "{file}");
        }
    }
}

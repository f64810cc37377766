//! The first language witness (lib/document/lang/witness.rs) on the
//! held-out texts of tests/data/lang, which its profiles were not made
//! from: it never settles a neighbour's text as Latvian, it agrees with
//! whatlang on the Latvian texts it settles, it works the same for any
//! profiled language, and it leaves what it does not know to whatlang.

use std::path::PathBuf;

use nlpcrawl::document::lang::{self, Guess, Language, Profile, LATVIAN, MIN_LETTERS};
use nlpcrawl::stage::vrfy::{judge_text, Config, Rejection, Verdict};
use whatlang::{Detector, Lang};

/// What the first witness alone settles `text` as, if anything, when it
/// is one of `langs`.
fn first_witness(langs: &[Language], text: &str, min_conf: f64) -> Option<Guess> {
    let (lang, confidence) = Profile::of(text)?.settled()?;
    (langs.contains(&lang) && confidence >= min_conf).then_some(Guess {
        lang,
        confidence,
        reliable: true,
    })
}

/// The best profile of `text`, its cost and margin, and the letters.
fn witness_scores(text: &str) -> Option<(Language, f64, f64, u32)> {
    let p = Profile::of(text)?;
    Some((p.language(), p.cost(), p.margin, p.letters))
}

fn code(c: &str) -> Language {
    lang::parse(c).unwrap()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every held-out text, by file name.
fn held_out() -> Vec<(String, String)> {
    let dir = root().join("tests/data/lang");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(out.len() >= 30, "{} held-out texts", out.len());
    out
}

/// The language a held-out file is written in: its name's prefix.
fn written_in(name: &str) -> &str {
    name.split('-').next().unwrap_or("")
}

/// The text, and every window of about `chars` characters (cut at
/// spaces) stepping by half a window: short and long pieces of it.
fn pieces(text: &str, chars: usize) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = vec![text.to_string()];
    let mut i = 0;
    while i < words.len() {
        let mut s = String::new();
        let mut j = i;
        while j < words.len() && s.chars().count() < chars {
            s.push_str(words[j]);
            s.push(' ');
            j += 1;
        }
        out.push(s);
        i += ((j - i) / 2).max(1);
    }
    out
}

const LV: Language = LATVIAN;

#[test]
fn no_neighbour_is_ever_taken_for_latvian() {
    let mut asked = 0;
    for (name, text) in held_out() {
        let l = written_in(&name);
        if l == "lv" || l == "ltg" {
            continue;
        }
        for chars in [80, 150, 300] {
            for p in pieces(&text, chars) {
                asked += 1;
                for filter in [vec![LV], vec![LV, code("en")]] {
                    let g = first_witness(&filter, &p, 0.0);
                    assert_eq!(g, None, "{name} taken for {filter:?}: {p:?}");
                }
            }
        }
    }
    assert!(asked > 200, "{asked}");
}

#[test]
fn the_other_languages_training_texts_are_not_latvian_either() {
    // Not held out, but a wider check: no window of another language's
    // training text passes as Latvian.
    for code in [
        "lt", "et", "de", "en", "ru", "uk", "be", "fi", "pl", "sv", "fr", "es",
    ] {
        let p = root().join(format!("data/lang/train/{code}.txt"));
        let text = std::fs::read_to_string(&p).unwrap();
        for piece in pieces(&text, 200) {
            assert_eq!(first_witness(&[LV], &piece, 0.0), None, "{code}: {piece:?}");
        }
    }
}

#[test]
fn on_the_latvian_texts_it_agrees_with_whatlang_and_settles_the_clear_ones() {
    let whatlang = Detector::new();
    let mut settled = Vec::new();
    for (name, text) in held_out() {
        if written_in(&name) != "lv" {
            continue;
        }
        let w = lang::detect(&whatlang, &text, 0).map(|g| g.lang);
        match first_witness(&[LV], &text, 0.5) {
            Some(g) => {
                assert_eq!(g.lang, LV, "{name}");
                assert_eq!(w, Some(LV), "{name}: whatlang disagrees");
                assert!(
                    g.reliable && (0.5..=1.0).contains(&g.confidence),
                    "{name}: {g:?}"
                );
                settled.push(name);
            }
            // Left to whatlang: short, or without diacritics.
            None => assert!(
                name.contains("short") || name.contains("ascii") || name.contains("medium"),
                "{name}: {:?}",
                witness_scores(&text)
            ),
        }
    }
    // The clear texts are settled, not just never contradicted.
    for want in [
        "lv-culture.txt",
        "lv-forum.txt",
        "lv-long.txt",
        "lv-menu.txt",
    ] {
        assert!(settled.iter().any(|s| s == want), "{want}: {settled:?}");
    }
}

#[test]
fn short_or_unaccented_latvian_is_left_to_whatlang() {
    for (name, text) in held_out() {
        if name.starts_with("lv-short") || name.contains("ascii") {
            assert_eq!(first_witness(&[LV], &text, 0.0), None, "{name}");
        }
    }
    // Below the least number of letters nothing is settled, however
    // clear.
    let one = "Šodien Rīgā visu dienu līs lietus, bet rīt būs saulains.";
    assert!(witness_scores(one).unwrap().3 < MIN_LETTERS);
    assert_eq!(first_witness(&[LV], one, 0.0), None);
}

#[test]
fn another_filter_language_works_the_same_way() {
    let texts = held_out();
    let get = |n: &str| &texts.iter().find(|(name, _)| name == n).unwrap().1;
    for (filter, name, want) in [
        (vec![code("lt")], "lt-culture.txt", code("lt")),
        (vec![code("lt")], "lt-long.txt", code("lt")),
        (vec![LV, code("lt")], "lt-culture.txt", code("lt")),
        (vec![LV, code("lt")], "lv-culture.txt", LV),
        (vec![code("et")], "et-culture.txt", code("et")),
        (vec![code("uk")], "uk-culture.txt", code("uk")),
    ] {
        let g = first_witness(&filter, get(name), 0.5);
        assert_eq!(g.map(|g| g.lang), Some(want), "{filter:?} {name}");
    }
    // Under a Lithuanian filter, no other language's text is Lithuanian.
    for (name, text) in &texts {
        if written_in(name) == "lt" {
            continue;
        }
        for p in pieces(text, 150) {
            assert_eq!(first_witness(&[code("lt")], &p, 0.0), None, "{name}: {p:?}");
        }
    }
    // A filter of languages without a profile: never settled.
    assert_eq!(first_witness(&[code("it")], get("it-long.txt"), 0.0), None);
}

#[test]
fn languages_without_a_profile_are_left_to_whatlang() {
    let texts = held_out();
    let get = |n: &str| &texts.iter().find(|(name, _)| name == n).unwrap().1;
    // Czech reads closest to Polish, Italian to Spanish: neither fits
    // well or clearly enough to be settled.
    for (name, filter) in [("cs-long.txt", code("pl")), ("it-long.txt", code("es"))] {
        assert_eq!(first_witness(&[filter], get(name), 0.0), None, "{name}");
    }
}

#[test]
fn a_text_in_two_scripts_is_left_to_whatlang() {
    let texts = held_out();
    let get = |n: &str| texts.iter().find(|(name, _)| name == n).unwrap().1.clone();
    let lv = get("lv-culture.txt");
    assert!(first_witness(&[LV], &lv, 0.0).is_some());
    let mixed = format!("{lv} {}", get("ru-culture.txt"));
    assert_eq!(first_witness(&[LV], &mixed, 0.0), None);
    assert_eq!(first_witness(&[code("ru")], &mixed, 0.0), None);
}

#[test]
fn the_confidence_is_bounded_and_meets_the_least_asked() {
    for (name, text) in held_out() {
        for min in [0.0, 0.5, 0.9, 0.999, 1.0] {
            for filter in [vec![LV], ["lt", "et", "ru", "uk", "be"].map(code).to_vec()] {
                if let Some(g) = first_witness(&filter, &text, min) {
                    assert!(filter.contains(&g.lang), "{name}");
                    assert!(g.confidence >= min && g.confidence <= 1.0, "{name}: {g:?}");
                }
            }
        }
    }
}

#[test]
fn any_input_is_scored_in_bounded_work_without_panic() {
    let long_lv = "Rīgas pilsētas dome šodien apstiprināja jauno plānu. ".repeat(50_000);
    let inputs: Vec<String> = vec![
        String::new(),
        " ".repeat(10_000),
        "1234567890 ,.;:!? ".repeat(1000),
        "a".repeat(1 << 20),
        "語".repeat(100_000),
        "e\u{301}\u{301}\u{301} ".repeat(1000),
        "\u{0}\u{1}\u{7f}\u{feff}\u{fffd}".repeat(1000),
        "ŸſĸŉǅǈẞİıΣς".repeat(500),
        long_lv.clone(),
    ];
    for t in &inputs {
        if let Some((_, cost, margin, letters)) = witness_scores(t) {
            assert!(cost.is_finite() && margin.is_finite() && margin >= 0.0);
            // Only the sample is read: a few hundred letters at most.
            assert!(letters as usize <= lang::WITNESS_SAMPLE + 64, "{letters}");
        }
        let _ = first_witness(&[LV], t, 0.5);
    }
    // A megabyte of Latvian is still Latvian, read from its sample.
    assert_eq!(
        first_witness(&[LV], &long_lv, 0.5).map(|g| g.lang),
        Some(LV)
    );
}

#[test]
fn nlpc_vrfy_takes_the_witness_s_answer_and_else_the_reconciled_one() {
    let texts = held_out();
    let get = |n: &str| texts.iter().find(|(name, _)| name == n).unwrap().1.clone();
    let cfg = Config {
        langs: vec![Lang::Lav],
        ..Config::default()
    };
    // Settled by the witness: its language and confidence are recorded.
    let lv = get("lv-forum.txt");
    let mut v = Verdict::default();
    assert_eq!(judge_text(&cfg, &lv, &mut v), None);
    assert_eq!(v.language, first_witness(&[LV], &lv, 0.0));
    assert!(v.language.is_some());
    // Not settled: whatlang's answer weighed against the profiles, which
    // here agree with it.
    for name in ["lt-short.txt", "et-short.txt", "ru-short.txt"] {
        let t = get(name);
        let mut v = Verdict::default();
        let r = judge_text(&cfg, &t, &mut v);
        let w =
            lang::detect_in_steps(&Detector::new(), &t, cfg.lang_max_text, |g| g.reliable).unwrap();
        // Not the witness's alone.
        assert_eq!(Profile::of(&t).unwrap().settled(), None, "{name}");
        let got = v.language.unwrap();
        assert_eq!((got.lang, got.reliable), (w.lang, true), "{name}");
        assert_eq!(got.lang.code(), written_in(name));
        assert_eq!(r, Some(Rejection::Language(got.lang.code())), "{name}");
    }
    // The same rule without a filter: the language is only recorded.
    let open = Config::default();
    let mut v = Verdict::default();
    assert_eq!(judge_text(&open, &lv, &mut v), None);
    assert_eq!(v.language.map(|g| g.lang), Some(LV));
}

/// Latgalian reads as Latvian to whatlang, which has no Latgalian; the
/// profiles have one, contradict whatlang and name it.
#[test]
fn latgalian_is_named_though_whatlang_calls_it_latvian() {
    let texts = held_out();
    for (name, text) in texts.iter().filter(|(n, _)| written_in(n) == "ltg") {
        let w = lang::detect(&Detector::new(), text, 0).unwrap();
        assert_eq!(w.lang, LV, "{name}");
        let g = lang::judge(text, 1024).unwrap();
        assert_eq!(g.lang.code(), "ltg", "{name}: {g:?}");
        let mut v = Verdict::default();
        let cfg = Config {
            langs: vec![Lang::Lav],
            ..Config::default()
        };
        assert_eq!(
            judge_text(&cfg, text, &mut v),
            Some(Rejection::Language("ltg")),
            "{name}"
        );
    }
}

#[test]
fn held_out_accuracy() {
    // Over every held-out text and filter language profiled here: how
    // often the witness settles a text in the filter's language, and that
    // it never settles one in another language.
    let mut settled = 0;
    let mut own = 0;
    for (name, text) in held_out() {
        let l = written_in(&name);
        for code in ["lv", "lt", "et", "ru", "uk", "be"] {
            let filter = [lang::parse(code).unwrap()];
            let g = first_witness(&filter, &text, 0.5);
            if l == code {
                own += 1;
                settled += usize::from(g.is_some());
            } else {
                assert_eq!(g, None, "{name} settled as {code}");
            }
        }
    }
    println!("held-out: {settled} of {own} texts settled in their own language, 0 wrong");
    assert!(settled * 2 >= own, "{settled} of {own}");
}

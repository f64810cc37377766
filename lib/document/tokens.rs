//! Tokens and sentences of Latvian text, as the Universal Dependencies
//! Latvian treebank (LVTB) cuts them, for corpus tools (`nlpc-dump
//! --vert`; the rules in nlpc-dump(1)).
//!
//! A layer over the suite's one word split (`words::word_indices`, UAX #29
//! words): the words it finds, each other visible character between them
//! (a grapheme) as a token of its own, and then the Latvian conventions
//! the split knows nothing of: abbreviations, ordinals and initials keep
//! their full stop ("u.c.", "2024.", "J."), numbers in groups of three
//! ("1 000 000") and hyphenated words ("e-pasts") are one token, as are
//! runs of sentence marks ("?!", "...") and URLs and e-mail addresses.
//! Sentences end at a sentence mark (and the closing quotes or brackets
//! glued to it) before a word that may start one; not after an
//! abbreviation, an initial or an ordinal, whose full stop is no token of
//! its own, but for an abbreviation that closes a list ("utt.") before a
//! capital.

use unicode_segmentation::UnicodeSegmentation;

use crate::document::escape::is_control;
use crate::document::lower::lowercase_into;
use crate::document::words::word_indices;

/// Common Latvian abbreviations, lower case, with their full stops; a
/// word and the full stop glued to it that make one of them (in any case)
/// are one token. A single lower-case letter and its full stop always is
/// ("g.", "t."), so those are not listed. Sorted by their bytes, for a
/// binary search.
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &[
    "angl.", "ap.", "apakšp.", "apm.", "apr.", "aptuv.", "asoc.", "att.", "aut.", "bak.",
    "biedr.", "ceturtd.", "dec.", "dien.", "doc.", "dr.", "dz.", "eks.", "etc.", "febr.",
    "fr.", "gab.", "gad.", "gs.", "iedz.", "izd.", "izņ.", "janv.", "jūl.", "jūn.",
    "kapt.", "kdz.", "kr.", "kv.", "lat.", "latv.", "lekt.", "lpp.", "ltn.", "m.ē.",
    "mag.", "maks.", "milj.", "min.", "mljrd.", "mlrd.", "mob.", "mēn.", "ned.", "nod.",
    "nov.", "nr.", "okt.", "otrd.", "p.k.", "p.m.ē.", "pag.", "piektd.", "pielik.",
    "piem.", "pils.", "pirmd.", "pl.", "plkst.", "pr.", "pr.kr.", "priekšs.", "prof.",
    "pulk.", "raj.", "red.", "resp.", "salīdz.", "sast.", "sek.", "sept.", "sestd.",
    "sk.", "skat.", "st.", "sv.", "svētd.", "sēj.", "t.i.", "t.s.", "t.sk.", "tab.",
    "tml.", "trešd.", "tulk.", "tālr.", "tūkst.", "u.c.", "u.t.jpr.", "u.t.t.", "u.tml.",
    "ut.", "utml.", "utt.", "vad.", "vid.", "virsltn.", "vs.", "vāc.", "zīm.", "ģen.",
];

/// The abbreviations that close a list and so often end a sentence: after
/// one of them a capitalised word starts a new sentence.
const LIST_ENDS: &[&str] = &[
    "etc.", "u.c.", "u.t.jpr.", "u.t.t.", "u.tml.", "utml.", "utt.",
];

/// The stems of the Latvian month names, in every case: after a number
/// and its full stop, a month makes it an ordinal ("1. maijā").
const MONTHS: &[&str] = &[
    "janvār", "februār", "mart", "aprīl", "maij", "jūnij", "jūlij", "august", "septembr", "oktobr",
    "novembr", "decembr",
];

/// Marks that end a sentence, alone or in a run ("?!", "...").
fn is_final(c: char) -> bool {
    matches!(c, '.' | '?' | '!' | '…' | '‼' | '⁇' | '⁈' | '⁉')
}

/// Marks a run of which is one token ("--", ",," for a quote, "**").
fn repeats(c: char) -> bool {
    matches!(c, '-' | ',' | '\'' | '*' | '=' | '~' | '_' | '#')
}

/// Hyphens that join the parts of a word ("e-pasts"); a dash does not.
fn is_hyphen(s: &str) -> bool {
    matches!(s, "-" | "\u{2010}" | "\u{2011}")
}

/// Closing quotes and brackets, which stay with the sentence they close.
fn is_closing(s: &str) -> bool {
    matches!(s, "\"" | "'" | "”" | "’" | "»" | "›" | ")" | "]" | "}")
}

/// The white space between the groups of three digits of a number: a
/// space, a no-break space, a thin or narrow no-break space.
fn is_group_space(s: &str) -> bool {
    matches!(s, " " | "\u{a0}" | "\u{2009}" | "\u{202f}")
}

/// Characters that part tokens without being one: white space, control
/// characters, and the invisible format characters (zero-width space and
/// joiners, word joiner, byte order mark, soft hyphen).
fn is_blank(c: char) -> bool {
    c.is_whitespace()
        || is_control(c)
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// What a piece of text the tokenizer found is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A word of the word split.
    Word,
    /// A visible character (or run of them) between words.
    Mark,
    /// A URL or an e-mail address.
    Address,
}

/// A piece of the text: its byte range and kind.
#[derive(Clone, Copy, Debug)]
struct Atom {
    start: usize,
    end: usize,
    kind: Kind,
}

/// One token: a slice of the text (on char boundaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'t> {
    pub text: &'t str,
    /// No white space parts it from the token before (the first token of
    /// a text is never glued).
    pub glued: bool,
    /// A word and its full stop: an abbreviation, an ordinal or an
    /// initial, after which no sentence ends (but for a list's end).
    dotted: bool,
}

/// The end of the URL that starts at `i` in `piece` (a run of characters
/// without white space), without the punctuation that closes a sentence
/// or a bracket after it; None when no URL starts there. A URL starts with
/// `http://`, `https://` or `www.` and a character not a mark.
fn url_end(piece: &str, i: usize) -> Option<usize> {
    let rest = &piece[i..];
    let head = ["https://", "http://", "www."].into_iter().find(|h| {
        rest.as_bytes()
            .get(..h.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(h.as_bytes()))
    })?;
    // The head is ASCII, so its end is a char boundary.
    if !rest[head.len()..]
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric)
    {
        return None;
    }
    // Trailing punctuation belongs to the sentence, and a closing bracket
    // to the text unless the URL opened it: the brackets are counted once.
    let count = |c: u8| rest.bytes().filter(|&b| b == c).count();
    let (mut round, mut square) = (
        count(b')') as isize - count(b'(') as isize,
        count(b']') as isize - count(b'[') as isize,
    );
    let mut end = rest.len();
    while let Some(c) = rest[..end].chars().next_back() {
        let strip = match c {
            '.' | ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '”' | '’' | '»' => true,
            ')' => round > 0,
            ']' => square > 0,
            _ => false,
        };
        if !strip || end <= head.len() + 1 {
            break;
        }
        match c {
            ')' => round -= 1,
            ']' => square -= 1,
            _ => {}
        }
        end -= c.len_utf8();
    }
    Some(i + end)
}

/// The bytes an e-mail address may hold on either side of its `@`.
fn local_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-')
}
fn domain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-')
}

/// The e-mail address around the `@` at `at` in `piece`, as its byte
/// range: a local part, and a domain with a full stop and a top-level
/// domain of letters; None when there is none.
fn email_at(piece: &str, at: usize) -> Option<(usize, usize)> {
    let b = piece.as_bytes();
    let mut s = at;
    while s > 0 && local_byte(b[s - 1]) {
        s -= 1;
    }
    // A local part starts with no full stop.
    while s < at && b[s] == b'.' {
        s += 1;
    }
    let mut e = at + 1;
    while e < b.len() && domain_byte(b[e]) {
        e += 1;
    }
    while e > at + 1 && matches!(b[e - 1], b'.' | b'-') {
        e -= 1;
    }
    let domain = &piece[at + 1..e];
    let tld = domain.rsplit('.').next().unwrap_or("");
    let ok = s < at
        && domain.contains('.')
        && !domain.starts_with(['.', '-'])
        && tld.len() >= 2
        && tld.bytes().all(|c| c.is_ascii_alphabetic());
    ok.then_some((s, e))
}

/// The URLs and e-mail addresses of `text`, as byte ranges in order.
fn addresses(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for piece in text.split(is_blank) {
        // Each piece is a slice of `text`.
        let base = piece.as_ptr() as usize - text.as_ptr() as usize;
        // Only where a URL or address could be: cheap to rule out.
        if !piece.contains(['@', '/', '.']) {
            continue;
        }
        let mut i = 0;
        while i < piece.len() {
            // A URL starts at the piece's start or after a mark.
            let starts = i == 0
                || !piece[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
            if starts {
                if let Some(e) = url_end(piece, i) {
                    out.push((base + i, base + e));
                    i = e;
                    continue;
                }
            }
            if piece.as_bytes()[i] == b'@' {
                if let Some((s, e)) = email_at(piece, i) {
                    // The local part is read back from the '@'; it never
                    // reaches into a URL found before.
                    if out.last().is_none_or(|&(_, z)| z <= base + s) {
                        out.push((base + s, base + e));
                        i = e;
                        continue;
                    }
                }
            }
            i += piece[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// The atoms of `text[from..to]`: its words, and the visible graphemes
/// between them, a run of sentence marks or of one repeated mark as one.
fn atoms_between(text: &str, from: usize, to: usize, out: &mut Vec<Atom>) {
    let part = &text[from..to];
    let mut at = 0;
    let gap = |out: &mut Vec<Atom>, a: usize, z: usize| {
        let mut run: Option<(usize, usize, char)> = None;
        for (i, g) in part[a..z].grapheme_indices(true) {
            let s = from + a + i;
            let e = s + g.len();
            // A mark may combine with the white space before it (UAX #29
            // makes one grapheme of them): the token is the mark.
            let lead: usize = g
                .chars()
                .take_while(|&c| is_blank(c))
                .map(char::len_utf8)
                .sum();
            let (s, g) = (s + lead, &g[lead..]);
            let Some(c) = g.chars().next() else {
                if let Some((rs, re, _)) = run.take() {
                    out.push(Atom {
                        start: rs,
                        end: re,
                        kind: Kind::Mark,
                    });
                }
                continue;
            };
            let single = g.chars().count() == 1;
            if let Some((rs, re, rc)) = run {
                let joins =
                    single && re == s && ((is_final(c) && is_final(rc)) || (repeats(c) && c == rc));
                if joins {
                    run = Some((rs, e, rc));
                    continue;
                }
                out.push(Atom {
                    start: rs,
                    end: re,
                    kind: Kind::Mark,
                });
            }
            run = Some((s, e, if single { c } else { '\0' }));
        }
        if let Some((rs, re, _)) = run {
            out.push(Atom {
                start: rs,
                end: re,
                kind: Kind::Mark,
            });
        }
    };
    word_indices(part, |i, w| {
        if i > at {
            gap(out, at, i);
        }
        out.push(Atom {
            start: from + i,
            end: from + i + w.len(),
            kind: Kind::Word,
        });
        at = i + w.len();
    });
    if at < part.len() {
        gap(out, at, part.len());
    }
}

/// The atoms of `text`, addresses whole.
fn atoms(text: &str) -> Vec<Atom> {
    let mut out = Vec::new();
    let mut at = 0;
    for (s, e) in addresses(text) {
        atoms_between(text, at, s, &mut out);
        out.push(Atom {
            start: s,
            end: e,
            kind: Kind::Address,
        });
        at = e;
    }
    atoms_between(text, at, text.len(), &mut out);
    out
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_roman(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b"IVXLCDM".contains(&b))
}

/// A group of three digits after the first ("000"), or the last group with
/// decimals ("000,50"); true in the second place for the last.
fn group(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    if b.len() < 3 || !b[..3].iter().all(u8::is_ascii_digit) {
        return None;
    }
    match &b[3..] {
        [] => Some(false),
        [b',', rest @ ..] if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit) => Some(true),
        _ => None,
    }
}

/// Starts with a lower-case letter.
fn starts_lower(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_lowercase)
}

/// Starts with an upper-case letter.
fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}

fn is_month(s: &str) -> bool {
    let mut low = String::new();
    lowercase_into(&mut low, s);
    MONTHS.iter().any(|m| low.starts_with(m))
}

/// Whether `word` and a full stop after it are an abbreviation.
fn is_abbreviation(word: &str) -> bool {
    let mut c = word.chars();
    if let (Some(l), None) = (c.next(), c.next()) {
        return l.is_lowercase();
    }
    let mut key = String::with_capacity(word.len() + 1);
    lowercase_into(&mut key, word);
    key.push('.');
    ABBREVIATIONS.binary_search(&key.as_str()).is_ok()
}

/// The tokens of `text`.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let atoms = atoms(text);
    let src = |a: &Atom| &text[a.start..a.end];
    let glued = |a: &Atom, b: &Atom| a.end == b.start;
    // Each token's byte range and whether it is a word and its full stop.
    let mut spans: Vec<(usize, usize, bool)> = Vec::with_capacity(atoms.len());
    let mut i = 0;
    while i < atoms.len() {
        let a = &atoms[i];
        if a.kind != Kind::Word {
            spans.push((a.start, a.end, false));
            i += 1;
            continue;
        }
        let w = src(a);
        // A number in groups of three: "605 000", "1 000 000,50".
        if is_digits(w) && w.len() <= 3 {
            let mut j = i;
            while let Some(n) = atoms.get(j + 1) {
                let last = match group(src(n)) {
                    Some(last) if n.kind == Kind::Word => last,
                    _ => break,
                };
                if !is_group_space(&text[atoms[j].end..n.start]) {
                    break;
                }
                j += 1;
                if last {
                    break;
                }
            }
            if j > i {
                spans.push((a.start, atoms[j].end, false));
                i = j + 1;
                continue;
            }
        }
        // A hyphenated word: "e-pasts", "Austrumeiropas-Baltijas",
        // "COVID-19"; not a range of numbers ("1990-2000").
        let letters = |s: &str| s.chars().any(crate::document::letters::alphabetic);
        let mut j = i;
        while let (Some(h), Some(n)) = (atoms.get(j + 1), atoms.get(j + 2)) {
            let cur = &atoms[j];
            if h.kind == Kind::Mark
                && is_hyphen(src(h))
                && n.kind == Kind::Word
                && glued(cur, h)
                && glued(h, n)
                && (letters(src(cur)) || letters(src(n)))
            {
                j += 2;
            } else {
                break;
            }
        }
        let last = &atoms[j];
        // A word and the full stop glued to it: an abbreviation, an
        // ordinal before a lower-case word or a month, an initial before
        // a capitalised word.
        if j == i {
            let dot = atoms
                .get(i + 1)
                .filter(|d| d.kind == Kind::Mark && src(d) == "." && glued(a, d));
            if let Some(dot) = dot {
                let next = atoms.get(i + 2).filter(|n| n.kind == Kind::Word).map(src);
                let mut c = w.chars();
                let one_capital =
                    matches!((c.next(), c.next()), (Some(l), None) if l.is_uppercase());
                let ordinal = (is_digits(w) || is_roman(w))
                    && next.is_some_and(|n| starts_lower(n) || is_month(n));
                let initial = (one_capital || w == "Dž") && next.is_some_and(starts_upper);
                if ordinal || initial || is_abbreviation(w) {
                    spans.push((a.start, dot.end, true));
                    i += 2;
                    continue;
                }
            }
        }
        spans.push((a.start, last.end, false));
        i = j + 1;
    }
    let mut prev_end = None;
    spans
        .into_iter()
        .map(|(s, e, dotted)| {
            let glued = prev_end == Some(s);
            prev_end = Some(e);
            Token {
                text: &text[s..e],
                glued,
                dotted,
            }
        })
        .collect()
}

/// Whether a sentence may start with `t`: a capital, a digit, an opening
/// quote, bracket or dash.
fn may_start(t: &Token<'_>) -> bool {
    let Some(c) = t.text.chars().next() else {
        return false;
    };
    c.is_uppercase()
        || c.is_numeric()
        || matches!(
            c,
            '"' | '\'' | '“' | '„' | '«' | '‘' | '‹' | '(' | '[' | '—' | '–' | '-'
        )
}

/// The sentences of `text`, each its tokens (never none).
pub fn sentences(text: &str) -> Vec<Vec<Token<'_>>> {
    let toks = tokens(text);
    let mut out = Vec::new();
    let mut cur: Vec<Token<'_>> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        cur.push(t);
        i += 1;
        let ends = if t.dotted {
            // An abbreviation that closes a list may close the sentence.
            let mut low = String::new();
            lowercase_into(&mut low, t.text);
            LIST_ENDS.contains(&low.as_str())
        } else {
            !t.text.is_empty() && t.text.chars().all(is_final)
        };
        if !ends {
            continue;
        }
        // What closes a quotation or bracket glued to the mark stays.
        if !t.dotted {
            while let Some(c) = toks.get(i).filter(|c| c.glued && is_closing(c.text)) {
                cur.push(*c);
                i += 1;
            }
        }
        if let Some(n) = toks.get(i) {
            let starts = if t.dotted {
                n.text.chars().next().is_some_and(char::is_uppercase)
            } else {
                may_start(n)
            };
            if !starts {
                continue;
            }
        }
        out.push(std::mem::take(&mut cur));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    fn split(s: &str) -> Vec<Vec<&str>> {
        sentences(s)
            .into_iter()
            .map(|s| s.into_iter().map(|t| t.text).collect())
            .collect()
    }

    #[test]
    fn the_lists_are_sorted_lower_case_and_dotted() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
        for a in ABBREVIATIONS.iter().chain(LIST_ENDS) {
            let mut low = String::new();
            lowercase_into(&mut low, a);
            assert_eq!(&low, a);
            assert!(a.ends_with('.') && a.chars().count() > 2, "{a}");
        }
        for a in LIST_ENDS {
            assert!(ABBREVIATIONS.contains(a), "{a}");
        }
    }

    #[test]
    fn groups_of_three_digits_are_one_number() {
        assert_eq!(texts("605 000 eiro"), ["605 000", "eiro"]);
        assert_eq!(texts("1 000 000 iedzīvotāju"), ["1 000 000", "iedzīvotāju"]);
        assert_eq!(texts("1\u{a0}000\u{a0}000"), ["1\u{a0}000\u{a0}000"]);
        assert_eq!(texts("12 000,50 EUR"), ["12 000,50", "EUR"]);
        // Not groups: four digits first, two digits after, two spaces.
        assert_eq!(texts("1990 100"), ["1990", "100"]);
        assert_eq!(texts("12 34"), ["12", "34"]);
        assert_eq!(texts("12  345"), ["12", "345"]);
        assert_eq!(texts("3,14 un 2.5"), ["3,14", "un", "2.5"]);
    }

    #[test]
    fn abbreviations_keep_their_full_stop() {
        assert_eq!(
            texts("āboli, bumbieri u.c. augļi, piem., plūmes utt."),
            ["āboli", ",", "bumbieri", "u.c.", "augļi", ",", "piem.", ",", "plūmes", "utt."]
        );
        assert_eq!(
            texts("t.i. un t.s. un T.sk."),
            ["t.i.", "un", "t.s.", "un", "T.sk."]
        );
        assert_eq!(texts("2024. g. plkst. 10"), ["2024.", "g.", "plkst.", "10"]);
        // Not an abbreviation: the full stop is a token.
        assert_eq!(texts("Tas ir labi."), ["Tas", "ir", "labi", "."]);
        assert_eq!(texts("proti, tā"), ["proti", ",", "tā"]);
        // An ellipsis after one is an ellipsis.
        assert_eq!(texts("utt..."), ["utt", "..."]);
    }

    #[test]
    fn ordinals_keep_their_dot_and_a_number_ending_a_sentence_does_not() {
        assert_eq!(
            texts("2024. gada 1. maijā"),
            ["2024.", "gada", "1.", "maijā"]
        );
        assert_eq!(texts("1. Maijā"), ["1.", "Maijā"]);
        assert_eq!(texts("XX. gadsimtā"), ["XX.", "gadsimtā"]);
        assert_eq!(
            split("Viņš dzimis 1990. Tad pārcēlās."),
            [
                vec!["Viņš", "dzimis", "1990", "."],
                vec!["Tad", "pārcēlās", "."]
            ]
        );
        assert_eq!(texts("Skaitlis 7."), ["Skaitlis", "7", "."]);
    }

    #[test]
    fn initials_before_a_capitalised_word() {
        assert_eq!(
            texts("J. Kalniņš un Dž. Smits"),
            ["J.", "Kalniņš", "un", "Dž.", "Smits"]
        );
        assert_eq!(
            split("Rakstīja K. Barons."),
            [vec!["Rakstīja", "K.", "Barons", "."]]
        );
    }

    #[test]
    fn hyphenated_words_whole_ranges_apart() {
        assert_eq!(
            texts("Austrumeiropas-Baltijas e-pasts COVID-19 1990-2000 a - b"),
            [
                "Austrumeiropas-Baltijas",
                "e-pasts",
                "COVID-19",
                "1990",
                "-",
                "2000",
                "a",
                "-",
                "b"
            ]
        );
    }

    #[test]
    fn runs_of_marks_are_one_token() {
        assert_eq!(texts("Kāpēc?! Nezinu..."), ["Kāpēc", "?!", "Nezinu", "..."]);
        assert_eq!(texts("Nu!!! ,,Jā''"), ["Nu", "!!!", ",,", "Jā", "''"]);
        assert_eq!(texts("(a))."), ["(", "a", ")", ")", "."]);
        let t = tokens("Kāpēc?! Nezinu");
        assert_eq!(
            t.iter().map(|t| t.glued).collect::<Vec<_>>(),
            [false, true, false]
        );
    }

    #[test]
    fn urls_and_addresses_whole() {
        assert_eq!(
            texts("Skatīt https://www.lsm.lv/raksts/zinas?id=5&x=1. Raksti uz info@lu.lv!"),
            [
                "Skatīt",
                "https://www.lsm.lv/raksts/zinas?id=5&x=1",
                ".",
                "Raksti",
                "uz",
                "info@lu.lv",
                "!"
            ]
        );
        assert_eq!(
            texts("(www.delfi.lv) un (http://lv.wikipedia.org/wiki/Rīga_(pilsēta))"),
            [
                "(",
                "www.delfi.lv",
                ")",
                "un",
                "(",
                "http://lv.wikipedia.org/wiki/Rīga_(pilsēta)",
                ")"
            ]
        );
        // No address: a lone @, a domain without a top-level domain.
        assert_eq!(texts("a @ b x@y"), ["a", "@", "b", "x", "@", "y"]);
    }

    #[test]
    fn sentences_end_at_marks_before_a_capital() {
        assert_eq!(
            split("Labdien! Kā iet? \"Labi.\" Paldies... nu labi."),
            [
                vec!["Labdien", "!"],
                vec!["Kā", "iet", "?"],
                vec!["\"", "Labi", ".", "\""],
                vec!["Paldies", "...", "nu", "labi", "."]
            ]
        );
        // Not after an abbreviation or an ordinal, which have no mark.
        assert_eq!(split("Sk. 5. lpp. Tur, piem. Rīgā.").len(), 1);
        // A list's end closes a sentence before a capital.
        assert_eq!(split("Āboli, bumbieri utt. Tie aug.").len(), 2);
        assert_eq!(split("").len(), 0);
        assert!(split(" ... ").iter().all(|s| !s.is_empty()));
    }

    #[test]
    fn every_visible_character_is_in_a_token_in_order() {
        for s in [
            "Rīga, 2024. gada 1. maijā — 605 000 iedzīvotāju (u.c.)?! e-pasts: a@b.lv",
            "\u{200b}x\u{ad}y ́a 🇱🇻 ❤️ 日本語 a_b __ -- ,,",
            "http://a.lv/x\u{1}y\u{7f}.z@b.lv\u{9b}\r\n1\u{1}000",
            " \t\n",
        ] {
            let visible: String = s.chars().filter(|c| !is_blank(*c)).collect();
            let joined: String = tokens(s)
                .iter()
                .flat_map(|t| t.text.chars())
                .filter(|c| !is_blank(*c))
                .collect();
            assert_eq!(joined, visible, "{s:?}");
            assert!(tokens(s).iter().all(|t| !t.text.is_empty()
                && !t.text.chars().any(is_control)
                && !t.text.starts_with(char::is_whitespace)
                && !t.text.ends_with(char::is_whitespace)));
        }
    }
}

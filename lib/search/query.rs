//! nlpc-search's query language, parsed here and turned into tantivy
//! queries directly (so words are split and lower-cased exactly as the
//! index split them, and the concordance knows what a hit is):
//!
//! - `word`: the word, in title or text; `word*`: words starting so (at
//!   least [`MIN_PREFIX`] letters, expanded through the index's term
//!   dictionary to at most [`MAX_EXPANSION`] words, the most frequent);
//! - `"two words"`: the phrase;
//! - `a b` and `a AND b`: both; `a OR b`: either; `NOT a` or `-a`: not;
//!   parentheses group; AND binds tighter than OR;
//! - `lang:lv`, `host:example.lv`: filters on the page's language and host;
//! - `date:2024-01-01..2024-06-30` (either side may be left out; a year
//!   or a month stands for all of it), `date:2024-05`: the fetch time.
//!
//! A query holds at most [`MAX_TERMS`] words, phrases and filters: what it
//! costs to answer is bounded before anything is searched.

use std::ops::Bound;

use std::cell::RefCell;
use std::collections::HashMap;

use tantivy::query::{AllQuery, BooleanQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::{DateTime, Searcher};

use crate::error::{Error, Result};
use crate::search::schema::Fields;
use crate::search::words;

/// A parsed query.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A word as typed; `prefix` for `word*`.
    Word {
        text: String,
        prefix: bool,
    },
    /// A quoted phrase as typed.
    Phrase(String),
    /// `name:value`.
    Filter(String, String),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    Quoted(String),
    Bare(String),
}

/// Longest query accepted, in bytes.
pub const MAX_QUERY: usize = 4096;
/// The most words, phrases and filters in one query.
pub const MAX_TERMS: usize = 64;
/// The fewest letters before a `*`.
pub const MIN_PREFIX: usize = 2;
/// The most words one prefix stands for: the most frequent of those it
/// begins.
pub const MAX_EXPANSION: usize = 64;
/// The most dictionary words looked at for one prefix, per field and
/// segment.
pub const MAX_SCAN: usize = 100_000;

fn bad(why: impl std::fmt::Display) -> Error {
    Error::Usage(format!("query: {why}"))
}

fn lex(q: &str) -> Result<Vec<Tok>> {
    let mut out = Vec::new();
    let mut it = q.char_indices().peekable();
    while let Some((_, c)) = it.next() {
        match c {
            c if c.is_whitespace() => {}
            '(' => out.push(Tok::Open),
            ')' => out.push(Tok::Close),
            '"' => {
                let mut s = String::new();
                let mut closed = false;
                for (_, c) in it.by_ref() {
                    if c == '"' {
                        closed = true;
                        break;
                    }
                    s.push(c);
                }
                if !closed {
                    return Err(bad("a phrase's closing quote is missing"));
                }
                out.push(Tok::Quoted(s));
            }
            c => {
                let mut s = String::from(c);
                while let Some(&(_, c)) = it.peek() {
                    if c.is_whitespace() || matches!(c, '(' | ')' | '"') {
                        break;
                    }
                    s.push(c);
                    it.next();
                }
                out.push(Tok::Bare(s));
            }
        }
    }
    Ok(out)
}

struct P {
    toks: Vec<Tok>,
    at: usize,
    depth: usize,
}

/// Deepest nesting of parentheses and NOTs: the parser recurses.
const MAX_DEPTH: usize = 64;

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn is_bare(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Bare(b)) if b == w)
    }
    fn or(&mut self) -> Result<Node> {
        let mut v = vec![self.and()?];
        while self.is_bare("OR") {
            self.at += 1;
            v.push(self.and()?);
        }
        Ok(if v.len() == 1 {
            v.remove(0)
        } else {
            Node::Or(v)
        })
    }
    fn and(&mut self) -> Result<Node> {
        let mut v = vec![self.unary()?];
        loop {
            match self.peek() {
                None | Some(Tok::Close) => break,
                Some(Tok::Bare(b)) if b == "OR" => break,
                Some(Tok::Bare(b)) if b == "AND" => self.at += 1,
                _ => {}
            }
            v.push(self.unary()?);
        }
        Ok(if v.len() == 1 {
            v.remove(0)
        } else {
            Node::And(v)
        })
    }
    fn unary(&mut self) -> Result<Node> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad("nested too deeply"));
        }
        let n = self.unary_inner();
        self.depth -= 1;
        n
    }
    fn unary_inner(&mut self) -> Result<Node> {
        let t = self
            .peek()
            .cloned()
            .ok_or_else(|| bad("ends where a word was expected"))?;
        self.at += 1;
        match t {
            Tok::Bare(b) if b == "NOT" => Ok(Node::Not(Box::new(self.unary()?))),
            Tok::Bare(b) if b == "AND" || b == "OR" => {
                Err(bad(format!("{b} needs a word before it")))
            }
            Tok::Bare(b) if b.len() > 1 && b.starts_with('-') => {
                Ok(Node::Not(Box::new(bare(&b[1..]))))
            }
            Tok::Bare(b) => Ok(bare(&b)),
            Tok::Quoted(s) => Ok(Node::Phrase(s)),
            Tok::Open => {
                let n = self.or()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(bad("a closing parenthesis is missing"));
                }
                self.at += 1;
                Ok(n)
            }
            Tok::Close => Err(bad("a parenthesis closes that was not opened")),
        }
    }
}

/// Filters the language knows.
const FILTERS: [&str; 3] = ["lang", "host", "date"];

fn bare(b: &str) -> Node {
    if let Some((name, value)) = b.split_once(':') {
        if FILTERS.contains(&name) && !value.is_empty() {
            return Node::Filter(name.to_string(), value.to_string());
        }
    }
    match b.strip_suffix('*') {
        Some(w) if !w.is_empty() => Node::Word {
            text: w.to_string(),
            prefix: true,
        },
        _ => Node::Word {
            text: b.to_string(),
            prefix: false,
        },
    }
}

/// Parses a query.
pub fn parse(q: &str) -> Result<Node> {
    if q.len() > MAX_QUERY {
        return Err(bad(format!("longer than {MAX_QUERY} bytes")));
    }
    let toks = lex(q)?;
    if toks.is_empty() {
        return Err(bad("empty"));
    }
    let mut p = P {
        toks,
        at: 0,
        depth: 0,
    };
    let n = p.or()?;
    if p.at < p.toks.len() {
        return Err(bad("a parenthesis closes that was not opened"));
    }
    let terms = leaves(&n);
    if terms > MAX_TERMS {
        return Err(bad(format!(
            "{terms} words, phrases and filters; at most {MAX_TERMS}"
        )));
    }
    Ok(n)
}

/// Words, phrases and filters in `n`.
fn leaves(n: &Node) -> usize {
    match n {
        Node::Word { .. } | Node::Phrase(_) | Node::Filter(..) => 1,
        Node::And(v) | Node::Or(v) => v.iter().map(leaves).sum(),
        Node::Not(c) => leaves(c),
    }
}

/// What the concordance calls a hit: a sequence of normal forms, the
/// last one a prefix for `word*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub words: Vec<String>,
    pub prefix: bool,
}

impl Pattern {
    /// True when `w` (normal forms, from the hit's first word on) starts
    /// with this pattern.
    pub fn matches(&self, w: &[&str]) -> bool {
        if w.len() < self.words.len() {
            return false;
        }
        let n = self.words.len();
        self.words.iter().zip(w).enumerate().all(|(i, (p, w))| {
            if self.prefix && i + 1 == n {
                w.starts_with(p.as_str())
            } else {
                p == w
            }
        })
    }
}

/// The patterns of the words and phrases a query asks for (not those it
/// excludes): what the concordance shows as hits.
pub fn patterns(n: &Node, fold: bool) -> Vec<Pattern> {
    let mut out = Vec::new();
    collect(n, fold, &mut out);
    out
}

fn collect(n: &Node, fold: bool, out: &mut Vec<Pattern>) {
    let norm = |s: &str| -> Vec<String> {
        words::split(s, fold)
            .into_iter()
            .map(|(_, w)| w.norm)
            .collect()
    };
    match n {
        Node::Word { text, prefix } => {
            let w = norm(text);
            if !w.is_empty() {
                out.push(Pattern {
                    prefix: *prefix && w.len() == 1,
                    words: w,
                });
            }
        }
        Node::Phrase(s) => {
            let w = norm(s);
            if !w.is_empty() {
                out.push(Pattern {
                    words: w,
                    prefix: false,
                });
            }
        }
        Node::And(v) | Node::Or(v) => v.iter().for_each(|c| collect(c, fold, out)),
        Node::Filter(..) | Node::Not(_) => {}
    }
}

/// The first second of a date given as YYYY, YYYY-MM or YYYY-MM-DD, and
/// the first second after it.
fn day_range(s: &str) -> Result<(i64, i64)> {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, lo: u32, hi: u32| -> Result<u32> {
        p.parse::<u32>()
            .ok()
            .filter(|v| (lo..=hi).contains(v) && p.len() <= 4)
            .ok_or_else(|| bad(format!("date {s:?}: write YYYY, YYYY-MM or YYYY-MM-DD")))
    };
    let y = num(parts[0], 1970, 9999)? as i64;
    let (start, end) = match parts.len() {
        1 => (days(y, 1, 1), days(y + 1, 1, 1)),
        2 => {
            let m = num(parts[1], 1, 12)?;
            let next = if m == 12 {
                days(y + 1, 1, 1)
            } else {
                days(y, m + 1, 1)
            };
            (days(y, m, 1), next)
        }
        3 => {
            let m = num(parts[1], 1, 12)?;
            let d = num(parts[2], 1, 31)?;
            (days(y, m, d), days(y, m, d) + 1)
        }
        _ => {
            return Err(bad(format!(
                "date {s:?}: write YYYY, YYYY-MM or YYYY-MM-DD"
            )))
        }
    };
    Ok((start * 86_400, end * 86_400))
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days(y: i64, m: u32, d: u32) -> i64 {
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m as i64 + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The fetch-time range of a `date:` value: `A..B`, `A..`, `..B` or `A`.
pub fn date_bounds(v: &str) -> Result<(Option<i64>, Option<i64>)> {
    match v.split_once("..") {
        Some((a, b)) => {
            let lo = (!a.is_empty()).then(|| day_range(a)).transpose()?;
            let hi = (!b.is_empty()).then(|| day_range(b)).transpose()?;
            if lo.is_none() && hi.is_none() {
                return Err(bad("date: give at least one end of the range"));
            }
            Ok((lo.map(|r| r.0), hi.map(|r| r.1)))
        }
        None => {
            let (a, b) = day_range(v)?;
            Ok((Some(a), Some(b)))
        }
    }
}

/// Turns parsed queries into tantivy's.
pub struct Compiler<'a> {
    pub f: Fields,
    /// Match the folded fields: diacritics do not count.
    pub fold: bool,
    /// The index whose term dictionary prefixes expand through.
    pub searcher: &'a Searcher,
    /// What the expansion of prefixes left out, for the answer to say.
    pub notes: RefCell<Vec<String>>,
}

/// The words of the index's dictionaries in `fields` that begin with
/// `prefix`, with the documents each is in (summed over segments), at
/// most [`MAX_SCAN`] looked at per field and segment; and whether any
/// scan stopped there.
fn expand(searcher: &Searcher, fields: &[Field], prefix: &str) -> (HashMap<String, u64>, bool) {
    let mut words: HashMap<String, u64> = HashMap::new();
    let mut cut = false;
    for seg in searcher.segment_readers() {
        for f in fields {
            let Ok(inv) = seg.inverted_index(*f) else {
                continue;
            };
            let Ok(mut stream) = inv.terms().range().ge(prefix.as_bytes()).into_stream() else {
                continue;
            };
            let mut seen = 0;
            while stream.advance() {
                let k = stream.key();
                if !k.starts_with(prefix.as_bytes()) {
                    break;
                }
                seen += 1;
                if seen > MAX_SCAN {
                    cut = true;
                    break;
                }
                if let Ok(w) = std::str::from_utf8(k) {
                    *words.entry(w.to_string()).or_default() += u64::from(stream.value().doc_freq);
                }
            }
        }
    }
    (words, cut)
}

impl Compiler<'_> {
    fn fields(&self) -> [Field; 2] {
        if self.fold {
            [self.f.text_fold, self.f.title_fold]
        } else {
            [self.f.text, self.f.title]
        }
    }

    fn any_field(&self, mk: impl Fn(Field) -> Result<Box<dyn Query>>) -> Result<Box<dyn Query>> {
        let mut v = Vec::new();
        for f in self.fields() {
            v.push((Occur::Should, mk(f)?));
        }
        Ok(Box::new(BooleanQuery::new(v)))
    }

    fn words(&self, s: &str, prefix: bool) -> Result<Option<Box<dyn Query>>> {
        let w: Vec<String> = words::split(s, self.fold)
            .into_iter()
            .map(|(_, w)| w.norm)
            .collect();
        if w.is_empty() {
            return Ok(None);
        }
        let q = if w.len() == 1 && prefix {
            let p = &w[0];
            let letters = p.chars().count();
            if letters < MIN_PREFIX {
                return Err(bad(format!(
                    "{s}*: a prefix needs at least {MIN_PREFIX} letters before the *"
                )));
            }
            // The dictionary's words, not a pattern: no character of the
            // word is special, and the words are bounded.
            let (found, cut) = expand(self.searcher, &self.fields(), p);
            let mut ranked: Vec<(String, u64)> = found.into_iter().collect();
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let all = ranked.len();
            ranked.truncate(MAX_EXPANSION);
            if all > MAX_EXPANSION || cut {
                self.notes.borrow_mut().push(format!(
                    "{s}* stands for {}{all} words; the {} most frequent were searched",
                    if cut { "more than " } else { "" },
                    ranked.len()
                ));
            }
            let mut subs: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for f in self.fields() {
                for (t, _) in &ranked {
                    subs.push((
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_text(f, t),
                            IndexRecordOption::WithFreqs,
                        )),
                    ));
                }
            }
            Box::new(BooleanQuery::new(subs))
        } else if w.len() == 1 {
            self.any_field(|f| {
                Ok(Box::new(TermQuery::new(
                    Term::from_field_text(f, &w[0]),
                    IndexRecordOption::WithFreqs,
                )))
            })?
        } else {
            self.any_field(|f| {
                let terms = w.iter().map(|x| Term::from_field_text(f, x)).collect();
                Ok(Box::new(PhraseQuery::new(terms)))
            })?
        };
        Ok(Some(q))
    }

    fn filter(&self, name: &str, v: &str) -> Result<Box<dyn Query>> {
        // Language codes and hosts are protocol tokens, indexed in ASCII
        // lowercase (hosts are IDNA ASCII), so folded as they were.
        let term = |f: Field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(f, &v.to_ascii_lowercase()),
                IndexRecordOption::Basic,
            ))
        };
        match name {
            "lang" => Ok(term(self.f.lang, v)),
            "host" => Ok(term(self.f.host, v)),
            _ => {
                let (lo, hi) = date_bounds(v)?;
                let t =
                    |s: i64| Term::from_field_date(self.f.date, DateTime::from_timestamp_secs(s));
                let lo = lo.map_or(Bound::Unbounded, |s| Bound::Included(t(s)));
                let hi = hi.map_or(Bound::Unbounded, |s| Bound::Excluded(t(s)));
                Ok(Box::new(RangeQuery::new(lo, hi)))
            }
        }
    }

    /// The tantivy query of `n`; None for one that asks for nothing (only
    /// punctuation).
    pub fn compile(&self, n: &Node) -> Result<Option<Box<dyn Query>>> {
        match n {
            Node::Word { text, prefix } => self.words(text, *prefix),
            Node::Phrase(s) => self.words(s, false),
            Node::Filter(name, v) => self.filter(name, v).map(Some),
            Node::Not(c) => {
                // A lone NOT: every document but those.
                let Some(q) = self.compile(c)? else {
                    return Ok(None);
                };
                Ok(Some(Box::new(BooleanQuery::new(vec![
                    (Occur::Must, Box::new(AllQuery)),
                    (Occur::MustNot, q),
                ]))))
            }
            Node::And(v) => {
                let mut subs: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for c in v {
                    let (occur, c) = match c {
                        Node::Not(inner) => (Occur::MustNot, inner.as_ref()),
                        c => (Occur::Must, c),
                    };
                    if let Some(q) = self.compile(c)? {
                        subs.push((occur, q));
                    }
                }
                if !subs.iter().any(|(o, _)| *o == Occur::Must) {
                    if subs.is_empty() {
                        return Ok(None);
                    }
                    subs.push((Occur::Must, Box::new(AllQuery)));
                }
                Ok(Some(Box::new(BooleanQuery::new(subs))))
            }
            Node::Or(v) => {
                let mut subs: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for c in v {
                    if let Some(q) = self.compile(c)? {
                        subs.push((Occur::Should, q));
                    }
                }
                if subs.is_empty() {
                    return Ok(None);
                }
                Ok(Some(Box::new(BooleanQuery::new(subs))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_language() {
        let n = parse("rīga OR \"jūras krasts\" -vējš lang:lv ūden*").unwrap();
        let Node::Or(v) = n else { panic!("{n:?}") };
        assert_eq!(
            v[0],
            Node::Word {
                text: "rīga".into(),
                prefix: false
            }
        );
        assert_eq!(
            v[1],
            Node::And(vec![
                Node::Phrase("jūras krasts".into()),
                Node::Not(Box::new(Node::Word {
                    text: "vējš".into(),
                    prefix: false
                })),
                Node::Filter("lang".into(), "lv".into()),
                Node::Word {
                    text: "ūden".into(),
                    prefix: true
                },
            ])
        );
        assert!(parse("(a").is_err());
        assert!(parse("a)").is_err());
        assert!(parse("\"a").is_err());
        assert!(parse("OR a").is_err());
        assert!(parse(&"(".repeat(200)).is_err());
        // A query's words are bounded before anything is searched.
        assert!(parse(&"ab* ".repeat(MAX_TERMS)).is_ok());
        let e = parse(&"ab* ".repeat(MAX_TERMS + 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 64"), "{e}");
        assert!(parse("x OR ".repeat(100).trim_end_matches(" OR ")).is_err());
    }

    #[test]
    fn dates_are_civil_days() {
        assert_eq!(days(1970, 1, 1), 0);
        assert_eq!(days(2000, 3, 1), 11_017);
        assert_eq!(
            date_bounds("2024").unwrap(),
            (Some(1_704_067_200), Some(1_735_689_600))
        );
        assert_eq!(
            date_bounds("..2024-02").unwrap(),
            (None, Some(1_709_251_200))
        );
        assert!(date_bounds("2024-13").is_err());
        assert!(date_bounds("..").is_err());
    }

    #[test]
    fn patterns_are_what_is_asked_for() {
        let p = patterns(&parse("Zāle \"Rīgas pils\" NOT suns").unwrap(), true);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].words, ["zale"]);
        assert_eq!(p[1].words, ["rigas", "pils"]);
        assert!(p[1].matches(&["rigas", "pils", "x"]));
        assert!(!p[1].matches(&["rigas"]));
    }
}

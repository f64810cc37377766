//! What nlpc-search answers: ranked results with a snippet, the
//! concordance (key word in context) and frequency lists, over the index
//! nlpc-index keeps. Pages are read one at a time, never all at once; the
//! search page bounds each answer further ([`Bounds`]: lines taken, pages
//! read, a deadline) and says what it did not cover ([`Cover`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, Query};
use tantivy::schema::Value;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

use crate::document::lower::lowercase;
use crate::error::{Error, Result};
use crate::run::clock::iso8601;
use crate::search::query::{self, Compiler, Node, Pattern};
use crate::search::schema::{self, index_error, Fields};
use crate::search::words;

/// The opened index, for queries.
pub struct Corpus {
    path: PathBuf,
    f: Fields,
    reader: IndexReader,
    _index: Index,
}

/// One page, as stored in the index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    pub key: String,
    pub url: String,
    pub title: String,
    pub host: String,
    pub lang: String,
    /// Fetch time, Unix seconds.
    pub date: i64,
    pub text: String,
}

/// A ranked result.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub score: f32,
    pub page: Page,
    /// The first hit in the text with some context, or the text's start.
    pub snippet: String,
}

/// One concordance line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub url: String,
    pub left: String,
    pub hit: String,
    pub right: String,
}

/// One row of a frequency list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freq {
    pub word: String,
    /// Occurrences.
    pub count: u64,
    /// Documents it occurs in.
    pub docs: u64,
}

/// What a frequency list counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreqOf {
    /// Every word of the documents.
    Words,
    /// The word just before each hit.
    Left,
    /// The word just after each hit.
    Right,
}

impl FreqOf {
    pub fn parse(s: &str) -> Result<FreqOf> {
        match s {
            "words" => Ok(FreqOf::Words),
            "left" => Ok(FreqOf::Left),
            "right" => Ok(FreqOf::Right),
            _ => Err(Error::Usage(format!(
                "--freq: {s:?}: give words, left or right"
            ))),
        }
    }
}

/// How a concordance is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// By the documents' rank, then by place in the document.
    Rank,
    /// By the left context, nearest word first.
    Left,
    /// By the right context.
    Right,
}

impl Sort {
    pub fn parse(s: &str) -> Result<Sort> {
        match s {
            "" | "rank" => Ok(Sort::Rank),
            "left" => Ok(Sort::Left),
            "right" => Ok(Sort::Right),
            _ => Err(Error::Usage(format!("--sort: {s:?}: give left or right"))),
        }
    }
}

/// Bounds on one answer; the default bounds nothing (the command line).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bounds {
    /// When the answer stops: what was done by then is the answer.
    pub deadline: Option<Instant>,
    /// Concordance lines taken, at most, before they are sorted (0: all).
    pub max_lines: usize,
    /// Pages a frequency list reads, at most: the best ranked (0: all).
    pub sample: usize,
    /// Results skipped before those shown (the page's paging).
    pub start: usize,
}

impl Bounds {
    fn late(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What an answer covered, for it to say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cover {
    /// Documents the query matches.
    pub matched: u64,
    /// Pages read for the answer.
    pub read: u64,
    /// Stopped at a bound with pages or lines left.
    pub more: bool,
    /// Stopped because the deadline passed.
    pub late: bool,
    /// What the query's prefixes left out.
    pub notes: Vec<String>,
}

/// Collapses white space runs to one space.
fn squash(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || crate::document::escape::is_control(c) {
            space = true;
        } else {
            if space && !o.is_empty() {
                o.push(' ');
            }
            space = false;
            o.push(c);
        }
    }
    o
}

/// The last `n` characters of `s`, white space collapsed and trimmed.
fn left_context(s: &str, n: usize) -> String {
    // A window of a few times `n` characters: collapsing runs of white
    // space shortens it, and reading further back costs a long page dear.
    let from = s
        .char_indices()
        .rev()
        .nth(n.saturating_mul(4))
        .map_or(0, |(i, _)| i);
    let chars: Vec<char> = squash(&s[from..]).chars().collect();
    chars[chars.len().saturating_sub(n)..]
        .iter()
        .collect::<String>()
        .trim_start()
        .to_string()
}

/// The first `n` characters of `s`, white space collapsed and trimmed.
fn right_context(s: &str, n: usize) -> String {
    let to = s
        .char_indices()
        .nth(n.saturating_mul(4))
        .map_or(s.len(), |(i, _)| i);
    squash(&s[..to])
        .chars()
        .take(n)
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// A snippet: the hit at `s..e` in brackets with some context.
fn snippet(text: &str, s: usize, e: usize) -> String {
    let gap = |b: bool| if b { " " } else { "" };
    let left = left_context(&text[..s], 60);
    let right = right_context(&text[e..], 60);
    format!(
        "{left}{}[{}]{}{right}",
        gap(!left.is_empty() && text[..s].ends_with(char::is_whitespace)),
        squash(&text[s..e]),
        gap(!right.is_empty() && text[e..].starts_with(char::is_whitespace)),
    )
}

/// The hits of `patterns` in `text`: byte ranges, and the position of the
/// hit's first and last word. Hits do not overlap; the longest pattern
/// wins at a place.
pub fn find_hits(
    text: &str,
    patterns: &[Pattern],
    fold: bool,
) -> Vec<(usize, usize, usize, usize)> {
    let w = words::split(text, fold);
    let norms: Vec<&str> = w.iter().map(|(_, x)| x.norm.as_str()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        let best = patterns
            .iter()
            .filter(|p| {
                // Words of a phrase must stand at consecutive positions
                // (a skipped overlong word breaks a phrase).
                p.matches(&norms[i..]) && (0..p.words.len()).all(|k| w[i + k].0 == w[i].0 + k)
            })
            .map(|p| p.words.len())
            .max();
        match best {
            Some(n) => {
                out.push((w[i].1.start, w[i + n - 1].1.end, i, i + n - 1));
                i += n;
            }
            None => i += 1,
        }
    }
    out
}

impl Corpus {
    /// Opens the index at `path` for reading.
    pub fn open(path: &Path) -> Result<Corpus> {
        let (index, f) = schema::open(path, false)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| index_error(path, "cannot read", e))?;
        Ok(Corpus {
            path: path.to_path_buf(),
            f,
            reader,
            _index: index,
        })
    }

    /// Sees the index's latest commit.
    pub fn reload(&self) -> Result<()> {
        self.reader
            .reload()
            .map_err(|e| index_error(&self.path, "cannot read", e))
    }

    /// Documents in the index.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    fn page(&self, d: &TantivyDocument) -> Page {
        let s = |f| {
            d.get_first(f)
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        Page {
            key: s(self.f.key),
            url: s(self.f.url),
            title: s(self.f.title),
            host: s(self.f.host),
            lang: s(self.f.lang),
            date: d
                .get_first(self.f.date)
                .and_then(|v| v.as_datetime())
                .map_or(0, |t| t.into_timestamp_secs()),
            text: s(self.f.text),
        }
    }

    /// The documents `q` matches, best first, at most `limit` (0: all);
    /// with no query, every document in index order.
    pub fn pages(&self, q: Option<&Node>, fold: bool, limit: usize) -> Result<Vec<(f32, Page)>> {
        let mut out = Vec::new();
        self.each_page(q, fold, limit, &Bounds::default(), |score, p| {
            out.push((score, p));
            true
        })?;
        Ok(out)
    }

    /// Calls `f` with the documents `q` matches, best first, after
    /// `b.start` and at most `limit` (0: all), reading each only when `f`
    /// wants it: `f` returns false to stop, and so does the deadline.
    /// Returns what was covered.
    pub fn each_page(
        &self,
        q: Option<&Node>,
        fold: bool,
        limit: usize,
        b: &Bounds,
        mut f: impl FnMut(f32, Page) -> bool,
    ) -> Result<Cover> {
        let searcher = self.reader.searcher();
        let all = usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX);
        let n = if limit == 0 { all } else { limit.min(all) };
        let mut cover = Cover::default();
        if n == 0 {
            return Ok(cover);
        }
        let c = Compiler {
            f: self.f,
            fold,
            searcher: &searcher,
            notes: Default::default(),
        };
        let query: Box<dyn Query> = match q {
            Some(q) => match c.compile(q)? {
                Some(q) => q,
                None => return Ok(cover),
            },
            None => Box::new(AllQuery),
        };
        cover.notes = c.notes.take();
        let (matched, top) = searcher
            .search(
                &query,
                &(
                    Count,
                    TopDocs::with_limit(n).and_offset(b.start).order_by_score(),
                ),
            )
            .map_err(|e| index_error(&self.path, "cannot search", e))?;
        cover.matched = matched as u64;
        cover.more = matched > b.start.saturating_add(top.len());
        let total = top.len();
        for (i, (score, addr)) in top.into_iter().enumerate() {
            if b.late() {
                cover.late = true;
                cover.more = true;
                break;
            }
            let d: TantivyDocument = searcher
                .doc(addr)
                .map_err(|e| index_error(&self.path, "cannot read a document", e))?;
            cover.read += 1;
            if !f(score, self.page(&d)) {
                cover.more |= i + 1 < total;
                break;
            }
        }
        Ok(cover)
    }

    /// Ranked results of `q`.
    pub fn results(&self, q: &str, fold: bool, limit: usize) -> Result<Vec<Hit>> {
        Ok(self.results_within(q, fold, limit, &Bounds::default())?.0)
    }

    /// Ranked results of `q` after `b.start`, at most `limit`, and what
    /// they cover.
    pub fn results_within(
        &self,
        q: &str,
        fold: bool,
        limit: usize,
        b: &Bounds,
    ) -> Result<(Vec<Hit>, Cover)> {
        let n = query::parse(q)?;
        let pats = query::patterns(&n, fold);
        let mut out = Vec::new();
        let cover = self.each_page(Some(&n), fold, limit, b, |score, page| {
            let snippet = match find_hits(&page.text, &pats, fold).first() {
                Some(&(s, e, _, _)) => snippet(&page.text, s, e),
                None => right_context(&page.text, 120),
            };
            out.push(Hit {
                score,
                page,
                snippet,
            });
            true
        })?;
        Ok((out, cover))
    }

    /// The concordance of `q`: every hit in the matching documents.
    pub fn kwic(
        &self,
        q: &str,
        fold: bool,
        width: usize,
        sort: Sort,
        limit: usize,
    ) -> Result<Vec<Line>> {
        Ok(self
            .kwic_within(q, fold, width, sort, limit, &Bounds::default())?
            .0)
    }

    /// The concordance of `q` within `b`: lines are taken in the pages'
    /// rank order, at most `b.max_lines` (those are sorted), and the
    /// first `limit` of them kept.
    pub fn kwic_within(
        &self,
        q: &str,
        fold: bool,
        width: usize,
        sort: Sort,
        limit: usize,
        b: &Bounds,
    ) -> Result<(Vec<Line>, Cover)> {
        let n = query::parse(q)?;
        let pats = query::patterns(&n, fold);
        let mut out = Vec::new();
        // In rank order, the pages after the limit's last line are not
        // read; sorted by context, every hit is needed, up to the bound.
        let take = match (sort, limit, b.max_lines) {
            (Sort::Rank, l, m) if l > 0 => {
                if m > 0 {
                    l.min(m)
                } else {
                    l
                }
            }
            (_, _, m) => m,
        };
        // A page gives at least one line: no more pages than lines.
        let mut cut = false;
        let mut cover = self.each_page(Some(&n), fold, take, b, |_, page| {
            for (s, e, _, _) in find_hits(&page.text, &pats, fold) {
                if take > 0 && out.len() >= take {
                    cut = true;
                    break;
                }
                out.push(Line {
                    url: page.url.clone(),
                    left: left_context(&page.text[..s], width),
                    hit: squash(&page.text[s..e]),
                    right: right_context(&page.text[e..], width),
                });
            }
            !(take > 0 && out.len() >= take)
        })?;
        cover.more |= cut;
        match sort {
            Sort::Rank => {}
            Sort::Right => out.sort_by_cached_key(|l| (lowercase(&l.right), lowercase(&l.hit))),
            Sort::Left => out.sort_by_cached_key(|l| {
                let mut w: Vec<String> = words::split(&l.left, false)
                    .into_iter()
                    .map(|(_, w)| w.norm)
                    .collect();
                w.reverse();
                (w, lowercase(&l.hit))
            }),
        }
        if limit > 0 {
            out.truncate(limit);
        }
        Ok((out, cover))
    }

    /// The frequency list: the words of the documents `q` matches (every
    /// document without a query), or the hits' neighbours; most frequent
    /// first, then in code point order.
    pub fn freq(&self, q: Option<&str>, fold: bool, of: FreqOf, limit: usize) -> Result<Vec<Freq>> {
        Ok(self.freq_within(q, fold, of, limit, &Bounds::default())?.0)
    }

    /// The frequency list within `b`: of the best ranked `b.sample` pages
    /// at most, read one at a time until the deadline.
    pub fn freq_within(
        &self,
        q: Option<&str>,
        fold: bool,
        of: FreqOf,
        limit: usize,
        b: &Bounds,
    ) -> Result<(Vec<Freq>, Cover)> {
        let n = q.map(query::parse).transpose()?;
        if of != FreqOf::Words && n.is_none() {
            return Err(Error::Usage("--freq left and right need a query".into()));
        }
        let pats = n
            .as_ref()
            .map(|n| query::patterns(n, fold))
            .unwrap_or_default();
        let mut counts: HashMap<String, (u64, u64)> = HashMap::new();
        let cover = self.each_page(n.as_ref(), fold, b.sample, b, |_, page| {
            let mut seen: HashSet<String> = HashSet::new();
            let mut count = |w: String| {
                let e = counts.entry(w.clone()).or_default();
                e.0 += 1;
                if seen.insert(w) {
                    e.1 += 1;
                }
            };
            let w = words::split(&page.text, fold);
            match of {
                FreqOf::Words => w.into_iter().for_each(|(_, w)| count(w.norm)),
                FreqOf::Left | FreqOf::Right => {
                    for (_, _, first, last) in find_hits(&page.text, &pats, fold) {
                        let near = match of {
                            FreqOf::Left => {
                                first.checked_sub(1).filter(|&i| w[i].0 + 1 == w[first].0)
                            }
                            _ => Some(last + 1).filter(|&i| i < w.len() && w[i].0 == w[last].0 + 1),
                        };
                        if let Some(i) = near {
                            count(w[i].1.norm.clone());
                        }
                    }
                }
            }
            true
        })?;
        let mut out: Vec<Freq> = counts
            .into_iter()
            .map(|(word, (count, docs))| Freq { word, count, docs })
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.word.cmp(&b.word)));
        if limit > 0 {
            out.truncate(limit);
        }
        Ok((out, cover))
    }
}

/// Pads `s` to `n` characters, on the left when `right_align`.
fn pad(s: &str, n: usize, right_align: bool) -> String {
    let fill = " ".repeat(n.saturating_sub(s.chars().count()));
    if right_align {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// The concordance as text: left context right-aligned in `width`
/// columns, the hit in a column as wide as the widest, the right context.
pub fn kwic_text(lines: &[Line], width: usize) -> String {
    let hw = lines
        .iter()
        .map(|l| l.hit.chars().count())
        .max()
        .unwrap_or(0);
    let mut o = String::new();
    for l in lines {
        let row = format!(
            "{} | {} | {}",
            pad(&l.left, width, true),
            pad(&l.hit, hw, false),
            l.right
        );
        o.push_str(row.trim_end());
        o.push('\n');
    }
    o
}

/// A date as the results show it.
pub fn date_text(secs: i64) -> String {
    iso8601(u64::try_from(secs).unwrap_or(0))
}

//! Near duplicates: SimHash, MinHash-LSH and paragraph-level matching,
//! measured on a labelled set built from real pages.
//!
//! cargo bench --bench dups -- [--out FILE] [--set NAME=DIR]... [DEVSET]
//!     (or scripts/bench/dups, which runs it with --set pages=..., below)
//!
//! DEVSET is the extraction dev set (SUBSET/input/NAME.html); default
//! $NLPC_DEVSET, else ../devset/extraction-devset beside the project. Each
//! page's main text is taken as nlpc-vrfy takes it (the library's charset
//! detection and extractor); pages of at least 3 paragraphs and 80 words
//! are kept, in the order of "SUBSET/NAME", but for those that copy an
//! earlier one (a fifth of their distinct five-word shingles an earlier
//! page's: the dev set holds test pages of one text, and articles saved
//! twice).
//!
//! Halves: a page belongs to the tuning half or the report half by the
//! first hex digit of the SHA-1 of "SUBSET/NAME" (0-7 tuning, 8-f report),
//! as in scripts/bench/extract. The similarity is chosen on the tuning
//! half; the report half is the figure to quote.
//!
//! The labelled set of each half, made without randomness (every choice
//! is by the pages' positions):
//!
//! - two pages of every three are *originals*; each has five copies that
//!   are its near duplicates: its first paragraph (the header) replaced by
//!   another page's; a date and by-line added at the top; one sentence of
//!   a middle paragraph replaced by a sentence of another page; its
//!   paragraphs in another order; and the header, date line and sentence
//!   changed at once. An original and its copies are a cluster, every
//!   pair in it a duplicate pair;
//! - the third page of every three goes to *templates*: in groups of five,
//!   the first page gives a site's template (a header and a footer left
//!   in the main text), and each of the other four pages' opening
//!   paragraphs are set inside it: four different pages of one template,
//!   whose pairs must NOT match. The template is the first 25 words of
//!   the first page's first and last paragraphs, around openings of at
//!   least 100 words (a third of the groups) or 50 (a third); or its first
//!   two and last two paragraphs whole, around openings of at least 60
//!   words (a third), where the template is most of each page;
//! - every other pair is a pair of different pages.
//!
//! Each method is asked about every pair of the half (SimHash and
//! paragraphs by brute force, MinHash through its LSH buckets), and its
//! precision is the share of the pairs it matched that are duplicate
//! pairs, its recall the share of the duplicate pairs it matched. Methods:
//!
//! - simhash d<=3: the 64-bit SimHash of the word shingles within 3 bits
//!   (what nlpc-vrfy used before);
//! - minhash J>=t: the MinHash signature of the same shingles
//!   (`document::fingerprint::minhash`, 128 slots), the pairs that share
//!   one of its 32 bands of 4 slots, and of them those whose estimated
//!   similarity is at least t percent (what nlpc-vrfy uses);
//! - paragraphs >=t: pages sharing whole paragraphs (white space and case
//!   aside) that hold at least t percent of the words of the shorter one,
//!   as onion removes paragraphs seen before and then documents made
//!   mostly of them.
//!
//! Besides P, R and F1 it prints how many of the pairs matched are
//! template-sibling pairs, and their share of all template-sibling pairs.
//! The similarity nlpc-vrfy uses is the one of best F1 on the tuning half
//! among those that match at most 2% of its template-sibling pairs.
//!
//! More sets (issue 35: figures on data the thresholds were not fitted
//! to): --set NAME=DIR reads DIR/input/NAME.html, a page's name being
//! "NAME/NAME" for its half (as scripts/bench/extract --set), and scores
//! it by the same rules, halves and labelled set, in a table of its own.
//! Nothing is tuned on it: the output says that the similarity stays the
//! one chosen on the dev set's tuning half, and, for comparison only, what
//! the rule would pick on the set's own tuning half. scripts/bench/dups
//! passes "pages": scripts/bench/extract-pages --seed 1 --sites 60, pages
//! generated around the UDHR in 24 languages with site templates shared
//! by ten pages (the wrapper writes that command to DIR/MADE-BY, which the
//! output quotes). The UDHR is one text per language and extract-pages
//! draws each page's sentences from its site's language's text, so pages
//! of one language share sentences: the rule of distinct pages above,
//! unchanged, keeps 100 of the 441 long enough (the output prints both
//! counts), so the set is small; and the pages of a site that are kept
//! still share whatever of its template the extractor leaves in their
//! main text, a sibling trap of its own that counts as pairs of
//! different pages.
//!
//! Nothing is written but with --out, which writes the lines printed.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use nlpcrawl::document::charset::{self, Kind};
use nlpcrawl::document::extract;
use nlpcrawl::document::fingerprint::{self, minhash, Signature};

/// No header and no host name, as in scripts/bench/extract.rs.
const HINTS: charset::Hints<'static> = charset::Hints {
    user: None,
    tld: None,
};

/// A page of the dev set and its main text's paragraphs.
struct Page {
    id: String,
    paras: Vec<String>,
}

fn devset_dir(arg: Option<String>) -> PathBuf {
    arg.or_else(|| std::env::var("NLPC_DEVSET").ok())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../devset/extraction-devset")
        })
}

/// The dev set's pages, "SUBSET/NAME" and their paths, in order.
fn devset_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let Ok(subsets) = std::fs::read_dir(dir) else {
        eprintln!("dups: cannot read {}", dir.display());
        std::process::exit(1);
    };
    for s in subsets.flatten() {
        let sub = s.file_name().to_string_lossy().into_owned();
        files.extend(html_files(&sub, &s.path().join("input")));
    }
    files.sort();
    files
}

/// The pages DIR/NAME.html as "SET/NAME", in order.
fn html_files(set: &str, dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return files;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "html") {
            let name = p.file_stem().map(|n| n.to_string_lossy().into_owned());
            files.push((format!("{set}/{}", name.unwrap_or_default()), p));
        }
    }
    files.sort();
    files
}

/// The pages of at least 3 paragraphs and 80 words: how many, and those
/// of them that copy no earlier one.
fn pages(files: Vec<(String, PathBuf)>) -> (usize, Vec<Page>) {
    let mut out = Vec::new();
    for (id, p) in files {
        let Ok(body) = std::fs::read(&p) else {
            continue;
        };
        let det = charset::detect(&body, "", Kind::Html, &HINTS);
        let doc = charset::decode(&body, &det);
        let text = extract::main_text(&doc, Kind::Html).text();
        let paras: Vec<String> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect();
        let words: usize = paras.iter().map(|p| p.split_whitespace().count()).sum();
        if paras.len() >= 3 && words >= 80 {
            out.push(Page { id, paras });
        }
    }
    (out.len(), distinct(out))
}

/// The pages that are not copies of an earlier one: the dev set holds
/// some (test pages of one text, one article saved twice), which would
/// count as wrong every method's match of them. A page is left out when a
/// fifth of its distinct five-word shingles (exact, every one) are an
/// earlier page's kept: a rule that none of the methods measured uses.
fn distinct(pages: Vec<Page>) -> Vec<Page> {
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut out = Vec::new();
    for p in pages {
        let text = p.paras.join(" ").to_lowercase();
        let words: Vec<&str> = text.split_whitespace().collect();
        let own: HashSet<u64> = words
            .windows(5)
            .map(|w| {
                let mut h = Sha1::new();
                h.update(w.join(" ").as_bytes());
                u64::from_le_bytes(h.finalize()[..8].try_into().unwrap_or_default())
            })
            .collect();
        let mut shared: HashMap<usize, usize> = HashMap::new();
        for h in &own {
            for &k in seen.get(h).map(Vec::as_slice).unwrap_or_default() {
                *shared.entry(k).or_default() += 1;
            }
        }
        if shared.values().any(|&n| n * 5 >= own.len()) {
            continue;
        }
        let k = out.len();
        for h in own {
            seen.entry(h).or_default().push(k);
        }
        out.push(p);
    }
    out
}

fn tuning_half(id: &str) -> bool {
    let d = Sha1::digest(id.as_bytes());
    d[0] >> 4 < 8
}

/// The sentences of a paragraph: split after ". ".
fn sentences(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in p.split(' ') {
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
        if w.ends_with('.') || w.ends_with('!') || w.ends_with('?') {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The longest sentence of `paras` (another page's, to put in).
fn a_sentence(paras: &[String]) -> String {
    paras
        .iter()
        .flat_map(|p| sentences(p))
        .max_by_key(|s| s.len())
        .unwrap_or_default()
}

/// `paras` with one sentence of its middle paragraph replaced by `with`
/// (the paragraph's longest; a paragraph of one sentence is replaced
/// whole).
fn change_sentence(paras: &[String], with: &str) -> Vec<String> {
    let mut out = paras.to_vec();
    let mid = out.len() / 2;
    let mut s = sentences(&out[mid]);
    if let Some((i, _)) = s.iter().enumerate().max_by_key(|(_, s)| s.len()) {
        s[i] = with.to_string();
    }
    out[mid] = s.join(" ");
    out
}

const MONTHS: [&str; 6] = ["March", "April", "May", "June", "July", "August"];
const NAMES: [&str; 5] = [
    "Anna Kalniņa",
    "John Smith",
    "Maria Rossi",
    "Jānis Bērziņš",
    "Lee Chen",
];

/// A document of the labelled set: its text and its cluster (an original
/// and its copies share one; every other document has its own).
struct Doc {
    /// The page it was made from, and how.
    id: String,
    text: String,
    cluster: usize,
    /// The template it was set in, for the count of sibling pairs.
    template: Option<usize>,
}

fn labelled(pages: &[&Page]) -> Vec<Doc> {
    let mut docs = Vec::new();
    let mut cluster = 0;
    let originals: Vec<&Page> = pages
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 2)
        .map(|(_, p)| *p)
        .collect();
    let pool: Vec<&Page> = pages
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 == 2)
        .map(|(_, p)| *p)
        .collect();
    let n = originals.len();
    for (i, p) in originals.iter().enumerate() {
        let other = originals[(i + 7) % n];
        let header = other.paras[0].clone();
        let date = format!(
            "Published {} {}, 20{:02} at {}:{:02}. By {}",
            MONTHS[i % MONTHS.len()],
            1 + i % 28,
            10 + i % 15,
            8 + i % 12,
            i % 60,
            NAMES[i % NAMES.len()]
        );
        let sentence = a_sentence(&originals[(i + 13) % n].paras);
        let mut with_header = p.paras.clone();
        with_header[0] = header.clone();
        let mut with_date = p.paras.clone();
        with_date.insert(0, date.clone());
        let with_sentence = change_sentence(&p.paras, &sentence);
        // Reordered: the paragraphs in a rotation by half, then each pair
        // swapped.
        let mut reordered = p.paras.clone();
        reordered.rotate_left(p.paras.len() / 2);
        for c in reordered.chunks_mut(2) {
            c.reverse();
        }
        let mut all = change_sentence(&p.paras, &sentence);
        all[0] = header;
        all.insert(0, date);
        for (how, v) in [
            ("", p.paras.clone()),
            (" header", with_header),
            (" date", with_date),
            (" sentence", with_sentence),
            (" reordered", reordered),
            (" all", all),
        ] {
            docs.push(Doc {
                id: format!("{}{how}", p.id),
                text: v.join("\n"),
                cluster,
                template: None,
            });
        }
        cluster += 1;
    }
    for (t, group) in pool.chunks(5).enumerate() {
        let [site, bodies @ ..] = group else {
            continue;
        };
        if bodies.len() < 2 {
            continue;
        }
        // The template: the first 25 words of the site page's first
        // paragraph and of its last, with bodies of 100 words or 50; or,
        // one group in three, its first two and last two paragraphs
        // whole, with bodies of 60 words, most of each page.
        let cut = |p: &str| p.split_whitespace().take(25).collect::<Vec<_>>().join(" ");
        let n = site.paras.len();
        let (head, foot, least) = match t % 3 {
            2 => (site.paras[..2].to_vec(), site.paras[n - 2..].to_vec(), 60),
            k => (
                vec![cut(&site.paras[0])],
                vec![cut(&site.paras[n - 1])],
                if k == 0 { 100 } else { 50 },
            ),
        };
        if n < 4 {
            continue;
        }
        for b in bodies {
            // The body page's opening paragraphs, `least` words or more.
            let mut body = Vec::new();
            let mut words = 0;
            for p in &b.paras {
                if words >= least {
                    break;
                }
                words += p.split_whitespace().count();
                body.push(p.clone());
            }
            let text = [&head[..], &body[..], &foot[..]].concat().join("\n");
            docs.push(Doc {
                id: format!("{} in the template of {}", b.id, site.id),
                text,
                cluster,
                template: Some(t),
            });
            cluster += 1;
        }
    }
    docs
}

/// What a method matched, against the labels.
#[derive(Default)]
struct Score {
    matched: u64,
    right: u64,
    siblings: u64,
}

impl Score {
    fn add(&mut self, docs: &[Doc], a: usize, b: usize) {
        self.matched += 1;
        if docs[a].cluster == docs[b].cluster {
            self.right += 1;
        } else if std::env::var_os("DUPS_SHOW").is_some() {
            eprintln!("wrong: {} | {}", docs[a].id, docs[b].id);
        }
        if docs[a].cluster == docs[b].cluster {
        } else if docs[a].template.is_some() && docs[a].template == docs[b].template {
            self.siblings += 1;
        }
    }

    /// The share of template-sibling pairs matched, of `siblings`.
    fn sibling_share(&self, siblings: u64) -> f64 {
        self.siblings as f64 / siblings.max(1) as f64
    }

    fn f1(&self, truth: u64) -> f64 {
        let p = if self.matched == 0 {
            1.0
        } else {
            self.right as f64 / self.matched as f64
        };
        let r = self.right as f64 / truth.max(1) as f64;
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }

    fn line(&self, name: &str, half: &str, truth: u64, siblings: u64) -> String {
        let p = if self.matched == 0 {
            1.0
        } else {
            self.right as f64 / self.matched as f64
        };
        let r = self.right as f64 / truth.max(1) as f64;
        let f = if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        };
        format!(
            "{name:<18} {half:<7} {:>8} {:>8} {:>9} {:>6.1}%   {p:.3} {r:.3} {f:.3}",
            self.matched,
            self.right,
            self.siblings,
            100.0 * self.sibling_share(siblings)
        )
    }
}

fn simhash_scores(docs: &[Doc], max: u32) -> Score {
    let h: Vec<u64> = docs.iter().map(|d| fingerprint::simhash(&d.text)).collect();
    let mut s = Score::default();
    for a in 0..docs.len() {
        for b in a + 1..docs.len() {
            if h[a] != 0 && fingerprint::distance(h[a], h[b]) <= max {
                s.add(docs, a, b);
            }
        }
    }
    s
}

/// The candidate pairs of the LSH buckets, with their similarity.
fn minhash_pairs(docs: &[Doc]) -> Vec<(usize, usize, u32)> {
    let sigs: Vec<Signature> = docs.iter().map(|d| fingerprint::minhash(&d.text)).collect();
    let mut buckets: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
    for (i, s) in sigs.iter().enumerate() {
        if s.is_none() {
            continue;
        }
        for band in 0..minhash::BANDS {
            buckets.entry((band, s.band(band))).or_default().push(i);
        }
    }
    let mut pairs = HashSet::new();
    for members in buckets.values() {
        for (x, &a) in members.iter().enumerate() {
            for &b in &members[x + 1..] {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    let mut out: Vec<(usize, usize, u32)> = pairs
        .into_iter()
        .map(|(a, b)| (a, b, sigs[a].similarity(&sigs[b])))
        .collect();
    out.sort_unstable();
    out
}

fn minhash_scores(docs: &[Doc], pairs: &[(usize, usize, u32)], min: u32) -> Score {
    let mut s = Score::default();
    for &(a, b, sim) in pairs {
        if sim >= min {
            s.add(docs, a, b);
        }
    }
    s
}

/// Pairs of documents with the words of the paragraphs they share, and
/// each document's words.
fn paragraph_pairs(docs: &[Doc]) -> (HashMap<(usize, usize), usize>, Vec<usize>) {
    let mut by_para: HashMap<[u8; 16], Vec<usize>> = HashMap::new();
    let mut words = Vec::new();
    let mut para_words: Vec<HashMap<[u8; 16], usize>> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let mut own = HashMap::new();
        for p in d.text.lines() {
            let h = fingerprint::text_hash(&p.to_lowercase());
            own.insert(h, p.split_whitespace().count());
        }
        words.push(d.text.split_whitespace().count());
        for h in own.keys() {
            by_para.entry(*h).or_default().push(i);
        }
        para_words.push(own);
    }
    let mut shared: HashMap<(usize, usize), usize> = HashMap::new();
    for (h, ds) in &by_para {
        for (x, &a) in ds.iter().enumerate() {
            for &b in &ds[x + 1..] {
                let w = para_words[a].get(h).copied().unwrap_or(0);
                *shared.entry((a.min(b), a.max(b))).or_default() += w;
            }
        }
    }
    (shared, words)
}

fn paragraph_scores(
    docs: &[Doc],
    shared: &HashMap<(usize, usize), usize>,
    words: &[usize],
    min: usize,
) -> Score {
    let mut s = Score::default();
    let mut pairs: Vec<_> = shared.iter().collect();
    pairs.sort_unstable();
    for (&(a, b), &w) in pairs {
        if w * 100 >= min * words[a].min(words[b]).max(1) {
            s.add(docs, a, b);
        }
    }
    s
}

fn truth(docs: &[Doc]) -> (u64, u64) {
    let mut by: HashMap<usize, u64> = HashMap::new();
    let mut tpl: HashMap<usize, u64> = HashMap::new();
    for d in docs {
        *by.entry(d.cluster).or_default() += 1;
        if let Some(t) = d.template {
            *tpl.entry(t).or_default() += 1;
        }
    }
    let pairs = |m: &HashMap<usize, u64>| m.values().map(|n| n * (n - 1) / 2).sum::<u64>();
    (pairs(&by), pairs(&tpl))
}

/// The share of template-sibling pairs the similarity chosen may match at
/// most: they are few beside the duplicate pairs, and F1 alone would not
/// weigh them.
const MAX_SIBLINGS: f64 = 0.02;

/// The lines of one set's table, both halves, and the similarity the rule
/// picks on its tuning half.
fn table(halves: &[(&str, Vec<Doc>)], lines: &mut Vec<String>) -> Option<u32> {
    lines.push(format!(
        "{:<18} {:<7} {:>8} {:>8} {:>9} {:>7}   {:<5} {:<5} {:<5}",
        "method", "half", "matched", "right", "siblings", "share", "P", "R", "F1"
    ));
    let thresholds = [30u32, 40, 50, 60, 70, 80];
    let mut chosen = None;
    for (half, docs) in halves {
        let (t, sib) = truth(docs);
        lines.push(simhash_scores(docs, 3).line("simhash d<=3", half, t, sib));
        let pairs = minhash_pairs(docs);
        let mut best: Option<(f64, u32)> = None;
        for &m in &thresholds {
            let s = minhash_scores(docs, &pairs, m);
            if s.sibling_share(sib) <= MAX_SIBLINGS && best.is_none_or(|(f, _)| s.f1(t) > f) {
                best = Some((s.f1(t), m));
            }
            lines.push(s.line(&format!("minhash J>={m}"), half, t, sib));
        }
        if *half == "tune" {
            chosen = best.map(|b| b.1);
        }
        let (shared, words) = paragraph_pairs(docs);
        for m in [50usize, 80] {
            lines.push(paragraph_scores(docs, &shared, &words, m).line(
                &format!("paragraphs >={m}"),
                half,
                t,
                sib,
            ));
        }
    }
    chosen
}

/// The labelled halves of a set's pages, and the header lines saying
/// their size.
fn halves(all: &[Page], lines: &mut Vec<String>, prefix: &str) -> [(&'static str, Vec<Doc>); 2] {
    let tune: Vec<&Page> = all.iter().filter(|p| tuning_half(&p.id)).collect();
    let report: Vec<&Page> = all.iter().filter(|p| !tuning_half(&p.id)).collect();
    let halves = [("tune", labelled(&tune)), ("report", labelled(&report))];
    for (half, docs) in &halves {
        let (t, s) = truth(docs);
        lines.push(format!(
            "# {prefix}{half}: {} documents, {t} duplicate pairs, {s} template-sibling pairs",
            docs.len()
        ));
    }
    halves
}

const USAGE: &str = "usage: dups [--out FILE] [--set NAME=DIR]... [DEVSET]";

fn main() {
    let mut out_file = None;
    let mut dir = None;
    let mut sets: Vec<(String, PathBuf)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out_file = args.next(),
            "--set" => match args.next().as_deref().and_then(|s| s.split_once('=')) {
                Some((name, d)) if !name.is_empty() && !name.contains('/') => {
                    sets.push((name.to_string(), PathBuf::from(d)));
                }
                _ => {
                    eprintln!("dups: --set wants NAME=DIR\n{USAGE}");
                    std::process::exit(1);
                }
            },
            "--bench" => {}
            _ if a.starts_with('-') => {
                eprintln!("dups: unknown option {a}\n{USAGE}");
                std::process::exit(1);
            }
            _ => dir = Some(a),
        }
    }
    // A set named wrong fails before the dev set's minutes of work.
    let sets: Vec<_> = sets
        .into_iter()
        .map(|(name, d)| {
            let input = d.join("input");
            let files = html_files(&name, &input);
            if files.is_empty() {
                eprintln!("dups: --set {name}: no NAME.html in {}", input.display());
                std::process::exit(1);
            }
            (name, d, files)
        })
        .collect();
    let (_, all) = pages(devset_files(&devset_dir(dir)));
    let tune = all.iter().filter(|p| tuning_half(&p.id)).count();
    let mut lines = vec![format!(
        "# scripts/bench/dups   ({} pages of the extraction dev set: {} tune, {} report)",
        all.len(),
        tune,
        all.len() - tune
    )];
    let dev = halves(&all, &mut lines, "");
    lines.push(String::new());
    let chosen = table(&dev, &mut lines);
    drop(dev);
    if let Some(m) = chosen {
        lines.push(format!(
            "# chosen on the tuning half (best F1 matching at most {:.0}% of template-sibling pairs): J>={m}",
            100.0 * MAX_SIBLINGS
        ));
    }
    for (name, d, files) in sets {
        let n = files.len();
        let made = std::fs::read_to_string(d.join("MADE-BY"))
            .ok()
            .and_then(|s| s.lines().next().map(str::to_string));
        let (long, all) = pages(files);
        let tune = all.iter().filter(|p| tuning_half(&p.id)).count();
        lines.push(String::new());
        lines.push(format!(
            "# set {name}: {n} pages{}; {long} of 3 paragraphs and 80 words, {} of them distinct: {} tune, {} report",
            made.map(|m| format!(", made by {m}")).unwrap_or_default(),
            all.len(),
            tune,
            all.len() - tune
        ));
        let set = halves(&all, &mut lines, &format!("{name} "));
        lines.push(String::new());
        let own = table(&set, &mut lines);
        lines.push(format!(
            "# {name} is not tuned on: nlpc-vrfy's similarity is the dev set's, {}; \
             the rule on {name}'s own tuning half would pick {}",
            chosen.map_or("none".to_string(), |m| format!("J>={m}")),
            own.map_or("none".to_string(), |m| format!("J>={m}"))
        ));
    }
    let text = lines.join("\n") + "\n";
    print!("{text}");
    if let Some(f) = out_file {
        let mut w = std::fs::File::create(&f).expect("--out");
        w.write_all(text.as_bytes()).expect("--out");
    }
}

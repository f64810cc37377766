//! nlpc-vrfy throughput, language accuracy and dictionary size.
//!
//! cargo bench --bench vrfy
//!
//! Prints, on one core: MB/s of HTML verified for pages of about 2 KB,
//! 50 KB and 1 MB (Latvian news pages with menus, scripts and styles, under
//! a Latvian crawl's options), where the time goes, the language accuracy
//! on the test corpus with and without the cap on the text given to
//! whatlang, and the load time and memory of a 5-million-word dictionary.
//! Throughput is per second of the thread's CPU time, not of the clock.
//!
//! cargo bench --bench vrfy -- speed | accuracy | dict
//!     Only the sections named.
//!
//! cargo bench --bench vrfy -- speed --out FILE
//!     Also writes the speed section's lines to FILE (scripts/bench/vrfy.txt
//!     is the record the figures cite); nothing is written without it.
//!
//! NLPC_PROFILE="2 KB" cargo bench --bench vrfy -- profile
//!     Verifies pages of one size (or every size) in a loop for 10 s each,
//!     for `perf record`. With NLPC_PROFILE_OTHER=1, the pages in other
//!     languages instead, which a Latvian crawl rejects.

#[path = "cputime.rs"]
mod cputime;
use cputime::cpu_secs;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use nlpcrawl::document::charset::{self, Kind, Quality};
use nlpcrawl::document::dict::Dict;
use nlpcrawl::document::lang;
use nlpcrawl::document::text;
use nlpcrawl::stage::vrfy::{verify, Config};
use nlpcrawl::store::record::{Record, State};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vrfy")
}

/// The paragraphs of the Latvian corpus pages, as text.
fn latvian_paragraphs() -> Vec<String> {
    let mut out = Vec::new();
    for f in [
        "lv-daugava-utf8.html",
        "lv-riga-latin7.xhtml",
        "lv-mezi-win1257.txt",
    ] {
        let body = std::fs::read(corpus().join(f)).expect("corpus file");
        let kind = if f.ends_with(".txt") {
            Kind::Plain
        } else {
            Kind::Html
        };
        let http = if kind == Kind::Plain {
            "windows-1257"
        } else {
            ""
        };
        let det = charset::detect(&body, http, kind, &charset::Hints::default());
        let doc = charset::decode(&body, &det);
        let t = text::visible(&doc, kind).text;
        // Sentences, regrouped into paragraphs of three.
        let sentences: Vec<&str> = t.split(". ").collect();
        for ch in sentences.chunks(3) {
            out.push(ch.join(". ") + ".");
        }
    }
    out
}

/// A Latvian news page of about `size` bytes: head with scripts and
/// styles, a menu, paragraphs with inline markup and entities, tables,
/// a footer.
fn page(i: usize, size: usize, paras: &[String]) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html lang=lv><head><meta charset=utf-8><title>Ziņas</title>\
         <link rel=stylesheet href=/s.css><script>var x = '<a href=/no>'; function f(){return 1<2;}\
         window.dataLayer=window.dataLayer||[];</script>\
         <style>body{margin:0} .nav a{padding:0 4px}</style></head><body><div class=nav>",
    );
    // A menu of up to 30 sections; a small page has room for a few.
    for j in 0..(size / 1000).clamp(4, 30) {
        s.push_str(&format!(
            "<a href=\"/sadala/{j}/\" class=\"nav-link\">Sadaļa {j}</a> | "
        ));
    }
    s.push_str("</div><main><article><h1>Jaunākās ziņas</h1>");
    let mut p = i;
    while s.len() + 200 < size {
        let para = &paras[p % paras.len()];
        s.push_str("<p>");
        // Some inline markup and entities, as real articles have.
        let words: Vec<&str> = para.split(' ').collect();
        for (k, w) in words.iter().enumerate() {
            match k % 17 {
                5 => s.push_str(&format!("<strong>{w}</strong> ")),
                11 => s.push_str(&format!("<a href=\"/raksts/{p}-{k}.html\">{w}</a> ")),
                _ => {
                    s.push_str(w);
                    s.push(' ');
                }
            }
        }
        s.push_str("&ndash; <em>LETA</em></p>\n");
        if p.is_multiple_of(7) {
            s.push_str("<table><tr><td>1.</td><td>Rīga</td></tr><tr><td><img src=x.png alt=''></td><td>&copy; 2024</td></tr></table>");
        }
        p += 1;
    }
    s.push_str("</article></main><!-- footer --><footer><a href=mailto:x@y.lv>pasts</a> Visas tiesības aizsargātas.</footer></body></html>");
    s
}

fn record() -> Record {
    let mut r = Record::new("http://example.lv/zinas/1.html", 1);
    r.state = State::Fresh;
    r.content_type = "text/html".into();
    r
}

fn strict(dict: Dict) -> Config {
    Config {
        charsets: ["utf-8", "windows-1257", "iso-8859-4", "iso-8859-13"]
            .iter()
            .filter_map(|l| charset::resolve(l))
            .collect(),
        langs: vec![whatlang::Lang::Lav],
        dict: Some(dict),
        ..Config::default()
    }
}

/// MB/s of verification over `pages` in CPU time (the best of three
/// rounds, since the machine is shared and the slower rounds measure the
/// neighbours' effect on caches), how many were verified, and the first
/// rejection's reason.
fn throughput<P: AsRef<[u8]>>(cfg: &Config, pages: &[P], rec: &Record) -> (f64, usize, String) {
    let bytes: usize = pages.iter().map(|p| p.as_ref().len()).sum();
    let mut best = 0f64;
    let mut verified = 0;
    let mut why = String::new();
    for _ in 0..3 {
        let t = cpu_secs();
        verified = 0;
        for p in pages {
            match verify(cfg, rec, Some(p.as_ref())).rejection {
                None => verified += 1,
                Some(r) if why.is_empty() => why = r.to_string(),
                Some(_) => {}
            }
        }
        best = best.max(bytes as f64 / (cpu_secs() - t) / 1e6);
    }
    (best, verified, why)
}

/// The corpus pages whose language the manifest names, with their records.
fn corpus_cases() -> Vec<(Record, Vec<u8>, String)> {
    let manifest = std::fs::read_to_string(corpus().join("MANIFEST")).expect("MANIFEST");
    let mut out = Vec::new();
    for l in manifest.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() < 5 || f[4].len() != 2 {
            continue;
        }
        let mut r = Record::new(&format!("http://corpus.test/{}", f[0]), 1);
        r.content_type = if f[1] == "-" { "" } else { f[1] }.into();
        r.charset = if f[2] == "-" { "" } else { f[2] }.into();
        let body = std::fs::read(corpus().join(f[0])).expect("corpus file");
        out.push((r, body, f[4].to_string()));
    }
    out
}

/// Long pages made of each corpus page's text, repeated to about 60 KB
/// between a long English menu and footer: the case where the start of the
/// text is not in the page's language.
fn long_variants(cases: &[(Record, Vec<u8>, String)]) -> Vec<(Record, Vec<u8>, String)> {
    let menu: String = (0..120)
        .map(|i| {
            format!("<a href=/{i}>Home News Contact Privacy policy Cookie settings Subscribe</a> ")
        })
        .collect();
    let mut out = Vec::new();
    for (r, body, want) in cases {
        let kind = Kind::of(&r.content_type).unwrap_or(Kind::Html);
        let det = charset::detect(body, &r.charset, kind, &charset::Hints::default());
        let t = text::visible(&charset::decode(body, &det), kind).text;
        let mut page = format!("<html><head><meta charset=utf-8></head><body><nav>{menu}</nav>");
        while page.len() < 60_000 {
            page.push_str("<p>");
            page.push_str(&t.replace('&', "&amp;").replace('<', "&lt;"));
            page.push_str("</p>");
        }
        page.push_str(&format!("<footer>{menu}</footer></body></html>"));
        let mut r = r.clone();
        r.content_type = "text/html".into();
        r.charset = String::new();
        out.push((r, page.into_bytes(), want.clone()));
    }
    out
}

fn accuracy(cases: &[(Record, Vec<u8>, String)], cap: usize) -> (usize, usize, f64) {
    let cfg = Config {
        lang_max_text: cap,
        ..Config::default()
    };
    let t = Instant::now();
    let right = cases
        .iter()
        .filter(|(r, body, want)| {
            let v = verify(&cfg, r, Some(body));
            v.language.map(|g| g.lang.code()) == Some(want.as_str())
        })
        .count();
    (right, cases.len(), t.elapsed().as_secs_f64() * 1e3)
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Writes `n` distinct made-up Latvian-looking words, one a line.
fn write_big_dict(path: &Path, n: usize) -> usize {
    const SYL: &[&str] = &[
        "ka", "ra", "ta", "la", "ma", "na", "pa", "sa", "va", "da", "ga", "ba", "zī", "šū", "ņe",
        "ļa", "ķe", "ģi", "čo", "ža", "me", "ne", "re", "se", "te", "ve", "ri", "li", "ni", "ti",
        "ku", "ru", "tu", "lu", "ā", "ē", "ī", "ū", "e", "o",
    ];
    const END: &[&str] = &[
        "", "s", "a", "i", "u", "as", "am", "ai", "ām", "os", "ās", "iem", "ēm", "ot", "ošs",
    ];
    let f = std::fs::File::create(path).expect("create dictionary");
    let mut w = std::io::BufWriter::new(f);
    let mut bytes = 0;
    for i in 0..n {
        // A mixed-radix spelling of i: distinct for distinct i.
        let mut k = i;
        let mut word = String::new();
        loop {
            word.push_str(SYL[k % SYL.len()]);
            k /= SYL.len();
            if k == 0 {
                break;
            }
        }
        word.push('-');
        word.push_str(END[i % END.len()]);
        bytes += word.len() + 1;
        writeln!(w, "{word}").expect("write dictionary");
    }
    w.flush().expect("write dictionary");
    bytes
}

/// The value of option `--out`, if given.
fn out_file() -> Option<PathBuf> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
}

/// Sections to run: the arguments after `--` (but --out's value), or all.
fn wanted(section: &str) -> bool {
    let out = out_file();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && out.as_deref() != Some(Path::new(a)))
        .collect();
    args.is_empty() || args.iter().any(|a| a == section)
}

/// Sentences of the corpus pages in other languages than Latvian
/// (Lithuanian, Estonian, Russian, German, English), regrouped into
/// paragraphs of three: pages a Latvian crawl rejects.
fn foreign_paragraphs() -> Vec<String> {
    let mut out = Vec::new();
    for (r, body, want) in corpus_cases() {
        if want == "lv" {
            continue;
        }
        let kind = Kind::of(&r.content_type).unwrap_or(Kind::Html);
        let det = charset::detect(&body, &r.charset, kind, &charset::Hints::default());
        let t = text::visible(&charset::decode(&body, &det), kind).text;
        let sentences: Vec<&str> = t.split(". ").filter(|s| s.len() > 20).collect();
        for ch in sentences.chunks(3) {
            out.push(ch.join(". ") + ".");
        }
    }
    out
}

fn main() {
    let paras = latvian_paragraphs();
    let test_dict = Dict::load(&corpus().join("lv.dict")).expect("lv.dict");
    let cfg = strict(test_dict);
    let rec = record();
    let sizes = [
        ("2 KB", 2_000usize, 5000usize),
        ("50 KB", 50_000, 400),
        ("1 MB", 1_000_000, 20),
    ];
    let sets: Vec<(&str, Vec<String>)> = sizes
        .iter()
        .map(|&(label, size, count)| (label, (0..count).map(|i| page(i, size, &paras)).collect()))
        .collect();
    if wanted("speed") {
        let mut lines = Vec::new();
        speed(&cfg, &rec, &paras, &sets, &mut lines);
        if let Some(out) = out_file() {
            if let Err(e) = std::fs::write(&out, lines.join("\n") + "\n") {
                eprintln!("vrfy: {}: cannot write: {e}", out.display());
            }
        }
    }
    // Only when named: it is a load for a profiler, not a figure.
    if std::env::args().skip(1).any(|a| a == "profile") {
        if std::env::var_os("NLPC_PROFILE_OTHER").is_some() {
            let foreign = foreign_paragraphs();
            let others: Vec<(&str, Vec<String>)> = sets
                .iter()
                .map(|(label, pages)| {
                    let size = pages.first().map_or(0, String::len);
                    (
                        *label,
                        (0..pages.len()).map(|i| page(i, size, &foreign)).collect(),
                    )
                })
                .collect();
            profile(&cfg, &rec, &others);
        } else {
            profile(&cfg, &rec, &sets);
        }
    }
    if wanted("accuracy") {
        accuracy_table(cfg.lang_max_text);
    }
    if wanted("dict") {
        big_dictionary(&rec, &sets);
    }
}

/// Verification of the pages of the size named by $NLPC_PROFILE ("2 KB",
/// "50 KB" or "1 MB"; default every size) in a loop for about 10 s each,
/// and nothing else: a steady load to record with `perf record`.
fn profile(cfg: &Config, rec: &Record, sets: &[(&str, Vec<String>)]) {
    let only = std::env::var("NLPC_PROFILE").ok();
    for (label, pages) in sets {
        if only.as_deref().is_some_and(|o| o != *label) {
            continue;
        }
        let t = Instant::now();
        let mut n = 0usize;
        while t.elapsed().as_secs() < 10 {
            for p in pages {
                std::hint::black_box(verify(cfg, rec, Some(p.as_bytes())));
            }
            n += pages.len();
        }
        println!("profile {label}: {n} pages verified");
    }
}

/// The first rejection's reason as a line's suffix, if any.
fn rejected(why: &str) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!("; rejected: {why}")
    }
}

/// Prints `line` and keeps it for the record file.
fn say(out: &mut Vec<String>, line: String) {
    println!("{line}");
    out.push(line);
}

/// Throughput and where the time goes.
fn speed(
    cfg: &Config,
    rec: &Record,
    paras: &[String],
    sets: &[(&str, Vec<String>)],
    out: &mut Vec<String>,
) {
    say(
        out,
        format!(
            "verification on one core, Latvian crawl options, test dictionary ({} words):",
            cfg.dict.as_ref().map_or(0, Dict::len)
        ),
    );
    for (label, pages) in sets {
        let (mbs, ok, why) = throughput(cfg, pages, rec);
        say(
            out,
            format!(
                "  pages of ~{label}: {mbs:.1} MB/s ({} pages, {ok} verified{})",
                pages.len(),
                rejected(&why)
            ),
        );
    }

    // Pages in other languages, which a Latvian crawl rejects: the same
    // template with the corpus's Lithuanian, Estonian, Russian, German
    // and English text.
    let foreign = foreign_paragraphs();
    for (label, pages) in sets {
        let size = pages.first().map_or(0, String::len);
        let others: Vec<String> = (0..pages.len()).map(|i| page(i, size, &foreign)).collect();
        let (mbs, ok, why) = throughput(cfg, &others, rec);
        say(
            out,
            format!(
                "  pages of ~{label} in other languages: {mbs:.1} MB/s ({} pages, {ok} verified{})",
                others.len(),
                rejected(&why)
            ),
        );
    }

    let mut undeclared_stages = Vec::new();
    // The same pages with no charset declared anywhere, as many servers
    // send them: in UTF-8 (the validity check decides) and in windows-1257,
    // as older Latvian servers send them (chardetng decides).
    for encoding in [encoding_rs::UTF_8, encoding_rs::WINDOWS_1257] {
        let name = encoding.name();
        for (label, pages) in sets {
            let bodies: Vec<Vec<u8>> = pages
                .iter()
                .map(|p| {
                    encoding
                        .encode(&p.replacen("<meta charset=utf-8>", "", 1))
                        .0
                        .into_owned()
                })
                .collect();
            // How the first page's charset was decided, so that the figure
            // says what it measured.
            let how = verify(cfg, rec, bodies.first().map(Vec::as_slice))
                .charset
                .map_or("none".to_string(), |d| {
                    format!("{} by {}", d.encoding.name(), d.source.name())
                });
            let (mbs, ok, why) = throughput(cfg, &bodies, rec);
            undeclared_stages.push(stages(cfg, &format!("{label} undeclared {name}"), &bodies));
            say(
                out,
                format!(
                    "  undeclared {name} pages of ~{label}: {mbs:.1} MB/s ({} pages, {ok} verified, {how}{})",
                    bodies.len(),
                    rejected(&why)
                ),
            );
        }
    }

    // Where the time goes, per stage and page, for each size.
    say(out, "  where the time goes (us per page):".to_string());
    for (label, pages) in sets {
        say(out, stages(cfg, label, pages));
    }
    for line in undeclared_stages {
        say(out, line);
    }
    let detector = whatlang::Detector::new();
    // whatlang's cost per call: a floor that no cap lowers, since it
    // scores every profile of the script (about 40 for Latin) whatever the
    // length of the text.
    let all = paras.join(" ");
    let mut costs = Vec::new();
    for n in [100usize, 1000, 10_000] {
        let mut e = n.min(all.len());
        while !all.is_char_boundary(e) {
            e -= 1;
        }
        let t = Instant::now();
        for _ in 0..300 {
            detector.detect(&all[..e]);
        }
        costs.push(format!(
            "{n} B {:.0} us",
            t.elapsed().as_secs_f64() / 300.0 * 1e6
        ));
    }
    say(
        out,
        format!(
            "  whatlang per call on Latvian text, all languages: {}",
            costs.join(", ")
        ),
    );
    // The first witness's cost per call: one pass over its sample.
    let t = Instant::now();
    for _ in 0..3000 {
        std::hint::black_box(lang::Profile::of(&all));
    }
    say(
        out,
        format!(
            "  first witness (letter profiles) per call on its 512 B sample: {:.1} us",
            t.elapsed().as_secs_f64() / 3000.0 * 1e6
        ),
    );
    let uncapped = Config {
        lang_max_text: 0,
        ..strict(Dict::load(&corpus().join("lv.dict")).expect("lv.dict"))
    };
    for (label, pages) in sets {
        let (mbs, _, _) = throughput(&uncapped, pages, rec);
        say(
            out,
            format!("  without the language cap, pages of ~{label}: {mbs:.1} MB/s"),
        );
    }
}

/// The cost of each step of [`verify`] on `pages`, in microseconds per
/// page, each step timed over all pages on the previous step's output.
fn stages<P: AsRef<[u8]>>(cfg: &Config, label: &str, pages: &[P]) -> String {
    let n = pages.len() as f64;
    let time = |f: &mut dyn FnMut()| {
        let t = cpu_secs();
        f();
        (cpu_secs() - t) / n * 1e6
    };
    let hints = charset::Hints {
        user: None,
        tld: Some("example.lv"),
    };
    let mut dets = Vec::new();
    let sniff = time(&mut || {
        dets = pages
            .iter()
            .map(|p| charset::detect(p.as_ref(), "", Kind::Html, &hints))
            .collect();
    });
    let mut docs = Vec::new();
    let decode = time(&mut || {
        docs = pages
            .iter()
            .zip(&dets)
            .map(|(p, d)| {
                let doc = charset::decode(p.as_ref(), d);
                std::hint::black_box(Quality::of(&doc));
                doc.into_owned()
            })
            .collect();
    });
    let visible = time(&mut || {
        for d in &docs {
            std::hint::black_box(text::visible(d, Kind::Html));
        }
    });
    let mut mains = Vec::new();
    let main = time(&mut || {
        mains = docs
            .iter()
            .map(|d| nlpcrawl::document::extract::main_text(d, Kind::Html).text())
            .collect();
    });
    let language = time(&mut || {
        for m in &mains {
            std::hint::black_box(nlpcrawl::stage::vrfy::language(cfg, m));
        }
    });
    let d = cfg.dict.as_ref().expect("dictionary");
    let dict = time(&mut || {
        for m in &mains {
            std::hint::black_box(d.ratio(&lang::sample(m, nlpcrawl::stage::vrfy::DICT_SAMPLE)));
        }
    });
    let text = mains.iter().map(String::len).sum::<usize>() as f64 / n;
    format!(
        "    {label}: charset {sniff:.1}, decoding {decode:.1}, visible text {visible:.1}, \
         main text {main:.1} ({text:.0} B), language {language:.1}, dictionary {dict:.1}"
    )
}

/// Language accuracy on the test corpus, with and without the cap.
fn accuracy_table(default_cap: usize) {
    // Accuracy with and without the cap.
    let cases = corpus_cases();
    let long = long_variants(&cases);
    println!(
        "language accuracy (pages whose detected language is the right one; \
         default cap {} bytes):",
        default_cap
    );
    for cap in [0usize, 256, 512, 1024, 2048, 4096] {
        let (r1, n1, ms1) = accuracy(&cases, cap);
        let (r2, n2, ms2) = accuracy(&long, cap);
        let name = if cap == 0 {
            "no cap".to_string()
        } else {
            format!("cap {cap}")
        };
        println!(
            "  {name:>9}: test corpus {r1}/{n1} ({ms1:.1} ms), \
             60 KB pages with English menus {r2}/{n2} ({ms2:.1} ms)"
        );
    }
}

/// Load time and memory of a 5-million-word dictionary, and throughput
/// with it.
fn big_dictionary(rec: &Record, sets: &[(&str, Vec<String>)]) {
    // A dictionary the size of an expanded aspell word list.
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("big.dict");
    let n = 5_000_000;
    let bytes = write_big_dict(&path, n);
    let before = rss_kb();
    let t = Instant::now();
    let big = Dict::load(&path).expect("big dictionary");
    let load = t.elapsed().as_secs_f64();
    let after = rss_kb();
    println!(
        "dictionary of {} words ({:.0} MB file): loaded in {:.2} s, {:.0} MB held \
         ({:.0} MB more resident)",
        big.len(),
        bytes as f64 / 1e6,
        load,
        big.heap_bytes() as f64 / 1e6,
        (after.saturating_sub(before)) as f64 / 1e3
    );
    let cfg_big = strict(big);
    for (label, pages) in sets {
        let (mbs, _, _) = throughput(&cfg_big, pages, rec);
        println!("  with it, pages of ~{label}: {mbs:.1} MB/s");
    }
}

//! Link extraction throughput over a corpus of generated HTML pages of
//! realistic shape (navigation, paragraphs, tables, scripts, entities).
//!
//! cargo bench --bench links

use std::time::Instant;

use nlpcrawl::stage::scan::{links_of, Config};
use nlpcrawl::store::record::{Record, State};

fn page(i: usize, paragraphs: usize) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html lang=lv><head><meta charset=utf-8><title>Lapa</title>\
         <link rel=stylesheet href=/s.css><script>var x = '<a href=/no>'; function f(){return 1<2;}</script>\
         <style>body{margin:0}</style></head><body><div class=nav>",
    );
    for j in 0..30 {
        s.push_str(&format!(
            "<a href=\"/sadala/{j}/\" class=\"nav-link\">Sadaļa {j}</a> | "
        ));
    }
    s.push_str("</div>");
    for p in 0..paragraphs {
        s.push_str("<p>Latvija ir valsts Baltijas jūras austrumu krastā. Tās galvaspilsēta ir Rīga &mdash; lielākā pilsēta Baltijā. ");
        s.push_str(&format!(
            "Sīkāk skatīt <a href=\"../raksti/{i}-{p}.html?kat=1&amp;lapa={p}\">rakstu</a> un <a href='http://cits{}.lv/'>citu vietni</a>.</p>\n",
            p % 13
        ));
        if p % 5 == 0 {
            s.push_str("<table><tr><td>1</td><td>2</td></tr><tr><td><img src=x.png alt=''></td><td>&copy; 2024</td></tr></table>");
        }
    }
    s.push_str("<!-- footer --><footer><a href=mailto:x@y.lv>pasts</a></footer></body></html>");
    s
}

fn main() {
    let cfg = Config::default();
    let mut rec = Record::new("http://example.lv/dir/page.html", 1);
    rec.state = State::Verified;
    rec.content_type = "text/html".into();
    rec.charset = "utf-8".into();
    for (label, paragraphs, count) in [
        ("2 KB", 3usize, 5000usize),
        ("50 KB", 180, 400),
        ("1 MB", 3700, 20),
    ] {
        let corpus: Vec<String> = (0..count).map(|i| page(i, paragraphs)).collect();
        let bytes: usize = corpus.iter().map(String::len).sum();
        let t = Instant::now();
        let mut refs = 0;
        for p in &corpus {
            refs += nlpcrawl::web::links::extract_html(p.as_bytes(), encoding_rs::UTF_8)
                .refs
                .len();
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "extract: pages of ~{label}: {:.1} MB/s tokenizing and collecting ({refs} references)",
            bytes as f64 / secs / 1e6
        );
        let t = Instant::now();
        let mut links = 0;
        for p in &corpus {
            links += links_of(&rec, p.as_bytes(), &cfg).urls.len();
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "links: pages of ~{label}, resolved, normalised and filtered ({} bytes avg): {:.1} MB/s, {:.0} pages/s, {} links",
            bytes / count,
            bytes as f64 / secs / 1e6,
            count as f64 / secs,
            links
        );
    }
}

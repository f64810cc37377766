//! Main-text extraction on pages written for the purpose: what is kept
//! is exactly the article, in order, with its kinds of block; and through
//! the daemons, two articles of one site are two texts, not its sidebar.

mod common;

use common::*;
use nlpcrawl::document::charset::Kind;
use nlpcrawl::document::extract::{main_text, Block, BlockKind, MainText};
use nlpcrawl::store::dups;
use nlpcrawl::store::record::{Record, State};
use serde_json::Value;

const P1: &str = "The old bridge over the river was closed in the spring, when the \
    engineers who had been sent from the city found that the stones of its middle arch \
    were moving with every heavy cart that crossed it, and that the water had been eating \
    at the piers for years.";
const P2: &str = "For most of the summer the people of the town had to walk to the ferry, \
    which was slow and which did not run at night, so the market on the far bank lost many \
    of its buyers and some of the stalls were not opened again until the autumn came.";
const P3: &str = "When the new arch was finished in October, the mayor said that it would \
    stand for another two hundred years, and there was a small celebration on the bridge \
    itself, with music and bread, although it rained for most of the afternoon.";
const LI1: &str = "The first thing that the builders did was to drain the ground around the \
    piers, which took them more than a month because the river was high.";
const LI2: &str = "After that they took the old stones out one by one and numbered them, so \
    that as many as possible could be put back in the same places.";

/// Menus, a cookie banner, a sidebar, a link list and a footer around an
/// article.
fn article_page() -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=utf-8>\
         <title>The bridge is open again | Town News</title>\
         <script>var menu = '<p>not text</p>';</script><style>p {{ margin: 0 }}</style></head>\
         <body>\
         <div id=cookie-notice><p>We use cookies to make this site work and to understand \
         how you use it, and we would like to set some optional ones as well.</p>\
         <button>Accept all</button></div>\
         <header><a href=/>Town News</a><nav><ul><li><a href=/news>News</a></li>\
         <li><a href=/sport>Sport</a></li><li><a href=/weather>Weather</a></li>\
         <li><a href=/contact>Contact us</a></li></ul></nav></header>\
         <div class=layout>\
         <aside class=sidebar><h3>Most read</h3><ul>\
         <li><a href=/a/1>Council meets on Tuesday</a></li>\
         <li><a href=/a/2>New school opens its doors</a></li>\
         <li><a href=/a/3>Rain expected all week</a></li></ul>\
         <p>The sidebar has a paragraph too, which says that readers who like this kind of \
         story may also like the stories that other readers have been reading this week.</p>\
         </aside>\
         <article><h1>The bridge is open again</h1>\
         <p>{P1}</p><p>{P2}</p>\
         <h2>How the arch was rebuilt</h2>\
         <ul><li>{LI1}</li><li>{LI2}</li></ul>\
         <p>{P3}</p>\
         <div class=share><a href=/s/f>Share on Facebook</a> <a href=/s/t>Share on X</a></div>\
         </article>\
         <div class=related><h3>Related stories</h3>\
         <a href=/r/1>The ferry will run at night</a> <a href=/r/2>Market stalls return</a>\
         <a href=/r/3>Two hundred years of the old bridge in pictures</a></div>\
         </div>\
         <footer><p>&copy; 2026 Town News. All rights reserved.</p>\
         <a href=/privacy>Privacy</a> <a href=/terms>Terms</a></footer>\
         </body></html>"
    )
}

fn block(kind: BlockKind, text: &str) -> Block {
    Block {
        kind,
        text: text.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

#[test]
fn an_article_without_its_boilerplate() {
    let m = main_text(&article_page(), Kind::Html);
    assert_eq!(m.title, "The bridge is open again | Town News");
    assert_eq!(
        m.blocks,
        vec![
            block(BlockKind::Heading, "The bridge is open again"),
            block(BlockKind::Paragraph, P1),
            block(BlockKind::Paragraph, P2),
            block(BlockKind::Heading, "How the arch was rebuilt"),
            block(BlockKind::ListItem, LI1),
            block(BlockKind::ListItem, LI2),
            block(BlockKind::Paragraph, P3),
        ]
    );
    // One block a line, as nlpc-dump --text writes it.
    let text = m.text();
    assert_eq!(text.lines().count(), 7);
    assert!(text.starts_with("The bridge is open again\nThe old bridge"));
    for gone in [
        "cookies",
        "Sport",
        "Most read",
        "sidebar",
        "Share",
        "Related",
        "rights",
    ] {
        assert!(!text.contains(gone), "{gone} kept: {text}");
    }
}

#[test]
fn a_latvian_page() {
    let p1 = "Rīgā šonedēļ sāka atjaunot veco tiltu pār Daugavu, un darbi, kā sola \
              būvnieki, ilgs līdz rudenim, jo pēc ziemas ir jāpārbauda visi balsti un arī \
              tie akmeņi, kas ir zem ūdens.";
    let p2 = "Kamēr tilts būs slēgts, pilsētas iedzīvotāji varēs izmantot prāmi, kas kursēs \
              ik pēc pusstundas, bet naktīs tas nekursēs, tāpēc pašvaldība lūdz braucienus \
              plānot jau laikus un, ja vien var, izvēlēties citus ceļus.";
    let page = format!(
        "<html lang=lv><head><meta charset=utf-8><title>Tilts slēgts</title></head><body>\
         <nav><a href=/>Sākums</a> <a href=/zinas>Ziņas</a> <a href=/sports>Sports</a></nav>\
         <main><h1>Tilts būs slēgts līdz rudenim</h1><p>{p1}</p><p>{p2}</p></main>\
         <footer>Visas tiesības aizsargātas. <a href=/kontakti>Kontakti</a></footer>\
         </body></html>"
    );
    let m = main_text(&page, Kind::Html);
    assert_eq!(m.title, "Tilts slēgts");
    assert_eq!(
        m.blocks,
        vec![
            block(BlockKind::Heading, "Tilts būs slēgts līdz rudenim"),
            block(BlockKind::Paragraph, p1),
            block(BlockKind::Paragraph, p2),
        ]
    );
}

#[test]
fn a_page_with_no_main_text() {
    let mut page = String::from(
        "<html><head><title>Site map</title></head><body><nav><a href=/>Home</a></nav><ul>",
    );
    for i in 0..40 {
        page.push_str(&format!("<li><a href=/s/{i}>Section number {i}</a></li>"));
    }
    page.push_str(
        "</ul><p>Search</p><form><input name=q><button>Go</button></form>\
         <p>Follow us</p><footer>&copy; 2026</footer></body></html>",
    );
    let m = main_text(&page, Kind::Html);
    assert_eq!(
        m,
        MainText {
            title: "Site map".into(),
            blocks: vec![]
        }
    );
    assert_eq!(m.text(), "");
    assert_eq!(main_text("", Kind::Html), MainText::default());
}

#[test]
fn broken_markup() {
    // Unclosed paragraphs and list items, stray and misnested end tags, an
    // unclosed <b>, a never-closed <div class=menu> before the article, and
    // a second <head> halfway down (as pages glued from templates have).
    let page = format!(
        "<html><head><title>Broken</title><head></div></span>\
         <div class=menu><a href=/a>A</a> <a href=/b>B</a></div>\
         <body><div><p>{P1}<p>{P2}</li></td><p><b>{P3}\
         <h2>Notes</h2><ol><li>{LI1}<li>{LI2}</ol></table></div></div></div>"
    );
    let m = main_text(&page, Kind::Html);
    let kinds: Vec<BlockKind> = m.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BlockKind::Paragraph,
            BlockKind::Paragraph,
            BlockKind::Paragraph,
            BlockKind::Heading,
            BlockKind::ListItem,
            BlockKind::ListItem
        ],
        "{m:?}"
    );
    assert_eq!(m.blocks[2], block(BlockKind::Paragraph, P3));
    assert_eq!(m.blocks[5], block(BlockKind::ListItem, LI2));

    // Nesting deeper than the element stack keeps, then the article.
    let deep = format!("{}<p>{P1}</p><p>{P2}</p>", "<div>".repeat(10_000));
    let m = main_text(&deep, Kind::Html);
    assert_eq!(m.blocks.len(), 2, "{m:?}");

    // A great many short blocks: neighbours are found in one pass each
    // way (searching from each block would take hours here).
    let many = format!(
        "{}<p>{P1}</p>{}",
        "<p>x</p>".repeat(200_000),
        "<p>y</p>".repeat(200_000)
    );
    let m = main_text(&many, Kind::Html);
    assert_eq!(m.blocks, vec![block(BlockKind::Paragraph, P1)]);

    // Whatever the bytes, no panic, and every block holds text.
    let mut x: u32 = 7;
    let pieces = [
        "<p>",
        "</p>",
        "<div class=nav>",
        "</div>",
        "<a href=x>",
        "&amp;",
        "é",
        "\u{0}",
        "<li>",
        "<br><br>",
        "<h1>",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "word ",
        "the ",
    ];
    for _ in 0..200 {
        let mut doc = String::new();
        for _ in 0..200 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            doc.push_str(pieces[(x >> 16) as usize % pieces.len()]);
        }
        for kind in [Kind::Html, Kind::Xhtml, Kind::Xml, Kind::Plain] {
            for b in main_text(&doc, kind).blocks {
                assert!(!b.text.trim().is_empty(), "{doc}");
            }
        }
    }
}

#[test]
fn plain_text_is_its_paragraphs() {
    let m = main_text(
        "First  paragraph\nstill first.\n\n\n Second one.\n",
        Kind::Plain,
    );
    assert_eq!(
        m.blocks,
        vec![
            block(BlockKind::Paragraph, "First paragraph still first."),
            block(BlockKind::Paragraph, "Second one."),
        ]
    );
}

/// The site's prose sidebar: longer than either article, on every page.
const ABOUT: &str = "Rīgas Vēstis ir neatkarīgs laikraksts, kas kopš deviņdesmito gadu \
    sākuma stāsta par pilsētas dzīvi, tās cilvēkiem, kultūru un sportu. Mūsu žurnālisti \
    strādā katru dienu, lai lasītāji uzzinātu jaunāko no domes sēdēm, skolām, teātriem \
    un stadioniem, un mēs ticam, ka laba vietējā žurnālistika stiprina visu sabiedrību.";

/// A page of the site: a short article of `paras` under `head`, beside
/// the sidebar.
fn site_page(head: &str, paras: &[&str]) -> String {
    let ps: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html><head><meta charset=utf-8><title>{head} | Rīgas Vēstis</title></head><body>\
         <div id=top><a href=/>Rīgas Vēstis</a> <a href=/z>Ziņas</a> <a href=/s>Sports</a></div>\
         <div class=wrap><div class=column><h1>{head}</h1>{ps}</div>\
         <div class=widget-area><h3>Par mums</h3><p>{ABOUT}</p></div></div>\
         <div class=bottom>&copy; Rīgas Vēstis</div></body></html>"
    )
}

#[test]
fn two_short_articles_of_one_site_are_two_texts_not_its_sidebar() {
    let c = Crawl::new();
    let st = c.store();
    let pages = [
        (
            "http://vestis.test/biblioteka",
            "Pilsētā atver jaunu bibliotēku",
            [
                "Pārdaugavā durvis vērs jauna bibliotēka ar lasītavu bērniem.",
                "Tajā būs vairāk nekā divdesmit tūkstoši grāmatu un datori.",
            ],
        ),
        (
            "http://vestis.test/hokejs",
            "Hokeja komanda uzvar finālā",
            [
                "Rīgas hokejisti svētdien izcīnīja uzvaru pagarinājumā.",
                "Izšķirošos vārtus guva komandas kapteinis pēc piespēles.",
            ],
        ),
    ];
    let mut keys = Vec::new();
    for (url, head, paras) in &pages {
        let body = site_page(head, paras);
        let mut r = Record::new(url, 1_700_000_000);
        r.state = State::Fresh;
        r.addr = "192.0.2.7".into();
        r.status = 200;
        r.fetched = 1_700_000_000;
        r.content_type = "text/html".into();
        r.charset = "utf-8".into();
        r.size = body.len() as u64;
        r.hash = *blake3::hash(body.as_bytes()).as_bytes();
        let k = insert_new(&st, &r);
        c.cache().write(&k, body.as_bytes()).expect("cache write");
        keys.push(k);
    }
    drop(st);
    c.once_ahead(0, "nlpc-vrfy", &["--filter-lang", "lv"]);
    let st = c.store();
    assert_eq!(urls_in(&st, State::Verified).len(), 2, "both verified");
    let rd = st.read().unwrap();
    for k in &keys {
        assert!(
            dups::duplicate_of(&rd, k).unwrap().is_none(),
            "an article marked a duplicate of the other"
        );
    }
    drop(rd);
    drop(st);
    let out = c.tmp.path().join("corpus.jsonl");
    let o = c.run("nlpc-dump", &["--jsonl", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "nlpc-dump: {}", stderr(&o));
    let docs: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 2, "{docs:?}");
    for (url, head, paras) in &pages {
        let d = docs
            .iter()
            .find(|d| d["url"] == *url)
            .unwrap_or_else(|| panic!("{url} not in the corpus"));
        let text = d["text"].as_str().unwrap();
        assert_eq!(text, format!("{head}\n\n{}\n\n{}", paras[0], paras[1]));
    }
}

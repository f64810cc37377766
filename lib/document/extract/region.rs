//! The page-wide passes after each block is classed: what the blocks'
//! places in the page say that the blocks alone do not.
//!
//! - [`teasers`]: a run of linked headings, each with a sentence under it,
//!   is a listing of other pages (a category page, "related stories"),
//!   not this page's text.
//! - [`headline`]: the block that repeats the page's `<title>` heads the
//!   article, and the plain text right under it is the article, however
//!   short its paragraphs; prose in regions named sidebars is then not.
//! - [`focus`]: the innermost element holding most of the good text is the
//!   article's; good text outside it (a sidebar's prose, an author's box,
//!   teasers) is not, and short plain lines inside it are.
//!
//! Each was fitted on the tuning half of the extraction dev set only
//! (scripts/bench/extract) and is measured on its report half.

use crate::document::lower;

use super::blocks::{flag, Elem, HINT_CONTENT};
use super::{Class, Judged, LENGTH_LOW, MAX_LINK, SHORT_SENTENCE_WORDS};

/// Linked headings with a short block under each, at least this many,
/// make a listing.
const TEASERS_MIN: usize = 3;
/// The longest block (in characters) under a linked heading that is a
/// teaser's text rather than an article's.
const TEASER_CHARS: usize = 400;

/// Linked headings each followed by a short block: when there are at
/// least [`TEASERS_MIN`], each pair is bad. A listing's teasers are prose
/// and long enough to pass as paragraphs, which is how a category page
/// came out as several times its own text.
pub(super) fn teasers(js: &mut [Judged]) {
    let linked_heading =
        |j: &Judged| j.raw.flags & flag::HEADING != 0 && j.raw.link_chars * 10 >= j.raw.chars * 8;
    let found: Vec<usize> = (1..js.len())
        .filter(|&i| {
            linked_heading(&js[i - 1])
                && js[i].raw.flags & flag::HEADING == 0
                && js[i].raw.chars <= TEASER_CHARS
        })
        .collect();
    if found.len() < TEASERS_MIN {
        return;
    }
    for i in found {
        for j in &mut js[i - 1..=i] {
            j.class = Class::Bad;
            j.listed = true;
        }
    }
}

/// Words of a title or a headline compared, at most; a longer block is no
/// headline.
const HEADLINE_WORDS: usize = 40;
/// The longest block (in characters) that can be a headline.
const HEADLINE_CHARS: usize = 200;
/// Characters after the headline within which its text must start.
const HEADLINE_REACH: usize = 300;
/// A bad block at least this long ends the text under a headline; a
/// shorter one (a date, "Share") is stepped over.
const STEP_OVER: usize = 30;

/// Lower-cased words (runs of letters and digits) of a short text, the
/// first [`HEADLINE_WORDS`].
fn short_words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(HEADLINE_WORDS)
        .map(lower::lowercase)
        .collect()
}

/// A block that stops the text under a headline: boilerplate, a link list,
/// a listing's teaser, a copyright line, or a long block bad for its own
/// sake.
fn ends_article(j: &Judged) -> bool {
    j.raw.flags & (flag::BOILER | flag::NAMED) != 0
        || j.raw.link_chars as f64 > j.raw.chars as f64 * MAX_LINK
        || j.listed
        || j.raw.text.contains('©')
        || (j.alone == Class::Bad && j.raw.chars >= LENGTH_LOW)
}

/// The page's headline: the block whose words are mostly (eight in ten)
/// in the `<title>`, which adds the site's name to it; a heading before
/// any other block, then the one with most words in the title, then the
/// later (the site's name, in the masthead, comes first). When a good or
/// near-good block or a sentence comes under it within [`HEADLINE_REACH`]
/// characters, an article starts there: the headline and the blocks under
/// it up to the first that [`ends_article`] are good, however short. A
/// news item of three sentences has no paragraph long enough to be judged
/// good alone, and would lose to a long notice elsewhere on the page; the
/// date line and the one-line paragraphs of a longer article are its own.
/// With the article found, blocks in a region whose class names a sidebar
/// or a menu are bad, prose or not: the prose there is the site's (an
/// "about us" box), and taking it for a short article's text made two
/// articles of one site one text. Returns the headline's index.
pub(super) fn headline(js: &mut [Judged], title: &str) -> Option<usize> {
    let tw = short_words(title);
    if tw.len() < 2 {
        return None;
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, j) in js.iter().enumerate() {
        if j.raw.chars > HEADLINE_CHARS || j.raw.flags & (flag::BOILER | flag::NAMED) != 0 {
            continue;
        }
        let hw = short_words(&j.raw.text);
        if hw.len() < 2 {
            continue;
        }
        let hits = hw.iter().filter(|w| tw.contains(w)).count();
        if hits * 10 < hw.len() * 8 {
            continue;
        }
        let score = hits + usize::from(j.raw.flags & flag::HEADING != 0) * HEADLINE_WORDS;
        if best.is_none_or(|(_, s)| score >= s) {
            best = Some((i, score));
        }
    }
    let (at, _) = best?;
    // The run of blocks under it, up to the first that ends an article;
    // an article starts in it if a good or near-good block, or a
    // sentence, comes within the reach.
    let mut seen = 0usize;
    let mut starts = false;
    let mut last = None;
    for (k, j) in js.iter().enumerate().skip(at + 1) {
        if ends_article(j) {
            if j.raw.chars > STEP_OVER {
                break;
            }
            continue;
        }
        if j.class == Class::Good
            || j.alone == Class::NearGood
            || (j.alone == Class::Short
                && super::sentences(&j.raw.text, j.words, SHORT_SENTENCE_WORDS))
        {
            starts = true;
        }
        if !starts {
            seen += j.raw.chars;
            if seen > HEADLINE_REACH {
                break;
            }
        }
        last = Some(k);
    }
    let Some(last) = last.filter(|_| starts) else {
        return Some(at);
    };
    for j in &mut js[at..=last] {
        if !ends_article(j) {
            j.class = Class::Good;
        }
    }
    // With the article found, prose in a region named a sidebar or a menu
    // is that region's, not the page's.
    for j in js.iter_mut() {
        if j.raw.flags & flag::NAMED != 0 {
            j.class = Class::Bad;
        }
    }
    Some(at)
}

/// The least share of the page's good text (in characters) that the
/// article's element holds.
const FOCUS_SHARE: f64 = 0.7;
/// The least share that an element named as the article's text
/// ([`HINT_CONTENT`]) must hold to be taken for it.
const HINT_SHARE: f64 = 0.5;
/// Blocks before the article's first good one, at most, among which a
/// heading is its title.
const TITLE_BEFORE: usize = 2;

/// The article's element: the outermost element named as the article's
/// text that holds at least [`HINT_SHARE`] of the good text, else the
/// innermost that holds at least [`FOCUS_SHARE`] of it (the page itself
/// when none does, and nothing changes). Not an element that misses the
/// first good block under the headline, which is a sidebar longer than
/// a short article: the short article found under the headline is in the
/// innermost element holding both. In it, plain short and near-good lines
/// (no links, no boilerplate) are good, as the article's; out of it, good
/// blocks are bad but for a heading right before its text.
pub(super) fn focus(js: &mut [Judged], elems: &[Elem], headline: Option<usize>) {
    let n = elems.len();
    if n == 0 {
        return;
    }
    let at = |j: &Judged| (j.raw.elem as usize).min(n - 1);
    // Good characters under each element: its own blocks', then its
    // children's (each element's parent comes before it).
    let mut good = vec![0usize; n];
    for j in js.iter().filter(|j| j.class == Class::Good) {
        good[at(j)] += j.raw.chars;
    }
    for e in (1..n).rev() {
        good[elems[e].parent as usize] += good[e];
    }
    let mut depth = vec![0u32; n];
    for e in 1..n {
        depth[e] = depth[elems[e].parent as usize] + 1;
    }
    let holds = |outer: usize, mut e: usize| {
        while depth[e] > depth[outer] {
            e = elems[e].parent as usize;
        }
        e == outer
    };
    let total = good[0] as f64;
    if total == 0.0 {
        return;
    }
    let (mut innermost, mut hinted) = (0, 0);
    for e in 1..n {
        let g = good[e] as f64;
        if g >= total * FOCUS_SHARE && depth[e] > depth[innermost] {
            innermost = e;
        }
        if elems[e].hint & HINT_CONTENT != 0
            && g >= total * HINT_SHARE
            && (hinted == 0 || depth[e] < depth[hinted])
        {
            hinted = e;
        }
    }
    let chosen = if hinted != 0 { hinted } else { innermost };
    // An element that misses the first good block under a headline is a
    // sidebar longer than the article.
    if let Some(h) = headline {
        let first_under = js[h + 1..].iter().find(|j| j.class == Class::Good);
        if first_under.is_some_and(|j| !holds(chosen, at(j))) {
            return;
        }
    }
    if chosen == 0 {
        return;
    }
    let mut inside = vec![false; n];
    inside[chosen] = true;
    for e in chosen + 1..n {
        inside[e] = inside[elems[e].parent as usize];
    }
    let first = js
        .iter()
        .position(|j| j.class == Class::Good && inside[at(j)]);
    for (i, j) in js.iter_mut().enumerate() {
        let within = inside[at(j)];
        if within {
            if j.class == Class::Bad
                && j.raw.link_chars == 0
                && !j.listed
                && matches!(j.alone, Class::Short | Class::NearGood)
                && j.raw.flags & (flag::BOILER | flag::NAMED) == 0
            {
                j.class = Class::Good;
            }
            continue;
        }
        let title = j.raw.flags & flag::HEADING != 0
            && first.is_some_and(|f| i < f && f - i <= TITLE_BEFORE);
        if j.class == Class::Good && !title {
            j.class = Class::Bad;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::document::charset::Kind;
    use crate::document::extract::main_text;

    /// A page of the site: its masthead and menu, `main` in the content
    /// column, a sidebar holding `sidebar`, and a footer.
    fn page(title: &str, main: &str, sidebar: &str) -> String {
        format!(
            "<html><head><title>{title} | Rīgas Vēstis</title></head><body>\
             <div id=header><a href=/>Rīgas Vēstis</a><ul class=menu><li><a href=/z>Ziņas</a>\
             <li><a href=/s>Sports</a><li><a href=/k>Kultūra</a></ul></div>\
             <div id=content-sidebar-wrap><div class=column>{main}</div>\
             <div class=widget-area>{sidebar}</div></div>\
             <div id=footer><p>Rīgas Vēstis iznāk kopš 1991. gada; visas tiesības \
             aizsargātas, un pārpublicēšana bez rakstiskas atļaujas ir aizliegta, \
             kā to nosaka autortiesību likums un redakcijas noteikumi, kurus var \
             izlasīt mūsu vietnes sadaļā par mums.</p></div></body></html>"
        )
    }

    /// A long paragraph of prose about the site, in its sidebar.
    const ABOUT: &str = "<h3>Par mums</h3><p>Rīgas Vēstis ir neatkarīgs laikraksts, \
        kas kopš deviņdesmito gadu sākuma stāsta par pilsētas dzīvi, tās cilvēkiem, \
        kultūru un sportu. Mūsu žurnālisti strādā katru dienu, lai lasītāji uzzinātu \
        jaunāko no domes sēdēm, skolām, teātriem un stadioniem, un mēs ticam, ka laba \
        vietējā žurnālistika stiprina visu sabiedrību un palīdz cilvēkiem saprast, \
        kas notiek viņu apkaimē un kāpēc tas ir svarīgi ikvienam no mums.</p>";

    fn text(html: &str) -> String {
        for l in crate::document::extract::explain(html) {
            eprintln!("{l}");
        }
        main_text(html, Kind::Html).text()
    }

    #[test]
    fn a_short_article_under_its_headline_beats_a_long_notice() {
        let main = "<h1>Daugavā atklāj jaunu tiltu</h1><p>Šodien Rīgā atklāja jauno tiltu.</p>\
                    <p>Tilts savieno abus upes krastus un ir divus kilometrus garš.</p>\
                    <p>Satiksme pa to sāksies rīt.</p>";
        let t = text(&page("Daugavā atklāj jaunu tiltu", main, ""));
        for want in [
            "Daugavā atklāj jaunu tiltu",
            "Šodien Rīgā atklāja jauno tiltu.",
            "Satiksme pa to sāksies rīt.",
        ] {
            assert!(t.contains(want), "{want:?} not in {t:?}");
        }
        assert!(!t.contains("autortiesību"), "{t:?}");
    }

    #[test]
    fn two_articles_of_one_site_are_not_its_sidebar() {
        let a = "<h1>Pilsētā atver jaunu bibliotēku</h1><p>Pārdaugavā durvis vērs jauna \
                 bibliotēka ar lasītavu bērniem.</p><p>Tajā būs vairāk nekā divdesmit tūkstoši \
                 grāmatu.</p>";
        let b = "<h1>Hokeja komanda uzvar finālā</h1><p>Rīgas hokejisti svētdien izcīnīja \
                 uzvaru pagarinājumā.</p><p>Izšķirošos vārtus guva komandas kapteinis.</p>";
        let ta = text(&page("Pilsētā atver jaunu bibliotēku", a, ABOUT));
        let tb = text(&page("Hokeja komanda uzvar finālā", b, ABOUT));
        assert!(ta.contains("bibliotēka ar lasītavu"), "{ta:?}");
        assert!(tb.contains("uzvaru pagarinājumā"), "{tb:?}");
        for t in [&ta, &tb] {
            assert!(!t.contains("neatkarīgs laikraksts"), "{t:?}");
        }
        assert_ne!(ta, tb);
    }

    #[test]
    fn the_articles_element_is_taken_over_prose_around_it() {
        let para = "<p>Rīgas dome otrdien lēma par jauna parka izveidi Grīziņkalnā, kur \
                    līdz šim atradās pamests laukums, un iedzīvotāji par to ilgi cīnījās.</p>";
        let main = format!(
            "<h1>Grīziņkalnā būs parks</h1><div class=entry-content>{}</div>\
             <div class=author><p>Autore ir Rīgas Vēstu žurnāliste, kas jau desmit gadus \
             raksta par pilsētvidi, arhitektūru un iedzīvotāju iniciatīvām apkaimēs.</p></div>",
            para.repeat(3)
        );
        let t = text(&page("Grīziņkalnā būs parks", &main, ABOUT));
        assert!(t.contains("Grīziņkalnā būs parks"), "{t:?}");
        assert_eq!(t.matches("pamests laukums").count(), 3, "{t:?}");
        assert!(!t.contains("neatkarīgs laikraksts"), "{t:?}");
        assert!(!t.contains("desmit gadus"), "{t:?}");
    }

    #[test]
    fn a_listing_of_teasers_is_not_the_pages_text() {
        let mut main = String::from(
            "<h1>Kultūra</h1><p>Jaunākās ziņas par teātri, mūziku un mākslu Rīgā un visā \
             Latvijā, ko katru dienu apkopo mūsu kultūras nodaļas žurnālisti.</p>",
        );
        for i in 0..6 {
            main.push_str(&format!(
                "<div class=item><h2><a href=/a/{i}>Teātrī pirmizrāde numur {i}</a></h2>\
                 <p>Nacionālajā teātrī šovakar notiks jaunas izrādes pirmizrāde, kurā \
                 galvenajās lomās redzēsim pazīstamus aktierus.</p></div>"
            ));
        }
        let t = text(&page("Kultūra", &main, ""));
        assert!(t.contains("kultūras nodaļas"), "{t:?}");
        assert!(!t.contains("pirmizrāde"), "{t:?}");
    }

    #[test]
    fn an_article_named_as_such_in_a_wrapper_named_a_sidebar_is_kept() {
        // WordPress themes wrap the content column and the sidebar in one
        // element named after both, and the post in "entry-content".
        let html = "<html><head><title>Ziema klāt</title></head><body>\
                    <div class=site-sidebar-layout><div class=entry-content>\
                    <p>Naktī uz otrdienu visā Latvijā gaidāms sniegs, un autovadītājiem \
                    ieteicams laikus nomainīt riepas, brīdina ceļu dienests.</p>\
                    <p>Sinoptiķi sola, ka aukstums saglabāsies līdz nedēļas beigām.</p>\
                    </div></div></body></html>";
        let t = text(html);
        assert!(t.contains("gaidāms sniegs"), "{t:?}");
        assert!(t.contains("aukstums saglabāsies"), "{t:?}");
    }
}

//! Vertical text, the input of corpus query systems (Sketch Engine,
//! NoSketch Engine, CWB): one token a line, in `<s>` sentences inside
//! `<p>` blocks inside `<doc>` documents, with the metadata corpus builders
//! publish on each (`nlpc-dump --vert`; the format in nlpc-dump(1)).
//!
//! Tokens and sentences are those of `document::tokens`, which cuts
//! Latvian as the Universal Dependencies Latvian treebank does. Between two
//! tokens that no white space parted stands a `<g/>` line (glue), so the
//! text can be put back together.

use std::path::Path;

use crate::document::escape::is_control;
use crate::document::extract::BlockKind;
use crate::document::tokens::sentences;
use crate::error::Result;
use crate::output::corpus::Document;
use crate::output::file::Dest;
use crate::run::clock;
use crate::web::url::host_of;

/// A token line: `&`, `<` and `>` as entities, so no token reads as
/// markup.
pub fn escape_token(t: &str, out: &mut String) {
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// An attribute value: `&`, `<`, `>` and `"` as entities, and control
/// characters (line breaks among them) as spaces, so a value never ends
/// its line or its tag.
pub fn escape_attr(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if is_control(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The `type` of a `<p>`: the extractor's class of the block.
fn p_type(k: BlockKind) -> &'static str {
    match k {
        BlockKind::Heading => "heading",
        BlockKind::ListItem => "item",
        BlockKind::Paragraph => "text",
    }
}

/// The `langs` attribute of a `<doc>`: "lv:0.642 en:0.358", each
/// language's share of the main text's letters, largest first; "-" for
/// the blocks of no language.
fn langs_attr(d: &Document) -> String {
    let mut out = String::new();
    for (l, share) in &d.langs {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("{}:{share:.3}", l.unwrap_or("-")));
    }
    out
}

/// `<name k="v" ...>` and a line break, the values escaped.
fn open_tag(s: &mut String, name: &str, attrs: &[(&str, &str)]) {
    s.push('<');
    s.push_str(name);
    for (k, v) in attrs {
        s.push(' ');
        s.push_str(k);
        s.push_str("=\"");
        s.push_str(&escape_attr(v));
        s.push('"');
    }
    s.push_str(">\n");
}

/// One document in vertical text.
pub fn document(d: &Document) -> String {
    let mut s = String::new();
    let conf = d.lang_conf.map(|c| format!("{c:.3}")).unwrap_or_default();
    let (fetched, day) = if d.fetched == 0 {
        (String::new(), String::new())
    } else {
        let t = clock::iso8601(d.fetched);
        let day = t.get(..10).unwrap_or_default().to_string();
        (t, day)
    };
    open_tag(
        &mut s,
        "doc",
        &[
            ("url", &d.url),
            ("final_url", &d.final_url),
            ("title", &d.title),
            ("domain", host_of(&d.url)),
            ("fetched", &fetched),
            ("crawl_date", &day),
            ("lang", &d.lang),
            ("lang_conf", &conf),
            ("langs", &langs_attr(d)),
            ("charset", &d.charset),
            ("dict_ratio", &format!("{:.3}", d.dict_ratio)),
            ("duplicate_of", d.duplicate_of.as_deref().unwrap_or("")),
        ],
    );
    for (i, b) in d.blocks.iter().enumerate() {
        let sents = sentences(&b.text);
        if sents.is_empty() {
            continue;
        }
        let heading = if b.kind == BlockKind::Heading {
            "1"
        } else {
            "0"
        };
        open_tag(
            &mut s,
            "p",
            &[
                ("type", p_type(b.kind)),
                ("heading", heading),
                (
                    "lang",
                    d.block_langs.get(i).copied().flatten().unwrap_or(""),
                ),
            ],
        );
        for sent in sents {
            s.push_str("<s>\n");
            for (i, t) in sent.iter().enumerate() {
                if t.glued && i > 0 {
                    s.push_str("<g/>\n");
                }
                escape_token(t.text, &mut s);
                s.push('\n');
            }
            s.push_str("</s>\n");
        }
        s.push_str("</p>\n");
    }
    s.push_str("</doc>\n");
    s
}

/// The vertical side of a dump.
pub struct Vert {
    dest: Dest,
}

impl Vert {
    pub fn open(path: &Path) -> Result<Vert> {
        Ok(Vert {
            dest: Dest::open(path)?,
        })
    }

    pub fn document(&mut self, d: &Document) -> Result<()> {
        self.dest.write_all(document(d).as_bytes())
    }

    pub fn finish(self) -> Result<()> {
        self.dest.finish()
    }

    pub fn abandon(&self) {
        self.dest.abandon()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::extract::Block;

    #[test]
    fn escapes() {
        let mut s = String::new();
        escape_token("<b>&", &mut s);
        assert_eq!(s, "&lt;b&gt;&amp;");
        assert_eq!(
            escape_attr("a \"b\" & <c>\nd"),
            "a &quot;b&quot; &amp; &lt;c&gt; d"
        );
    }

    #[test]
    fn sentences_in_blocks_with_glue_and_metadata() {
        let d = Document {
            url: "http://user@Ziņas.lv:8080/a?b=\"c\"".into(),
            final_url: "http://user@Ziņas.lv:8080/a?b=\"c\"".into(),
            redirects: 0,
            fetched: 1_700_000_000,
            title: "A & B".into(),
            lang: "lv".into(),
            lang_conf: Some(0.9876),
            charset: "UTF-8".into(),
            charset_source: None,
            dict_ratio: 0.5,
            duplicate_of: None,
            hash: String::new(),
            current: true,
            blocks: vec![
                Block {
                    kind: BlockKind::Heading,
                    text: "Jaunumi".into(),
                },
                Block {
                    kind: BlockKind::Paragraph,
                    text: " ".into(),
                },
                Block {
                    kind: BlockKind::ListItem,
                    text: "Tas notika 2024. gada 1. maijā. Vai tiešām?!".into(),
                },
            ],
            block_langs: vec![None, None, Some("lv")],
            langs: vec![(Some("lv"), 0.75), (None, 0.25)],
        };
        let v = document(&d);
        assert_eq!(
            v,
            "<doc url=\"http://user@Ziņas.lv:8080/a?b=&quot;c&quot;\" \
             final_url=\"http://user@Ziņas.lv:8080/a?b=&quot;c&quot;\" title=\"A &amp; B\" \
             domain=\"Ziņas.lv\" fetched=\"2023-11-14T22:13:20Z\" crawl_date=\"2023-11-14\" \
             lang=\"lv\" lang_conf=\"0.988\" langs=\"lv:0.750 -:0.250\" charset=\"UTF-8\" \
             dict_ratio=\"0.500\" duplicate_of=\"\">\n\
             <p type=\"heading\" heading=\"1\" lang=\"\">\n<s>\nJaunumi\n</s>\n</p>\n\
             <p type=\"item\" heading=\"0\" lang=\"lv\">\n\
             <s>\nTas\nnotika\n2024.\ngada\n1.\nmaijā\n<g/>\n.\n</s>\n\
             <s>\nVai\ntiešām\n<g/>\n?!\n</s>\n</p>\n</doc>\n"
        );
    }
}

//! Vertical text, the input of corpus query systems (Sketch Engine,
//! NoSketch Engine, CWB): one token a line, inside `<doc ...>` and
//! `<p type="...">` structures (`nlpc-dump --vert`; the format in
//! nlpc-dump(1)).
//!
//! Tokens are the segments between Unicode word boundaries (UAX #29) that
//! hold something other than white space: words, numbers and each
//! punctuation mark. Between two tokens that no white space parted stands
//! a `<g/>` line (glue), so the text can be put back together.

use std::path::Path;

use unicode_segmentation::UnicodeSegmentation;

use crate::document::escape::is_control;
use crate::document::extract::BlockKind;
use crate::error::Result;
use crate::output::corpus::Document;
use crate::output::file::Dest;
use crate::run::clock;

/// True for a segment that is no token: white space and control
/// characters only.
fn is_space(seg: &str) -> bool {
    seg.chars().all(|c| c.is_whitespace() || is_control(c))
}

/// The tokens of `text`, each with whether it is glued to the one before
/// (no white space between them).
pub fn tokens(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut glued = false;
    for seg in text.split_word_bounds() {
        if is_space(seg) {
            glued = false;
            continue;
        }
        out.push((seg, glued && !out.is_empty()));
        glued = true;
    }
    out
}

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

/// The `type` of a `<p>`.
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

/// One document in vertical text.
pub fn document(d: &Document) -> String {
    let mut s = String::new();
    let conf = d.lang_conf.map(|c| format!("{c:.3}")).unwrap_or_default();
    let fetched = if d.fetched == 0 {
        String::new()
    } else {
        clock::iso8601(d.fetched)
    };
    let langs = langs_attr(d);
    let attrs: [(&str, &str); 10] = [
        ("url", &d.url),
        ("final_url", &d.final_url),
        ("title", &d.title),
        ("fetched", &fetched),
        ("lang", &d.lang),
        ("lang_conf", &conf),
        ("langs", &langs),
        ("charset", &d.charset),
        ("dict_ratio", &format!("{:.3}", d.dict_ratio)),
        ("duplicate_of", d.duplicate_of.as_deref().unwrap_or("")),
    ];
    s.push_str("<doc");
    for (k, v) in attrs {
        s.push(' ');
        s.push_str(k);
        s.push_str("=\"");
        s.push_str(&escape_attr(v));
        s.push('"');
    }
    s.push_str(">\n");
    for (i, b) in d.blocks.iter().enumerate() {
        let toks = tokens(&b.text);
        if toks.is_empty() {
            continue;
        }
        s.push_str("<p type=\"");
        s.push_str(p_type(b.kind));
        s.push_str("\" lang=\"");
        s.push_str(d.block_langs.get(i).copied().flatten().unwrap_or(""));
        s.push_str("\">\n");
        for (t, glued) in toks {
            if glued {
                s.push_str("<g/>\n");
            }
            escape_token(t, &mut s);
            s.push('\n');
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

    #[test]
    fn tokens_punctuation_and_glue() {
        let t = tokens("Labā diena, \"Rīga\" & <b>!");
        let words: Vec<&str> = t.iter().map(|x| x.0).collect();
        assert_eq!(
            words,
            ["Labā", "diena", ",", "\"", "Rīga", "\"", "&", "<", "b", ">", "!"]
        );
        let glue: Vec<bool> = t.iter().map(|x| x.1).collect();
        assert_eq!(
            glue,
            [false, false, true, false, true, true, false, false, true, true, true]
        );
        let mut s = String::new();
        escape_token("<b>&", &mut s);
        assert_eq!(s, "&lt;b&gt;&amp;");
        assert_eq!(
            escape_attr("a \"b\" & <c>\nd"),
            "a &quot;b&quot; &amp; &lt;c&gt; d"
        );
    }
}

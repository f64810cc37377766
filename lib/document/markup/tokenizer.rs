//! The tokenizer's states, after the tokenization section of the WHATWG
//! HTML standard: text and raw text (script, style, title and the like),
//! tags and their attributes, comments, doctypes and CDATA, each read in
//! runs (memchr, a byte-class table) rather than byte by byte.

use memchr::{memchr, memchr2, memchr3};

use super::refs::{char_ref, FFFD};
use super::{Mode, Sink};

/// What the text between tags is, after the last start tag.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Content {
    Data,
    RcData,
    RawText,
    Script,
    PlainText,
}

/// Where in a tag the tokenizer is (the standard's tag states).
#[derive(Clone, Copy)]
enum In {
    Name,
    BeforeAttr,
    AttrName,
    AfterAttr,
    BeforeValue,
    Quoted(u8),
    Unquoted,
    AfterValue,
    SelfClosing,
}

/// The standard's whitespace, with CR, which its input preprocessing turns
/// into LF before the tokenizer sees it.
#[inline]
const fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Byte classes for the runs read in one go inside a tag: what ends a tag
/// name, an attribute name, an unquoted value, or needs a closer look.
const TAG_NAME_END: u8 = 1;
const ATTR_NAME_END: u8 = 2;
const UNQUOTED_END: u8 = 4;

const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let space = is_space(b);
        // Uppercase leaves the run too, to be lowered one at a time: names
        // are nearly always lowercase already.
        if space || b == b'/' || b == b'>' || b == 0 || b.is_ascii_uppercase() {
            t[c] |= TAG_NAME_END | ATTR_NAME_END;
        }
        if b == b'=' {
            t[c] |= ATTR_NAME_END;
        }
        if space || b == b'>' || b == b'&' || b == 0 {
            t[c] |= UNQUOTED_END;
        }
        c += 1;
    }
    t
};

/// How many bytes from the start of `s` are none of the class `end`.
#[inline]
fn run_len(s: &[u8], end: u8) -> usize {
    s.iter()
        .position(|&c| CLASS[c as usize] & end != 0)
        .unwrap_or(s.len())
}

/// What ends an end tag's name (or a double-escape's `script`).
#[inline]
fn ends_name(c: u8) -> bool {
    is_space(c) || c == b'/' || c == b'>'
}

/// One pass over a document: the place reached, the kind of text being
/// read, and the tag and attribute being read, with their reused buffers.
struct Tokenizer<'d, 's, S> {
    doc: &'d [u8],
    pos: usize,
    sink: &'s mut S,
    mode: Mode,
    text: Content,
    /// The element whose end tag ends the raw text being read.
    raw_end: &'static [u8],
    /// The current tag's name, lowercase (reused), when it is not
    /// `doc[name_at]` (see [`Tokenizer::name_in_doc`]).
    name: Vec<u8>,
    /// The current tag's name as it stands in the document, lowercase
    /// already: most names are, and need no copy.
    name_at: Option<(usize, usize)>,
    end: bool,
    /// The sink has been told the start tag's name.
    opened: bool,
    /// The sink wants this tag's attributes.
    wants: bool,
    in_attr: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
}

impl<S: Sink> Tokenizer<'_, '_, S> {
    fn run(&mut self) {
        while self.pos < self.doc.len() {
            match self.text {
                Content::Data => self.data(),
                Content::PlainText => {
                    let rest = self.doc.get(self.pos..).unwrap_or_default();
                    self.raw_text(rest);
                    self.pos = self.doc.len();
                }
                Content::RcData | Content::RawText | Content::Script => self.raw(),
            }
        }
    }

    /// The data state, until a tag switches to another kind of text.
    fn data(&mut self) {
        let doc = self.doc;
        while let Some(rest) = doc.get(self.pos..) {
            let Some(i) = memchr3(b'<', b'&', b'\r', rest) else {
                if !rest.is_empty() {
                    self.sink.text(rest);
                }
                self.pos = doc.len();
                return;
            };
            if i > 0 {
                self.sink.text(&rest[..i]);
            }
            self.pos += i + 1;
            match rest[i] {
                b'\r' => {
                    self.sink.text(b"\n");
                    if doc.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                }
                b'&' => match char_ref(&rest[i + 1..], false) {
                    Some((d, n)) => {
                        let mut buf = [0; 4];
                        self.sink.text(d.bytes(&mut buf));
                        self.pos += n;
                    }
                    None => self.sink.text(b"&"),
                },
                _ => {
                    self.tag_open();
                    if self.text != Content::Data {
                        return;
                    }
                }
            }
        }
    }

    /// After a `<` in the data state.
    fn tag_open(&mut self) {
        let doc = self.doc;
        let p = self.pos;
        match doc.get(p) {
            Some(b'!') => self.declaration(p + 1),
            Some(b'/') => match doc.get(p + 1) {
                Some(c) if c.is_ascii_alphabetic() => {
                    self.name_at = Some((p + 1, p + 1));
                    self.tag(true, p + 1);
                }
                Some(b'>') => self.pos = p + 2,
                None => {
                    self.sink.text(b"</");
                    self.pos = doc.len();
                }
                Some(_) => self.skip_to_gt(p + 1),
            },
            Some(c) if c.is_ascii_alphabetic() => {
                self.name_at = Some((p, p));
                self.tag(false, p);
            }
            Some(b'?') => self.skip_to_gt(p),
            _ => self.sink.text(b"<"),
        }
    }

    /// A bogus comment or a doctype: both end at the next `>`.
    fn skip_to_gt(&mut self, from: usize) {
        let doc = self.doc;
        self.pos = match doc.get(from..).and_then(|r| memchr(b'>', r)) {
            Some(i) => from + i + 1,
            None => doc.len(),
        };
    }

    /// After `<!`: a comment, a doctype, CDATA or a bogus comment.
    fn declaration(&mut self, p: usize) {
        let doc = self.doc;
        let rest = doc.get(p..).unwrap_or_default();
        if rest.starts_with(b"--") {
            self.comment(p + 2);
        } else if rest
            .get(..7)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"doctype"))
        {
            self.skip_to_gt(p + 7);
        } else if self.mode == Mode::Xml && rest.starts_with(b"[CDATA[") {
            // In XML, CDATA sections are text; in HTML, bogus comments.
            let body = rest.get(7..).unwrap_or_default();
            let n = memchr::memmem::find(body, b"]]>");
            let end = n.unwrap_or(body.len());
            self.text_cr(&body[..end]);
            self.pos = match n {
                Some(n) => p + 7 + n + 3,
                None => doc.len(),
            };
        } else {
            self.skip_to_gt(p);
        }
    }

    /// A comment whose body starts at `p`: it ends at the first `-->` or
    /// `--!>` inside it, or at once as `<!-->` or `<!--->`.
    fn comment(&mut self, p: usize) {
        let doc = self.doc;
        let rest = doc.get(p..).unwrap_or_default();
        if rest.first() == Some(&b'>') {
            self.pos = p + 1;
            return;
        }
        if rest.starts_with(b"->") {
            self.pos = p + 2;
            return;
        }
        let mut from = 0;
        while let Some(i) = rest.get(from..).and_then(|r| memchr(b'>', r)) {
            let gt = from + i;
            let before = &rest[..gt];
            if before.ends_with(b"--") || before.ends_with(b"--!") {
                self.pos = p + gt + 1;
                return;
            }
            from = gt + 1;
        }
        self.pos = doc.len();
    }

    /// A tag whose name starts at `i` (after the name so far: `name_at`
    /// or `self.name`), to its `>`.
    fn tag(&mut self, end: bool, mut i: usize) {
        let doc = self.doc;
        self.end = end;
        self.opened = false;
        self.wants = false;
        self.in_attr = false;
        let mut st = In::Name;
        loop {
            let Some(&c) = doc.get(i) else {
                // End of file in a tag: the tag is dropped.
                self.pos = doc.len();
                return;
            };
            match st {
                In::Name if CLASS[c as usize] & TAG_NAME_END == 0 => {
                    let n = run_len(&doc[i..], TAG_NAME_END);
                    match self.name_at {
                        // The name so far ends here: it grows in place.
                        Some((from, to)) if to == i => self.name_at = Some((from, i + n)),
                        _ => {
                            self.name_in_vec();
                            self.name.extend_from_slice(&doc[i..i + n]);
                        }
                    }
                    i += n;
                    continue;
                }
                In::Name => match c {
                    b'/' => st = In::SelfClosing,
                    b'>' => return self.emit(i + 1, false),
                    0 => {
                        self.name_in_vec();
                        self.name.extend_from_slice(FFFD);
                    }
                    c if is_space(c) => st = In::BeforeAttr,
                    c => {
                        self.name_in_vec();
                        self.name.push(c.to_ascii_lowercase());
                    }
                },
                In::BeforeAttr => match c {
                    b'/' | b'>' => {
                        st = In::AfterAttr;
                        continue;
                    }
                    c if is_space(c) => {}
                    b'=' => {
                        self.new_attr();
                        self.push_name(c);
                        st = In::AttrName;
                    }
                    _ => {
                        self.new_attr();
                        st = In::AttrName;
                        continue;
                    }
                },
                In::AttrName if CLASS[c as usize] & ATTR_NAME_END == 0 => {
                    let n = run_len(&doc[i..], ATTR_NAME_END);
                    if self.wants {
                        self.attr_name.extend_from_slice(&doc[i..i + n]);
                    }
                    i += n;
                    continue;
                }
                In::AttrName => match c {
                    b'/' | b'>' => {
                        st = In::AfterAttr;
                        continue;
                    }
                    c if is_space(c) => {
                        st = In::AfterAttr;
                        continue;
                    }
                    b'=' => st = In::BeforeValue,
                    _ => self.push_name(c),
                },
                In::AfterAttr => match c {
                    b'/' => st = In::SelfClosing,
                    b'=' => st = In::BeforeValue,
                    b'>' => return self.emit(i + 1, false),
                    c if is_space(c) => {}
                    _ => {
                        self.new_attr();
                        st = In::AttrName;
                        continue;
                    }
                },
                In::BeforeValue => match c {
                    b'"' | b'\'' => st = In::Quoted(c),
                    b'>' => return self.emit(i + 1, false),
                    c if is_space(c) => {}
                    _ => {
                        st = In::Unquoted;
                        continue;
                    }
                },
                In::Quoted(q) => {
                    i = self.quoted(i, q);
                    st = In::AfterValue;
                    // i is at the closing quote, or at the end.
                    if i >= doc.len() {
                        continue;
                    }
                }
                In::Unquoted if CLASS[c as usize] & UNQUOTED_END == 0 => {
                    let n = run_len(&doc[i..], UNQUOTED_END);
                    if self.wants {
                        self.attr_value.extend_from_slice(&doc[i..i + n]);
                    }
                    i += n;
                    continue;
                }
                In::Unquoted => match c {
                    b'>' => return self.emit(i + 1, false),
                    c if is_space(c) => st = In::BeforeAttr,
                    b'&' if self.wants => {
                        i = self.value_ref(i + 1);
                        continue;
                    }
                    0 if self.wants => self.attr_value.extend_from_slice(FFFD),
                    _ if self.wants => self.attr_value.push(c),
                    _ => {}
                },
                In::AfterValue => match c {
                    b'/' => st = In::SelfClosing,
                    b'>' => return self.emit(i + 1, false),
                    c if is_space(c) => st = In::BeforeAttr,
                    _ => {
                        st = In::BeforeAttr;
                        continue;
                    }
                },
                In::SelfClosing => match c {
                    b'>' => return self.emit(i + 1, true),
                    _ => {
                        st = In::BeforeAttr;
                        continue;
                    }
                },
            }
            i += 1;
        }
    }

    /// A quoted attribute value from `i` to its closing quote `q`: returns
    /// where that quote is (or the end of the document).
    fn quoted(&mut self, mut i: usize, q: u8) -> usize {
        let doc = self.doc;
        if !self.wants {
            // Nobody reads it, and no character reference can hide the quote.
            return match doc.get(i..).and_then(|r| memchr(q, r)) {
                Some(n) => i + n,
                None => doc.len(),
            };
        }
        while let Some(rest) = doc.get(i..) {
            let Some(n) = memchr3(q, b'&', b'\r', rest) else {
                push_text(&mut self.attr_value, rest);
                return doc.len();
            };
            push_text(&mut self.attr_value, &rest[..n]);
            i += n;
            match rest[n] {
                b'&' => i = self.value_ref(i + 1),
                b'\r' => {
                    self.attr_value.push(b'\n');
                    i += 1;
                    if doc.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                }
                _ => return i,
            }
        }
        doc.len()
    }

    /// A character reference in a wanted attribute value, after its `&`
    /// at `i - 1`: appends it and returns where the value goes on.
    fn value_ref(&mut self, i: usize) -> usize {
        let rest = self.doc.get(i..).unwrap_or_default();
        match char_ref(rest, true) {
            Some((d, n)) => {
                let mut buf = [0; 4];
                self.attr_value.extend_from_slice(d.bytes(&mut buf));
                i + n
            }
            None => {
                self.attr_value.push(b'&');
                i
            }
        }
    }

    /// The name is about to change from what the document holds (a
    /// letter lowered, a NUL replaced): from here on it is `self.name`.
    fn name_in_vec(&mut self) {
        if let Some((from, to)) = self.name_at.take() {
            self.name.clear();
            self.name
                .extend_from_slice(self.doc.get(from..to).unwrap_or_default());
        }
    }

    fn ensure_open(&mut self) {
        if !self.opened && !self.end {
            let name = name_of(self.doc, self.name_at, &self.name);
            self.wants = self.sink.open(name);
            self.opened = true;
        }
    }

    fn flush_attr(&mut self) {
        if self.in_attr {
            if self.wants {
                self.sink.attr(&self.attr_name, &self.attr_value);
            }
            self.attr_name.clear();
            self.attr_value.clear();
            self.in_attr = false;
        }
    }

    /// A new attribute starts: the tag's name is complete, the last
    /// attribute too. End tags' attributes are nobody's.
    fn new_attr(&mut self) {
        if !self.end {
            self.ensure_open();
            self.flush_attr();
            self.in_attr = true;
        }
    }

    #[inline]
    fn push_name(&mut self, c: u8) {
        if self.wants {
            match c {
                0 => self.attr_name.extend_from_slice(FFFD),
                c => self.attr_name.push(c.to_ascii_lowercase()),
            }
        }
    }

    /// The tag is over at `next`; hands it to the sink and picks the kind
    /// of text that follows, as the tree builder would for these elements.
    fn emit(&mut self, next: usize, self_closing: bool) {
        self.pos = next;
        if self.end {
            self.sink.end(name_of(self.doc, self.name_at, &self.name));
            return;
        }
        self.ensure_open();
        self.flush_attr();
        let name = name_of(self.doc, self.name_at, &self.name);
        self.sink.close(name, self_closing);
        let raw = match self.mode {
            Mode::Xml => None,
            Mode::Xhtml if self_closing => None,
            Mode::Html | Mode::Xhtml => raw_kind(name),
        };
        if let Some((text, name)) = raw {
            self.text = text;
            self.raw_end = name;
        }
    }

    /// RCDATA, RAWTEXT or script data, up to the end tag of the element
    /// that opened it (or the end of the document).
    fn raw(&mut self) {
        let doc = self.doc;
        let start = self.pos;
        let end = match self.text {
            Content::Script => self.script_end(start),
            _ => self.raw_text_end(start),
        };
        let stop = end.map_or(doc.len(), |(lt, _)| lt);
        let body = doc.get(start..stop).unwrap_or_default();
        if self.text == Content::RcData {
            self.rcdata_text(body);
        } else {
            self.raw_text(body);
        }
        self.text = Content::Data;
        match end {
            Some((_, after)) => {
                self.name_at = None;
                self.name.clear();
                self.name.extend_from_slice(self.raw_end);
                self.tag(true, after);
            }
            None => self.pos = doc.len(),
        }
    }

    /// When the `<` at `lt` starts the end tag that ends the raw text: the
    /// position just after its name.
    #[inline]
    fn end_tag_at(&self, lt: usize) -> Option<usize> {
        let doc = self.doc;
        let n = self.raw_end.len();
        let name_at = lt + 2;
        if doc.get(lt + 1) == Some(&b'/')
            && doc
                .get(name_at..name_at + n)
                .is_some_and(|w| w.eq_ignore_ascii_case(self.raw_end))
            && doc.get(name_at + n).is_some_and(|&c| ends_name(c))
        {
            Some(name_at + n)
        } else {
            None
        }
    }

    fn raw_text_end(&self, start: usize) -> Option<(usize, usize)> {
        let doc = self.doc;
        let mut i = start;
        loop {
            let lt = i + memchr(b'<', doc.get(i..)?)?;
            if let Some(after) = self.end_tag_at(lt) {
                return Some((lt, after));
            }
            i = lt + 1;
        }
    }

    /// Script data with its escaped and double-escaped states, as far as
    /// they decide which `</script` ends the script: one inside
    /// `<!-- <script> ... -->` does not.
    fn script_end(&self, start: usize) -> Option<(usize, usize)> {
        #[derive(Clone, Copy)]
        enum St {
            Plain,
            Escaped,
            Double,
        }
        let doc = self.doc;
        let mut st = St::Plain;
        let mut i = start;
        loop {
            match st {
                St::Plain => {
                    let lt = i + memchr(b'<', doc.get(i..)?)?;
                    match doc.get(lt + 1) {
                        Some(b'/') => {
                            if let Some(after) = self.end_tag_at(lt) {
                                return Some((lt, after));
                            }
                            i = lt + 2;
                        }
                        Some(b'!') if doc.get(lt + 2..lt + 4) == Some(b"--") => {
                            // The dashes are read again by the escaped
                            // state: `<!-->` ends the escape at once.
                            st = St::Escaped;
                            i = lt + 2;
                        }
                        _ => i = lt + 1,
                    }
                }
                St::Escaped | St::Double => {
                    let j = i + memchr2(b'-', b'<', doc.get(i..)?)?;
                    if doc[j] == b'-' {
                        let k = j + doc[j..].iter().take_while(|&&c| c == b'-').count();
                        if k - j >= 2 && doc.get(k) == Some(&b'>') {
                            st = St::Plain;
                            i = k + 1;
                        } else {
                            i = k;
                        }
                        continue;
                    }
                    let slash = doc.get(j + 1) == Some(&b'/');
                    if let St::Escaped = st {
                        if slash {
                            if let Some(after) = self.end_tag_at(j) {
                                return Some((j, after));
                            }
                            i = j + 2;
                            continue;
                        }
                    } else if !slash {
                        i = j + 1;
                        continue;
                    }
                    // `<script` (escaped) or `</script` (double escaped),
                    // ended by a space, `/` or `>`, switches between the two.
                    let from = if slash { j + 2 } else { j + 1 };
                    let k = from
                        + doc
                            .get(from..)?
                            .iter()
                            .take_while(|c| c.is_ascii_alphabetic())
                            .count();
                    if k == from {
                        i = from;
                        continue;
                    }
                    match doc.get(k) {
                        Some(&c) if ends_name(c) => {
                            if doc[from..k].eq_ignore_ascii_case(b"script") {
                                st = if slash { St::Escaped } else { St::Double };
                            }
                            i = k + 1;
                        }
                        _ => i = k,
                    }
                }
            }
        }
    }

    /// Text as the data state's CDATA hands it on: CRs made LFs.
    fn text_cr(&mut self, mut s: &[u8]) {
        while let Some(i) = memchr(b'\r', s) {
            if i > 0 {
                self.sink.text(&s[..i]);
            }
            self.sink.text(b"\n");
            s = &s[i + 1..];
            if s.first() == Some(&b'\n') {
                s = &s[1..];
            }
        }
        if !s.is_empty() {
            self.sink.text(s);
        }
    }

    /// RAWTEXT, script data and PLAINTEXT: NULs replaced, CRs made LFs.
    fn raw_text(&mut self, mut s: &[u8]) {
        while let Some(i) = memchr2(0, b'\r', s) {
            if i > 0 {
                self.sink.text(&s[..i]);
            }
            s = &s[i..];
            if s[0] == 0 {
                self.sink.text(FFFD);
                s = &s[1..];
            } else {
                self.sink.text(b"\n");
                s = &s[1..];
                if s.first() == Some(&b'\n') {
                    s = &s[1..];
                }
            }
        }
        if !s.is_empty() {
            self.sink.text(s);
        }
    }

    /// RCDATA: as RAWTEXT, with character references.
    fn rcdata_text(&mut self, mut s: &[u8]) {
        while let Some(i) = memchr(b'&', s) {
            self.raw_text(&s[..i]);
            s = &s[i + 1..];
            match char_ref(s, false) {
                Some((d, n)) => {
                    let mut buf = [0; 4];
                    self.sink.text(d.bytes(&mut buf));
                    s = s.get(n..).unwrap_or_default();
                }
                None => self.sink.text(b"&"),
            }
        }
        self.raw_text(s);
    }
}

/// The elements whose content the tree builder reads as other text than
/// markup (scripting on, so `noscript` is raw text), and the end tag that
/// ends it.
fn raw_kind(name: &[u8]) -> Option<(Content, &'static [u8])> {
    Some(match name {
        b"title" => (Content::RcData, b"title"),
        b"textarea" => (Content::RcData, b"textarea"),
        b"script" => (Content::Script, b"script"),
        b"style" => (Content::RawText, b"style"),
        b"iframe" => (Content::RawText, b"iframe"),
        b"xmp" => (Content::RawText, b"xmp"),
        b"noembed" => (Content::RawText, b"noembed"),
        b"noframes" => (Content::RawText, b"noframes"),
        b"noscript" => (Content::RawText, b"noscript"),
        b"plaintext" => (Content::PlainText, b"plaintext"),
        _ => return None,
    })
}

/// The current tag's name: `doc[at]` when the document holds it as it is,
/// else `own`.
#[inline]
fn name_of<'a>(doc: &'a [u8], at: Option<(usize, usize)>, own: &'a [u8]) -> &'a [u8] {
    match at {
        Some((from, to)) => doc.get(from..to).unwrap_or_default(),
        None => own,
    }
}

/// Appends value text, NULs replaced.
fn push_text(out: &mut Vec<u8>, mut s: &[u8]) {
    while let Some(i) = memchr(0, s) {
        out.extend_from_slice(&s[..i]);
        out.extend_from_slice(FFFD);
        s = &s[i + 1..];
    }
    out.extend_from_slice(s);
}

/// Tokenizes `doc` (UTF-8, or close to it: any bytes are read) and feeds
/// `sink`: [`super::tokenize`].
pub(super) fn run<S: Sink>(doc: &[u8], mode: Mode, sink: &mut S) {
    Tokenizer {
        doc,
        pos: 0,
        sink,
        mode,
        text: Content::Data,
        raw_end: b"",
        name: Vec::new(),
        name_at: None,
        end: false,
        opened: false,
        wants: false,
        in_attr: false,
        attr_name: Vec::new(),
        attr_value: Vec::new(),
    }
    .run();
}

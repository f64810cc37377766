//! Our tokenizer (lib/document/markup/) against html5gum, the WHATWG
//! tokenizer it replaced: for hand-picked hostile documents and thousands
//! of seeded random ones, in every mode and for every choice of wanted
//! attributes, both make the same calls on the sink (text merged). Where
//! html5gum is wrong by the standard, the reference is corrected and says
//! why (fuzz/markup_ref.rs).

#[allow(dead_code)]
mod reference {
    include!("../fuzz/markup_ref.rs");
}

use nlpcrawl::document::markup::{tokenize, Mode};
use reference::{assert_same, Event, Recorder};

/// Pieces the random documents are made of: markup that switches states,
/// ends comments oddly, hides `</script`, and every kind of reference.
const PIECES: &[&[u8]] = &[
    b"<",
    b">",
    b"</",
    b"/",
    b"/>",
    b"=",
    b"\"",
    b"'",
    b"`",
    b" ",
    b"\t",
    b"\x0c",
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"\xff",
    b"\xc3",
    "ā".as_bytes(),
    "Ž".as_bytes(),
    b"a",
    b"A",
    b"Z",
    b"1",
    b"-",
    b"--",
    b"!",
    b";",
    b"?",
    b"[",
    b"]",
    b"]]>",
    b"<!--",
    b"-->",
    b"--!>",
    b"<!-->",
    b"<!--->",
    b"<!---->",
    b"<!",
    b"<!-",
    b"<!-- x --",
    b"<!DOCTYPE html>",
    b"<!doctype",
    b"<?xml version='1.0'?>",
    b"<![CDATA[",
    b"<![CDATA[x]]>",
    b"<a",
    b"<A HREF=",
    b"<a href=",
    b"<a href='",
    b"<a href=\"",
    b"<img src=x alt=",
    b" href",
    b" HREF",
    b" Src",
    b"x=y",
    b" id=1 id=2",
    b"<br/>",
    b"<br />",
    b"<p>",
    b"</p>",
    b"</P >",
    b"</a b=c>",
    b"</a/>",
    b"<x y z=>",
    b"<a/b>",
    b"<a =b>",
    b"<a\"b>",
    b"<script>",
    b"</script>",
    b"</SCRIPT ",
    b"</script",
    b"</scriptx>",
    b"<script/>",
    b"<script type=x>",
    b"<!--<script>",
    b"</script>-->",
    b"<script>",
    b"<style>",
    b"</style>",
    b"</STYLE\t",
    b"<title>",
    b"</title>",
    b"<textarea>",
    b"</textarea>",
    b"<plaintext>",
    b"<noscript>",
    b"</noscript>",
    b"<iframe>",
    b"</iframe>",
    b"<xmp>",
    b"</xmp>",
    b"<noembed>",
    b"</noembed>",
    b"<noframes>",
    b"</noframes>",
    b"&",
    b"&amp;",
    b"&amp",
    b"&ampx",
    b"&AMP",
    b"&lt",
    b"&LT;",
    b"&gt;",
    b"&notin",
    b"&notin;",
    b"&noti;",
    b"&copy=",
    b"&copyx",
    b"&nbsp",
    b"&CounterClockwiseContourIntegral;",
    b"&acE;",
    b"&bogus;",
    b"&#",
    b"&#x",
    b"&#X",
    b"&#65;",
    b"&#65",
    b"&#x41",
    b"&#x41;",
    b"&#0;",
    b"&#x80;",
    b"&#x81;",
    b"&#x9F;",
    b"&#x8d",
    b"&#xD800;",
    b"&#xDFFF",
    b"&#1114111;",
    b"&#1114112;",
    b"&#13;",
    b"&#x0D",
    b"&#99999999999999999999;",
    b"&#xFFFE;",
    b"&#x1F600;",
    b"&#128;",
    b"&#159",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: reproducible, no dependency.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_doc(rng: &mut Rng) -> Vec<u8> {
    let mut doc = Vec::new();
    for _ in 0..rng.below(48) {
        if rng.below(8) == 0 {
            // Now and then a byte of anything at all.
            doc.push(rng.next() as u8);
        } else {
            doc.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
    }
    doc
}

#[test]
fn thousands_of_seeded_random_documents_read_the_same() {
    let mut rng = Rng(0x6e6c_7063_7261_776c);
    for _ in 0..6000 {
        assert_same(&random_doc(&mut rng));
    }
}

#[test]
fn hostile_documents_read_the_same() {
    let docs: &[&[u8]] = &[
        b"",
        b"<",
        b"&",
        b"</",
        b"<!",
        b"<!-",
        b"<!--",
        b"<!-- never closed <p>x</p>",
        b"a<!-->b<!--->c<!---->d<!-- -- -->e<!-- --!>f<!--!>g-->h",
        b"<!-- a --!-- b -->c<!-- <!-- nested --> d",
        b"<p>tag <b>soup</i> <p <a href=x>unclosed",
        b"<A HREF=\"/x\" href='/y' HrEf=/z TARGET=_blank>link</A>",
        b"<a href=/a?b=1&copy=2&amp;c&ampd title='&notin &notin; &#x41'>x</a>",
        b"<a href=x/>y</a/ b='c'> <br/ > <img/src=1>",
        b"<script>var a = '<!--'; if (a </b) {}</script>after",
        b"<script><!-- document.write('<script>x</script>'); --></script>after",
        b"<script><!--<script>a</script>b--></script>after",
        b"<script><!-- a --> </script> after",
        b"<script><!--> </script> after",
        b"<script></SCRIPT\n>after</script>",
        b"<script></scripty></script foo=\">\">after",
        b"<style>p{}</style x>after<STYLE>a</Style/>b",
        b"<title>a &amp; b <b>not a tag</b></title><textarea>&lt;x&gt;</textarea>",
        b"<plaintext><p>everything &amp; to the end</p></plaintext>",
        b"<![CDATA[<p>x]]></p><![CDATA[ never closed",
        b"<?php echo 1 ?>x</ >y</3>z",
        b"text\0with\0nuls<a\0b c\0d=e\0f>\0</a>",
        b"<title>\0</title><script>\0</script><style>\0</style>",
        b"cr\rcrlf\r\nlf\n<a b='1\r\n2\r3'>x\r</a>",
        b"\xff\xfe<a href='\xc3'>\x80\x81</a>",
        b"&#0;&#x80;&#x81;&#x9f;&#xd800;&#x110000;&#13;&#xfffe;&#99999999999999999999999;",
        b"&ampamp;&amp;&AMP&lt&LT;&nbspx&notit;&CounterClockwiseContourIntegral;",
        b"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" \"x>y\">z",
        b"<script/>x</script>y<script />z",
        b"<noscript><p>off</p></noscript><noframes><a href=x></noframes>",
        b"<iframe><a href=1></iframe><xmp><a href=2></xmp><noembed><a href=3></noembed>",
    ];
    for d in docs {
        assert_same(d);
    }
}

/// Tag names the tokenizer hands on as they stand in the document
/// (lowercase ones) and those it copies (an uppercase letter or a NUL at
/// any place), as start and end tags, ended every way.
#[test]
fn tag_names_read_the_same_wherever_they_change() {
    let alphabet: &[&[u8]] = &[b"a", b"b", b"Z", b"\0", "ā".as_bytes(), b"-", b"1"];
    let ends: &[&[u8]] = &[b">", b" x=1>", b"/>", b"\t", b"", b"<p>", b"&amp;"];
    let mut n = 0;
    for len in 1..=4u32 {
        for code in 0..alphabet.len().pow(len) {
            let mut name = Vec::new();
            let mut c = code;
            for _ in 0..len {
                name.extend_from_slice(alphabet[c % alphabet.len()]);
                c /= alphabet.len();
            }
            // Names start with a letter; the other firsts are text.
            for open in [&b"<"[..], b"</", b"x<x"] {
                let end = ends[code % ends.len()];
                let doc = [open, &name, end, b"t</", &name, b">"].concat();
                assert_same(&doc);
                n += 1;
            }
        }
    }
    assert!(n > 7000, "{n}");
}

fn events(doc: &[u8], mode: Mode) -> Vec<Event> {
    let mut r = Recorder {
        events: Vec::new(),
        wants: 1,
    };
    tokenize(doc, mode, &mut r);
    r.events
}

fn text(s: &str) -> Event {
    Event::Text(s.as_bytes().to_vec())
}

fn tag(name: &str, attrs: &[(&str, &str)], self_closing: bool) -> Vec<Event> {
    let n = name.as_bytes().to_vec();
    let mut v = vec![Event::Open(n.clone())];
    for (k, val) in attrs {
        v.push(Event::Attr(k.as_bytes().to_vec(), val.as_bytes().to_vec()));
    }
    v.push(Event::Close(n, self_closing));
    v
}

/// The standard's answers for the cases where html5gum answers otherwise.
#[test]
fn noframes_holds_raw_text_as_the_standard_says() {
    // html5gum reads `noframe` (no such element) as raw text and markup
    // inside `noframes`; the tree builder reads `noframes` as raw text.
    let mut want = tag("noframes", &[], false);
    want.push(text("<a href=x>"));
    want.push(Event::End(b"noframes".to_vec()));
    want.extend(tag("a", &[("href", "y")], false));
    assert_eq!(
        events(b"<noframes><a href=x></noframes><a href=y>", Mode::Html),
        want
    );
    let mut want = tag("noframe", &[], false);
    want.extend(tag("a", &[("href", "x")], false));
    assert_eq!(events(b"<noframe><a href=x>", Mode::Html), want);
}

#[test]
fn references_decode_as_the_standard_says() {
    assert_eq!(
        events(
            b"&notin;&notin &amp&ampx&#x41;&#65&#0;&#x80;&#x81;",
            Mode::Html
        ),
        vec![text("∉¬in &&xAA\u{fffd}€\u{81}")]
    );
    let mut want = tag("a", &[("href", "?a=1&copy=2&notx©"), ("t", "∉")], false);
    want.push(text("x"));
    assert_eq!(
        events(b"<a href=\"?a=1&copy=2&notx&copy\" t=&notin;>x", Mode::Html),
        want
    );
}

#[test]
fn script_comments_decide_which_end_tag_ends_the_script() {
    let doc = b"<script><!--<script>a</script>b--></script><p>";
    let mut want = tag("script", &[], false);
    want.push(text("<!--<script>a</script>b-->"));
    want.push(Event::End(b"script".to_vec()));
    want.extend(tag("p", &[], false));
    assert_eq!(events(doc, Mode::Html), want);
    // In XHTML `<script/>` is empty, so the markup after it is markup.
    let mut want = tag("script", &[], true);
    want.extend(tag("p", &[], false));
    assert_eq!(events(b"<script/><p>", Mode::Xhtml), want);
    let mut want = tag("script", &[], true);
    want.push(text("<p>"));
    assert_eq!(events(b"<script/><p>", Mode::Html), want);
}

#[test]
fn any_bytes_at_all_are_read_without_a_panic() {
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let doc: Vec<u8> = (0..rng.below(200)).map(|_| rng.next() as u8).collect();
        for mode in [Mode::Html, Mode::Xhtml, Mode::Xml] {
            let mut r = Recorder {
                events: Vec::new(),
                wants: 2,
            };
            tokenize(&doc, mode, &mut r);
        }
        assert_same(&doc);
    }
}

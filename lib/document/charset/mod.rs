//! Which charset a fetched document is in, decoding it, and telling whether
//! the result is text at all.
//!
//! The charset is found as the HTML standard's encoding sniffing algorithm
//! finds it, in this order:
//!
//! 1. a byte order mark;
//! 2. the charset the server sent, recorded at fetch time;
//! 3. for HTML, the `<meta>` prescan of the first 1024 bytes, then the XML
//!    declaration; for XML, the declaration first;
//!
//! and, when none of these names a charset (the encoding is then only
//! tentative, as the standard says):
//!
//! 4. a body that is valid UTF-8 and not all ASCII is UTF-8: no legacy
//!    text is valid UTF-8 by chance, so this guess is taken as certain;
//! 5. for HTML, a `<meta>` past the first 1024 bytes, as the parser's
//!    "change the encoding" step would find it;
//! 6. `--use-charset`, the user's choice for pages that name none;
//! 7. chardetng's guess, with the host's top-level domain as its hint (so
//!    a `.lv` page leans to the Baltic charsets); for a body that is all
//!    ASCII this is the domain's usual legacy charset, a fallback.
//!
//! One departure from the standard, for the corpus's sake: a body that is
//! valid UTF-8 with non-ASCII bytes is UTF-8 even where the server or the
//! page declares a legacy charset (step 2 or 3; source `misdeclared`).
//! Servers that label every page ISO-8859-1, and pages re-saved as UTF-8
//! that kept their old `<meta>`, are common; decoding them as declared, as
//! a browser does, gives mojibake, while no legacy text of any length is
//! valid UTF-8 by chance. A byte order mark still decides.
//!
//! XML that names nothing is UTF-8, as the XML specification says. Every
//! label goes through WHATWG label resolution, so "latin1", "iso-8859-1"
//! and "windows-1252" are one charset.

use std::borrow::Cow;

mod prescan;

pub use prescan::{charset_from_content, late_meta, prescan, xml_declaration};

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

use crate::document::swar::{controls, lanes, word_at, zero_bytes, HIGH};

/// How many leading bytes the `<meta>` prescan and the XML declaration
/// search look at, as WHATWG says for the prescan.
pub const PRESCAN_LEN: usize = 1024;

/// How a document is read, from its content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// text/html, and an empty content type.
    Html,
    /// application/xhtml+xml: XML rules for the charset, HTML for the text.
    Xhtml,
    /// text/xml, application/xml and other `+xml` types.
    Xml,
    /// text/plain.
    Plain,
}

impl Kind {
    /// The kind of a document of this MIME type (parameters allowed), or
    /// None for a type that is not a text document.
    pub fn of(content_type: &str) -> Option<Kind> {
        let mime = content_type.split(';').next().unwrap_or("").trim();
        let mime = mime.to_ascii_lowercase();
        match mime.as_str() {
            "" | "text/html" => Some(Kind::Html),
            "application/xhtml+xml" => Some(Kind::Xhtml),
            "text/xml" | "application/xml" => Some(Kind::Xml),
            "text/plain" => Some(Kind::Plain),
            m if m.ends_with("+xml") => Some(Kind::Xml),
            _ => None,
        }
    }
}

crate::stored_enum! {
    /// How the charset was decided. The numbers are stored in records; never
    /// renumber.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Source {
        /// A byte order mark.
        Bom = 1 => "bom",
        /// The Content-Type header's charset parameter.
        Http = 2 => "header",
        /// A `<meta>` in the first 1024 bytes.
        Meta = 3 => "meta",
        /// An `<?xml ... encoding=...?>` declaration.
        XmlDeclaration = 4 => "xml-declaration",
        /// A `<meta>` past the first 1024 bytes, which changed the tentative
        /// charset.
        MetaLate = 5 => "meta-late",
        /// Nothing declared; the body is valid UTF-8 with non-ASCII bytes.
        ValidUtf8 = 6 => "valid-utf-8",
        /// Nothing declared; `--use-charset`.
        Override = 7 => "override",
        /// Nothing declared; chardetng's guess from the bytes.
        Detected = 8 => "detected",
        /// Nothing declared and the body all ASCII: the charset usual under
        /// the host's top-level domain.
        Fallback = 9 => "fallback",
        /// XML that declares nothing: UTF-8, as XML says.
        XmlDefault = 10 => "xml-default",
        /// A legacy charset was declared, but the body is valid UTF-8 with
        /// non-ASCII bytes: UTF-8 (see the module's departure).
        Misdeclared = 11 => "misdeclared",
    }
}

impl Source {
    /// Whether the document itself or its server named the charset (the
    /// sniffing algorithm's "certain" and the prescan), rather than a guess.
    pub fn declared(self) -> bool {
        matches!(
            self,
            Source::Bom | Source::Http | Source::Meta | Source::XmlDeclaration | Source::MetaLate
        )
    }
}

/// What sniffing may use beyond the bytes: the user's charset for pages
/// that name none, and the host's top-level domain for the detector.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hints<'a> {
    /// `--use-charset`.
    pub user: Option<&'static Encoding>,
    /// The rightmost label of the host name, as found in the URL.
    pub tld: Option<&'a str>,
}

/// The top-level domain of `host` as chardetng takes it: lowercase ASCII
/// letters, digits and hyphens (an IDN in its Punycode form); None for
/// anything else, which chardetng treats as a generic domain.
pub fn tld_of(host: &str) -> Option<String> {
    let label = host.trim_end_matches('.').rsplit('.').next()?;
    let ok = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| label.to_ascii_lowercase())
}

/// How many bytes chardetng reads: enough for its statistics, bounded so
/// that a huge page costs no more than this.
pub const DETECT_LEN: usize = 64 * 1024;

/// The charset found for a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub encoding: &'static Encoding,
    pub source: Source,
    /// Length of the byte order mark, which is not part of the text.
    pub bom_len: usize,
}

/// Resolves a label as WHATWG does (case and surrounding white space
/// ignored); None for a label WHATWG does not know. This is the one place
/// a charset label read from a user or a server becomes a charset:
/// `--filter-charset`, `--use-charset`, the Content-Type check and the
/// record's charset field all go through it.
pub fn resolve(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// A charset label no WHATWG encoding has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown charset {0:?}")]
pub struct UnknownCharset(pub String);

/// The charset a user's label names, or why it names none.
pub fn parse(label: &str) -> Result<&'static Encoding, UnknownCharset> {
    resolve(label).ok_or_else(|| UnknownCharset(label.to_string()))
}

/// A charset's WHATWG canonical name, lowercase: as records store it and
/// messages print it.
pub fn name(e: &'static Encoding) -> String {
    e.name().to_ascii_lowercase()
}

/// The canonical name (see [`name`]) of a label; None for an unknown one.
pub fn canonical(label: &str) -> Option<String> {
    resolve(label).map(name)
}

/// The `charset` parameter of a Content-Type value, if any.
pub fn content_type_charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']))
    })
}

/// Finds the charset of `body`: `http` is the label the server sent (may be
/// empty); `hints` serve pages that name no charset. The order is the
/// module's.
pub fn detect(body: &[u8], http: &str, kind: Kind, hints: &Hints<'_>) -> Detected {
    let d = sniff(body, http, kind, hints);
    if d.source.declared() && d.source != Source::Bom && misdeclared(d.encoding, body) {
        return Detected {
            encoding: UTF_8,
            source: Source::Misdeclared,
            bom_len: 0,
        };
    }
    d
}

/// True when `declared` is a legacy charset and `body` is valid UTF-8 with
/// non-ASCII bytes: read as declared it would be mojibake.
pub fn misdeclared(declared: &'static Encoding, body: &[u8]) -> bool {
    declared != UTF_8 && declared.is_ascii_compatible() && utf8_past_ascii(body)
}

/// True when `body` has non-ASCII bytes and is valid UTF-8, which no
/// legacy text of any length is by chance.
fn utf8_past_ascii(body: &[u8]) -> bool {
    let ascii_len = Encoding::ascii_valid_up_to(body);
    ascii_len < body.len() && std::str::from_utf8(&body[ascii_len..]).is_ok()
}

/// chardetng's guess from the first `len` bytes of `body` (the module
/// reads [`DETECT_LEN`]), with `tld` as its hint; never UTF-8, which a
/// body that gets here has been found not to be.
pub fn guess(body: &[u8], len: usize, tld: Option<&str>) -> &'static Encoding {
    let mut det = EncodingDetector::new(Iso2022JpDetection::Deny);
    let sample = &body[..body.len().min(len)];
    det.feed(sample, sample.len() == body.len());
    let tld = tld.and_then(tld_of);
    // UTF-8 was ruled out; chardetng is not to guess it from a prefix of
    // a body that is not valid UTF-8 as a whole.
    det.guess(tld.as_deref().map(str::as_bytes), Utf8Detection::Deny)
}

/// The HTML standard's sniffing, steps 1 to 7 of the module's order.
fn sniff(body: &[u8], http: &str, kind: Kind, hints: &Hints<'_>) -> Detected {
    let found = |encoding, source| Detected {
        encoding,
        source,
        bom_len: 0,
    };
    if let Some((encoding, bom_len)) = Encoding::for_bom(body) {
        return Detected {
            encoding,
            source: Source::Bom,
            bom_len,
        };
    }
    if let Some(e) = resolve(http) {
        return found(e, Source::Http);
    }
    let head = &body[..body.len().min(PRESCAN_LEN)];
    match kind {
        Kind::Html => {
            if let Some(e) = prescan(head) {
                return found(e, Source::Meta);
            }
            if let Some(e) = xml_declaration(head) {
                return found(e, Source::XmlDeclaration);
            }
        }
        Kind::Xhtml | Kind::Xml => {
            if let Some(e) = xml_declaration(head) {
                return found(e, Source::XmlDeclaration);
            }
            // XHTML is often served from HTML templates whose only
            // declaration is a meta element; honouring it costs nothing.
            if kind == Kind::Xhtml {
                if let Some(e) = prescan(head) {
                    return found(e, Source::Meta);
                }
            }
            return found(UTF_8, Source::XmlDefault);
        }
        Kind::Plain => {}
    }
    undeclared(body, kind, hints)
}

/// The charset of HTML or plain text that declares none (steps 4 to 7 of
/// the module's order).
fn undeclared(body: &[u8], kind: Kind, hints: &Hints<'_>) -> Detected {
    let found = |encoding, source| Detected {
        encoding,
        source,
        bom_len: 0,
    };
    if utf8_past_ascii(body) {
        return found(UTF_8, Source::ValidUtf8);
    }
    // The parser meeting a <meta> past the prescan changes the tentative
    // charset (to the same one, it makes it certain): either way the meta
    // decided it, and nothing need be guessed.
    if kind == Kind::Html {
        if let Some(e) = late_meta(body) {
            return found(e, Source::MetaLate);
        }
    }
    if let Some(e) = hints.user {
        found(e, Source::Override)
    } else {
        found(
            guess(body, DETECT_LEN, hints.tld),
            if body.is_ascii() {
                Source::Fallback
            } else {
                Source::Detected
            },
        )
    }
}

/// A label found inside the document itself: a document whose declaration
/// can be read as ASCII is not UTF-16, whatever it claims, so WHATWG reads
/// it as UTF-8; x-user-defined means windows-1252 there.
fn in_document(e: &'static Encoding) -> &'static Encoding {
    if e == UTF_16BE || e == UTF_16LE {
        UTF_8
    } else if e == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        e
    }
}

const fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// Decodes `body` (without its byte order mark) with replacement.
pub fn decode<'a>(body: &'a [u8], d: &Detected) -> Cow<'a, str> {
    let bytes = body.get(d.bom_len..).unwrap_or_default();
    d.encoding.decode_without_bom_handling(bytes).0
}

/// What a byte of UTF-8 counts for in [`Quality`]: a character (a byte
/// that is not a continuation byte), one other than white space, a C0
/// control other than white space, and the lead bytes of the sequences
/// that may be a replacement.
const CHAR: u8 = 1;
const SOLID: u8 = 2;
const CONTROL: u8 = 4;
const MAYBE_REPLACED: u8 = 8;
const BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b < 0x80 {
            if is_space(b) || b == b' ' {
                CHAR
            } else if b < b' ' {
                CHAR | CONTROL
            } else {
                CHAR | SOLID
            }
        } else if b < 0xC0 {
            0
        } else if b == 0xC2 || b == 0xEF {
            CHAR | SOLID | MAYBE_REPLACED
        } else {
            CHAR | SOLID
        };
        c += 1;
    }
    t
};

/// A count kept in the eight bytes of a word, one a lane; the caller
/// flushes it before a lane could overflow (255 adds).
#[derive(Default)]
struct Lanes {
    acc: u64,
    total: usize,
}

impl Lanes {
    /// Counts the bytes of `mask` that have bit 7 set (its only bits).
    #[inline]
    fn add(&mut self, mask: u64) {
        self.acc += mask >> 7;
    }

    fn flush(&mut self) {
        // Lanes summed in pairs (at most 510 in 16 bits), then the four
        // pairs by a multiply into the top 16 bits (at most 2040).
        const PAIRS: u64 = 0x00FF_00FF_00FF_00FF;
        let pairs = (self.acc & PAIRS) + ((self.acc >> 8) & PAIRS);
        self.total += (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize;
        self.acc = 0;
    }

    fn total(mut self) -> usize {
        self.flush();
        self.total
    }
}

/// Counts that tell text from garbage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quality {
    /// Characters in all.
    pub chars: usize,
    /// Characters other than white space.
    pub solid: usize,
    /// U+FFFD, which the decoder puts for bytes the charset cannot map, and
    /// C1 controls, which only a wrong single-byte charset produces.
    pub replaced: usize,
    /// NUL and the other C0 controls but tab, line feed, form feed and
    /// carriage return: in a text they mean binary data.
    pub controls: usize,
}

impl Quality {
    /// Measures decoded text in one pass over its bytes.
    pub fn of(s: &str) -> Quality {
        Quality::of_bytes(s.as_bytes())
    }

    /// True when `s` holds neither a C0 control other than white space nor
    /// a replacement (a C1 control or U+FFFD): `Quality::of(s)` would count
    /// 0 controls and 0 replaced. Such a text's other counts weigh nothing
    /// in a verdict (they are only set against those two), so nlpc-vrfy
    /// counts them only for a text that fails this, which is several times
    /// cheaper than counting: the controls eight bytes at a time, the lead
    /// bytes of a replacement by memchr.
    pub fn clean(s: &str) -> bool {
        let b = s.as_bytes();
        let bad = |x: u64| {
            let below = controls(x);
            // Line breaks and tabs are common; only then is white space
            // told from the other controls.
            below != 0 && {
                let white = zero_bytes(x ^ lanes(b'\t'))
                    | zero_bytes(x ^ lanes(b'\n'))
                    | zero_bytes(x ^ lanes(b'\x0C'))
                    | zero_bytes(x ^ lanes(b'\r'));
                below & !white != 0
            }
        };
        let mut i = 0;
        // Sixteen bytes a test where there are sixteen, then eight.
        while let (Some(x), Some(y)) = (word_at(b, i), word_at(b, i + 8)) {
            if controls(x) | controls(y) != 0 && (bad(x) || bad(y)) {
                return false;
            }
            i += 16;
        }
        while let Some(x) = word_at(b, i) {
            if bad(x) {
                return false;
            }
            i += 8;
        }
        let tail = b.get(i..).unwrap_or_default();
        if tail
            .iter()
            .any(|&c| BYTE_CLASS[usize::from(c)] & CONTROL != 0)
        {
            return false;
        }
        // C1 controls are C2 80 to C2 9F, U+FFFD is EF BF BD; neither lead
        // byte is ever a continuation byte.
        let mut from = 0;
        while let Some(p) = b.get(from..).and_then(|r| memchr::memchr2(0xC2, 0xEF, r)) {
            let at = from + p;
            let replaced = match b[at] {
                0xC2 => b.get(at + 1).is_some_and(|&n| n < 0xA0),
                _ => b.get(at + 1..at + 3) == Some(&[0xBF, 0xBD]),
            };
            if replaced {
                return false;
            }
            from = at + 1;
        }
        true
    }

    /// Adds the counts of `b`, UTF-8 text that starts and ends at
    /// character boundaries: the counts of a text given in pieces are
    /// those of the whole.
    pub fn add(&mut self, b: &[u8]) {
        let q = Quality::of_bytes(b);
        self.chars += q.chars;
        self.solid += q.solid;
        self.replaced += q.replaced;
        self.controls += q.controls;
    }

    fn of_bytes(b: &[u8]) -> Quality {
        // Eight bytes at a time (SWAR): a count is a mask with bit 7 set in
        // each byte that counts, summed lane by lane. Only the words that
        // hold a control or a byte that may start a replacement go byte by
        // byte. tests::quality_whole_and_in_pieces_agrees_with_characters
        // holds it to the counts by the character.
        let mut q = Quality::default();
        let (mut fast, mut cont, mut space) = (0usize, Lanes::default(), Lanes::default());
        let mut adds = 0u32;
        let mut i = 0;
        while let Some(x) = word_at(b, i) {
            let high = x & HIGH;
            let below = controls(x);
            let white_below = if below != 0 {
                zero_bytes(x ^ lanes(b'\t'))
                    | zero_bytes(x ^ lanes(b'\n'))
                    | zero_bytes(x ^ lanes(b'\x0C'))
                    | zero_bytes(x ^ lanes(b'\r'))
            } else {
                0
            };
            let maybe_replaced =
                high != 0 && (zero_bytes(x ^ lanes(0xC2)) | zero_bytes(x ^ lanes(0xEF))) != 0;
            if (below & !white_below) != 0 || maybe_replaced {
                q.add_slowly(b, i, i + 8);
            } else {
                fast += 8;
                // A continuation byte: bit 7 set, bit 6 clear.
                cont.add(high & !(x << 1));
                space.add(zero_bytes(x ^ lanes(b' ')) | white_below);
                adds += 1;
                // A lane holds 255.
                if adds == 255 {
                    cont.flush();
                    space.flush();
                    adds = 0;
                }
            }
            i += 8;
        }
        q.add_slowly(b, i, b.len());
        let chars = fast - cont.total();
        q.chars += chars;
        q.solid += chars - space.total();
        q
    }

    /// Adds the counts of `b[from..to]` a byte at a time (looking past
    /// `to` for a replacement that starts before it).
    fn add_slowly(&mut self, b: &[u8], from: usize, to: usize) {
        let Some(part) = b.get(from..to) else {
            return;
        };
        for (k, &c) in part.iter().enumerate() {
            let i = from + k;
            // One table look-up a byte instead of a chain of tests.
            let t = BYTE_CLASS[c as usize];
            self.chars += usize::from(t & CHAR);
            self.solid += usize::from((t & SOLID) >> 1);
            self.controls += usize::from((t & CONTROL) >> 2);
            if t & MAYBE_REPLACED != 0 {
                match c {
                    // U+0080..U+009F: C2 80..C2 9F.
                    0xC2 if b.get(i + 1).is_some_and(|&n| n < 0xA0) => self.replaced += 1,
                    // U+FFFD: EF BF BD.
                    0xEF if b.get(i + 1..i + 3) == Some(&[0xBF, 0xBD]) => self.replaced += 1,
                    _ => {}
                }
            }
        }
    }

    /// The share of replaced characters among the characters other than
    /// white space, 0 for an empty text.
    pub fn replaced_share(&self) -> f64 {
        if self.solid == 0 {
            0.0
        } else {
            self.replaced as f64 / self.solid as f64
        }
    }
}

#[cfg(test)]
mod tests;

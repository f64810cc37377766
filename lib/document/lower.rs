//! The suite's one case fold of text words: the dictionary, the pages'
//! tokens, the stop words, the fingerprints, the index and the queries
//! all lower-case a word's letters here, character by character as the
//! standard library's `char::to_lowercase` does ([`lowercase_into`],
//! [`each_lower`]), or, for the index and the queries, as
//! `str::to_lowercase` does ([`lowercase`]: the same plus its one rule of
//! context, Σ at the end of a word becoming ς). The results are the
//! standard library's, checked for every character below U+3000 in the
//! tests; only the lookups are ours.
//!
//! Two tables make it fast: the lowercase of each character below
//! [`LOWER_TABLE_END`] (Latin, Greek, Cyrillic) as a `char`, and the
//! lowercase of each two-byte character of UTF-8 (U+0080 to U+07FF) in
//! UTF-8, with what the word splits ask of it ([`TABLE`]): a word's
//! letters past ASCII are lowercased by their bytes, without decoding
//! them to a `char`, asking [`lowercase_of`] and encoding the result
//! again. The word splits' ASCII fast paths (`to_ascii_lowercase`, a byte
//! ORed with 0x20) are this same fold for ASCII, whose rule is a byte's.
//!
//! Not word folding, and so not here: ASCII case-blindness of protocol
//! tokens (header names, MIME types, URL schemes and hosts, charset
//! labels, HTML tag and attribute names, class names, language codes),
//! which stays `to_ascii_lowercase` where it is used, as their standards
//! say.

use std::sync::LazyLock;

/// Characters below this have their lowercase in [`LOWER`]: Latin, Greek
/// and Cyrillic.
pub(crate) const LOWER_TABLE_END: u32 = 0x530;

/// The lowercase of each character below [`LOWER_TABLE_END`] that has a
/// one-character lowercase, else NUL; made from the standard library's own
/// tables, which are slower to search each time.
pub(crate) static LOWER: LazyLock<Vec<char>> = LazyLock::new(|| {
    (0..LOWER_TABLE_END)
        .map(|u| {
            let c = char::from_u32(u).unwrap_or('\0');
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(one), None) => one,
                _ => '\0',
            }
        })
        .collect()
});

/// Appends `s` lowercased character by character (so the dictionary and
/// the pages agree, whatever the context rules of `str::to_lowercase`).
pub(crate) fn lowercase_into(out: &mut String, s: &str) {
    // Lowercase is mostly as long as the text: one allocation, not one a
    // few characters.
    out.reserve(s.len());
    for c in s.chars() {
        each_lower(c, |l| {
            out.push(l);
            true
        });
    }
}

/// `s` lowercased as `str::to_lowercase` does it: character by character
/// as [`lowercase_into`], but a Σ lowercases by its place in the word (σ,
/// or ς at a word's end), a rule of context only the standard library
/// knows, so text with one goes to it whole.
pub(crate) fn lowercase(s: &str) -> String {
    if s.contains('Σ') {
        return s.to_lowercase();
    }
    let mut out = String::new();
    lowercase_into(&mut out, s);
    out
}

/// Gives `f` each character of `c`'s lowercase (one, but İ has two), as
/// `char::to_lowercase` would, until `f` says false; true when it never
/// did.
#[inline]
pub(crate) fn each_lower(c: char, mut f: impl FnMut(char) -> bool) -> bool {
    match lowercase_of(c) {
        Some(l) => f(l),
        None => c.to_lowercase().all(f),
    }
}

/// The lowercase of `c` when it is one character and the table has it.
#[inline]
pub(crate) fn lowercase_of(c: char) -> Option<char> {
    if c.is_ascii() {
        return Some(c.to_ascii_lowercase());
    }
    match LOWER.get(c as usize) {
        Some(&l) if l != '\0' => Some(l),
        _ => None,
    }
}

/// One two-byte character.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Low {
    /// Bytes of `bytes` in use: the UTF-8 of the character's lowercase,
    /// as `lowercase_of`, else `char::to_lowercase`, gives it (at most 3
    /// bytes for these characters; 0 if it were longer, which
    /// tests::the_table_is_the_definition rules out).
    pub(crate) len: u8,
    pub(crate) bytes: [u8; 4],
    /// `char::is_alphanumeric`.
    pub(crate) alnum: bool,
    /// `char::is_numeric`.
    pub(crate) numeric: bool,
}

/// The first code point of two bytes, and the end of them.
const FIRST: u32 = 0x80;
const END: u32 = 0x800;

/// The table, made once from the standard library's definitions.
pub(crate) static TABLE: LazyLock<Box<[Low]>> = LazyLock::new(|| {
    (FIRST..END)
        .map(|u| {
            let c = char::from_u32(u).unwrap_or('\0');
            let mut bytes = [0u8; 4];
            let mut len = 0usize;
            let mut fits = true;
            let mut put = |l: char| {
                let n = l.len_utf8();
                match bytes.get_mut(len..len + n) {
                    Some(d) => {
                        l.encode_utf8(d);
                        len += n;
                    }
                    None => fits = false,
                }
            };
            each_lower(c, |l| {
                put(l);
                true
            });
            Low {
                len: if fits { len as u8 } else { 0 },
                bytes,
                alnum: c.is_alphanumeric(),
                numeric: c.is_numeric(),
            }
        })
        .collect()
});

/// The entry of the two-byte character `b0 b1` (a lead byte 0xC2 to 0xDF
/// and a continuation byte, as in a `str`).
#[inline]
pub(crate) fn of(table: &[Low], b0: u8, b1: u8) -> Option<&Low> {
    let u = (u32::from(b0 & 0x1F) << 6) | u32::from(b1 & 0x3F);
    table.get(usize::try_from(u.checked_sub(FIRST)?).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_definition() {
        let t = &**TABLE;
        for u in FIRST..END {
            let c = char::from_u32(u).unwrap();
            let mut utf8 = [0u8; 4];
            let b = c.encode_utf8(&mut utf8).as_bytes();
            let e = of(t, b[0], b[1]).unwrap();
            let want: String = match lowercase_of(c) {
                Some(l) => l.to_string(),
                None => c.to_lowercase().collect(),
            };
            assert_ne!(e.len, 0, "U+{u:04X}");
            assert!(e.bytes[usize::from(e.len)..].iter().all(|&b| b == 0));
            assert_eq!(&e.bytes[..usize::from(e.len)], want.as_bytes(), "U+{u:04X}");
            assert_eq!(e.alnum, c.is_alphanumeric(), "U+{u:04X}");
            assert_eq!(e.numeric, c.is_numeric(), "U+{u:04X}");
        }
        // Lowercase that grows: İ to i and a combining dot, Ⱥ to ⱥ.
        assert_eq!(of(t, 0xC4, 0xB0).unwrap().len, 3);
        assert_eq!(of(t, 0xC8, 0xBA).unwrap().len, 3);
    }

    /// Latvian, Lithuanian, Russian, Greek and German words fold through
    /// this module as they did through the standard library before it
    /// (`str::to_lowercase`, and `char::to_lowercase` a character at a
    /// time), and as written out here by hand.
    #[test]
    fn latvian_russian_and_greek_fold_as_before() {
        // The text, its fold, and its fold character by character (where
        // Σ is always σ).
        let cases = [
            (
                "ĀBOLS Čūska ĢĪĶĻŅ ŠŪŽ Ērglis Ŗ",
                "ābols čūska ģīķļņ šūž ērglis ŗ",
                "ābols čūska ģīķļņ šūž ērglis ŗ",
            ),
            (
                "ŽĄSIS ĖJO Į UŽUPĮ",
                "žąsis ėjo į užupį",
                "žąsis ėjo į užupį",
            ),
            (
                "МОСКВА Ёлка ЩИ Ъ ЭХО",
                "москва ёлка щи ъ эхо",
                "москва ёлка щи ъ эхо",
            ),
            ("ΟΔΟΣ ΣΑΣ Άλφα ΐ", "οδος σας άλφα ΐ", "οδοσ σασ άλφα ΐ"),
            (
                "STRASSE Straße ǅemal",
                "strasse straße ǆemal",
                "strasse straße ǆemal",
            ),
        ];
        for (text, whole, by_char) in cases {
            assert_eq!(lowercase(text), whole, "{text}");
            assert_eq!(lowercase(text), text.to_lowercase(), "{text}");
            let mut into = String::new();
            lowercase_into(&mut into, text);
            assert_eq!(into, by_char, "{text}");
            let std: String = text.chars().flat_map(char::to_lowercase).collect();
            assert_eq!(into, std, "{text}");
            let mut each = String::new();
            for c in text.chars() {
                assert!(each_lower(c, |l| {
                    each.push(l);
                    true
                }));
            }
            assert_eq!(each, by_char, "{text}");
        }
    }

    /// Every character below U+3000, alone and in a word, folds as the
    /// standard library folds it, and `each_lower` stops when told.
    #[test]
    fn the_fold_is_the_standard_librarys() {
        for u in 0..0x3000u32 {
            let Some(c) = char::from_u32(u) else {
                continue;
            };
            let mut got = String::new();
            each_lower(c, |l| {
                got.push(l);
                true
            });
            assert_eq!(got, c.to_lowercase().collect::<String>(), "U+{u:04X}");
            for w in [c.to_string(), format!("Ā{c}b"), format!("Σ{c}Σ")] {
                assert_eq!(lowercase(&w), w.to_lowercase(), "U+{u:04X}");
            }
            let mut calls = 0;
            assert!(!each_lower(c, |_| {
                calls += 1;
                false
            }));
            assert_eq!(calls, 1, "U+{u:04X}");
        }
    }
}

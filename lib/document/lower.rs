//! Lowercasing that the dictionary, the pages and the index share:
//! character by character (the index adds the one rule of context, a
//! final sigma, in `search::words`), and the lowercase of each two-byte
//! character of UTF-8 (U+0080 to U+07FF: Latin, Greek, Cyrillic and
//! more), in UTF-8, with what the word splits ask of it, in one table:
//! a word's letters past ASCII are lowercased by their bytes, without
//! decoding them to a `char`, asking `lowercase_of` and encoding the
//! result again.

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
        match lowercase_of(c) {
            Some(l) => out.push(l),
            None => out.extend(c.to_lowercase()),
        }
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
            match lowercase_of(c) {
                Some(l) => put(l),
                None => c.to_lowercase().for_each(&mut put),
            }
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
}

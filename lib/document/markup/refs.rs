//! Character references, as the WHATWG tokenizer reads them after an
//! `&`: named ones (`&amp;`, `&nbsp;`, a few without their `;`) from
//! `document::entities`, and numeric ones, with the standard's
//! replacements for NUL, the C1 controls, surrogates and values past
//! U+10FFFF.

use crate::document::entities::ENTITIES;

/// U+FFFD, which stands for a NUL the standard replaces.
pub(super) const FFFD: &[u8] = "\u{FFFD}".as_bytes();

/// The standard's replacements for numeric references to the C1 controls
/// 0x80..=0x9F (as windows-1252 reads those bytes); 0 keeps the number.
const C1: [u16; 32] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
    0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
];

/// What a character reference stands for.
pub(super) enum Decoded {
    Named(&'static [u8]),
    Char(char),
}

impl Decoded {
    pub(super) fn bytes<'b>(&self, buf: &'b mut [u8; 4]) -> &'b [u8] {
        match *self {
            Decoded::Named(s) => s,
            Decoded::Char(c) => c.encode_utf8(buf).as_bytes(),
        }
    }
}

/// The named reference `name` (with its `;`, if any), from a hash map of
/// [`ENTITIES`] made on first use: a page's `&nbsp;` and `&ndash;` are
/// found in a hash and a compare, not in a dozen compares of a binary
/// search.
fn entity(name: &[u8]) -> Option<&'static [u8]> {
    static MAP: std::sync::LazyLock<rustc_hash::FxHashMap<&'static [u8], &'static [u8]>> =
        std::sync::LazyLock::new(|| ENTITIES.iter().copied().collect());
    MAP.get(name).copied()
}

/// Reads the character reference after an `&`; `s` starts after it.
/// Returns what it stands for and how many bytes of `s` it took, or None
/// when the `&` is plain text. `in_attr` applies the standard's rule for
/// attribute values: a name without `;` followed by `=` or an alphanumeric
/// stays as written (so `?a=1&copy=2` is not a copyright sign).
pub(super) fn char_ref(s: &[u8], in_attr: bool) -> Option<(Decoded, usize)> {
    match *s.first()? {
        b'#' => numeric_ref(s),
        c if c.is_ascii_alphanumeric() => {
            // The longest name is 31 characters and a `;`.
            let n = s
                .iter()
                .take(33)
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
            if n < 32 && s.get(n) == Some(&b';') {
                if let Some(v) = s.get(..=n).and_then(entity) {
                    return Some((Decoded::Named(v), n + 1));
                }
            }
            // The names valid without `;` are at most 6 long; a longer run
            // followed by `;` matched above or matches none of them with `;`
            // (its prefixes are followed by an alphanumeric, not by `;`).
            for k in (2..=n.min(6)).rev() {
                if let Some(v) = s.get(..k).and_then(entity) {
                    let next = s.get(k).copied();
                    if in_attr && next.is_some_and(|c| c == b'=' || c.is_ascii_alphanumeric()) {
                        return None;
                    }
                    return Some((Decoded::Named(v), k));
                }
            }
            None
        }
        _ => None,
    }
}

fn numeric_ref(s: &[u8]) -> Option<(Decoded, usize)> {
    let hex = matches!(s.get(1), Some(b'x' | b'X'));
    let (radix, from) = if hex { (16, 2) } else { (10, 1) };
    let mut i = from;
    let mut v: u32 = 0;
    while let Some(d) = s.get(i).and_then(|&c| (c as char).to_digit(radix)) {
        // Past U+10FFFF the value is replaced anyway: stop it growing.
        v = (v * radix + d).min(0x11_0000);
        i += 1;
    }
    if i == from {
        return None;
    }
    if s.get(i) == Some(&b';') {
        i += 1;
    }
    let c = match v {
        0 => '\u{FFFD}',
        0x80..=0x9F => match C1[(v - 0x80) as usize] {
            0 => char::from_u32(v).unwrap_or('\u{FFFD}'),
            r => char::from_u32(u32::from(r)).unwrap_or('\u{FFFD}'),
        },
        // Surrogates and values past U+10FFFF.
        _ => char::from_u32(v).unwrap_or('\u{FFFD}'),
    };
    Some((Decoded::Char(c), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `char_ref` relies on: the table is sorted for binary search,
    /// names are ASCII alphanumerics with or without a final `;`, at most
    /// 32 bytes, and those without `;` at most 6.
    #[test]
    fn the_entity_table_is_what_the_lookup_assumes() {
        assert_eq!(ENTITIES.len(), 2231);
        assert!(ENTITIES.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, value) in ENTITIES.iter() {
            let bare = name.strip_suffix(b";").unwrap_or(name);
            assert!(!bare.is_empty() && bare.iter().all(u8::is_ascii_alphanumeric));
            assert!(name.len() <= 32, "{name:?}");
            if !name.ends_with(b";") {
                assert!(name.len() <= 6, "{name:?}");
                let mut with = name.to_vec();
                with.push(b';');
                assert_eq!(entity(&with), Some(*value), "{name:?}");
            }
            assert!(std::str::from_utf8(value).is_ok());
        }
        assert_eq!(entity(b"amp;"), Some(&b"&"[..]));
        // The map is the table: every name, and names that are not there
        // (prefixes, other cases, one byte changed) as a search finds them.
        let search = |name: &[u8]| {
            ENTITIES
                .binary_search_by(|(k, _)| (*k).cmp(name))
                .ok()
                .map(|i| ENTITIES[i].1)
        };
        let mut tried = 0;
        for (name, value) in ENTITIES.iter() {
            assert_eq!(entity(name), Some(*value), "{name:?}");
            let mut others = vec![name[..name.len() - 1].to_vec(), name.to_ascii_uppercase()];
            let mut changed = name.to_vec();
            changed[0] ^= 1;
            others.push(changed);
            for o in others {
                assert_eq!(entity(&o), search(&o), "{o:?}");
                tried += usize::from(search(&o).is_none());
            }
        }
        assert!(tried > 2000, "{tried}");
        assert_eq!(
            entity(b"CounterClockwiseContourIntegral;"),
            Some("∳".as_bytes())
        );
    }

    /// The C1 replacements are windows-1252's reading of those bytes, and
    /// the five bytes it leaves undefined keep their number.
    #[test]
    fn c1_references_read_as_windows_1252() {
        for b in 0x80u8..=0x9F {
            let byte = [b];
            let (s, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
            let want = s.chars().next().map(u32::from);
            let r = format!("#{b};");
            let got = match numeric_ref(r.as_bytes()) {
                Some((Decoded::Char(c), _)) => Some(u32::from(c)),
                _ => None,
            };
            assert_eq!(got, want, "{b:#x}");
        }
    }
}

//! Letters and digits as the standard library's `char` says, without its
//! Unicode tables for the Latin and Cyrillic letters most pages a crawl
//! reads are written in: those tables are a binary search a character,
//! and counting the letters of a Russian page spent a sixth of its
//! verification there (`cargo bench --bench vrfy -- profile`).

/// Whether `c` is a letter, as `char::is_alphabetic` says.
#[inline]
pub fn alphabetic(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    known(c).unwrap_or_else(|| c.is_alphabetic())
}

/// Whether `c` is a letter or a digit, as `char::is_alphanumeric` says.
#[inline]
pub fn alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    known(c).unwrap_or_else(|| c.is_alphanumeric())
}

/// Whether a character past ASCII is a letter, for the ranges told here
/// without the tables; none of them holds a digit, so it is also whether
/// it is a letter or a digit.
#[inline]
fn known(c: char) -> Option<bool> {
    match c {
        // Latin-1 and Latin Extended-A and -B letters, but × and ÷.
        '\u{C0}'..='\u{24F}' => Some(c != '\u{D7}' && c != '\u{F7}'),
        // Cyrillic letters up to ҁ, and from Ҋ through the Supplement.
        '\u{400}'..='\u{481}' | '\u{48A}'..='\u{52F}' => Some(true),
        // General Punctuation: spaces, dashes, quotation marks.
        '\u{2000}'..='\u{206F}' => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn they_are_the_standard_ones_for_every_character() {
        for u in 0..=0x10FFFFu32 {
            if let Some(c) = char::from_u32(u) {
                assert_eq!(alphabetic(c), c.is_alphabetic(), "U+{u:04X}");
                assert_eq!(alphanumeric(c), c.is_alphanumeric(), "U+{u:04X}");
            }
        }
    }
}

//! `nlpc-dump --dedup-paragraphs`: paragraphs already exported once are
//! left out of later documents, as the corpus builders' de-duplication
//! tools do, so a disclaimer, a signature or a quoted notice that a site
//! repeats under every article is in the corpus once.
//!
//! A paragraph is one block of main text (a paragraph, heading or list
//! item), compared with its white space normalised. What has been written
//! is remembered as 64-bit hashes, at most [`LIMIT`] of them (4 Mi: at
//! most 72 MB, the set's table of 8 Mi slots of 9 bytes); when the set is full, paragraphs not yet in it
//! are written and no longer remembered, and a line says so once.

use rustc_hash::FxHashSet;

use crate::document::extract::Block;
use crate::document::fingerprint::text_hash;
use crate::info;

/// The most paragraph hashes remembered.
pub const LIMIT: usize = 4 << 20;

/// The paragraphs written so far.
pub struct Seen {
    set: FxHashSet<u64>,
    limit: usize,
    said_full: bool,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen::with_limit(LIMIT)
    }
}

impl Seen {
    /// A set remembering at most `limit` paragraphs.
    pub fn with_limit(limit: usize) -> Seen {
        Seen {
            set: FxHashSet::default(),
            limit,
            said_full: false,
        }
    }

    /// Removes from `blocks` those already written, and remembers the rest
    /// as written; returns how many were removed.
    pub fn drop_repeated(&mut self, blocks: &mut Vec<Block>) -> usize {
        let before = blocks.len();
        blocks.retain(|b| {
            let h = text_hash(&b.text);
            let h = u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
            if self.set.contains(&h) {
                return false;
            }
            if self.set.len() < self.limit {
                self.set.insert(h);
            } else if !self.said_full {
                self.said_full = true;
                info!(
                    "--dedup-paragraphs: {} paragraphs remembered, the most it keeps; later ones are written without being remembered",
                    self.limit
                );
            }
            true
        });
        before - blocks.len()
    }

    /// Paragraphs remembered.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::extract::BlockKind;

    fn blocks(texts: &[&str]) -> Vec<Block> {
        texts
            .iter()
            .map(|t| Block {
                kind: BlockKind::Paragraph,
                text: t.to_string(),
            })
            .collect()
    }

    #[test]
    fn repeated_paragraphs_go_once_written() {
        let mut s = Seen::default();
        let mut a = blocks(&["First story.", "Subscribe to our paper.", "First story."]);
        // Within one document too.
        assert_eq!(s.drop_repeated(&mut a), 1);
        assert_eq!(a, blocks(&["First story.", "Subscribe to our paper."]));
        let mut b = blocks(&["Second  story.", "Subscribe to\nour paper."]);
        assert_eq!(s.drop_repeated(&mut b), 1);
        assert_eq!(b, blocks(&["Second  story."]));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn a_full_set_writes_what_it_cannot_remember() {
        let mut s = Seen::with_limit(2);
        let mut a = blocks(&["one", "two", "three"]);
        assert_eq!(s.drop_repeated(&mut a), 0);
        assert_eq!(s.len(), 2);
        let mut b = blocks(&["one", "three", "three"]);
        // "one" is remembered; "three" never was, so both copies go out.
        assert_eq!(s.drop_repeated(&mut b), 1);
        assert_eq!(b, blocks(&["three", "three"]));
    }
}

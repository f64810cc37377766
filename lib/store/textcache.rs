//! The text cache: the title and main text nlpc-vrfy extracted from a
//! verified body, kept beside the body in the file cache (`KEY.text` next
//! to `KEY`), so nlpc-index need not decode and extract the page again.
//! Only first copies have one: nlpc-index indexes no duplicate.
//!
//! It is a cache and nothing more: the file is written in place, without
//! a temporary file, a rename or a sync, which would only add to the one
//! file write a first copy costs nlpc-vrfy, since its header makes any
//! file but a whole one unreadable; and it names the
//! BLAKE3 hash of the body it came from, so a file left from an older
//! version of the page is never taken for the current one. A reader that
//! finds no file, a file for another body, or one it cannot parse falls
//! back to extracting the text from the body. `Cache::remove` removes it
//! with the body.
//!
//! The file: the line `nlpc-text 1 HASH TITLE-BYTES TEXT-BYTES`, then the
//! title, then the text, all UTF-8. The lengths make a file cut short (an
//! unsynced write lost in a power cut, a write still under way, a full
//! disk) unreadable rather than a shorter text.

use std::fs;
use std::io::ErrorKind;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::store::cache::Cache;
use crate::store::{hex, Key};

/// The first word of the header line, with the format's version.
const MAGIC: &str = "nlpc-text 1 ";

/// Longest header line accepted: the magic, 64 hex digits, two lengths.
const MAX_HEADER: usize = 128;

/// A page's title and main text (its blocks a line each).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    pub title: String,
    pub text: String,
}

/// Where the text of `key` lives: beside its body.
pub fn path(cache: &Cache, key: &Key) -> PathBuf {
    cache.text_path(key)
}

/// The file's bytes for `t`, made from the body whose hash is `hash`.
pub fn encode(hash: &[u8; 32], t: &Text) -> Vec<u8> {
    let head = format!("{MAGIC}{} {} {}\n", hex(hash), t.title.len(), t.text.len());
    let mut out = Vec::with_capacity(head.len() + t.title.len() + t.text.len());
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(t.title.as_bytes());
    out.extend_from_slice(t.text.as_bytes());
    out
}

/// The text in `bytes` when it was made from the body whose hash is
/// `hash`; None for another body's text or a file that does not parse.
pub fn decode(bytes: Vec<u8>, hash: &[u8; 32]) -> Option<Text> {
    let nl = bytes.iter().take(MAX_HEADER).position(|&b| b == b'\n')?;
    let head = std::str::from_utf8(&bytes[..nl]).ok()?;
    let mut fields = head.strip_prefix(MAGIC)?.split(' ');
    if fields.next()? != hex(hash) {
        return None;
    }
    let title_len: usize = fields.next()?.parse().ok()?;
    let text_len: usize = fields.next()?.parse().ok()?;
    let title_end = (nl + 1).checked_add(title_len)?;
    if fields.next().is_some() || title_end.checked_add(text_len)? != bytes.len() {
        return None;
    }
    let mut rest = String::from_utf8(bytes).ok()?;
    // Both cuts must fall on char boundaries, or the file is not ours.
    let title = rest.get(nl + 1..title_end)?.to_string();
    let text = rest.split_off(title_end);
    Some(Text { title, text })
}

/// Keeps `t` as the text of `key`, made from the body whose hash is
/// `hash`. An all-zero hash (no body recorded) keeps nothing, for no file
/// could be tied to its body.
pub fn write(cache: &Cache, key: &Key, hash: &[u8; 32], t: &Text) -> Result<()> {
    if *hash == [0; 32] {
        return Ok(());
    }
    let p = path(cache, key);
    let bytes = encode(hash, t);
    // The body's fan-out directory is there, but create it if not.
    let res = match fs::write(&p, &bytes) {
        Err(e) if e.kind() == ErrorKind::NotFound => match p.parent() {
            Some(dir) => fs::create_dir_all(dir).and_then(|()| fs::write(&p, &bytes)),
            None => Err(e),
        },
        other => other,
    };
    res.map_err(|e| {
        // A part written (a full disk) is refused by its reader anyway;
        // removed, it holds no space.
        let _ = fs::remove_file(&p);
        Error::io(&p, "cannot keep text", e)
    })
}

/// The kept text of `key` if it was made from the body whose hash is
/// `hash`; None when there is none, it is another body's, or it does not
/// parse (the caller extracts the text again).
pub fn read(cache: &Cache, key: &Key, hash: &[u8; 32]) -> Result<Option<Text>> {
    if *hash == [0; 32] {
        return Ok(None);
    }
    let p = path(cache, key);
    match fs::read(&p) {
        Ok(b) => Ok(decode(b, hash)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, "cannot read cached text", e)),
    }
}

/// Removes the text of `key` (and only it); absent is fine.
pub fn remove(cache: &Cache, key: &Key) -> Result<()> {
    crate::store::cache::remove_present(&path(cache, key), "cannot remove cached text")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(title: &str, text: &str) -> Text {
        Text {
            title: title.into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_text_reads_back_only_for_its_body() {
        let h = [7; 32];
        let x = t("Rīga\nīsi", "Rīga ir galvaspilsēta.\nOtrā rindkopa.\n");
        assert_eq!(decode(encode(&h, &x), &h), Some(x.clone()));
        assert_eq!(decode(encode(&h, &x), &[8; 32]), None);
        let empty = t("", "");
        assert_eq!(decode(encode(&h, &empty), &h), Some(empty));
    }

    #[test]
    fn a_damaged_file_is_refused() {
        let h = [7; 32];
        let good = encode(&h, &t("Āb", "teksts"));
        // Cut inside the title's two-byte Ā: the length no longer fits.
        let head_end = good.iter().position(|&b| b == b'\n').unwrap();
        assert_eq!(decode(good[..head_end + 2].to_vec(), &h), None);
        // Cut anywhere in the text, as a lost unsynced write leaves it.
        assert_eq!(decode(good[..good.len() - 1].to_vec(), &h), None);
        let mut longer = good.clone();
        longer.push(b'x');
        assert_eq!(decode(longer, &h), None);
        // A title length past the end, or not a number.
        let bad = format!("{MAGIC}{} 99 0\nab", hex(&h));
        assert_eq!(decode(bad.into_bytes(), &h), None);
        let bad = format!("{MAGIC}{} x 2\nab", hex(&h));
        assert_eq!(decode(bad.into_bytes(), &h), None);
        // A length that ends inside a char.
        let bad = format!("{MAGIC}{} 1 2\nĀb", hex(&h));
        assert_eq!(decode(bad.into_bytes(), &h), None);
        // Another format, a field too many, and no header line at all.
        assert_eq!(decode(b"nlpc-text 2 ab 0 0\n".to_vec(), &h), None);
        let bad = format!("{MAGIC}{} 0 2 0\nab", hex(&h));
        assert_eq!(decode(bad.into_bytes(), &h), None);
        assert_eq!(decode(vec![b'a'; 4096], &h), None);
        // Bytes that are not UTF-8 after a good header.
        let mut bad = format!("{MAGIC}{} 0 1\n", hex(&h)).into_bytes();
        bad.push(0xff);
        assert_eq!(decode(bad, &h), None);
        // The same file with a good byte instead reads.
        let ok = format!("{MAGIC}{} 0 1\na", hex(&h)).into_bytes();
        assert_eq!(decode(ok, &h), Some(t("", "a")));
    }

    #[test]
    fn no_file_is_kept_without_a_body_hash() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path());
        let k = Key([3; crate::store::KEY_LEN]);
        write(&c, &k, &[0; 32], &t("a", "b")).unwrap();
        assert!(!path(&c, &k).exists());
        assert_eq!(read(&c, &k, &[0; 32]).unwrap(), None);
        write(&c, &k, &[1; 32], &t("a", "b")).unwrap();
        assert_eq!(read(&c, &k, &[1; 32]).unwrap(), Some(t("a", "b")));
        assert_eq!(path(&c, &k), c.path(&k).with_extension("text"));
    }
}

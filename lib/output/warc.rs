//! Writing WARC 1.1 files (ISO 28500:2017): one gzip member per record, so
//! tools can seek to any record and a damaged record spoils only itself;
//! and the payloads a file holds already ([`Payloads`]), which a repeat
//! revisits instead of writing again.

use std::io::{self, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;
use rustc_hash::FxHashMap;
use sha1::{Digest, Sha1};

use crate::info;
use crate::run::clock;
use crate::store::{Key, KEY_LEN};

/// The profile of a revisit record whose payload equals an earlier one's.
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// A new WARC-Record-ID: a random UUID URN in angle brackets.
pub fn record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4())
}

/// The header fields of a file's warcinfo record: its id, the time, the
/// file's name when it is a file (not standard output), and the type.
pub fn info_fields(id: &str, file: Option<&Path>) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("WARC-Record-ID", id.to_string()),
        ("WARC-Date", clock::iso8601(clock::real_now())),
    ];
    if let Some(n) = file.and_then(Path::file_name) {
        fields.push(("WARC-Filename", n.to_string_lossy().into_owned()));
    }
    fields.push(("Content-Type", "application/warc-fields".into()));
    fields
}

/// The WARC-Record-ID of the record that holds one version of a page (its
/// response, or its revisit): a UUID URN made from the record's key, the
/// version's fetch time and its body's hash, so that every dump names a
/// version alike and a WET file's WARC-Refers-To finds its response in a
/// WARC file written by another run. The UUID is of version 8 (custom):
/// 122 bits of a BLAKE3 hash, not random bits.
pub fn version_id(key: &Key, fetched: u64, hash: &[u8; 32]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"nlpcrawl WARC version record\0");
    h.update(&key.0);
    h.update(&fetched.to_be_bytes());
    h.update(hash);
    let mut b = [0u8; 16];
    b.copy_from_slice(&h.finalize().as_bytes()[..16]);
    format!(
        "<urn:uuid:{}>",
        uuid::Builder::from_custom_bytes(b).into_uuid()
    )
}

/// A labelled SHA-1 digest in base32, the form archive tools read
/// (`sha1:` and 32 characters).
pub fn sha1_digest(parts: &[&[u8]]) -> String {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    format!("sha1:{}", data_encoding::BASE32.encode(&h.finalize()))
}

/// A header value with line breaks flattened, so a stored value can never
/// end a header early or inject another.
pub fn field_value(v: &str) -> String {
    v.replace(['\r', '\n'], " ")
}

/// The most payloads a [`Payloads`] remembers: 7 Mi, which fill a table
/// of 8 Mi slots (hashbrown keeps 1 in 8 free) of 42 bytes, 352 MB.
pub const PAYLOADS_LIMIT: usize = 7 << 20;

/// The version whose response first held a payload in a file: the
/// record's key and the fetch time, from which [`version_id`] names the
/// response again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct First {
    pub key: Key,
    pub fetched: u64,
}

/// The payloads written to a WARC file, by the first 128 bits of their
/// BLAKE3 hash (a chance collision among 10^9 payloads is 10^-21), each
/// with the version that holds it: 41 bytes a payload, so a dump of
/// millions of versions stays in memory. At most `limit` are remembered;
/// past that a payload not yet remembered is written in full (a correct
/// file, only larger) and one line says so.
pub struct Payloads {
    map: FxHashMap<[u8; 16], [u8; KEY_LEN + 8]>,
    limit: usize,
    said_full: bool,
}

impl Default for Payloads {
    fn default() -> Payloads {
        Payloads::with_limit(PAYLOADS_LIMIT)
    }
}

impl Payloads {
    pub fn with_limit(limit: usize) -> Payloads {
        Payloads {
            map: FxHashMap::default(),
            limit,
            said_full: false,
        }
    }

    /// The version that first held the payload with BLAKE3 hash `hash`;
    /// None when it is new, which remembers `first` as its holder.
    pub fn first_or_remember(&mut self, hash: &[u8; 32], first: First) -> Option<First> {
        let mut h = [0u8; 16];
        h.copy_from_slice(&hash[..16]);
        if let Some(v) = self.map.get(&h) {
            let mut key = [0u8; KEY_LEN];
            key.copy_from_slice(&v[..KEY_LEN]);
            let mut t = [0u8; 8];
            t.copy_from_slice(&v[KEY_LEN..]);
            return Some(First {
                key: Key(key),
                fetched: u64::from_le_bytes(t),
            });
        }
        if self.map.len() < self.limit {
            let mut v = [0u8; KEY_LEN + 8];
            v[..KEY_LEN].copy_from_slice(&first.key.0);
            v[KEY_LEN..].copy_from_slice(&first.fetched.to_le_bytes());
            self.map.insert(h, v);
        } else if !self.said_full {
            self.said_full = true;
            info!(
                "--warc: {} payloads remembered, the most it keeps; a repeat of a later one is written in full, not as a revisit",
                self.limit
            );
        }
        None
    }

    /// Payloads remembered.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Writes records to `out`, each a gzip member of its own.
pub struct Writer<W: Write> {
    out: W,
    /// Compressed bytes written so far.
    pub written: u64,
}

/// Counts what passes through to the underlying writer.
struct Counting<'a, W: Write> {
    inner: &'a mut W,
    n: u64,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer { out, written: 0 }
    }

    /// Writes one record of `warc_type` with `fields` (the named fields
    /// other than WARC-Type, Content-Length and WARC-Block-Digest, which are
    /// computed) and a block made of `block` concatenated.
    pub fn record(
        &mut self,
        warc_type: &str,
        fields: &[(&str, String)],
        block: &[&[u8]],
    ) -> io::Result<()> {
        let len: usize = block.iter().map(|b| b.len()).sum();
        let mut head = format!("WARC/1.1\r\nWARC-Type: {warc_type}\r\n");
        for (k, v) in fields {
            head.push_str(k);
            head.push_str(": ");
            head.push_str(&field_value(v));
            head.push_str("\r\n");
        }
        head.push_str(&format!(
            "WARC-Block-Digest: {}\r\nContent-Length: {len}\r\n\r\n",
            sha1_digest(block)
        ));
        let mut counting = Counting {
            inner: &mut self.out,
            n: 0,
        };
        let mut gz = GzEncoder::new(&mut counting, Compression::default());
        gz.write_all(head.as_bytes())?;
        for b in block {
            gz.write_all(b)?;
        }
        gz.write_all(b"\r\n\r\n")?;
        gz.finish()?;
        self.written += counting.n;
        Ok(())
    }

    /// Flushes and hands back the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn version_ids_are_stable_and_distinct() {
        let k = Key([7; crate::store::KEY_LEN]);
        let a = version_id(&k, 1, &[1; 32]);
        assert_eq!(a, version_id(&k, 1, &[1; 32]));
        assert_ne!(a, version_id(&k, 2, &[1; 32]));
        assert_ne!(a, version_id(&k, 1, &[2; 32]));
        assert_ne!(a, version_id(&Key([8; crate::store::KEY_LEN]), 1, &[1; 32]));
        let u = a
            .strip_prefix("<urn:uuid:")
            .and_then(|x| x.strip_suffix('>'))
            .unwrap();
        assert_eq!(uuid::Uuid::parse_str(u).unwrap().get_version_num(), 8);
    }

    #[test]
    fn a_payload_is_first_held_once_and_a_full_map_forgets_nothing() {
        let k = |b| Key([b; KEY_LEN]);
        let mut p = Payloads::with_limit(2);
        let a = First {
            key: k(1),
            fetched: 10,
        };
        assert_eq!(p.first_or_remember(&[1; 32], a), None);
        // Another record, the same payload: the first holder.
        let b = First {
            key: k(2),
            fetched: u64::MAX,
        };
        assert_eq!(p.first_or_remember(&[1; 32], b), Some(a));
        assert_eq!(p.first_or_remember(&[2; 32], b), None);
        assert_eq!(p.first_or_remember(&[2; 32], a), Some(b));
        // Full: a new payload is not remembered, the old ones still are.
        assert_eq!(p.first_or_remember(&[3; 32], a), None);
        assert_eq!(p.first_or_remember(&[3; 32], b), None);
        assert_eq!(p.len(), 2);
        assert_eq!(p.first_or_remember(&[1; 32], b), Some(a));
        // The slot is the 16 bytes of hash and the 25 of the holder.
        assert_eq!(std::mem::size_of::<([u8; 16], [u8; KEY_LEN + 8])>(), 41);
    }

    #[test]
    fn digests_in_base32() {
        // SHA-1 of the empty string, base32.
        assert_eq!(sha1_digest(&[b""]), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(sha1_digest(&[b"ab", b"c"]), sha1_digest(&[b"abc"]));
    }

    #[test]
    fn one_gzip_member_per_record() {
        let mut w = Writer::new(Vec::new());
        w.record("resource", &[("X", "a\r\nb".into())], &[b"hello"])
            .unwrap();
        let first = w.written as usize;
        w.record("resource", &[], &[b"world"]).unwrap();
        let out = w.finish().unwrap();
        let mut one = String::new();
        flate2::read::GzDecoder::new(&out[..first])
            .read_to_string(&mut one)
            .unwrap();
        assert!(one.starts_with("WARC/1.1\r\nWARC-Type: resource\r\nX: a  b\r\n"));
        assert!(
            one.ends_with("Content-Length: 5\r\n\r\nhello\r\n\r\n"),
            "{one}"
        );
        let mut all = String::new();
        flate2::read::MultiGzDecoder::new(&out[..])
            .read_to_string(&mut all)
            .unwrap();
        assert!(all.ends_with("world\r\n\r\n"));
    }
}

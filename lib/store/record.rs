//! The record: one URL, its state and everything the daemons learned about it,
//! and its versioned binary encoding.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use crate::document::charset::Source;

/// The version of the record encoding and of the database layout. A database
/// written with another version is refused rather than misread. Every change
/// of [`Record::encode`] or of the tables' layout must change this number
/// (version 1 databases were written before the encoding last changed).
pub const FORMAT_VERSION: u32 = 2;

crate::stored_enum! {
    /// Where a record is in the crawl. The numbers are stored; never renumber.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum State {
        /// Known, not yet resolved.
        New = 1 => "NEW",
        /// Resolved to a physical address, waiting to be fetched.
        Ready = 2 => "READY",
        /// Fetched and stored, waiting for verification.
        Fresh = 3 => "FRESH",
        /// Passed charset, language and dictionary checks; waiting to be scanned.
        Verified = 4 => "VERIFIED",
        /// Its links have been extracted.
        Scanned = 5 => "SCANNED",
        /// Expired or revived; waiting for a conditional re-fetch.
        Dirty = 6 => "DIRTY",
        /// Resolution or fetching failed.
        Unreach = 7 => "UNREACH",
        /// Refused by a header, charset, language, dictionary or noindex check.
        Rejected = 8 => "REJECTED",
        /// Refused by robots.txt.
        Excluded = 9 => "EXCLUDED",
        /// Failed too many revivals in a row.
        Dead = 10 => "DEAD",
        /// Pruned: only the URL is kept, so it is not rediscovered as new.
        Gone = 11 => "GONE",
        /// Answered with a redirect; the target is a record of its own.
        Redirect = 12 => "REDIRECT",
        /// Set aside: a daemon failed on it (an error that concerns only this
        /// record, a panic, or its daemon died while holding it too often).
        /// No daemon takes it; `nlpc-up --force-rev -s quarantined` returns it
        /// to NEW.
        Quarantined = 13 => "QUARANTINED",
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for State {
    type Err = String;
    fn from_str(s: &str) -> Result<State, String> {
        let up = s.to_ascii_uppercase();
        // The original suite called FRESH records FETCHED.
        let up = if up == "FETCHED" { "FRESH".into() } else { up };
        State::ALL
            .iter()
            .copied()
            .find(|st| st.name() == up)
            .ok_or_else(|| format!("unknown state {s:?}"))
    }
}

/// A lease: which process took the record, and when. A record with a lease is
/// invisible to the other daemons until it is released or reclaimed.
///
/// It is stored as the value of the record's entry in its state's leased
/// index, not in the record: taking a record then writes only that index's
/// small leased part, and the record (a random key, in a large database a
/// leaf and a branch page of its own) is written once, with the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lease {
    pub pid: u32,
    pub time: u64,
}

/// The length of an encoded [`Lease`].
pub const LEASE_LEN: usize = 4 + 8;

impl Lease {
    pub fn encode(&self) -> [u8; LEASE_LEN] {
        let mut v = [0; LEASE_LEN];
        v[..4].copy_from_slice(&self.pid.to_le_bytes());
        v[4..].copy_from_slice(&self.time.to_le_bytes());
        v
    }

    pub fn decode(b: &[u8]) -> Option<Lease> {
        let b: &[u8; LEASE_LEN] = b.try_into().ok()?;
        Some(Lease {
            pid: u32::from_le_bytes(b[..4].try_into().ok()?),
            time: u64::from_le_bytes(b[4..].try_into().ok()?),
        })
    }
}

/// Everything known about one URL. Times are Unix seconds; 0 means unknown.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The URL in request form, as a browser sends it; the record's key is
    /// the hash of its key form (`web::url`).
    pub url: String,
    pub state: State,
    pub lease: Option<Lease>,
    /// Link hops from a seed.
    pub depth: u16,
    /// The physical address the host resolved to.
    pub addr: String,
    pub created: u64,
    /// When the record last changed state.
    pub changed: u64,
    pub fetched: u64,
    /// The server's Last-Modified, as Unix seconds.
    pub modified: u64,
    /// When the server says the page expires (Expires or Cache-Control max-age).
    pub expires: u64,
    /// The HTTP status of the last fetch, or 0.
    pub status: u16,
    /// Why the record is UNREACH, REJECTED, EXCLUDED, REDIRECT or
    /// QUARANTINED (there: the error or panic message).
    pub reason: String,
    /// Revivals that failed in a row.
    pub revivals: u16,
    pub size: u64,
    pub content_type: String,
    pub charset: String,
    pub language: String,
    /// Language detection confidence, in thousandths.
    pub lang_conf: u16,
    /// Share of the page's words found in the dictionary, in thousandths.
    pub dict_ratio: u16,
    /// Hash of the stored body (BLAKE3), all zero when nothing is stored.
    pub hash: [u8; 32],
    /// Validators for the conditional re-fetch, as the server sent them.
    pub etag: String,
    pub last_modified: String,
    /// Bits of [`Flags`].
    pub flags: u32,
    /// Redirects followed to reach this URL from the one first found.
    pub redirects: u8,
    /// How nlpc-vrfy decided `charset`; None until it has (and in records
    /// written before the field existed).
    pub charset_source: Option<Source>,
    /// Times in a row its daemon failed while holding it (a panic outside
    /// the work on any one record); cleared when a daemon finishes it. At
    /// [`RECLAIM_LIMIT`] it is quarantined instead of being handed out
    /// again.
    pub reclaims: u8,
}

/// Failures of its daemon in a row after which a record is quarantined:
/// at three, the record is most likely what makes it fail (once is bad
/// luck, twice can be).
pub const RECLAIM_LIMIT: u8 = 3;

/// Single-bit facts about a record.
pub struct Flags;

impl Flags {
    /// The page asked not to be indexed (meta robots or X-Robots-Tag).
    pub const NOINDEX: u32 = 1;
    /// The page asked that its links not be followed.
    pub const NOFOLLOW: u32 = 2;
    /// The record was given on the command line rather than found as a link.
    pub const SEED: u32 = 4;
    /// Its last re-fetch found the body changed. The verdict waits in the
    /// record, written anyway, until the record next enters the due index,
    /// whose schedule entry is written anyway: then the page's interval
    /// adapts to it and the bit is cleared (`store::sched`).
    pub const REFETCH_CHANGED: u32 = 8;
    /// Its last re-fetch found the body unchanged (an answer 304, or the
    /// same body); waits like [`Flags::REFETCH_CHANGED`].
    pub const REFETCH_SAME: u32 = 16;
    /// Both verdicts.
    pub const REFETCH: u32 = Flags::REFETCH_CHANGED | Flags::REFETCH_SAME;
}

impl Record {
    /// A NEW record for a URL first seen at `now`.
    pub fn new(url: &str, now: u64) -> Record {
        Record {
            url: url.to_string(),
            state: State::New,
            lease: None,
            depth: 0,
            addr: String::new(),
            created: now,
            changed: now,
            fetched: 0,
            modified: 0,
            expires: 0,
            status: 0,
            reason: String::new(),
            revivals: 0,
            size: 0,
            content_type: String::new(),
            charset: String::new(),
            language: String::new(),
            lang_conf: 0,
            dict_ratio: 0,
            hash: [0; 32],
            etag: String::new(),
            last_modified: String::new(),
            flags: 0,
            redirects: 0,
            charset_source: None,
            reclaims: 0,
        }
    }

    /// The host part of the record's URL, or "" for a URL without one.
    pub fn host(&self) -> &str {
        crate::web::url::host_of(&self.url)
    }

    /// Encodes the record, leading with [`FORMAT_VERSION`]. The lease is
    /// left out (written as none): the store keeps it in the leased index.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(96 + self.url.len());
        w.push(FORMAT_VERSION as u8);
        w.push(self.state as u8);
        put_varint(&mut w, 0);
        put_varint(&mut w, 0);
        put_varint(&mut w, self.depth as u64);
        put_str(&mut w, &self.url);
        put_str(&mut w, &self.addr);
        for t in [
            self.created,
            self.changed,
            self.fetched,
            self.modified,
            self.expires,
        ] {
            put_varint(&mut w, t);
        }
        put_varint(&mut w, self.status as u64);
        put_str(&mut w, &self.reason);
        put_varint(&mut w, self.revivals as u64);
        put_varint(&mut w, self.size);
        put_str(&mut w, &self.content_type);
        put_str(&mut w, &self.charset);
        put_str(&mut w, &self.language);
        put_varint(&mut w, self.lang_conf as u64);
        put_varint(&mut w, self.dict_ratio as u64);
        if self.hash == [0; 32] {
            w.push(0);
        } else {
            w.push(1);
            w.extend_from_slice(&self.hash);
        }
        put_str(&mut w, &self.etag);
        put_str(&mut w, &self.last_modified);
        put_varint(&mut w, self.flags as u64);
        w.push(self.redirects);
        // Last, and left out while unknown and zero, so that a record
        // written before the fields existed decodes with them unknown; the
        // source (0 while unknown) comes first whenever anything follows.
        if self.charset_source.is_some() || self.reclaims != 0 {
            w.push(self.charset_source.map_or(0, |s| s as u8));
        }
        if self.reclaims != 0 {
            w.push(self.reclaims);
        }
        w
    }

    /// The record as written while leases were kept in records.
    #[cfg(test)]
    pub(crate) fn encode_with_lease(&self) -> Vec<u8> {
        let enc = self.encode();
        let l = self.lease.unwrap_or_default();
        let mut w = enc[..2].to_vec();
        put_varint(&mut w, l.pid as u64);
        put_varint(&mut w, l.time);
        w.extend_from_slice(&enc[4..]);
        w
    }

    /// Decodes a record written by [`Record::encode`].
    pub fn decode(b: &[u8]) -> Result<Record, &'static str> {
        let mut r = Reader { b, at: 0 };
        if r.byte()? as u32 != FORMAT_VERSION {
            return Err("record of another format version");
        }
        let state = State::from_u8(r.byte()?).ok_or("unknown state")?;
        let pid = r.varint()?;
        let time = r.varint()?;
        let lease = (pid != 0).then_some(Lease {
            pid: u32::try_from(pid).map_err(|_| "lease pid out of range")?,
            time,
        });
        let depth = r.small()?;
        let url = r.string()?;
        let addr = r.string()?;
        let created = r.varint()?;
        let changed = r.varint()?;
        let fetched = r.varint()?;
        let modified = r.varint()?;
        let expires = r.varint()?;
        let status = r.small()?;
        let reason = r.string()?;
        let revivals = r.small()?;
        let size = r.varint()?;
        let content_type = r.string()?;
        let charset = r.string()?;
        let language = r.string()?;
        let lang_conf = r.small()?;
        let dict_ratio = r.small()?;
        let mut hash = [0; 32];
        if r.byte()? == 1 {
            hash.copy_from_slice(r.take(32)?);
        }
        let etag = r.string()?;
        let last_modified = r.string()?;
        let flags = u32::try_from(r.varint()?).map_err(|_| "flags out of range")?;
        let redirects = r.byte()?;
        let charset_source = match r.at < b.len() {
            false => None,
            true => match r.byte()? {
                0 => None,
                n => Some(Source::from_u8(n).ok_or("unknown charset source")?),
            },
        };
        let reclaims = if r.at < b.len() { r.byte()? } else { 0 };
        if r.at != b.len() {
            return Err("trailing bytes");
        }
        Ok(Record {
            url,
            state,
            lease,
            depth,
            addr,
            created,
            changed,
            fetched,
            modified,
            expires,
            status,
            reason,
            revivals,
            size,
            content_type,
            charset,
            language,
            lang_conf,
            dict_ratio,
            hash,
            etag,
            last_modified,
            flags,
            redirects,
            charset_source,
            reclaims,
        })
    }

    /// Reads only the URL of an encoded record, for collision checks that
    /// should not pay for a full decode.
    pub fn decode_url(b: &[u8]) -> Result<&str, &'static str> {
        let mut r = Reader::past_header(b)?;
        let n = r.varint()? as usize;
        std::str::from_utf8(r.take(n)?).map_err(|_| "URL is not UTF-8")
    }

    /// Reads only the state of an encoded record: None when the bytes are
    /// no record of this format.
    pub fn decode_state(b: &[u8]) -> Option<State> {
        match b {
            [v, s, ..] if u32::from(*v) == FORMAT_VERSION => State::from_u8(*s),
            _ => None,
        }
    }

    /// Reads only the physical address of an encoded record, for walks that
    /// sort records by address without paying for a full decode.
    pub fn decode_addr(b: &[u8]) -> Result<&str, &'static str> {
        let mut r = Reader::past_header(b)?;
        let n = r.varint()? as usize;
        r.take(n)?;
        let n = r.varint()? as usize;
        std::str::from_utf8(r.take(n)?).map_err(|_| "address is not UTF-8")
    }

    /// The address of an encoded record as an IP address: None when it
    /// has none usable (or the bytes are no record).
    pub fn decode_ip(b: &[u8]) -> Option<IpAddr> {
        Record::decode_addr(b).ok()?.parse().ok()
    }

    /// The record's address as an IP address; None when it has none
    /// usable (empty, or not an address).
    pub fn ip(&self) -> Option<IpAddr> {
        self.addr.parse().ok()
    }
}

fn put_varint(w: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        w.push((v as u8) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    put_varint(w, s.len() as u64);
    w.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader positioned at the URL: version checked, state, lease and
    /// depth skipped.
    fn past_header(b: &'a [u8]) -> Result<Reader<'a>, &'static str> {
        let mut r = Reader { b, at: 0 };
        if r.byte()? as u32 != FORMAT_VERSION {
            return Err("record of another format version");
        }
        r.byte()?;
        r.varint()?;
        r.varint()?;
        r.varint()?;
        Ok(r)
    }

    fn byte(&mut self) -> Result<u8, &'static str> {
        let v = *self.b.get(self.at).ok_or("truncated record")?;
        self.at += 1;
        Ok(v)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let end = self.at.checked_add(n).ok_or("truncated record")?;
        let s = self.b.get(self.at..end).ok_or("truncated record")?;
        self.at = end;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long")
    }

    fn small(&mut self) -> Result<u16, &'static str> {
        u16::try_from(self.varint()?).map_err(|_| "field out of range")
    }

    fn string(&mut self) -> Result<String, &'static str> {
        let n = self.varint()? as usize;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| "string is not UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_every_field() {
        let mut r = Record::new("http://example.lv/a?b=c", 1_700_000_000);
        r.state = State::Scanned;
        r.lease = Some(Lease {
            pid: 4242,
            time: 1_700_000_001,
        });
        r.depth = 7;
        r.addr = "192.0.2.1".into();
        r.fetched = 1_700_000_100;
        r.modified = 1_600_000_000;
        r.expires = 1_800_000_000;
        r.status = 200;
        r.reason = "why not".into();
        r.revivals = 3;
        r.size = 123_456_789;
        r.content_type = "text/html".into();
        r.charset = "windows-1257".into();
        r.language = "lv".into();
        r.lang_conf = 987;
        r.dict_ratio = 456;
        r.hash = [7; 32];
        r.etag = "\"abc\"".into();
        r.last_modified = "Tue, 15 Nov 1994 12:45:26 GMT".into();
        r.flags = Flags::NOFOLLOW | Flags::SEED;
        r.redirects = 3;
        r.charset_source = Some(Source::MetaLate);
        r.reclaims = 2;
        let enc = r.encode();
        // Every field but the lease, which the store keeps in the index.
        let lease = r.lease.take();
        assert_eq!(Record::decode(&enc).unwrap(), r);
        // A record written while the lease was in it still shows its lease.
        let l = lease.unwrap();
        let leased = Record { lease, ..r.clone() }.encode_with_lease();
        assert_eq!(Record::decode(&leased).unwrap().lease, lease);
        assert_eq!(Lease::decode(&l.encode()), lease);
        assert_eq!(Lease::decode(&l.encode()[1..]), None);
        // Without the last two fields, as records were written before them:
        // the same record, the source unknown and no reclaims.
        let old = &enc[..enc.len() - 2];
        let back = Record::decode(old).unwrap();
        assert_eq!(back.charset_source, None);
        assert_eq!(
            Record {
                charset_source: None,
                reclaims: 0,
                ..r.clone()
            },
            back
        );
        // Without the count alone: the source kept.
        let uncounted = Record::decode(&enc[..enc.len() - 1]).unwrap();
        assert_eq!(uncounted.charset_source, Some(Source::MetaLate));
        assert_eq!(uncounted.reclaims, 0);
        let mut bad = enc[..enc.len() - 1].to_vec();
        *bad.last_mut().unwrap() = 0xEE;
        assert_eq!(Record::decode(&bad), Err("unknown charset source"));
        assert_eq!(Record::decode_url(&enc).unwrap(), r.url);
        assert_eq!(Record::decode_addr(&enc).unwrap(), r.addr);
    }

    #[test]
    fn truncated_and_foreign_records_are_refused() {
        let enc = Record::new("http://a/", 1).encode();
        for n in 0..enc.len() {
            assert!(Record::decode(&enc[..n]).is_err(), "prefix {n} accepted");
        }
        let mut other = enc.clone();
        other[0] = 99;
        assert_eq!(
            Record::decode(&other),
            Err("record of another format version")
        );
    }

    #[test]
    fn reclaim_count_is_written_only_when_set() {
        let mut r = Record::new("http://a/", 1);
        let plain = r.encode();
        r.reclaims = 1;
        let counted = r.encode();
        // The count and the (unknown) charset source before it.
        assert_eq!(counted.len(), plain.len() + 2);
        assert_eq!(Record::decode(&counted).unwrap().reclaims, 1);
        assert_eq!(Record::decode(&plain).unwrap().reclaims, 0);
        let mut junk = counted.clone();
        junk.push(0);
        assert_eq!(Record::decode(&junk), Err("trailing bytes"));
    }

    #[test]
    fn state_names_parse_both_ways() {
        for s in State::ALL {
            assert_eq!(s.name().parse::<State>().unwrap(), s);
            assert_eq!(State::from_u8(s as u8), Some(s));
        }
        assert_eq!("fetched".parse::<State>().unwrap(), State::Fresh);
        assert!("bogus".parse::<State>().is_err());
        assert_eq!("quarantined".parse::<State>().unwrap(), State::Quarantined);
    }
}

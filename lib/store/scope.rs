//! The counts behind `--filter-quota` and `--filter-query-variants`, both
//! kept in [`Table::Quota`]: every record created through [`insert`] adds
//! one to its host's count, and one with a query string also to the count
//! of its host and path ([`url::variant_of`]), in the transaction that
//! creates it, so the counts are exact however many writers run and
//! outlive restarts. They are kept whether or not a cap is set, so a cap
//! set later in a crawl counts what is already there.
//!
//! A host's count is under the host's name; a path's under `?` and the
//! first 16 bytes of the BLAKE3 hash of its host and path (no host name
//! has a `?`), so an entry is 17 bytes of key and 8 of count whatever the
//! path's length, and there are never more of them than records.

use crate::error::Result;
use crate::store::db::{url_hash, Inserted, Table};
use crate::store::record::Record;
use crate::store::{Read, Write};
use crate::web::admit::{Filter, Refusal};
use crate::web::url;

fn decode(v: Option<Vec<u8>>) -> u64 {
    v.and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
        .map_or(0, u64::from_le_bytes)
}

/// The key of a path's count of query variants.
fn variant_key(variant: &str) -> [u8; 17] {
    let mut k = [b'?'; 17];
    k[1..].copy_from_slice(&url_hash(variant.as_bytes()));
    k
}

/// Records created for `host` so far.
pub fn count(w: &Write, host: &str) -> Result<u64> {
    Ok(decode(w.table_get(Table::Quota, host.as_bytes())?))
}

/// Records created for `host` so far, read outside a write.
pub fn count_read(r: &Read, host: &str) -> Result<u64> {
    Ok(decode(r.table_get(Table::Quota, host.as_bytes())?))
}

/// Records with a query string created so far for the host and path of
/// `u` (0 for a URL without a query), read outside a write.
pub fn variants_read(r: &Read, u: &str) -> Result<u64> {
    match url::variant_of(u) {
        Some(v) => Ok(decode(r.table_get(Table::Quota, &variant_key(&v))?)),
        None => Ok(0),
    }
}

/// Inserts `rec` as [`Write::insert`] does, unless it is a URL not yet
/// known whose host has `--filter-quota` records already, or which has a
/// query string and whose host and path have `--filter-query-variants`
/// such records already; then the refusal, and nothing is written. In a
/// cluster, a URL whose host another node owns goes into the outbox
/// instead, in this transaction ([`Inserted::Forwarded`]); its counts are
/// that node's to keep.
pub fn insert(
    w: &mut Write,
    rec: &Record,
    f: &Filter,
) -> Result<std::result::Result<Inserted, Refusal>> {
    if let Some(p) = crate::store::outbox::route(w, rec)? {
        return Ok(Ok(Inserted::Forwarded(p)));
    }
    let host = url::host_of(&rec.url);
    let n = count(w, host)?;
    let variant = url::variant_of(&rec.url);
    let vn = match &variant {
        Some(v) => decode(w.table_get(Table::Quota, &variant_key(v))?),
        None => 0,
    };
    let refusal = f
        .over_quota(host, n)
        .or_else(|| variant.as_deref().and_then(|v| f.over_variants(v, vn)));
    if let Some(why) = refusal {
        // A known URL is no new record: it stays as it is.
        return Ok(match w.lookup(&rec.url)? {
            Some((k, r)) => Ok(Inserted::Known(k, r.state)),
            None => Err(why),
        });
    }
    let ins = w.insert(rec)?;
    if let Inserted::New(_) = ins {
        w.table_put(
            Table::Quota,
            host.as_bytes(),
            &(n.saturating_add(1)).to_le_bytes(),
        )?;
        if let Some(v) = &variant {
            w.table_put(
                Table::Quota,
                &variant_key(v),
                &(vn.saturating_add(1)).to_le_bytes(),
            )?;
        }
    }
    Ok(Ok(ins))
}

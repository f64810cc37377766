//! The per-host record count behind `--filter-quota`: every record created
//! through [`insert`] adds one to its host's count in [`Table::Quota`], in
//! the transaction that creates it, so the count is exact however many
//! writers run. The count is kept whether or not a quota is set, so a quota
//! set later in a crawl counts what is already there.

use crate::error::Result;
use crate::store::db::{Inserted, Table};
use crate::store::record::Record;
use crate::store::{Read, Write};
use crate::web::admit::{Filter, Refusal};
use crate::web::url;

fn decode(v: Option<Vec<u8>>) -> u64 {
    v.and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
        .map_or(0, u64::from_le_bytes)
}

/// Records created for `host` so far.
pub fn count(w: &Write, host: &str) -> Result<u64> {
    Ok(decode(w.table_get(Table::Quota, host.as_bytes())?))
}

/// Records created for `host` so far, read outside a write.
pub fn count_read(r: &Read, host: &str) -> Result<u64> {
    Ok(decode(r.table_get(Table::Quota, host.as_bytes())?))
}

/// Inserts `rec` as [`Write::insert`] does, unless it is a URL not yet
/// known whose host has `--filter-quota` records already; then the
/// refusal, and nothing is written. In a cluster, a URL whose host another
/// node owns goes into the outbox instead, in this transaction
/// ([`Inserted::Forwarded`]); its quota is that node's to keep.
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
    if let Some(why) = f.over_quota(host, n) {
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
    }
    Ok(Ok(ins))
}

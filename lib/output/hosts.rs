//! nlpc-list --hosts: the crawl's yield per host (`store::harvest`), most
//! fetched first, and the overall harvest rate; then the addresses
//! nlpc-fetch has paused, why and till when.

use crate::error::Result;
use crate::run::clock;
use crate::stage::fetch::AddrEntry;
use crate::store::harvest::{self, HostYield};
use crate::store::Read;
use crate::web::admit::host_matches;

/// One host's line: host, pages fetched (judged), accepted, harvest rate
/// (accepted / fetched) and yield (accepted text bytes / downloaded
/// bytes), tab-separated; the ratios with three decimals.
pub fn tsv_line(host: &str, y: &HostYield) -> String {
    format!(
        "{host}\t{}\t{}\t{:.3}\t{:.3}",
        y.fetched,
        y.accepted,
        y.harvest(),
        y.yield_ratio()
    )
}

/// One host's JSON line, with the byte counts the ratios come from.
pub fn json_line(host: &str, y: &HostYield) -> String {
    serde_json::json!({
        "host": host,
        "fetched": y.fetched,
        "accepted": y.accepted,
        "bytes": y.bytes,
        "text_bytes": y.text,
        "harvest": y.harvest(),
        "yield": y.yield_ratio(),
    })
    .to_string()
}

/// The lines of `nlpc-list --hosts`: one a host (of `auth` and its
/// subdomains, or every host when empty), then, in the text form, a
/// `TOTAL` line over the hosts listed.
pub fn lines(rd: &Read, auth: &[String], json: bool) -> Result<Vec<String>> {
    let rep = harvest::report(rd)?;
    let mut total = HostYield::default();
    let mut out = Vec::new();
    for (h, y) in &rep.hosts {
        if !auth.is_empty() && !auth.iter().any(|a| host_matches(h, a)) {
            continue;
        }
        total.fetched += y.fetched;
        total.accepted += y.accepted;
        total.bytes = total.bytes.saturating_add(y.bytes);
        total.text = total.text.saturating_add(y.text);
        out.push(if json {
            json_line(h, y)
        } else {
            tsv_line(h, y)
        });
    }
    if !json {
        out.push(tsv_line("TOTAL", &total));
    }
    out.extend(paused_lines(rd, json, clock::real_now_ms())?);
    Ok(out)
}

/// One line per address nlpc-fetch has paused for its distress (see
/// nlpc-fetch(1)), as `Table::Addrs` records it: `PAUSED`, the address,
/// why, and till when (UTC), tab-separated; or a JSON object.
pub fn paused_lines(rd: &Read, json: bool, now_ms: u64) -> Result<Vec<String>> {
    let mut v = AddrEntry::all_paused(rd, now_ms)?;
    v.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(&b.0)));
    Ok(v.into_iter()
        .map(|(addr, why, until)| {
            if json {
                serde_json::json!({
                    "paused": addr,
                    "why": why.name(),
                    "until": until / 1000,
                })
                .to_string()
            } else {
                format!(
                    "PAUSED\t{addr}\t{}\t{}",
                    why.name(),
                    clock::iso8601(until / 1000)
                )
            }
        })
        .collect())
}

//! What arrives from the cluster is input from other machines, and whoever
//! holds credentials can publish: every link is checked as a message
//! (size, form, partition) and then admitted by this node's own admission
//! point exactly as a link found on one of its pages would be; every
//! counters row is checked field by field and filed in a form made here,
//! never as it came. A refusal is counted by its cause and logged once per
//! cause and sender (the node a message says it comes from), so a flood
//! of bad messages costs a few lines, not a line each.

use std::collections::{BTreeMap, BTreeSet};

use crate::info;
use crate::store::outbox::Entry;
use crate::store::record::State;
use crate::web::admit::{self, Filter};
use crate::web::partition::Partition;
use crate::web::url;

/// The header naming the node that sent a message.
pub const SENDER: &str = "Nlpc-Node";

/// The most a counters message may hold; a larger one is refused.
pub const MAX_STATS: usize = 16 * 1024;

/// Who sent a message, as it says: a node number, or "unknown" when it
/// names none or a node the cluster does not have.
pub fn sender(of: u32, header: Option<&str>) -> String {
    match header.and_then(|h| h.trim().parse::<u32>().ok()) {
        Some(n) if n < of => format!("node {n}"),
        _ => "an unknown sender".into(),
    }
}

/// Refusals counted by cause, each logged once per cause and sender.
#[derive(Debug, Default)]
pub struct Tally {
    pub by_cause: BTreeMap<&'static str, u64>,
    logged: BTreeSet<(&'static str, String)>,
}

impl Tally {
    /// Counts a refusal of `what` (a URL or a subject, cut short when
    /// shown) for `cause`, from `from`; logs the first of each cause and
    /// sender.
    pub fn refuse(&mut self, cause: &'static str, from: &str, what: &str, detail: &str) {
        *self.by_cause.entry(cause).or_default() += 1;
        if self.logged.insert((cause, from.to_string())) {
            info!(
                "refused from {from}: {cause}: {}{}; more of this cause from this sender are counted, not logged",
                admit::shown(what),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({detail})")
                }
            );
        }
    }

    pub fn total(&self) -> u64 {
        self.by_cause.values().sum()
    }

    /// The counts as a JSON object.
    pub fn json(&self) -> serde_json::Value {
        self.by_cause
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect::<serde_json::Map<_, _>>()
            .into()
    }
}

/// A link this node may insert: the URL in its admitted (normalised)
/// form, and the depth the sender counted.
#[derive(Debug, PartialEq, Eq)]
pub struct Admitted {
    pub url: String,
    pub depth: u16,
}

/// Checks one link message for node `me`: its size, its form, its
/// partition, then this node's admission of its URL at its depth
/// ([`Filter::admit_link`] from the page one link before, as nlpc-scan
/// admits a link; a seed, depth 0, as [`Filter::admit`] admits a seed).
/// The sender's depth cannot be checked, only bounded: over
/// `--filter-depth` it is refused. Err is the cause and what to show.
pub fn link(
    me: Partition,
    filter: &Filter,
    payload: &[u8],
) -> Result<Admitted, (&'static str, String, String)> {
    // An entry is 6 bytes and the URL; a URL is at most --max-url-length,
    // checked on the bytes before anything is decoded.
    let cap = filter.max_len.saturating_add(6);
    if payload.len() > cap {
        return Err((
            "message too large",
            String::from_utf8_lossy(&payload[..payload.len().min(admit::SHOWN)]).into_owned(),
            format!("{} bytes, limit {cap}", payload.len()),
        ));
    }
    let Some(e) = Entry::decode([0; 16], payload) else {
        return Err((
            "not a link message",
            String::from_utf8_lossy(payload).into_owned(),
            format!("{} bytes", payload.len()),
        ));
    };
    if e.partition != me.node {
        return Err((
            "sent for another node",
            e.url.clone(),
            format!("for node {}", e.partition),
        ));
    }
    let admitted = match e.depth.checked_sub(1) {
        Some(parent) => filter.admit_link(&e.url, None, parent),
        None => filter.admit(&e.url, None),
    };
    let u = admitted.map_err(|why| (why.kind(), e.url.clone(), why.to_string()))?;
    let host = url::host_of(&u).to_ascii_lowercase();
    if !me.owns(&host) {
        return Err((
            "host of another node",
            u.clone(),
            format!("node {} owns {}", me.of_host(&host), admit::shown(&host)),
        ));
    }
    Ok(Admitted {
        url: u,
        depth: e.depth,
    })
}

/// A counters row from node `n` of `me`'s cluster, checked field by field
/// and made again from the fields it must have, or why not.
pub fn stats_row(me: Partition, n: u32, payload: &[u8]) -> Result<Vec<u8>, String> {
    if payload.len() > MAX_STATS {
        return Err(format!("{} bytes, limit {MAX_STATS}", payload.len()));
    }
    if n == me.node {
        return Err("counters of this node, which it files itself".into());
    }
    let v: serde_json::Value =
        serde_json::from_slice(payload).map_err(|e| format!("not JSON: {e}"))?;
    let num = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| format!("no whole number {k:?}"))
    };
    if num("node")? != u64::from(n) || num("of")? != u64::from(me.of) {
        return Err(format!(
            "says node {}/{}, sent as {n}/{}",
            v["node"], v["of"], me.of
        ));
    }
    let time = num("time")?;
    let outbox = num("outbox")?;
    let refused = v.get("refused").map_or(Ok(0), |r| {
        r.as_u64()
            .ok_or_else(|| "\"refused\" is not a whole number".to_string())
    })?;
    let states = v
        .get("states")
        .and_then(serde_json::Value::as_object)
        .ok_or("no \"states\" object")?;
    let mut clean = serde_json::Map::new();
    for (k, c) in states {
        let Some(s) = State::ALL.iter().find(|s| s.name() == k) else {
            return Err(format!("unknown state {}", admit::cut(k, 32)));
        };
        let c = c
            .as_u64()
            .ok_or_else(|| format!("count of {} is not a whole number", s.name()))?;
        clean.insert(s.name().to_string(), c.into());
    }
    let row = serde_json::json!({
        "node": n,
        "of": me.of,
        "time": time,
        "outbox": outbox,
        "refused": refused,
        "states": clean,
    });
    Ok(row.to_string().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Partition {
        Partition { node: 1, of: 2 }
    }

    fn host_of_node(p: u32) -> String {
        (0..)
            .map(|i| format!("h{i}.lv"))
            .find(|h| crate::web::partition::partition_of(h, 2) == p)
            .unwrap()
    }

    fn msg(partition: u32, depth: u16, url: &str) -> Vec<u8> {
        Entry {
            hash: [0; 16],
            partition,
            depth,
            url: url.into(),
        }
        .encode()
    }

    #[test]
    fn a_relayed_link_is_admitted_as_a_link_found_here() {
        let f = Filter {
            auth: vec!["lv".into()],
            link_depth: Some(3),
            max_depth: 4,
            ..Filter::default()
        };
        let h = host_of_node(1);
        let ok = link(
            me(),
            &f,
            &msg(1, 2, &format!("HTTP://{}:80/./a", h.to_uppercase())),
        );
        assert_eq!(
            ok,
            Ok(Admitted {
                url: format!("http://{h}/a"),
                depth: 2
            })
        );
        // A seed (depth 0) passes as a seed does.
        assert!(link(me(), &f, &msg(1, 0, &format!("http://{h}/"))).is_ok());
        // Credentials another node's page wrote go no further here.
        assert_eq!(
            link(me(), &f, &msg(1, 2, &format!("http://u:secret@{h}/a"))),
            Ok(Admitted {
                url: format!("http://{h}/a"),
                depth: 2
            })
        );
        let cause = |m: Vec<u8>| link(me(), &f, &m).unwrap_err().0;
        assert_eq!(
            cause(msg(1, 4, &format!("http://{h}/a"))),
            "too many links from the seeds"
        );
        assert_eq!(cause(msg(1, 1, "http://example.com/")), "host not allowed");
        assert_eq!(cause(msg(1, 1, "http://10.1.2.3/")), "host not allowed");
        let open = Filter::default();
        assert_eq!(
            link(me(), &open, &msg(1, 1, "http://10.1.2.3/"))
                .unwrap_err()
                .0,
            "private address not allowed"
        );
        assert_eq!(
            cause(msg(1, 1, &format!("http://{h}/a/b/c/d/e"))),
            "path too deep"
        );
        assert_eq!(
            cause(msg(1, 1, &format!("ftp://{h}/"))),
            "scheme not allowed"
        );
        assert_eq!(
            cause(msg(0, 1, &format!("http://{h}/"))),
            "sent for another node"
        );
        assert_eq!(
            cause(msg(1, 1, &format!("http://{}/", host_of_node(0)))),
            "host of another node"
        );
        assert_eq!(cause(b"junk".to_vec()), "not a link message");
        assert_eq!(
            cause(vec![1, 0, 0, 0, 0, 0, 0xff, 0xfe]),
            "not a link message"
        );
        assert_eq!(
            cause(msg(1, 1, &format!("http://{h}/{}", "a".repeat(2000)))),
            "message too large"
        );
        // Within the message's cap, too long once normalised (each "ž"
        // percent-encoded into six bytes), as a link on a page would be.
        assert_eq!(
            cause(msg(1, 1, &format!("http://{h}/{}", "ž".repeat(500)))),
            "URL too long"
        );
    }

    #[test]
    fn counters_rows_are_made_again_from_checked_fields() {
        let good = br#"{"node":0,"of":2,"time":5,"outbox":3,"states":{"NEW":4},"extra":"x"}"#;
        let row: serde_json::Value =
            serde_json::from_slice(&stats_row(me(), 0, good).unwrap()).unwrap();
        assert_eq!(row["states"]["NEW"], 4);
        assert!(row.get("extra").is_none());
        for (n, bad) in [
            (
                0,
                &br#"{"node":1,"of":2,"time":5,"outbox":3,"states":{}}"#[..],
            ),
            (0, br#"{"node":0,"of":3,"time":5,"outbox":3,"states":{}}"#),
            (0, br#"{"node":0,"of":2,"time":-1,"outbox":3,"states":{}}"#),
            (
                0,
                br#"{"node":0,"of":2,"time":5,"outbox":3,"states":{"EVIL":1}}"#,
            ),
            (
                0,
                br#"{"node":0,"of":2,"time":5,"outbox":3,"states":{"NEW":"many"}}"#,
            ),
            (0, b"not json"),
            (1, br#"{"node":1,"of":2,"time":5,"outbox":3,"states":{}}"#),
        ] {
            assert!(
                stats_row(me(), n, bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let big = format!(r#"{{"node":0,"of":2,"pad":"{}"}}"#, "x".repeat(MAX_STATS));
        assert!(stats_row(me(), 0, big.as_bytes())
            .unwrap_err()
            .contains("limit"));
    }

    #[test]
    fn a_refusal_is_logged_once_per_cause_and_sender_and_counted_always() {
        let mut t = Tally::default();
        for _ in 0..3 {
            t.refuse("URL too long", "node 0", "http://a.lv/", "");
            t.refuse("URL too long", "node 2", "http://a.lv/", "");
        }
        t.refuse("not a link message", "node 0", "x", "1 bytes");
        assert_eq!(t.total(), 7);
        assert_eq!(t.by_cause["URL too long"], 6);
        assert_eq!(t.logged.len(), 3);
        assert_eq!(sender(3, Some("2")), "node 2");
        assert_eq!(sender(3, Some("3")), "an unknown sender");
        assert_eq!(sender(3, None), "an unknown sender");
    }
}

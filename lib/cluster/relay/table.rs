//! The `cluster` table: every node's latest counters, filed by nlpc-relay
//! under the node's number, and the monitor's rows made from them.

use crate::error::Result;
use crate::run::clock;
use crate::store::outbox;
use crate::store::{Store, Table};

/// The key of a node in the `cluster` table: its number, big-endian, so
/// the nodes walk in order.
pub fn node_key(n: u32) -> [u8; 4] {
    n.to_be_bytes()
}

/// The latest counters of every node, in node order, as filed.
pub fn nodes(store: &Store) -> Result<Vec<(u32, serde_json::Value)>> {
    let rd = store.read()?;
    let mut out = Vec::new();
    rd.table_walk(Table::Cluster, &[], |k, v| {
        if let (Ok(k), Ok(v)) = (<[u8; 4]>::try_from(k), serde_json::from_slice(v)) {
            out.push((u32::from_be_bytes(k), v));
        }
        Ok(true)
    })?;
    Ok(out)
}

/// The monitor's rows of a cluster: a heading and one row a node, from
/// the latest counters filed (this node's outbox as it is now); nothing
/// outside a cluster.
pub fn rows(store: &Store) -> Result<Vec<String>> {
    let nodes = nodes(store)?;
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    let (me, waiting) = {
        let rd = store.read()?;
        (outbox::map(&rd)?.map(|p| p.node), outbox::len(&rd)?)
    };
    let now = clock::real_now();
    let mut out = vec![
        String::new(),
        format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8}",
            "NODE", "RECORDS", "VERIFIED", "NEW", "OUTBOX", "REFUSED", "AGE"
        ),
    ];
    for (n, v) in nodes {
        let state = |k: &str| v["states"][k].as_u64().unwrap_or(0);
        let total: u64 = v["states"]
            .as_object()
            .map(|m| m.values().filter_map(|x| x.as_u64()).sum())
            .unwrap_or(0);
        let age = now.saturating_sub(v["time"].as_u64().unwrap_or(0));
        let outbox = if Some(n) == me {
            waiting
        } else {
            v["outbox"].as_u64().unwrap_or(0)
        };
        out.push(format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>8} {:>7}s",
            format!("{n}/{}", v["of"].as_u64().unwrap_or(0)),
            total,
            state("VERIFIED") + state("SCANNED"),
            state("NEW") + state("READY"),
            outbox,
            v["refused"].as_u64().unwrap_or(0),
            age
        ));
    }
    Ok(out)
}

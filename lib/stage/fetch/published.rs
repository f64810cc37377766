//! The figures nlpc-fetch publishes once a second in `Table::Stats` for
//! nlpcd's monitor, as one type both sides use: the fetcher writes it with
//! [`Published::to_json`], the monitor reads it with
//! [`Published::from_json`], so a key is named in one place only (they
//! were written here and read back there by string, and a renamed key
//! would have shown 0). A key missing from the stored object reads as
//! zero or empty: an older fetcher's figures still show.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

/// nlpc-fetch's figures for the monitor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Published {
    pub pid: u64,
    /// When they were written, Unix seconds.
    pub time: u64,
    /// Running totals since the fetcher started.
    pub pages: u64,
    pub bytes: u64,
    pub errors: u64,
    pub robots: u64,
    pub connections: u64,
    /// Pages asked again after their address's distress.
    pub deferred: u64,
    /// Pauses begun.
    pub pauses: u64,
    /// What is being served now.
    pub in_flight: u64,
    pub queued: u64,
    pub addresses: u64,
    pub resting: u64,
    /// Addresses paused now, and the first few: address, why, till when
    /// (Unix seconds).
    pub paused: u64,
    pub paused_list: Vec<(String, String, u64)>,
    /// Hosts with the most pages in the last minute, and pages.
    pub top: Vec<(String, u64)>,
    /// The last few failures, newest last.
    pub recent: Vec<String>,
    /// UNREACH records by kind.
    pub kinds: BTreeMap<String, u64>,
    /// Hosts with the longest mean answer time in the last minute: host,
    /// mean ms, answers.
    pub slowest: Vec<(String, u64, u64)>,
}

fn num(o: &Map<String, Value>, k: &str) -> u64 {
    o.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn items<T>(o: &Map<String, Value>, k: &str, f: impl Fn(&Value) -> Option<T>) -> Vec<T> {
    o.get(k)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(&f).collect())
        .unwrap_or_default()
}

fn text(v: &Value, i: usize) -> Option<String> {
    Some(v.get(i)?.as_str()?.to_string())
}

impl Published {
    pub fn to_json(&self) -> String {
        json!({
            "pid": self.pid,
            "time": self.time,
            "pages": self.pages,
            "bytes": self.bytes,
            "errors": self.errors,
            "robots": self.robots,
            "connections": self.connections,
            "deferred": self.deferred,
            "pauses": self.pauses,
            "in_flight": self.in_flight,
            "queued": self.queued,
            "addresses": self.addresses,
            "resting": self.resting,
            "paused": self.paused,
            "paused_list": self.paused_list.iter().map(|(a, w, t)| json!([a, w, t])).collect::<Vec<_>>(),
            "top": self.top.iter().map(|(h, n)| json!([h, n])).collect::<Vec<_>>(),
            "recent": self.recent,
            "kinds": self.kinds,
            "slowest": self.slowest.iter().map(|(h, ms, n)| json!([h, ms, n])).collect::<Vec<_>>(),
        })
        .to_string()
    }

    /// The figures stored in `v`; None when it is no JSON object.
    pub fn from_json(v: &[u8]) -> Option<Published> {
        let v: Value = serde_json::from_slice(v).ok()?;
        let o = v.as_object()?;
        Some(Published {
            pid: num(o, "pid"),
            time: num(o, "time"),
            pages: num(o, "pages"),
            bytes: num(o, "bytes"),
            errors: num(o, "errors"),
            robots: num(o, "robots"),
            connections: num(o, "connections"),
            deferred: num(o, "deferred"),
            pauses: num(o, "pauses"),
            in_flight: num(o, "in_flight"),
            queued: num(o, "queued"),
            addresses: num(o, "addresses"),
            resting: num(o, "resting"),
            paused: num(o, "paused"),
            paused_list: items(o, "paused_list", |e| {
                Some((text(e, 0)?, text(e, 1)?, e.get(2)?.as_u64()?))
            }),
            top: items(o, "top", |e| Some((text(e, 0)?, e.get(1)?.as_u64()?))),
            recent: items(o, "recent", |e| Some(e.as_str()?.to_string())),
            kinds: o
                .get("kinds")
                .and_then(Value::as_object)
                .map(|k| {
                    k.iter()
                        .filter_map(|(k, n)| Some((k.clone(), n.as_u64()?)))
                        .collect()
                })
                .unwrap_or_default(),
            slowest: items(o, "slowest", |e| {
                Some((text(e, 0)?, e.get(1)?.as_u64()?, e.get(2)?.as_u64()?))
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_comes_back_as_it_went() {
        let p = Published {
            pid: 42,
            time: 1_795_880_520,
            pages: 1,
            bytes: 2,
            errors: 3,
            robots: 4,
            connections: 5,
            deferred: 6,
            pauses: 7,
            in_flight: 8,
            queued: 9,
            addresses: 10,
            resting: 11,
            paused: 12,
            paused_list: vec![("192.0.2.7".into(), "HTTP 503".into(), 1_795_880_600)],
            top: vec![("a.test".into(), 13)],
            recent: vec!["http://a.test/: timeout".into()],
            kinds: [("timeout".to_string(), 14)].into_iter().collect(),
            slowest: vec![("b.test".into(), 15, 16)],
        };
        assert_eq!(Published::from_json(p.to_json().as_bytes()), Some(p));
    }

    #[test]
    fn missing_keys_read_as_nothing_and_junk_as_none() {
        let p = Published::from_json(br#"{"pages": 3, "top": [["h", "x"], ["g", 2]]}"#)
            .expect("an object");
        assert_eq!(p.pages, 3);
        assert_eq!(p.top, vec![("g".to_string(), 2)]);
        assert_eq!(p.bytes, 0);
        assert_eq!(Published::from_json(b"[1, 2]"), None);
        assert_eq!(Published::from_json(b"not json"), None);
    }
}

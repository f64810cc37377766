//! The figures nlpc-fetch publishes once a second in `Table::Stats` for
//! nlpcd's monitor, as one type both sides use: the fetcher writes it with
//! [`Published::to_json`], the monitor reads it with
//! [`Published::from_json`], both derived by serde from the struct, so a
//! key is named in one place only (they were written here and read back
//! there by string, and a renamed key would have shown 0). A key missing
//! from the stored object reads as zero or empty, and an entry of the
//! wrong shape is left out: an older fetcher's figures still show.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// nlpc-fetch's figures for the monitor.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Published {
    #[serde(deserialize_with = "lenient")]
    pub pid: u64,
    /// When they were written, Unix seconds.
    #[serde(deserialize_with = "lenient")]
    pub time: u64,
    /// Running totals since the fetcher started.
    #[serde(deserialize_with = "lenient")]
    pub pages: u64,
    #[serde(deserialize_with = "lenient")]
    pub bytes: u64,
    #[serde(deserialize_with = "lenient")]
    pub errors: u64,
    #[serde(deserialize_with = "lenient")]
    pub robots: u64,
    #[serde(deserialize_with = "lenient")]
    pub connections: u64,
    /// Pages asked again after their address's distress.
    #[serde(deserialize_with = "lenient")]
    pub deferred: u64,
    /// Pauses begun.
    #[serde(deserialize_with = "lenient")]
    pub pauses: u64,
    /// What is being served now.
    #[serde(deserialize_with = "lenient")]
    pub in_flight: u64,
    #[serde(deserialize_with = "lenient")]
    pub queued: u64,
    #[serde(deserialize_with = "lenient")]
    pub addresses: u64,
    #[serde(deserialize_with = "lenient")]
    pub resting: u64,
    /// Addresses paused now, and the first few: address, why, till when
    /// (Unix seconds).
    #[serde(deserialize_with = "lenient")]
    pub paused: u64,
    #[serde(deserialize_with = "each")]
    pub paused_list: Vec<(String, String, u64)>,
    /// Hosts with the most pages in the last minute, and pages.
    #[serde(deserialize_with = "each")]
    pub top: Vec<(String, u64)>,
    /// The last few failures, newest last.
    #[serde(deserialize_with = "each")]
    pub recent: Vec<String>,
    /// UNREACH records by kind.
    #[serde(deserialize_with = "each_entry")]
    pub kinds: BTreeMap<String, u64>,
    /// Hosts with the longest mean answer time in the last minute: host,
    /// mean ms, answers.
    #[serde(deserialize_with = "each")]
    pub slowest: Vec<(String, u64, u64)>,
}

/// A value of the wrong type reads as the default, as a missing one does,
/// rather than losing the whole object.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    Ok(T::deserialize(Value::deserialize(d)?).unwrap_or_default())
}

/// The entries of a list that have the right shape.
fn each<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|v| T::deserialize(v).ok())
            .collect(),
        _ => Vec::new(),
    })
}

/// The entries of a map whose value is a count.
fn each_entry<'de, D>(d: D) -> Result<BTreeMap<String, u64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(d)? {
        Value::Object(o) => o
            .into_iter()
            .filter_map(|(k, v)| Some((k, v.as_u64()?)))
            .collect(),
        _ => BTreeMap::new(),
    })
}

impl Published {
    pub fn to_json(&self) -> String {
        crate::stage::figures_to_json(self)
    }

    /// The figures stored in `v`; None when it is no JSON object.
    pub fn from_json(v: &[u8]) -> Option<Published> {
        crate::stage::figures_from_json(v)
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
        let p = Published::from_json(
            br#"{"pages": 3, "bytes": "x", "top": [["h", "x"], ["g", 2]], "kinds": {"a": 1, "b": -1}}"#,
        )
        .expect("an object");
        assert_eq!(p.pages, 3);
        assert_eq!(p.bytes, 0);
        assert_eq!(p.top, vec![("g".to_string(), 2)]);
        assert_eq!(p.kinds, [("a".to_string(), 1)].into_iter().collect());
        assert_eq!(
            Published::from_json(b"{}"),
            Some(Published::default()),
            "an empty object is all zeros"
        );
        assert_eq!(Published::from_json(b"[1, 2]"), None);
        assert_eq!(Published::from_json(b"not json"), None);
    }

    /// What a fetcher wrote before it heard distress (no `deferred`,
    /// `pauses`, `paused`, `paused_list`), as it wrote it.
    #[test]
    fn an_older_fetchers_figures_still_read() {
        let old = br#"{"addresses":2,"bytes":5120,"connections":3,"errors":1,"in_flight":1,"kinds":{"timeout":1},"pages":7,"pid":4242,"queued":4,"recent":["http://a.test/x: timeout"],"resting":1,"robots":2,"slowest":[["a.test",850,3]],"time":1795880520,"top":[["a.test",5],["b.test",2]]}"#;
        let p = Published::from_json(old).expect("an object");
        assert_eq!(
            p,
            Published {
                pid: 4242,
                time: 1_795_880_520,
                pages: 7,
                bytes: 5120,
                errors: 1,
                robots: 2,
                connections: 3,
                in_flight: 1,
                queued: 4,
                addresses: 2,
                resting: 1,
                top: vec![("a.test".into(), 5), ("b.test".into(), 2)],
                recent: vec!["http://a.test/x: timeout".into()],
                kinds: [("timeout".to_string(), 1)].into_iter().collect(),
                slowest: vec![("a.test".into(), 850, 3)],
                ..Published::default()
            }
        );
    }
}

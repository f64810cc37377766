//! The parsed robots.txt rules in memory, bounded by size: each entry's
//! heap is estimated, and past the cap the least recently used entries are
//! dropped. A dropped entry is read again from the REP cache on disk when
//! its origin comes up again.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::web::robots::Robots;

/// The default cap on the memory of the parsed rules: about 130 origins
/// whose robots.txt is at the 500 KiB limit, or tens of thousands of
/// ordinary ones.
pub const DEFAULT_CAP: usize = 64 << 20;

/// One origin's rules.
#[derive(Clone, Debug)]
pub struct Rules {
    pub robots: Arc<Robots>,
    /// Until when they hold, Unix seconds.
    pub expires: u64,
    /// Why everything is refused, when it is (the record's reason).
    pub refusal: Option<String>,
}

struct Slot {
    rules: Rules,
    bytes: usize,
    used: u64,
}

/// Parsed rules by origin, least recently used dropped past `cap` bytes.
pub struct RulesCache {
    cap: usize,
    bytes: usize,
    tick: u64,
    slots: HashMap<String, Slot>,
    /// Last use → origin: the oldest first.
    order: BTreeMap<u64, String>,
}

/// What an entry costs: its rules' heap, the origin twice (key and order),
/// and the bookkeeping around them.
fn cost(origin: &str, r: &Rules) -> usize {
    r.robots.heap_size()
        + std::mem::size_of::<Robots>()
        + 2 * origin.len()
        + r.refusal.as_ref().map_or(0, |s| s.len())
        + 128
}

impl RulesCache {
    pub fn new(cap: usize) -> RulesCache {
        RulesCache {
            cap,
            bytes: 0,
            tick: 0,
            slots: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    /// Bytes held, as estimated.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The rules of `origin`, marked as just used.
    pub fn get(&mut self, origin: &str) -> Option<Rules> {
        self.tick += 1;
        let tick = self.tick;
        let slot = self.slots.get_mut(origin)?;
        self.order.remove(&slot.used);
        slot.used = tick;
        self.order.insert(tick, origin.to_string());
        Some(slot.rules.clone())
    }

    /// Keeps the rules of `origin`, dropping the least recently used
    /// entries while the total is over the cap. The newest entry stays even
    /// when it alone is over the cap: it is about to be used.
    pub fn insert(&mut self, origin: String, rules: Rules) {
        self.remove(&origin);
        self.tick += 1;
        let bytes = cost(&origin, &rules);
        self.bytes += bytes;
        self.order.insert(self.tick, origin.clone());
        self.slots.insert(
            origin,
            Slot {
                rules,
                bytes,
                used: self.tick,
            },
        );
        while self.bytes > self.cap && self.slots.len() > 1 {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(s) = self.slots.remove(&oldest) {
                self.bytes -= s.bytes;
            }
        }
    }

    pub fn remove(&mut self, origin: &str) {
        if let Some(s) = self.slots.remove(origin) {
            self.order.remove(&s.used);
            self.bytes -= s.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(body: &str) -> Rules {
        Rules {
            robots: Arc::new(Robots::parse(body.as_bytes())),
            expires: 1,
            refusal: None,
        }
    }

    #[test]
    fn sizes_grow_with_the_file() {
        let small = rules("User-agent: *\nDisallow: /a\n");
        let body: String = (0..1000)
            .map(|i| format!("Disallow: /path/number/{i}\n"))
            .collect();
        let big = rules(&format!("User-agent: *\n{body}"));
        let (s, b) = (cost("http://a", &small), cost("http://a", &big));
        assert!(s < 1024, "{s}");
        // A thousand rules of some 20 bytes each, plus their vector.
        assert!(b > 20_000 && b < 200_000, "{b}");
    }

    #[test]
    fn accounting_and_least_recently_used_eviction() {
        let r = rules("User-agent: *\nDisallow: /a\n");
        let one = cost("http://a.test", &r);
        let mut c = RulesCache::new(3 * one);
        for o in ["http://a.test", "http://b.test", "http://c.test"] {
            c.insert(o.into(), r.clone());
        }
        assert_eq!((c.len(), c.bytes()), (3, 3 * one));
        // a is used, so b is now the oldest and goes first.
        assert!(c.get("http://a.test").is_some());
        c.insert("http://d.test".into(), r.clone());
        assert_eq!((c.len(), c.bytes()), (3, 3 * one));
        assert!(c.get("http://b.test").is_none());
        for o in ["http://a.test", "http://c.test", "http://d.test"] {
            assert!(c.get(o).is_some(), "{o}");
        }
        // Replacing an entry does not count it twice.
        c.insert("http://d.test".into(), r.clone());
        assert_eq!(c.bytes(), 3 * one);
        // One entry larger than the whole cap evicts all others but stays.
        let body: String = (0..500).map(|i| format!("Disallow: /{i}\n")).collect();
        let big = rules(&format!("User-agent: *\n{body}"));
        let big_cost = cost("http://big.test", &big);
        assert!(big_cost > 3 * one);
        c.insert("http://big.test".into(), big);
        assert_eq!((c.len(), c.bytes()), (1, big_cost));
        c.remove("http://big.test");
        assert_eq!((c.len(), c.bytes()), (0, 0));
        assert!(c.is_empty());
    }
}

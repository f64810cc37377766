//! nlpc-up: expiry, revival, death and pruning — the part of the crawl that
//! keeps it fresh and keeps dead URLs from coming back as new.
//!
//! One pass walks the states nlpc-up acts on and moves every record that is
//! due. Records are picked in a read snapshot and moved in short write
//! transactions that look at each record again first, so a record another
//! daemon leased or moved meanwhile is left alone without any lease of ours.

use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::options::Parsed;
use crate::stage::resolve::{HostEntry, Outcome};
use crate::store::cache::Cache;
use crate::store::record::{Record, State};
use crate::store::sched::{Entry, Policy};
use crate::store::select::Selector;
use crate::store::{Key, Read, Store, Table, Write};
use crate::{debug, info};

const DAY: u64 = 86_400;

/// How nlpc-up works. Times are seconds.
#[derive(Clone, Debug)]
pub struct Config {
    /// `--ttexp`: a SCANNED record is re-fetched this long after its fetch.
    pub ttexp: u64,
    /// `--ttmin`: but never sooner than this, whatever the server says.
    pub ttmin: u64,
    /// `--ttrev`: an UNREACH record is revived this long after it failed.
    pub ttrev: u64,
    /// `--rtdead`: failed revivals in a row after which a record is DEAD.
    pub rtdead: u16,
    /// `--ttdel`: a DEAD record is pruned this long after it died.
    pub ttdel: u64,
    /// `--ttrej`: REJECTED, EXCLUDED and REDIRECT records are fetched again
    /// this long after they got there.
    pub ttrej: u64,
    /// `--ttaddr`: a record sent to be fetched again whose address was
    /// resolved longer ago than this goes back through nlpc-resolve (NEW)
    /// rather than to DIRTY.
    pub ttaddr: u64,
    /// Only these records are touched (`-s`, `--auth`, pattern).
    pub select: Selector,
    /// Records moved per write transaction at the most.
    pub batch: usize,
    /// Due records a timed pass holds at once (their keys, read from one
    /// snapshot, then moved): a bound on its heap whatever is due.
    pub chunk: usize,
    /// Pages a write transaction may dirty, by [`batch_for`]'s estimate.
    /// LMDB holds the pages a write transaction dirties in the heap until
    /// the commit. In a small database the records moved share pages; in
    /// a large one each dirties a leaf of its own in `records`, `sched`
    /// and `index`, and branch pages above them, more the deeper the
    /// trees: a bound on records alone let the heap grow with the
    /// database, one on pages keeps it flat.
    pub pages: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            ttexp: 10 * DAY,
            ttmin: DAY,
            ttrev: 5 * DAY,
            rtdead: 5,
            ttdel: 5 * DAY,
            ttrej: 10 * DAY,
            ttaddr: DAY,
            select: Selector::default(),
            batch: 4096,
            chunk: CHUNK,
            // 4 MB of dirty pages (scripts/bench/scale).
            pages: 1024,
        }
    }
}

impl Config {
    /// The timing the due index follows.
    pub fn policy(&self) -> Policy {
        Policy {
            ttexp: self.ttexp,
            ttmin: self.ttmin,
            ttrej: self.ttrej,
            ttrev: self.ttrev,
            ttdel: self.ttdel,
            rtdead: self.rtdead,
        }
    }

    /// nlpc-up's configuration from its options.
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let ttexp = o.duration("ttexp")?.as_secs();
        let cfg = Config {
            ttexp,
            ttmin: o.duration("ttmin")?.as_secs(),
            ttrev: o.duration("ttrev")?.as_secs(),
            rtdead: o.int("rtdead")?,
            ttdel: o.duration("ttdel")?.as_secs(),
            ttrej: o.duration_opt("ttrej")?.map_or(ttexp, |d| d.as_secs()),
            ttaddr: o.duration("ttaddr")?.as_secs(),
            select: o.selector()?,
            ..Config::default()
        };
        if cfg.ttmin > cfg.ttexp {
            return Err(Error::Usage("--ttmin is longer than --ttexp".into()));
        }
        Ok(cfg)
    }
}

/// The `--force-*` actions asked for, checked against each other and the
/// selected states.
pub fn actions(o: &Parsed, cfg: &Config) -> Result<Vec<Action>> {
    let actions: Vec<Action> = [
        ("force-exp", Action::Expire),
        ("force-rev", Action::Revive),
        ("force-dead", Action::Kill),
        ("force-del", Action::Prune),
    ]
    .into_iter()
    .filter(|(opt, _)| o.flag(opt))
    .map(|(_, a)| a)
    .collect();
    // Of expiry, revival and death only one makes sense at a time; death
    // and pruning together purge.
    let exclusive = actions.iter().filter(|a| **a != Action::Prune).count();
    if exclusive > 1 {
        return Err(Error::Usage(
            "--force-exp, --force-rev and --force-dead exclude each other".into(),
        ));
    }
    for s in &cfg.select.states {
        if !actions.is_empty() && !actions.iter().any(|a| a.applies_to(*s)) {
            let names: Vec<&str> = actions.iter().map(|a| a.option()).collect();
            return Err(Error::Usage(format!(
                "{} does not apply to {s} records",
                names.join(" ")
            )));
        }
    }
    Ok(actions)
}

/// What nlpc-up does to one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// SCANNED, REJECTED, EXCLUDED or REDIRECT → DIRTY, to be fetched again.
    Expire,
    /// UNREACH (or, by hand, DEAD) → DIRTY, one more revival counted;
    /// by hand, QUARANTINED → NEW.
    Revive,
    /// → DEAD.
    Kill,
    /// DEAD → GONE: everything but the URL forgotten, the cached body removed.
    Prune,
}

impl Action {
    /// The force option that asks for this action.
    pub fn option(self) -> &'static str {
        match self {
            Action::Expire => "--force-exp",
            Action::Revive => "--force-rev",
            Action::Kill => "--force-dead",
            Action::Prune => "--force-del",
        }
    }

    /// The states the action applies to when forced. Kill applies to every
    /// live state, but only when they are named with `-s`; so does Revive
    /// to QUARANTINED records, which go back only when asked for by name
    /// (after the defect that set them aside is fixed).
    pub fn applies_to(self, s: State) -> bool {
        match self {
            Action::Expire => EXPIRING.contains(&s),
            Action::Revive => matches!(s, State::Unreach | State::Dead | State::Quarantined),
            Action::Kill => !matches!(s, State::Dead | State::Gone),
            Action::Prune => s == State::Dead,
        }
    }

    /// The states a forced action selects when `-s` is not given.
    pub fn default_states(self) -> &'static [State] {
        match self {
            Action::Expire => &EXPIRING,
            Action::Revive => &[State::Unreach, State::Dead],
            Action::Kill => &[State::Unreach],
            Action::Prune => &[State::Dead],
        }
    }
}

/// States whose records are fetched again after a while.
const EXPIRING: [State; 4] = [
    State::Scanned,
    State::Rejected,
    State::Excluded,
    State::Redirect,
];

/// The states a timed pass walks. DEAD comes before UNREACH so a record
/// killed in a pass is not pruned in the same pass.
const WALKED: [State; 6] = [
    State::Dead,
    State::Unreach,
    State::Scanned,
    State::Rejected,
    State::Excluded,
    State::Redirect,
];

/// When a SCANNED record fetched at `r.fetched` expires, before any
/// adaptation of its interval: `ttexp` after the fetch, or sooner when the
/// server said so, but never before `ttmin`.
pub fn expiry_time(cfg: &Config, r: &Record) -> u64 {
    let mut s = r.clone();
    s.state = State::Scanned;
    cfg.policy()
        .due_time(&s, &Entry::default())
        .unwrap_or(u64::MAX)
}

/// What nlpc-up does to a record of its states once it is due.
fn action_of(cfg: &Config, r: &Record) -> Option<Action> {
    match r.state {
        State::Scanned | State::Rejected | State::Excluded | State::Redirect => {
            Some(Action::Expire)
        }
        // A record that failed its rtdead-th revival in a row dies at once:
        // waiting ttrev again would only delay the verdict.
        State::Unreach if r.revivals >= cfg.rtdead => Some(Action::Kill),
        State::Unreach => Some(Action::Revive),
        State::Dead => Some(Action::Prune),
        _ => None,
    }
}

/// What a timed pass does to `r` at `now`, if anything, for a record
/// whose schedule never adapted (the pass itself reads each record's due
/// time from the due index). A record is due at its time exactly: one
/// second before, it stays.
pub fn due(cfg: &Config, r: &Record, now: u64) -> Option<Action> {
    if r.lease.is_some() {
        return None;
    }
    let t = cfg.policy().due_time(r, &Entry::default())?;
    if now >= t {
        action_of(cfg, r)
    } else {
        None
    }
}

/// True when a record's failure was on the way to the server: the
/// connection (or the robots.txt request before it) got no answer. The
/// host may have moved, so its name is resolved again.
pub fn connection_failed(reason: &str) -> bool {
    reason.starts_with("cannot connect") || reason.starts_with("robots.txt unavailable: ")
}

/// Where a record goes to be fetched again. One without an address never
/// resolved (its DNS failed), and nlpc-fetch would fail it at once for
/// want of one: it goes back to NEW, through nlpc-resolve; so does an
/// UNREACH one whose server could not be reached.
fn refetch_state(r: &Record) -> State {
    if r.addr.is_empty() || (r.state == State::Unreach && connection_failed(&r.reason)) {
        State::New
    } else {
        State::Dirty
    }
}

/// Applies `a` to `r` at `now`.
pub fn apply(a: Action, r: &mut Record, now: u64) {
    match a {
        Action::Expire => r.state = refetch_state(r),
        // Back to the start: NEW goes through every stage again, whatever
        // stage failed on it, and depends on nothing the failed stage may
        // have half done.
        Action::Revive if r.state == State::Quarantined => {
            r.state = State::New;
            r.reason.clear();
            r.reclaims = 0;
        }
        Action::Revive => {
            r.state = refetch_state(r);
            r.revivals = r.revivals.saturating_add(1);
        }
        Action::Kill => r.state = State::Dead,
        Action::Prune => {
            // The tombstone: the URL (so it is never taken for new), when it
            // was first seen, and why it died.
            let mut t = Record::new(&r.url, r.created);
            t.state = State::Gone;
            t.reason = std::mem::take(&mut r.reason);
            *r = t;
        }
    }
    r.changed = now;
}

/// What one pass or one forced run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub expired: usize,
    pub revived: usize,
    pub killed: usize,
    pub pruned: usize,
    /// The most records' keys held at once.
    pub held: usize,
    /// The most pages one of its commits wrote (the pages its transaction
    /// dirtied and LMDB held in the heap), where the kernel says.
    pub most_pages: u64,
    /// The records a transaction looks at, as learned from the pages the
    /// last one wrote (0: nothing learned yet): where the pass's next
    /// chunk of due records starts, rather than from the estimate again.
    pub pace: usize,
}

impl Report {
    pub fn total(&self) -> usize {
        self.expired + self.revived + self.killed + self.pruned
    }

    fn count(&mut self, a: Action) {
        match a {
            Action::Expire => self.expired += 1,
            Action::Revive => self.revived += 1,
            Action::Kill => self.killed += 1,
            Action::Prune => self.pruned += 1,
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} expired, {} revived, {} dead, {} pruned",
            self.expired, self.revived, self.killed, self.pruned
        )
    }
}

/// Keys looked at per read snapshot, so no snapshot lives long on a large
/// database (a long reader keeps LMDB from reusing pages), and the heap
/// holds at most this many (512 KB of keys) whatever is due.
const CHUNK: usize = 16_384;

fn log_move(before: &Record, after: &Record, a: Action) {
    match a {
        Action::Expire => info!("expired {} ({} → {})", after.url, before.state, after.state),
        Action::Revive => info!(
            "revived {} (revival {}, → {})",
            after.url, after.revivals, after.state
        ),
        Action::Kill => info!(
            "dead {} ({} failed revivals, was {})",
            after.url, before.revivals, before.state
        ),
        Action::Prune => info!("pruned {}", after.url),
    }
}

/// True when `r`'s address is older than `ttaddr` at `now`: the resolver's
/// entry for its host (`Table::Hosts`) was made that long ago, or no
/// longer holds the address. A host without an entry (a database filled
/// by other means) keeps its address.
fn address_stale(w: &Write<'_>, r: &Record, ttaddr: u64, now: u64) -> Result<bool> {
    let Some(v) = w.table_get(Table::Hosts, r.host().as_bytes())? else {
        return Ok(false);
    };
    let Ok(e) = HostEntry::decode(&v) else {
        return Ok(true);
    };
    let old = (e.resolved_ms / 1000).saturating_add(ttaddr) <= now;
    let listed = match &e.outcome {
        Outcome::Addrs(v) => v.iter().any(|a| a.to_string() == r.addr),
        _ => false,
    };
    Ok(old || !listed)
}

/// Pages a transaction of a pass dirties whatever its records: the meta
/// page, the table of tables, the counters, the free list, and the paths
/// to where the due index and the change log are written, which the
/// records moved share (they are ordered by time).
const FIXED_PAGES: f64 = 16.0;

/// The records a transaction moves so that the pages it dirties stay
/// within `pages` by the trees' shape (at least one, at most `cap`), when
/// the `total` records to move are moved in key order: each is written in
/// `records`, `sched` and `index` near the one before it, and the keys,
/// hashes, are spread at random (see [`crate::store::Tree::pages_for`]).
pub fn batch_for(trees: &[crate::store::Tree], pages: usize, cap: usize, total: usize) -> usize {
    let random: Vec<&crate::store::Tree> = trees
        .iter()
        .filter(|t| matches!(t.name, "records" | "sched" | "index"))
        .collect();
    let cost = |k: usize| -> f64 {
        FIXED_PAGES
            + random
                .iter()
                .map(|t| t.pages_for(k as u64, total as u64))
                .sum::<f64>()
    };
    let budget = pages as f64;
    let (mut lo, mut hi) = (1usize, cap.max(1));
    if cost(hi) <= budget {
        return hi;
    }
    // The cost grows with k: the largest k within the budget.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if cost(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// What to do to a record, looked at again inside the write transaction.
type Decide<'a> = dyn Fn(&Write<'_>, &Key, &Record) -> Result<Vec<Action>> + 'a;

/// Moves the records under `keys` that `decide` still wants moved, looking
/// at each again inside the write transaction: one that another daemon
/// leased or moved since the snapshot is left alone.
fn move_keys(
    store: &Store,
    cache: &Cache,
    mut keys: Vec<Key>,
    cfg: &Config,
    rep: &mut Report,
    now: u64,
    decide: &Decide<'_>,
) -> Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    rep.held = rep.held.max(keys.len());
    // In key order, a transaction's records lie near each other in every
    // tree they are written in and share its branch pages (every record
    // here is moved now, so their order is free).
    keys.sort_unstable();
    let mut batch = match rep.pace {
        0 => batch_for(&store.trees()?, cfg.pages, cfg.batch, keys.len()),
        learned => learned,
    };
    debug!("{} records to look at, {batch} a transaction", keys.len());
    let mut rest = &keys[..];
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at(batch.min(rest.len()));
        rest = after;
        let mut w = store.write()?;
        for key in chunk {
            let Some(before) = w.get(key)? else {
                continue;
            };
            if before.lease.is_some() {
                debug!("{}: leased, left alone", before.url);
                continue;
            }
            let actions = decide(&w, key, &before)?;
            if actions.is_empty() {
                continue;
            }
            let mut r = before.clone();
            for a in &actions {
                let prev = r.clone();
                apply(*a, &mut r, now);
                if r.state == State::Dirty && address_stale(&w, &r, cfg.ttaddr, now)? {
                    r.state = State::New;
                }
                rep.count(*a);
                log_move(&prev, &r, *a);
            }
            w.update(key, &r)?;
            // For nlpc-index: a pruned page leaves the index.
            w.log_change(key, r.state)?;
            if r.state == State::Gone {
                // Inside the transaction: if we die before the commit the
                // record is still DEAD and the next pass prunes it again,
                // so a cached body is never left without its record.
                cache.remove(key)?;
                // Its text leaves the duplicate index with it.
                crate::store::dups::forget(&mut w, key)?;
            }
        }
        // The estimate errs, most in a large database (a level more than
        // the shape says, the free list): the next transaction's size
        // follows the pages this one really wrote.
        if let Some(pages) = w.commit_pages()? {
            rep.most_pages = rep.most_pages.max(pages);
            batch = next_batch(batch, chunk.len(), pages, cfg.pages, cfg.batch);
            rep.pace = batch;
        }
    }
    Ok(())
}

/// The records the next transaction looks at, after one that looked at
/// `looked` (of a batch of `batch`) wrote `pages` pages, so it writes
/// about `budget`: in proportion, growing at most twofold at a time (a
/// larger transaction shares more pages, so the proportion errs on the
/// safe side), between one and `cap`. A short last transaction says
/// nothing about a full one.
pub fn next_batch(batch: usize, looked: usize, pages: u64, budget: usize, cap: usize) -> usize {
    if looked < batch {
        return batch;
    }
    let scaled = (batch as u128 * budget as u128 / u128::from(pages.max(1))) as usize;
    scaled.min(batch.saturating_mul(2)).clamp(1, cap.max(1))
}

/// Stores the policy of `cfg` in the database when it is not the one
/// there: the due index is then built again for it (once, on the first
/// pass after the options changed; the rare full walk).
pub fn sync_policy(store: &Store, cfg: &Config) -> Result<()> {
    let p = cfg.policy();
    if store.read()?.sched_policy()? == p {
        return Ok(());
    }
    let mut w = store.write()?;
    if w.set_policy(&p)? {
        info!("schedule options changed: due times computed again");
    }
    w.commit()
}

/// One timed pass over every state nlpc-up acts on, at the crawl's `now`:
/// a walk of the due index up to `now`, so its cost follows what is due,
/// not the size of the database.
pub fn pass(store: &Store, cache: &Cache, cfg: &Config, now: u64) -> Result<Report> {
    // A run over some hosts or URLs with timing of its own (a cron job
    // refreshing one site faster) leaves the crawl's policy and index alone
    // and walks its selection instead.
    let narrow = cfg.select.auth.len() + usize::from(cfg.select.pattern.is_some()) > 0;
    if narrow && store.read()?.sched_policy()? != cfg.policy() {
        return scan_pass(store, cache, cfg, now);
    }
    sync_policy(store, cfg)?;
    let mut rep = Report::default();
    let sel = &cfg.select;
    for state in WALKED {
        if !sel.states.is_empty() && !sel.states.contains(&state) {
            continue;
        }
        let mut from: Option<(u64, Key)> = None;
        loop {
            let mut keys = Vec::new();
            let mut seen = 0;
            let mut last = None;
            {
                let rd = store.read()?;
                rd.walk_due(state, now, from.as_ref().map(|(t, k)| (*t, k)), |k, t| {
                    seen += 1;
                    if seen > cfg.chunk.max(1) {
                        last = Some((t, k));
                        return Ok(false);
                    }
                    if sel.states_only() {
                        keys.push(k);
                    } else if let Some(r) = rd.get(&k)? {
                        if sel.matches(&r) {
                            keys.push(k);
                        }
                    }
                    Ok(true)
                })?;
            }
            let decide = |w: &Write<'_>, k: &Key, r: &Record| -> Result<Vec<Action>> {
                // Still due, by the index as it is now (a leased record's
                // entry keeps a stale place).
                let e = w.sched_entry(k)?.unwrap_or_default();
                if r.lease.is_some() || e.indexed != state as u8 || e.due > now {
                    return Ok(Vec::new());
                }
                Ok(match action_of(cfg, r) {
                    Some(a) if r.state == state && sel.matches(r) => vec![a],
                    _ => Vec::new(),
                })
            };
            move_keys(store, cache, keys, cfg, &mut rep, now, &decide)?;
            match last {
                Some(k) => from = Some(k),
                None => break,
            }
        }
    }
    Ok(rep)
}

/// A pass with a timing other than the stored one, over a selection: every
/// selected record in the states nlpc-up acts on is looked at, its due time
/// computed with `cfg`'s times and its own adapted interval.
fn scan_pass(store: &Store, cache: &Cache, cfg: &Config, now: u64) -> Result<Report> {
    let p = cfg.policy();
    let sel = &cfg.select;
    let due_now = |w: &Read<'_>, k: &Key, r: &Record| -> Result<bool> {
        let e = w.sched_entry(k)?.unwrap_or_default();
        Ok(r.lease.is_none() && sel.matches(r) && p.due_time(r, &e).is_some_and(|t| t <= now))
    };
    let mut rep = Report::default();
    for state in WALKED {
        if !sel.states.is_empty() && !sel.states.contains(&state) {
            continue;
        }
        let mut keys = Vec::new();
        {
            let rd = store.read()?;
            rd.walk_state(state, false, |k, r| {
                if due_now(&rd, &k, &r)? {
                    keys.push(k);
                }
                Ok(true)
            })?;
        }
        let decide = |w: &Write<'_>, k: &Key, r: &Record| -> Result<Vec<Action>> {
            let e = w.sched_entry(k)?.unwrap_or_default();
            let due =
                r.state == state && sel.matches(r) && p.due_time(r, &e).is_some_and(|t| t <= now);
            Ok(match action_of(cfg, r) {
                Some(a) if due => vec![a],
                _ => Vec::new(),
            })
        };
        move_keys(store, cache, keys, cfg, &mut rep, now, &decide)?;
    }
    Ok(rep)
}

/// Applies `actions` at once to every selected record they apply to, in
/// order (so `--force-dead --force-del` kills and then prunes). `explicit`
/// says the states were named with `-s`: only then does Kill reach beyond
/// UNREACH records.
pub fn force(
    store: &Store,
    cache: &Cache,
    cfg: &Config,
    actions: &[Action],
    explicit: bool,
    now: u64,
) -> Result<Report> {
    let mut sel = cfg.select.clone();
    if sel.states.is_empty() {
        for a in actions {
            for s in a.default_states() {
                if !sel.states.contains(s) {
                    sel.states.push(*s);
                }
            }
        }
    }
    let mut keys = Vec::new();
    {
        let rd = store.read()?;
        sel.walk(&rd, |k, r| {
            if r.lease.is_none() {
                keys.push(k);
            }
            Ok(true)
        })?;
    }
    let decide = |_: &Write<'_>, _: &Key, r: &Record| -> Result<Vec<Action>> {
        if !sel.matches(r) {
            return Ok(Vec::new());
        }
        // Each action sees the state the ones before it left.
        let mut probe = r.clone();
        let mut out = Vec::new();
        for a in actions {
            let ok = match a {
                Action::Kill if !explicit => probe.state == State::Unreach,
                a => a.applies_to(probe.state),
            };
            if ok {
                apply(*a, &mut probe, now);
                out.push(*a);
            }
        }
        Ok(out)
    };
    let mut rep = Report::default();
    move_keys(store, cache, keys, cfg, &mut rep, now, &decide)?;
    Ok(rep)
}

/// The daemon's step: one pass, logged when it moved anything.
pub fn step(store: &Store, cache: &Cache, cfg: &Config) -> Result<usize> {
    let rep = pass(store, cache, cfg, clock::now())?;
    if rep.total() > 0 {
        info!("pass: {rep}");
    }
    Ok(rep.total())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(state: State, changed: u64) -> Record {
        let mut r = Record::new("http://a.test/", 1);
        r.state = state;
        r.changed = changed;
        r.addr = "192.0.2.1".into();
        r
    }

    fn tree(name: &'static str, depth: u32, leaf: u64) -> crate::store::Tree {
        crate::store::Tree {
            name,
            depth,
            branch: 0,
            leaf,
            overflow: 0,
            entries: 0,
        }
    }

    #[test]
    fn a_transaction_moves_fewer_records_the_larger_the_trees() {
        let small = [
            tree("records", 2, 40),
            tree("sched", 2, 10),
            tree("index", 1, 1),
        ];
        let large = [
            tree("records", 4, 770_000),
            tree("sched", 4, 200_000),
            tree("index", 4, 100_000),
        ];
        // Every record fits: they share the few pages there are.
        assert_eq!(batch_for(&small, 1024, 4096, 4096), 4096);
        // Moved in no order: each record its own leaf in three trees, and
        // branch pages of its own below the top levels.
        let k = batch_for(&large, 1024, 4096, 0);
        assert!(k < (1024 - 16) / 3, "{k} records");
        // At most a page a level in each of the three trees of depth 4.
        assert!(k >= (1024 - 16) / (3 * 4), "{k} records");
        let cost = |k: u64, of: u64| 16.0 + large.iter().map(|t| t.pages_for(k, of)).sum::<f64>();
        assert!(cost(k as u64, 0) <= 1024.0 && cost(k as u64 + 1, 0) > 1024.0);
        // In key order among 100,000 (1% of the database due) the records
        // share branch pages (and leaves of the smaller trees), but each
        // still needs a leaf of its own among the 770,000 of `records`.
        let sorted = batch_for(&large, 1024, 4096, 100_000);
        assert!(sorted > k && sorted < 1024 - 16, "{sorted} records");
        // A budget too small for one record still moves one.
        assert_eq!(batch_for(&large, 1, 4096, 0), 1);
    }

    #[test]
    fn the_next_batch_follows_the_pages_written() {
        // Twice the budget written: half as many records.
        assert_eq!(next_batch(400, 400, 2048, 1024, 4096), 200);
        // Half the budget: twice as many, never more at once.
        assert_eq!(next_batch(400, 400, 512, 1024, 4096), 800);
        assert_eq!(next_batch(400, 400, 1, 1024, 4096), 800);
        assert_eq!(next_batch(400, 400, 0, 1024, 4096), 800);
        // Within one and the cap.
        assert_eq!(next_batch(3000, 3000, 512, 1024, 4096), 4096);
        assert_eq!(next_batch(1, 1, 1_000_000, 1024, 4096), 1);
        // A short last transaction changes nothing.
        assert_eq!(next_batch(400, 10, 5, 1024, 4096), 400);
    }

    #[test]
    fn the_default_times_are_the_schedules_defaults() {
        // Else a store nlpc-up never ran on would be indexed by other times
        // than its first pass uses, and that pass would index it again.
        assert_eq!(Config::default().policy(), Policy::default());
    }

    #[test]
    fn expiry_is_ttexp_or_sooner_but_never_before_ttmin() {
        let cfg = Config::default();
        let mut r = rec(State::Scanned, 1000);
        r.fetched = 1000;
        assert_eq!(expiry_time(&cfg, &r), 1000 + 10 * DAY);
        r.expires = 1000 + 3 * DAY;
        assert_eq!(expiry_time(&cfg, &r), 1000 + 3 * DAY);
        r.expires = 1000 + 60;
        assert_eq!(expiry_time(&cfg, &r), 1000 + DAY);
        r.expires = 1000 + 30 * DAY;
        assert_eq!(expiry_time(&cfg, &r), 1000 + 10 * DAY);
    }

    #[test]
    fn due_at_the_second_not_before() {
        let cfg = Config::default();
        let r = rec(State::Unreach, 1000);
        assert_eq!(due(&cfg, &r, 1000 + 5 * DAY - 1), None);
        assert_eq!(due(&cfg, &r, 1000 + 5 * DAY), Some(Action::Revive));
        let mut tired = r.clone();
        tired.revivals = 5;
        assert_eq!(due(&cfg, &tired, 1000), Some(Action::Kill));
        let dead = rec(State::Dead, 1000);
        assert_eq!(due(&cfg, &dead, 1000 + 5 * DAY - 1), None);
        assert_eq!(due(&cfg, &dead, 1000 + 5 * DAY), Some(Action::Prune));
        assert_eq!(due(&cfg, &rec(State::Verified, 0), u64::MAX), None);
    }

    #[test]
    fn revival_without_an_address_goes_through_the_resolver() {
        let mut r = rec(State::Unreach, 1000);
        r.addr.clear();
        apply(Action::Revive, &mut r, 2000);
        assert_eq!((r.state, r.revivals, r.changed), (State::New, 1, 2000));
        let mut r = rec(State::Unreach, 1000);
        apply(Action::Revive, &mut r, 2000);
        assert_eq!((r.state, r.revivals), (State::Dirty, 1));
    }

    #[test]
    fn quarantined_records_are_revived_as_new_only_by_name() {
        let mut r = rec(State::Quarantined, 1000);
        r.reason = "panic: boom".into();
        r.reclaims = 3;
        apply(Action::Revive, &mut r, 2000);
        assert_eq!((r.state, r.revivals, r.reclaims), (State::New, 0, 0));
        assert_eq!(r.reason, "");
        assert!(Action::Revive.applies_to(State::Quarantined));
        assert!(!Action::Revive
            .default_states()
            .contains(&State::Quarantined));
        assert_eq!(
            due(&Config::default(), &rec(State::Quarantined, 0), u64::MAX),
            None
        );
    }

    #[test]
    fn revival_after_a_connection_failure_resolves_again() {
        for (reason, state) in [
            ("cannot connect: Connection refused", State::New),
            ("cannot connect: connect timeout", State::New),
            (
                "robots.txt unavailable: cannot connect: No route",
                State::New,
            ),
            ("robots.txt unavailable: no answer", State::New),
            ("robots.txt unavailable", State::Dirty),
            ("HTTP 500", State::Dirty),
            ("timeout", State::Dirty),
        ] {
            let mut r = rec(State::Unreach, 1000);
            r.reason = reason.into();
            apply(Action::Revive, &mut r, 2000);
            assert_eq!(r.state, state, "{reason}");
        }
        // Expiry of a page that was fetched is not a connection failure.
        let mut r = rec(State::Redirect, 1000);
        r.reason = "cannot connect: but not UNREACH".into();
        apply(Action::Expire, &mut r, 2000);
        assert_eq!(r.state, State::Dirty);
    }

    #[test]
    fn a_tombstone_keeps_only_the_url() {
        let mut r = rec(State::Dead, 1000);
        r.hash = [1; 32];
        r.size = 10;
        r.reason = "HTTP 500".into();
        apply(Action::Prune, &mut r, 2000);
        assert_eq!(r.state, State::Gone);
        assert_eq!((r.size, r.hash, r.addr.as_str()), (0, [0; 32], ""));
        assert_eq!(
            (r.url.as_str(), r.reason.as_str()),
            ("http://a.test/", "HTTP 500")
        );
    }
}

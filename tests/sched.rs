//! The re-fetch schedule: the due index against the records after every
//! kind of move, an aborted transaction and a database opened without it;
//! DIRTY records handed out earliest due first; and, through nlpc-up,
//! nlpc-fetch and nlpc-vrfy over a real HTTP server and the crawl's clock
//! (NLPCRAWL_TIME_OFFSET), a page that changes fetched more often than one
//! answering 304, and a rejected page fetched after doubling intervals
//! without its body kept.

mod common;

use common::http::{Reply, Server};
use common::*;
use nlpcrawl::run::clock;
use nlpcrawl::store::record::{Flags, Lease, Record, State};
use nlpcrawl::store::sched::Policy;
use nlpcrawl::store::{self, Key, Store, Table};

const DAY: u64 = 86_400;
const T: u64 = 2_000_000_000;

fn plant(st: &Store, url: &str, state: State, changed: u64) -> Key {
    let mut r = Record::new(url, 1);
    r.state = state;
    r.addr = "192.0.2.1".into();
    r.changed = changed;
    r.fetched = changed;
    r.hash = [9; 32];
    insert_new(st, &r)
}

/// Keys of `state` due by `until`, in the index's order, with their times.
fn due_list(st: &Store, state: State, until: u64) -> Vec<(Key, u64)> {
    let mut v = Vec::new();
    st.read()
        .unwrap()
        .walk_due(state, until, None, |k, t| {
            v.push((k, t));
            Ok(true)
        })
        .unwrap();
    v
}

/// The DIRTY records nlpc-fetch would be handed, in order.
fn input(st: &Store) -> Vec<Key> {
    let mut v = Vec::new();
    st.read()
        .unwrap()
        .walk_input(State::Dirty, None, |k, _| {
            v.push(k);
            Ok(true)
        })
        .unwrap();
    v
}

fn set(st: &Store, k: &Key, f: impl FnOnce(&mut Record)) {
    let mut w = st.write().unwrap();
    let mut r = w.get(k).unwrap().unwrap();
    f(&mut r);
    w.update(k, &r).unwrap();
    w.commit().unwrap();
}

#[test]
fn the_due_index_follows_every_move_and_an_aborted_one_leaves_it_as_it_was() {
    let c = Crawl::new();
    let st = c.store();
    let p = Policy::default();
    let a = plant(&st, "http://a.test/1", State::Scanned, T);
    let b = plant(&st, "http://a.test/2", State::Scanned, T - 5 * DAY);
    let u = plant(&st, "http://a.test/3", State::Unreach, T);
    let n = plant(&st, "http://a.test/4", State::New, T);
    assert_consistent(&st, true);
    // Earliest first; NEW is in no due list.
    assert_eq!(
        due_list(&st, State::Scanned, u64::MAX),
        [(b, T - 5 * DAY + p.ttexp), (a, T + p.ttexp)]
    );
    assert_eq!(due_list(&st, State::Unreach, u64::MAX), [(u, T + p.ttrev)]);
    assert_eq!(due_list(&st, State::Scanned, T + p.ttexp - 1).len(), 1);
    assert!(st.read().unwrap().sched_entry(&n).unwrap().is_none());

    // SCANNED → DIRTY keeps the time it fell due; leased, it keeps its
    // place (its schedule entry untouched) but is no longer handed out;
    // given back, it is handed out again from there.
    set(&st, &b, |r| r.state = State::Dirty);
    assert_eq!(due_list(&st, State::Scanned, u64::MAX), [(a, T + p.ttexp)]);
    assert_eq!(
        due_list(&st, State::Dirty, u64::MAX),
        [(b, T - 5 * DAY + p.ttexp)]
    );
    assert_eq!(input(&st), [b]);
    let entry = st.read().unwrap().sched_entry(&b).unwrap();
    let lease = Lease { pid: 1, time: 1 };
    let mut w = st.write().unwrap();
    let rec = w.lease_key(&b, State::Dirty, lease).unwrap().unwrap();
    w.commit().unwrap();
    assert_eq!(
        due_list(&st, State::Dirty, u64::MAX),
        [(b, T - 5 * DAY + p.ttexp)]
    );
    assert_eq!(st.read().unwrap().sched_entry(&b).unwrap(), entry);
    assert!(input(&st).is_empty(), "a leased record handed out");
    assert_consistent(&st, false);
    let mut w = st.write().unwrap();
    assert!(w.finish(&b, &rec, lease).unwrap());
    w.commit().unwrap();
    assert_eq!(
        due_list(&st, State::Dirty, u64::MAX),
        [(b, T - 5 * DAY + p.ttexp)]
    );
    assert_eq!(input(&st), [b]);

    // A changed re-fetch (DIRTY → FRESH with another hash) halves the
    // page's interval; back in SCANNED it is due that much after its fetch.
    let mut w = st.write().unwrap();
    let mut rec = w.lease_key(&b, State::Dirty, lease).unwrap().unwrap();
    rec.state = State::Fresh;
    rec.hash = [1; 32];
    rec.fetched = T + DAY;
    assert!(w.finish(&b, &rec, lease).unwrap());
    w.commit().unwrap();
    assert!(due_list(&st, State::Dirty, u64::MAX).is_empty());
    // The verdict waits in the record; the schedule entry is not written.
    assert_eq!(record(&st, "http://a.test/2").flags, Flags::REFETCH_CHANGED);
    assert_eq!(st.read().unwrap().sched_entry(&b).unwrap(), entry);
    set(&st, &b, |r| r.state = State::Scanned);
    assert_eq!(record(&st, "http://a.test/2").flags, 0, "verdict applied");
    assert_eq!(
        due_list(&st, State::Scanned, u64::MAX),
        [(b, T + DAY + p.ttexp / 2), (a, T + p.ttexp)]
    );
    assert_consistent(&st, true);

    // A transaction that dies before its commit (a kill) leaves both the
    // records and the index as they were.
    {
        let mut w = st.write().unwrap();
        let mut r = w.get(&a).unwrap().unwrap();
        r.state = State::Dead;
        w.update(&a, &r).unwrap();
        let mut r = w.get(&u).unwrap().unwrap();
        r.state = State::Dirty;
        w.update(&u, &r).unwrap();
        // Dropped here without a commit.
    }
    assert_eq!(record(&st, "http://a.test/1").state, State::Scanned);
    assert!(due_list(&st, State::Dead, u64::MAX).is_empty());
    assert!(due_list(&st, State::Dirty, u64::MAX).is_empty());
    assert_eq!(due_list(&st, State::Unreach, u64::MAX), [(u, T + p.ttrev)]);
    assert_consistent(&st, true);

    // Into a state no one waits in: out of the index; its entry, of which
    // nothing adapted, is not written (its place is stale from here on).
    let stale = st.read().unwrap().sched_entry(&u).unwrap();
    set(&st, &u, |r| r.state = State::Ready);
    assert!(due_list(&st, State::Unreach, u64::MAX).is_empty());
    assert_eq!(st.read().unwrap().sched_entry(&u).unwrap(), stale);
    assert_consistent(&st, true);
    // Back in UNREACH at the same time as before: the stale place is not
    // taken for the index's, so it is entered again.
    set(&st, &u, |r| r.state = State::Unreach);
    assert_eq!(due_list(&st, State::Unreach, u64::MAX), [(u, T + p.ttrev)]);
    assert_consistent(&st, true);
}

#[test]
fn a_record_out_of_the_index_keeps_a_stale_place_that_nothing_trusts() {
    let c = Crawl::new();
    let st = c.store();
    let p = Policy::default();
    let s = plant(&st, "http://a.test/s", State::Scanned, T);
    let d = plant(&st, "http://a.test/d", State::Dirty, T);
    let lease = Lease { pid: 7, time: 1 };

    // A SCANNED record leased leaves the index; its entry keeps the old
    // place. Given back unchanged, it is due at that same time again: the
    // place must be entered anew, not taken as already there.
    let placed = st.read().unwrap().sched_entry(&s).unwrap().unwrap();
    assert_eq!(placed.indexed, State::Scanned as u8);
    let mut w = st.write().unwrap();
    let rec = w.lease_key(&s, State::Scanned, lease).unwrap().unwrap();
    w.commit().unwrap();
    assert!(due_list(&st, State::Scanned, u64::MAX).is_empty());
    assert_eq!(
        st.read().unwrap().sched_entry(&s).unwrap(),
        Some(placed),
        "a lease writes no schedule entry"
    );
    assert_consistent(&st, false);
    let mut w = st.write().unwrap();
    assert!(w.finish(&s, &rec, lease).unwrap());
    w.commit().unwrap();
    assert_eq!(due_list(&st, State::Scanned, u64::MAX), [(s, T + p.ttexp)]);
    assert_consistent(&st, true);
    // The same through a reclaim.
    let mut w = st.write().unwrap();
    w.lease_key(&s, State::Scanned, lease).unwrap().unwrap();
    assert_eq!(w.reclaim(|_| false).unwrap(), 1);
    w.commit().unwrap();
    assert_eq!(due_list(&st, State::Scanned, u64::MAX), [(s, T + p.ttexp)]);
    assert_consistent(&st, true);

    // A DIRTY record answered for the first time (nothing to adapt): out
    // of the index, its entry not written; the fetcher's walk, told to go
    // on from it, starts again from the earliest instead of its old place.
    set(&st, &d, |r| r.hash = [0; 32]);
    let e = st.read().unwrap().sched_entry(&d).unwrap();
    let early = plant(&st, "http://a.test/early", State::Dirty, T - DAY);
    let mut w = st.write().unwrap();
    let mut rec = w.lease_key(&d, State::Dirty, lease).unwrap().unwrap();
    rec.state = State::Fresh;
    assert!(w.finish(&d, &rec, lease).unwrap());
    w.commit().unwrap();
    assert_eq!(st.read().unwrap().sched_entry(&d).unwrap(), e);
    assert_eq!(due_list(&st, State::Dirty, u64::MAX), [(early, T - DAY)]);
    let mut from_d = Vec::new();
    st.read()
        .unwrap()
        .walk_input(State::Dirty, Some(&d), |k, _| {
            from_d.push(k);
            Ok(true)
        })
        .unwrap();
    assert_eq!(from_d, [early]);
    assert_consistent(&st, true);
    // Sent back to DIRTY by hand, it falls due when it became DIRTY, not
    // at its stale place's time.
    set(&st, &d, |r| {
        r.state = State::Dirty;
        r.changed = T + 3 * DAY;
    });
    assert_eq!(
        due_list(&st, State::Dirty, u64::MAX),
        [(early, T - DAY), (d, T + 3 * DAY)]
    );
    assert_consistent(&st, true);

    // Out of the index again, with its stale place.
    set(&st, &s, |r| r.state = State::Ready);
    assert!(due_list(&st, State::Scanned, u64::MAX).is_empty());
    assert_consistent(&st, true);

    // A tombstone's entry is deleted.
    set(&st, &s, |r| r.state = State::Gone);
    assert!(st.read().unwrap().sched_entry(&s).unwrap().is_none());
}

#[test]
fn a_database_without_the_index_gets_it_when_opened_for_writing() {
    let c = Crawl::new();
    let st = c.store();
    let a = plant(&st, "http://a.test/1", State::Scanned, T);
    let r = plant(&st, "http://a.test/2", State::Rejected, T);
    // As a database written before the index: no mark that it was built,
    // and the stored policy not the one the index was made for.
    let p = Policy {
        ttexp: 3 * DAY,
        ttrej: 7 * DAY,
        ..Policy::default()
    };
    let mut w = st.write().unwrap();
    w.table_del(Table::Meta, b"due:built").unwrap();
    w.table_put(Table::Meta, b"sched:policy", &p.encode())
        .unwrap();
    w.commit().unwrap();
    // The index now disagrees with the records.
    assert!(!st.read().unwrap().check().unwrap().is_empty());
    drop(st);

    // A read-only open builds nothing.
    let ro = Store::open(
        &c.db(),
        store::Options {
            read_only: true,
            ..store::Options::default()
        },
    )
    .unwrap();
    assert!(!ro.read().unwrap().check().unwrap().is_empty());
    drop(ro);
    // nlpc-list --check (read-only too) names the records out of place.
    let o = c.run("nlpc-list", &["--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("http://a.test/1: due index says"),
        "{}",
        stdout(&o)
    );

    let st = c.store();
    assert_consistent(&st, true);
    let o = c.run("nlpc-list", &["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(due_list(&st, State::Scanned, u64::MAX), [(a, T + 3 * DAY)]);
    assert_eq!(due_list(&st, State::Rejected, u64::MAX), [(r, T + 7 * DAY)]);
}

#[test]
fn dirty_records_are_handed_out_earliest_due_first() {
    let c = Crawl::new();
    let st = c.store();
    // Fetched at different times: key order is hash order, not this one.
    let times = [5u64, 1, 9, 3, 7];
    let keys: Vec<Key> = times
        .iter()
        .map(|d| {
            plant(
                &st,
                &format!("http://a.test/{d}"),
                State::Scanned,
                T + d * DAY,
            )
        })
        .collect();
    let o = c
        .cmd("nlpc-up")
        .env(
            clock::OFFSET_VAR,
            (T + 30 * DAY - clock::real_now()).to_string(),
        )
        .arg("--once")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(st.read().unwrap().count(State::Dirty, false).unwrap(), 5);
    let mut order = Vec::new();
    st.read()
        .unwrap()
        .walk_input(State::Dirty, None, |k, _| {
            order.push(k);
            Ok(true)
        })
        .unwrap();
    let mut want: Vec<(u64, Key)> = times.iter().copied().zip(keys).collect();
    want.sort();
    assert_eq!(order, want.iter().map(|w| w.1).collect::<Vec<_>>());
    // A resumed walk starts at the key it is given.
    let mut rest = Vec::new();
    st.read()
        .unwrap()
        .walk_input(State::Dirty, Some(&order[2]), |k, _| {
            rest.push(k);
            Ok(true)
        })
        .unwrap();
    assert_eq!(rest, order[2..]);
}

/// Pages written by the commit of one transaction that `f` fills.
fn pages_written(st: &Store, f: impl FnOnce(&mut store::Write<'_>)) -> u64 {
    let before = written_by_this_thread();
    let mut w = st.write().unwrap();
    f(&mut w);
    w.commit().unwrap();
    (written_by_this_thread() - before) / 4096
}

/// Issue 17's scale goal: in a database large enough that records far
/// apart share no leaf, leasing DIRTY records writes the small DIRTY parts
/// of the state index (which hold the leases), and nothing of the records,
/// the schedule or the due index (which would cost a leaf and branch pages
/// of their own for each record); the leased records keep their place and
/// are not handed out.
#[test]
fn a_lease_writes_neither_the_records_nor_their_schedule() {
    let c = Crawl::new();
    let st = c.store();
    let (n, m) = (40_000, 400);
    insert_many(&st, n, |i| {
        let mut r = Record::new(&format!("http://h{}.test/p/{i}", i % 50), 1);
        r.state = if i % (n / m) == 0 {
            State::Dirty
        } else {
            State::Scanned
        };
        r.addr = "192.0.2.1".into();
        r.hash = [9; 32];
        r.changed = T - (i as u64 % 1000);
        r.fetched = r.changed;
        r
    });
    let keys = input(&st);
    assert_eq!(keys.len(), m);
    let due_before = due_list(&st, State::Dirty, u64::MAX);
    // What writing those records alone costs: each rewritten in place,
    // its state and schedule unchanged.
    let alone = pages_written(&st, |w| {
        for k in &keys {
            let mut r = w.get(k).unwrap().unwrap();
            r.reason = "looked at".into();
            w.update(k, &r).unwrap();
        }
    });
    let lease = Lease { pid: 1, time: 1 };
    let leased = pages_written(&st, |w| {
        for k in &keys {
            assert!(w.lease_key(k, State::Dirty, lease).unwrap().is_some());
        }
    });
    let tree = |name: &str| {
        st.shape()
            .unwrap()
            .trees
            .into_iter()
            .find(|t| t.name == name)
            .unwrap()
    };
    let (sched, records) = (tree("sched"), tree("records"));
    eprintln!("{m} records of {n}: rewritten {alone} pages, leased {leased}; sched {sched:?}, records {records:?}");
    // The schedule or the records alone would add a leaf for nearly every
    // record.
    assert!(
        sched.leaf as usize > m && records.leaf as usize > m,
        "trees too small to tell: {sched:?} {records:?}"
    );
    assert!(
        alone >= (m * 3 / 4) as u64,
        "rewriting {m} records wrote {alone} pages"
    );
    // Only the state index's small DIRTY parts, and their branch pages.
    assert!(
        leased <= (m / 20) as u64,
        "leasing {m} records wrote {leased} pages, rewriting them {alone}"
    );
    assert_eq!(due_list(&st, State::Dirty, u64::MAX), due_before);
    assert!(input(&st).is_empty(), "leased records handed out");
    assert_consistent(&st, false);

    // Their results, changed bodies: each record is written, and the
    // schedule is not (the verdict waits in the record, see
    // `sched::verdict_after`); its due-index entry goes, from the index's
    // small DIRTY part.
    let entries: Vec<_> = keys
        .iter()
        .map(|k| st.read().unwrap().sched_entry(k).unwrap())
        .collect();
    let finished = pages_written(&st, |w| {
        for k in &keys {
            let mut r = w.get(k).unwrap().unwrap();
            r.state = State::Fresh;
            r.hash = [3; 32];
            assert!(w.finish(k, &r, lease).unwrap());
        }
    });
    eprintln!("finishing {m} records wrote {finished} pages, rewriting them {alone}");
    assert!(
        finished <= alone + (m / 8) as u64,
        "finishing {m} records wrote {finished} pages, rewriting them {alone}"
    );
    for (k, e) in keys.iter().zip(&entries) {
        let rd = st.read().unwrap();
        assert_eq!(rd.sched_entry(k).unwrap(), *e, "schedule written");
        assert_eq!(
            rd.get(k).unwrap().unwrap().flags & Flags::REFETCH,
            Flags::REFETCH_CHANGED
        );
    }
    assert!(due_list(&st, State::Dirty, u64::MAX).is_empty());
    assert_consistent(&st, true);
}

/// FRESH records to SCANNED, as nlpc-vrfy and nlpc-scan would.
fn scan_fresh(st: &Store) {
    let mut keys = Vec::new();
    st.read()
        .unwrap()
        .walk_keys(State::Fresh, false, None, |k| {
            keys.push(k);
            Ok(true)
        })
        .unwrap();
    for k in keys {
        set(st, &k, |r| r.state = State::Scanned);
    }
}

/// The days (steps) on which `path` was requested.
fn hit_days(days: &[(u64, usize)], srv: &Server, path: &str) -> Vec<u64> {
    let hits = srv.hits();
    let mut out = Vec::new();
    let mut seen = 0;
    for (day, n) in days {
        let here = hits[seen..*n].iter().filter(|h| h.path == path).count();
        out.extend((0..here).map(|_| *day));
        seen = *n;
    }
    out
}

#[test]
fn a_page_that_changes_is_fetched_more_often_than_one_answering_304() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.61");
    let changing = srv.url("sched.test", "/changing");
    let same = srv.url("sched.test", "/same");
    plant_ready(&c.store(), &changing, &srv.ip());
    plant_ready(&c.store(), &same, &srv.ip());
    srv.route(
        "/same",
        Reply::html("the same page").header("ETag", "\"s\""),
    );
    srv.route("/robots.txt", Reply::new(404, "text/plain", ""));
    let up = ["--ttexp", "8d", "--ttmin", "1d"];
    let fetch = ["--fetch-polite", "0"];
    // One step a day: nlpc-up, then nlpc-fetch, on the crawl's clock; a
    // new body for the changing page every day.
    let mut days = Vec::new();
    for day in 0..=40u64 {
        srv.route("/changing", Reply::html(format!("version of day {day}")));
        c.once_ahead(day * DAY, "nlpc-up", &up);
        c.once_ahead(day * DAY, "nlpc-fetch", &fetch);
        scan_fresh(&c.store());
        days.push((day, srv.hits().len()));
    }
    assert_consistent(&c.store(), true);
    let ch = hit_days(&days, &srv, "/changing");
    let sm = hit_days(&days, &srv, "/same");
    // The unchanged page keeps --ttexp: day 0, then every 8 days.
    assert_eq!(sm, (0..=40).step_by(8).collect::<Vec<_>>());
    assert!(
        srv.hits()
            .iter()
            .filter(|h| h.path == "/same")
            .skip(1)
            .all(|h| h.headers.get("if-none-match").map(String::as_str) == Some("\"s\"")),
        "re-fetches of the same page are conditional"
    );
    // The changing one comes sooner each time, down to --ttmin (a day).
    let gaps: Vec<u64> = ch.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.windows(2).all(|g| g[1] <= g[0]), "{gaps:?}");
    assert_eq!(gaps.first(), Some(&8), "{gaps:?}");
    assert_eq!(gaps.last(), Some(&1), "{gaps:?}");
    assert!(ch.len() > 3 * sm.len(), "{ch:?} vs {sm:?}");
    eprintln!("changing page fetched on days {ch:?}; unchanged one on {sm:?}");
}

#[test]
fn a_rejected_page_waits_twice_as_long_each_time_and_its_body_is_not_kept() {
    let c = Crawl::new();
    let srv = Server::start("127.0.0.62");
    let url = srv.url("rej.test", "/en");
    let k = plant_ready(&c.store(), &url, &srv.ip());
    srv.route("/robots.txt", Reply::new(404, "text/plain", ""));
    let english = "<html><head><title>Weather</title></head><body><p>".to_string()
        + &"The weather in the north of the country will stay cold and windy \
            for the rest of the week, with rain in the evenings. "
            .repeat(20)
        + "</p></body></html>";
    srv.route("/en", Reply::html(english).header("ETag", "\"e\""));
    let up = ["--ttexp", "64d", "--ttrej", "1d"];
    let fetch = ["--fetch-polite", "0"];
    // No tunnelling: with it the body stays for nlpc-scan to read the
    // links, which this test does not run.
    let vrfy = ["--filter-lang", "lv", "--filter-tunnel", "0"];
    let mut days = Vec::new();
    let mut rejections = 0;
    for day in 0..=33u64 {
        c.once_ahead(day * DAY, "nlpc-up", &up);
        c.once_ahead(day * DAY, "nlpc-fetch", &fetch);
        let log = c.once_ahead(day * DAY, "nlpc-vrfy", &vrfy);
        days.push((day, srv.hits().len()));
        if log.contains("rejected") {
            rejections += 1;
            let r = record(&c.store(), &url);
            assert_eq!(r.state, State::Rejected, "{log}");
            assert_eq!((r.hash, r.etag.as_str()), ([0; 32], ""));
            assert!(
                !c.cache().path(&k).exists(),
                "day {day}: a rejected page's body stays in the cache"
            );
        }
    }
    assert_consistent(&c.store(), true);
    let got = hit_days(&days, &srv, "/en");
    // --ttrej, then twice as long each time: days 0, 1, 3, 7, 15, 31.
    let gaps: Vec<u64> = got.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, [1, 2, 4, 8, 16], "{got:?}");
    assert_eq!(rejections, got.len(), "every fetch was rejected");
    // Without validators: each re-fetch asks for the whole page.
    assert!(srv
        .hits()
        .iter()
        .all(|h| !h.headers.contains_key("if-none-match")));
}

/// Runs `nlpc-up --once ARGS` with the crawl's clock near `t` (a second or
/// two after: the real clock turns while it runs).
fn up_near(c: &Crawl, t: u64, args: &[&str]) -> String {
    let o = c
        .cmd("nlpc-up")
        .env(clock::OFFSET_VAR, (t - clock::real_now()).to_string())
        .arg("--once")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn a_run_over_one_site_with_its_own_times_leaves_the_crawls_schedule_alone() {
    let c = Crawl::new();
    let st = c.store();
    plant(&st, "http://news.test/a", State::Scanned, T);
    plant(&st, "http://other.test/a", State::Scanned, T);
    up_near(&c, T, &[]);
    assert_eq!(
        st.read().unwrap().sched_policy().unwrap(),
        Policy::default()
    );
    // The documented cron job: one site refreshed every few hours.
    let log = up_near(
        &c,
        T + 7 * 3600,
        &["--ttexp", "6h", "--ttmin", "1h", "--auth", "news.test"],
    );
    assert!(log.contains("expired http://news.test/a"), "{log}");
    assert!(!log.contains("other.test"), "{log}");
    assert_eq!(record(&st, "http://other.test/a").state, State::Scanned);
    assert_eq!(
        st.read().unwrap().sched_policy().unwrap(),
        Policy::default()
    );
    assert_consistent(&st, true);
    // The crawl's own pass, with its times, finds the other page due on
    // the tenth day, as before.
    up_near(&c, T + 9 * DAY, &[]);
    assert_eq!(record(&st, "http://other.test/a").state, State::Scanned);
    let log = up_near(&c, T + 10 * DAY + 5, &[]);
    assert!(log.contains("expired http://other.test/a"), "{log}");
}

/// Random moves, leases, results, reclaims, aborted transactions and
/// policy changes over a few records: after every commit the due index
/// holds exactly the records it orders, at their places (`check`, which
/// also names a stale place the index still holds), and no record in the
/// index still carries a re-fetch verdict.
#[test]
fn the_due_index_holds_through_random_moves_with_stale_places() {
    let c = Crawl::new();
    let st = c.store();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let keys: Vec<Key> = (0..40)
        .map(|i| {
            plant(
                &st,
                &format!("http://r{}.test/{i}", i % 7),
                State::Scanned,
                T - i * DAY,
            )
        })
        .collect();
    let states = State::ALL;
    let lease = Lease { pid: 9, time: 1 };
    let mut moves = [0usize; 5];
    for step in 0..3000u64 {
        let k = keys[rnd(keys.len() as u64) as usize];
        let mut w = st.write().unwrap();
        let r = w.get(&k).unwrap().unwrap();
        let state = states[rnd(states.len() as u64) as usize];
        let op = rnd(5) as usize;
        match (op, r.lease) {
            // A result: a new state, a changed body or the same, a time.
            (0 | 1, Some(l)) => {
                let mut n = r.clone();
                n.state = state;
                if rnd(2) == 0 {
                    n.hash = [rnd(3) as u8 + 1; 32];
                }
                n.changed = T + step * 60;
                assert!(w.finish(&k, &n, l).unwrap());
            }
            (2, Some(_)) => {
                w.reclaim(|_| false).unwrap();
            }
            (0..=2, None) => {
                let mut n = r.clone();
                n.state = state;
                n.changed = T + step * 60;
                n.fetched = n.changed;
                w.update(&k, &n).unwrap();
            }
            (3, None) => {
                w.lease_key(&k, r.state, lease).unwrap();
            }
            (4, _) if rnd(8) == 0 => {
                let ttexp = [3, 10, 20][rnd(3) as usize] * DAY;
                w.set_policy(&Policy {
                    ttexp,
                    ..Policy::default()
                })
                .unwrap();
            }
            _ => {}
        }
        moves[op] += 1;
        // One transaction in ten dies before its commit.
        if rnd(10) == 0 {
            drop(w);
        } else {
            w.commit().unwrap();
        }
        assert_consistent(&st, false);
        let rd = st.read().unwrap();
        for k in &keys {
            let r = rd.get(k).unwrap().unwrap();
            if store::sched::placed(&r) {
                assert_eq!(
                    r.flags & Flags::REFETCH,
                    0,
                    "{} in the index with a verdict",
                    r.url
                );
            }
        }
    }
    assert!(moves.iter().all(|&m| m > 100), "{moves:?}");
    let mut w = st.write().unwrap();
    w.reclaim(|_| false).unwrap();
    w.commit().unwrap();
    assert_consistent(&st, true);
}

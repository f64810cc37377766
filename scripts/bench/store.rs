//! Store throughput: batched inserts of new URLs, and walking one state's
//! index (keys only, and with each record decoded).
//!
//! cargo bench --bench store [-- N]   (N records, default 1000000)

use std::time::Instant;

use nlpcrawl::store::record::{Lease, Record, State};
use nlpcrawl::store::{self, Store};

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir().expect("temporary directory");
    let st = Store::open(&tmp.path().join("db"), store::Options::default()).expect("open");
    let urls: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "http://host{}.example.lv/section/{}/page-{i}.html",
                i % 5000,
                i % 97
            )
        })
        .collect();

    let batch: usize = std::env::var("BATCH")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(100_000);
    let t = Instant::now();
    for chunk in urls.chunks(batch) {
        let recs: Vec<Record> = chunk
            .iter()
            .map(|u| Record::new(u, 1_700_000_000))
            .collect();
        let mut w = st.write().expect("write");
        w.insert_batch(&recs).expect("insert");
        w.commit().expect("commit");
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "insert: {n} new URLs in batches of {batch}: {secs:.2} s, {:.0} inserts/s",
        n as f64 / secs
    );

    let t = Instant::now();
    let mut w = st.write().expect("write");
    for u in urls.iter().step_by(10) {
        w.insert(&Record::new(u, 1_700_000_000)).expect("insert");
    }
    w.commit().expect("commit");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "insert: {} known URLs (dedup lookups): {:.0} lookups/s",
        n / 10,
        (n / 10) as f64 / secs
    );

    let rd = st.read().expect("read");
    let t = Instant::now();
    let mut k = 0usize;
    rd.walk_keys(State::New, false, None, |_| {
        k += 1;
        Ok(true)
    })
    .expect("walk");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "walk: {k} keys of state NEW: {:.0} records/s",
        k as f64 / secs
    );

    let t = Instant::now();
    let mut bytes = 0usize;
    rd.walk_state(State::New, false, |_, r| {
        bytes += r.url.len();
        Ok(true)
    })
    .expect("walk");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "walk: {k} records of state NEW, decoded: {:.0} records/s ({bytes} URL bytes)",
        k as f64 / secs
    );
    drop(rd);

    let lease = Lease {
        pid: std::process::id(),
        time: nlpcrawl::run::clock::real_now(),
    };
    let t = Instant::now();
    let mut moved = 0usize;
    loop {
        let mut w = st.write().expect("write");
        let got = w.lease(State::New, 1000, lease).expect("lease");
        if got.is_empty() || moved >= n / 4 {
            break;
        }
        for (key, rec) in &got {
            let mut r = rec.clone();
            r.state = State::Ready;
            w.finish(key, &r, lease).expect("finish");
        }
        moved += got.len();
        w.commit().expect("commit");
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "lease+finish: {moved} records NEW -> READY in batches of 1000: {:.0} records/s",
        moved as f64 / secs
    );
}

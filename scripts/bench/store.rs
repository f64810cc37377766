//! Store throughput: batched inserts of new URLs, walking one state's
//! index (keys only, and with each record decoded), and the duplicate
//! index placing thousands of copies of one page (a template, a soft
//! error page), whose lookup is bounded however large the cluster grows,
//! and placing pages 64 a transaction as nlpc-vrfy does, distinct ones and
//! ones mostly alike, in CPU time a page.
//!
//! cargo bench --bench store [-- N]   (N records, default 1000000)
//! cargo bench --bench store -- dups  (the duplicate index only)

#[path = "cputime.rs"]
mod cputime;
use cputime::cpu_secs;

use std::time::Instant;

use nlpcrawl::document::fingerprint::Fingerprint;
use nlpcrawl::store::dups;
use nlpcrawl::store::record::{Lease, Record, State};
use nlpcrawl::store::{self, Key, Store, KEY_LEN};

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir().expect("temporary directory");
    if std::env::args().skip(1).any(|a| a == "dups") {
        placing();
        copies(&tmp.path().join("dups"));
        return;
    }
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
    placing();
    copies(&tmp.path().join("dups"));
}

/// Places 6,000 pages, 64 a transaction as nlpc-vrfy does, in a new index
/// (in /dev/shm when there is one, so that the disk's time stays out), and
/// prints the best of three runs in CPU time a page: pages of 300 words
/// drawn from 5,000, each like no other, and pages of 5 to 200 sentences
/// drawn from 40, as the compare web's (scripts/testweb/gen.py), most of
/// them near copies of others and their buckets full.
fn placing() {
    let n = 6000usize;
    let words: Vec<String> = (0..5000u64)
        .map(|i| format!("w{}x", i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40))
        .collect();
    let sentences: Vec<String> = (0..40)
        .map(|i| words[i * 15..i * 15 + 15].join(" ") + ".")
        .collect();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut text = |pieces: &[String], count: u64| {
        let mut s = String::new();
        for _ in 0..count {
            s.push_str(&pieces[(next() % pieces.len() as u64) as usize]);
            s.push(' ');
        }
        Fingerprint::of(&s)
    };
    let distinct: Vec<Fingerprint> = (0..n).map(|_| text(&words, 300)).collect();
    let alike: Vec<Fingerprint> = (0..n)
        .map(|i| text(&sentences, 5 + (i as u64).wrapping_mul(7919) % 196))
        .collect();
    let shm = std::path::Path::new("/dev/shm");
    for (name, fps) in [("distinct", &distinct), ("mostly alike", &alike)] {
        let mut best = f64::MAX;
        let mut marked = 0;
        for _ in 0..3 {
            let tmp = if shm.is_dir() {
                tempfile::tempdir_in(shm)
            } else {
                tempfile::tempdir()
            }
            .expect("temporary directory");
            let st = Store::open(&tmp.path().join("db"), store::Options::default()).expect("open");
            marked = 0;
            let t = cpu_secs();
            for (c, chunk) in fps.chunks(64).enumerate() {
                let mut w = st.write().expect("write");
                for (j, f) in chunk.iter().enumerate() {
                    let mut k = [0u8; KEY_LEN];
                    let i = (c * 64 + j + 1) as u64;
                    k[..8].copy_from_slice(&i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
                    let m = dups::record(&mut w, &Key(k), Some(f), dups::DEFAULT_SIMILARITY)
                        .expect("record");
                    marked += usize::from(m.is_some());
                }
                w.commit().expect("commit");
            }
            best = best.min((cpu_secs() - t) * 1e6 / n as f64);
        }
        println!(
            "duplicate index: {n} {name} pages placed, 64 a transaction ({marked} marked duplicates): {best:.1} us of CPU a page"
        );
    }
}

/// Places 20,000 copies of one page, each with its own text (a counter
/// changes) and one of three words at its end, so their MinHash
/// signatures are all alike (nearly one cluster of templates), as
/// nlpc-vrfy does (one transaction per page), and prints the time per
/// copy for the first and the last thousand: flat when each lookup is
/// bounded, growing with the cluster when it is not.
fn copies(dir: &std::path::Path) {
    let st = Store::open(dir, store::Options::default()).expect("open");
    let n = 20_000u64;
    let base = "Lapa nav atrasta. Meklētā lapa ir pārvietota vai dzēsta; \
                lūdzu, izmantojiet meklēšanu vai atgriezieties sākumlapā";
    let mut first = 0.0;
    let t = Instant::now();
    let mut lap = Instant::now();
    for i in 0..n {
        let mut k = [0u8; KEY_LEN];
        // From 1: the key of zeros is the lookup's own, left out of its count.
        k[..8].copy_from_slice(&(i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
        let word = ["šodien", "vakar", "rīt"][(i % 3) as usize];
        let f = Fingerprint::of(&format!("{base} {word} {i}"));
        let mut w = st.write().expect("write");
        dups::record(&mut w, &Key(k), Some(&f), dups::DEFAULT_SIMILARITY).expect("record");
        w.commit().expect("commit");
        if i + 1 == 1000 {
            first = lap.elapsed().as_secs_f64() * 1e6 / 1000.0;
        }
        if i + 1 == n - 1000 {
            lap = Instant::now();
        }
    }
    let last = lap.elapsed().as_secs_f64() * 1e6 / 1000.0;
    let sig = Fingerprint::of(base).minhash;
    let cost =
        dups::lookup_cost(&st.read().expect("read"), &sig, dups::DEFAULT_SIMILARITY).expect("cost");
    println!(
        "duplicate index: {n} copies of one page placed in {:.1} s; first 1,000: {first:.0} us a copy, last 1,000: {last:.0} us; a lookup reads {cost} entries",
        t.elapsed().as_secs_f64()
    );
}

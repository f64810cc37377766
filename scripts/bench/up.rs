//! nlpc-up and nlpc-dump throughput: a timed pass over SCANNED records
//! with nothing due and with half of them due (the pass walks the due
//! index, so the first costs next to nothing), and a dump of pages to WARC
//! and to text.
//!
//! cargo bench --bench up [-- N]   (N records, default 1000000; the dump
//! takes N/20 pages of 20 KB; UP_BATCH=n moves at most n records a
//! transaction instead of nlpc-up's default, to compare batch sizes in one
//! build)

use std::time::Instant;

use nlpcrawl::output::dump;
use nlpcrawl::stage::up;
use nlpcrawl::store::archive::Archive;
use nlpcrawl::store::cache::Cache;
use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{self, Inserted, Store};

const NOW: u64 = 2_000_000_000;
const DAY: u64 = 86_400;

/// This process's CPU seconds (user and system) and 512-byte blocks
/// written so far.
fn usage() -> (f64, i64) {
    // SAFETY: an all-zero rusage is a valid value for getrusage to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is to a local that outlives the call.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_oublock)
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir().expect("temporary directory");
    let st = Store::open(&tmp.path().join("db"), store::Options::default()).expect("open");
    let cache = Cache::new(tmp.path().join("cache"));
    let recs: Vec<Record> = (0..n)
        .map(|i| {
            let mut r = Record::new(&format!("http://host{}.example.lv/p/{i}.html", i % 5000), 1);
            r.state = State::Scanned;
            r.addr = "192.0.2.1".into();
            // Half fetched 20 days ago (due), half an hour ago.
            r.fetched = if i % 2 == 0 {
                NOW - 20 * DAY
            } else {
                NOW - 3600
            };
            r
        })
        .collect();
    for chunk in recs.chunks(100_000) {
        let mut w = st.write().expect("write");
        w.insert_batch(chunk).expect("insert");
        w.commit().expect("commit");
    }
    let mut cfg = up::Config::default();
    if let Some(b) = std::env::var("UP_BATCH").ok().and_then(|v| v.parse().ok()) {
        cfg.batch = b;
    }

    let t = Instant::now();
    let rep = up::pass(&st, &cache, &cfg, NOW - 19 * DAY).expect("pass");
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(rep.total(), 0);
    println!(
        "nlpc-up pass, nothing due: {n} SCANNED records in {:.3} ms",
        secs * 1e3
    );
    let t = Instant::now();
    let ru0 = usage();
    let rep = up::pass(&st, &cache, &cfg, NOW).expect("pass");
    let secs = t.elapsed().as_secs_f64();
    let ru1 = usage();
    let due = rep.expired.max(1) as f64;
    println!(
        "nlpc-up pass, half due, at most {} records and {} pages a transaction: {} of {n} expired in {secs:.2} s, {:.0} moved/s, {:.1} µs per due record; CPU {:.1} µs and {:.1} KB written per due record",
        cfg.batch,
        cfg.pages,
        rep.expired,
        rep.expired as f64 / secs,
        secs * 1e6 / due,
        (ru1.0 - ru0.0) * 1e6 / due,
        (ru1.1 - ru0.1) as f64 / 2.0 / due,
    );

    // A corpus of 20 KB pages.
    let pages = (n / 20).max(1);
    let body: Vec<u8> = "Rīga ir Latvijas galvaspilsēta un lielākā pilsēta. "
        .repeat(400)
        .into_bytes();
    let tmp2 = tempfile::tempdir().expect("temporary directory");
    let st = Store::open(&tmp2.path().join("db"), store::Options::default()).expect("open");
    let cache = Cache::new(tmp2.path().join("cache"));
    let mut w = st.write().expect("write");
    for i in 0..pages {
        let mut r = Record::new(&format!("http://h{}.example.lv/{i}", i % 300), 1);
        r.state = State::Scanned;
        r.fetched = NOW;
        r.content_type = "text/html".into();
        r.charset = "utf-8".into();
        r.language = "lv".into();
        let mut b = body.clone();
        b.extend_from_slice(format!("<p>{i}</p>").as_bytes());
        r.hash = *blake3::hash(&b).as_bytes();
        r.size = b.len() as u64;
        if let Inserted::New(k) = w.insert(&r).expect("insert") {
            cache.write(&k, &b).expect("cache");
        }
    }
    w.commit().expect("commit");
    let bytes = pages as f64 * body.len() as f64;
    let arch = Archive::new(tmp2.path().join("archive"));
    let cfg = dump::Config {
        warc: Some(tmp2.path().join("out.warc.gz")),
        ..dump::Config::default()
    };
    let t = Instant::now();
    let rep = dump::dump(&st, &cache, &arch, &cfg).expect("dump");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "nlpc-dump --warc: {} pages of 20 KB in {secs:.2} s, {:.0} pages/s, {:.1} MB/s in, {:.1} MB out",
        rep.records,
        rep.records as f64 / secs,
        bytes / secs / 1e6,
        rep.warc_bytes as f64 / 1e6
    );

    let cfg = dump::Config {
        text: Some(tmp2.path().join("text")),
        ..dump::Config::default()
    };
    let t = Instant::now();
    let rep = dump::dump(&st, &cache, &arch, &cfg).expect("dump");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "nlpc-dump --text: {} pages of 20 KB in {secs:.2} s, {:.0} pages/s, {:.1} MB/s in",
        rep.text_files,
        rep.text_files as f64 / secs,
        bytes / secs / 1e6
    );
}

//! Damaged databases: every executable refuses them with one line and exit
//! status 1, never dies by a signal, and leaves the damaged files as they
//! were. The fixtures are real databases, damaged by the test.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Output;

use common::{stderr, stdout, Crawl};
use nlpcrawl::store::record::{Record, FORMAT_VERSION};
use nlpcrawl::store::{self, Store};

const PAGE: u64 = 4096;

/// A crawl with a real database of `n` records.
fn seeded(n: usize) -> Crawl {
    let c = Crawl::new();
    let st = c.store();
    let mut w = st.write().unwrap();
    for i in 0..n {
        w.insert(&Record::new(&format!("http://h{}.lv/page/{i}", i % 7), 1))
            .unwrap();
    }
    w.commit().unwrap();
    c
}

fn data(c: &Crawl) -> std::path::PathBuf {
    c.db().join("data.mdb")
}

/// Size and hash of a file, or None if absent.
fn fingerprint(p: &Path) -> Option<(u64, blake3::Hash)> {
    std::fs::read(p)
        .ok()
        .map(|b| (b.len() as u64, blake3::hash(&b)))
}

/// Cuts data.mdb to `len` bytes.
fn cut(c: &Crawl, len: u64) {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(data(c))
        .unwrap();
    f.set_len(len).unwrap();
}

fn overwrite_page(p: &Path, pgno: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    // Deterministic garbage: a pattern no valid page header matches.
    let junk: Vec<u8> = (0..PAGE).map(|i| (i * 131 % 251) as u8 ^ 0x5a).collect();
    f.write_all_at(&junk, pgno * PAGE).unwrap();
}

/// The runs of every executable on a crawl, each as it would be started.
fn runs(c: &Crawl) -> Vec<(&'static str, Vec<String>)> {
    let warc = c.tmp.path().join("out.warc").display().to_string();
    let ns = "127.0.0.1:9".to_string();
    // Never contacted: names resolve only through the closed 127.0.0.1:9.
    let seed = "http://seed.invalid/".to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("nlpc-scan", vec![seed.clone()]),
        ("nlpc-scan", s(&["--once"])),
        (
            "nlpc-resolve",
            vec!["--once".into(), "--nameserver".into(), ns.clone()],
        ),
        ("nlpc-fetch", s(&["--once"])),
        ("nlpc-vrfy", s(&["--once"])),
        ("nlpc-up", s(&["--once"])),
        ("nlpc-list", s(&[])),
        ("nlpc-list", s(&["--check"])),
        ("nlpc-dump", vec!["--warc".into(), warc]),
        (
            "nlpcd",
            vec!["--once".into(), "--nameserver".into(), ns, seed],
        ),
    ]
}

fn run(c: &Crawl, bin: &str, args: &[String]) -> Output {
    c.cmd(bin).args(args).output().expect("run executable")
}

/// Every executable refuses the crawl's database: status 1 (no signal),
/// one line on standard error naming the database and containing `why`,
/// data.mdb as it was and lock.mdb neither made nor removed (an old format
/// is found only once LMDB has opened the environment, which writes its
/// reader table in lock.mdb).
fn assert_all_refuse(c: &Crawl, why: &str) {
    let db = c.db().display().to_string();
    let lock = c.db().join("lock.mdb");
    let before = (fingerprint(&data(c)), lock.exists());
    for (bin, args) in runs(c) {
        let o = run(c, bin, &args);
        let err = stderr(&o);
        assert_eq!(
            o.status.signal(),
            None,
            "{bin} {args:?} died by a signal: {err}"
        );
        assert_eq!(o.status.code(), Some(1), "{bin} {args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{bin} {args:?}: {err}");
        assert!(
            err.contains(&db),
            "{bin} {args:?} does not name {db}: {err}"
        );
        assert!(
            err.contains(why),
            "{bin} {args:?} does not say {why:?}: {err}"
        );
        let after = (fingerprint(&data(c)), lock.exists());
        assert!(after == before, "{bin} {args:?} changed the damaged files");
    }
    assert!(
        !c.db().join("nlpcd.lock").exists(),
        "nlpcd wrote beside a damaged database"
    );
}

#[test]
fn a_sound_database_checks_clean() {
    let c = seeded(300);
    let o = c.run("nlpc-list", &["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o).trim(),
        "checked 300 records and 300 index entries: 0 problems"
    );
}

#[test]
fn a_truncated_data_file_is_refused() {
    let c = seeded(300);
    let len = std::fs::metadata(data(&c)).unwrap().len();
    assert!(len > 4 * PAGE, "the fixture is too small to cut: {len}");
    cut(&c, 3 * PAGE);
    assert_all_refuse(&c, "the file is truncated");
}

/// LMDB counts the pages a transaction allocated and freed again (loose
/// pages) in the meta's last page, but never writes them: a sound file may
/// end before the page its meta names, and every executable must open it.
/// The bench that plants 1 M records and rewrites them met one so.
#[test]
fn a_file_ending_before_its_last_free_pages_is_sound() {
    let c = seeded(300);
    let st = c.store();
    let mut w = st.write().unwrap();
    // Pages allocated at the end of the file and freed in one transaction.
    let big = vec![7u8; 1500];
    for i in 0..400u32 {
        w.table_put(store::Table::Stats, &i.to_be_bytes(), &big)
            .unwrap();
    }
    // Last to first: LMDB reuses the page freed last first, so the
    // pages at the end are left loose.
    for i in (0..400u32).rev() {
        w.table_del(store::Table::Stats, &i.to_be_bytes()).unwrap();
    }
    w.commit().unwrap();
    drop(st);
    let len = std::fs::metadata(data(&c)).unwrap().len();
    let o = c.run("nlpc-list", &["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(": 0 problems"), "{}", stdout(&o));
    // The case itself: the meta's last page lies past the end of the file.
    let meta_end = last_page_end(&data(&c));
    assert!(
        meta_end > len,
        "no unwritten tail to test: the file is {len} bytes, the meta ends at {meta_end}"
    );
    for (bin, args) in runs(&c) {
        if bin == "nlpcd" || bin == "nlpc-scan" {
            continue;
        }
        let o = run(&c, bin, &args);
        assert!(
            !stderr(&o).contains("truncated"),
            "{bin} {args:?}: {}",
            stderr(&o)
        );
    }
    // A file cut below pages in use is still refused.
    cut(&c, 8 * PAGE);
    assert_all_refuse(&c, "the file is truncated");
}

/// A meta page naming a last page far past the file (2^40: a free-page
/// bitmap of it would take 128 GB) is refused as truncated, not sized by.
#[test]
fn an_absurd_last_page_is_refused_without_sizing_by_it() {
    use std::os::unix::fs::FileExt;
    let c = seeded(50);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(data(&c))
        .unwrap();
    for pg in 0..2u64 {
        // The last page's field of each meta (see last_page_end).
        f.write_all_at(&(1u64 << 40).to_ne_bytes(), pg * PAGE + 16 + 120)
            .unwrap();
    }
    assert_eq!(last_page_end(&data(&c)), ((1u64 << 40) + 1) * PAGE);
    assert_all_refuse(&c, "the file is truncated");
}

/// Where the newer meta page of data.mdb says the data ends (64-bit
/// LMDB: the last page number and transaction id close each meta).
fn last_page_end(p: &Path) -> u64 {
    let b = std::fs::read(p).unwrap();
    let meta = |pg: usize| {
        let m = &b[pg * PAGE as usize + 16..];
        // magic, version, address, map size, two 48-byte tree descriptions.
        let at = 4 + 4 + 8 + 8 + 2 * 48;
        let word = |o: usize| u64::from_ne_bytes(m[o..o + 8].try_into().unwrap());
        (word(at + 8), word(at))
    };
    let (a, b2) = (meta(0), meta(1));
    let last = if a.0 > b2.0 { a.1 } else { b2.1 };
    (last + 1) * PAGE
}

#[test]
fn an_empty_data_file_is_refused_unless_told_to_create() {
    let c = seeded(10);
    std::fs::File::create(data(&c)).unwrap();
    assert_all_refuse(&c, "data.mdb is empty");
    // --create starts a new database over it, as asked.
    let o = c.run("nlpc-scan", &["--create", "http://a.lv/"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = c.run("nlpc-list", &[]);
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
}

#[test]
fn a_lock_file_without_data_file_is_refused_unless_told_to_create() {
    let c = seeded(10);
    std::fs::remove_file(data(&c)).unwrap();
    assert_all_refuse(&c, "data.mdb is missing");
    assert!(!data(&c).exists(), "a refusal created data.mdb");
    let o = c.run(
        "nlpcd",
        &["--create", "--once", "--nameserver", "127.0.0.1:9"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(c.run("nlpc-list", &["--check"]).status.success());
}

#[test]
fn a_first_run_creates_but_no_reader_or_daemon_does() {
    for (bin, args) in [
        ("nlpc-list", vec![]),
        ("nlpc-fetch", vec!["--once"]),
        ("nlpc-vrfy", vec!["--once"]),
        ("nlpc-up", vec!["--once"]),
        ("nlpc-scan", vec!["--once"]),
        ("nlpc-dump", vec!["--warc", "-"]),
    ] {
        let c = Crawl::new();
        let o = c.run(bin, &args);
        assert_eq!(o.status.code(), Some(1), "{bin}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no nlpcrawl database"),
            "{bin}: {}",
            stderr(&o)
        );
        assert!(!data(&c).exists(), "{bin} created a database");
    }
    let c = Crawl::new();
    let o = c.run("nlpc-scan", &["http://a.lv/"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(data(&c).exists());
}

#[test]
fn garbage_over_one_meta_page_is_refused() {
    // LMDB reads both meta pages and refuses the file if either is bad, so
    // the intact one cannot be fallen back on: the refusal says which.
    for pgno in [0, 1] {
        let c = seeded(50);
        overwrite_page(&data(&c), pgno);
        assert_all_refuse(&c, &format!("meta page {pgno} of data.mdb is damaged"));
    }
}

#[test]
fn garbage_over_both_meta_pages_is_refused() {
    let c = seeded(50);
    overwrite_page(&data(&c), 0);
    overwrite_page(&data(&c), 1);
    assert_all_refuse(&c, "neither meta page of data.mdb is valid");
}

/// The page numbers of the leaf pages of the records table: those that
/// hold a URL of the fixture and say they are themselves (page header:
/// number, then flags at offset 10 with the leaf bit).
fn record_leaves(p: &Path) -> Vec<u64> {
    let b = std::fs::read(p).unwrap();
    let mut out = Vec::new();
    for (i, page) in b.chunks(PAGE as usize).enumerate().skip(2) {
        let pgno = u64::from_ne_bytes(page[..8].try_into().unwrap());
        let flags = u16::from_ne_bytes([page[10], page[11]]);
        let has_url = page.windows(10).any(|w| w == b"http://h3.");
        if pgno == i as u64 && flags & 0x02 != 0 && has_url {
            out.push(pgno);
        }
    }
    out
}

#[test]
fn garbage_over_a_data_page_is_reported_and_never_kills_by_a_signal() {
    let c = seeded(300);
    let leaves = record_leaves(&data(&c));
    assert!(leaves.len() >= 2, "records fit one page: {leaves:?}");
    let victim = leaves[0];
    overwrite_page(&data(&c), victim);
    let o = c.run("nlpc-list", &["--check"]);
    assert_eq!(o.status.signal(), None, "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("records: ") && l.contains(&format!("page {victim}"))),
        "{out}"
    );
    assert!(out.lines().last().unwrap().ends_with("problems"), "{out}");
    // The daemons either pass the page by or stop with one line naming
    // the database; none dies by a signal.
    let db = c.db().display().to_string();
    for (bin, args) in runs(&c) {
        let o = run(&c, bin, &args);
        let err = stderr(&o);
        assert_eq!(
            o.status.signal(),
            None,
            "{bin} {args:?} died by a signal: {err}"
        );
        // (--check reports on standard output, checked above.)
        if !o.status.success() && !args.iter().any(|a| a == "--check") {
            assert!(
                err.lines().any(|l| l.contains(&db)),
                "{bin} {args:?}: {err}"
            );
        }
    }
    // A walk over every record meets the page: one line, status 1.
    let o = c.run("nlpc-list", &[]);
    assert_eq!(o.status.signal(), None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains(&db), "{}", stderr(&o));
}

#[test]
fn a_database_of_the_previous_format_is_refused_naming_both_versions() {
    let c = seeded(20);
    let old = FORMAT_VERSION - 1;
    c.store().force_format_version(old).unwrap();
    let want = format!("format version {old}, this nlpcrawl reads version {FORMAT_VERSION}");
    assert_all_refuse(&c, &want);
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    match Store::open(&c.db(), opts) {
        Err(e) => assert!(e.to_string().contains(&want), "{e}"),
        Ok(_) => panic!("an old format was opened"),
    }
}

#[test]
fn a_backup_taken_while_a_writer_inserts_is_a_consistent_snapshot() {
    const BATCH: usize = 100;
    let c = seeded(BATCH);
    let st = c.store();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let bk = c.tmp.path().join("backup");
    let (copied, written) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut n = BATCH;
            let mut batches = 0;
            // At least a few batches, and on until the backup is done.
            while batches < 5 || !stop.load(std::sync::atomic::Ordering::Acquire) {
                let mut w = st.write().unwrap();
                for i in 0..BATCH {
                    w.insert(&Record::new(&format!("http://w.lv/{n}/{i}"), 1))
                        .unwrap();
                }
                w.commit().unwrap();
                n += BATCH;
                batches += 1;
            }
            n
        });
        let o = c.run("nlpc-list", &["--backup", &bk.display().to_string()]);
        stop.store(true, std::sync::atomic::Ordering::Release);
        assert!(o.status.success(), "{}", stderr(&o));
        (o, writer.join().unwrap())
    });
    assert!(stdout(&copied).contains("data.mdb"), "{}", stdout(&copied));
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    let copy = Store::open(&bk, opts).unwrap();
    let rd = copy.read().unwrap();
    let mut n = 0;
    rd.walk_all(|_, _| {
        n += 1;
        Ok(true)
    })
    .unwrap();
    // A committed state: whole batches, between the seed and the end.
    assert!(n >= BATCH && n <= written, "{n} of {written}");
    assert_eq!(n % BATCH, 0, "the copy holds part of a transaction");
    assert!(rd.check().unwrap().is_empty());
    // A second backup into the same place is refused.
    let o = c.run("nlpc-list", &["--backup", &bk.display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("refusing to overwrite"),
        "{}",
        stderr(&o)
    );
}

//! `make install`: into a temporary DESTDIR, the binaries this test run
//! built (PROFILE=debug, stripped by install), the manuals, the units made
//! for the prefix and /etc/default/nlpcrawl; then the installed programs
//! run a crawl directory of their own. No user is created (that is
//! `make install-user`, run as root by hand).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{exe, stderr, stdout};

const BINS: [&str; 12] = [
    "nlpcd",
    "nlpc-scan",
    "nlpc-resolve",
    "nlpc-fetch",
    "nlpc-vrfy",
    "nlpc-up",
    "nlpc-list",
    "nlpc-dump",
    "nlpc-index",
    "nlpc-search",
    "nlpc-stat",
    "nlpc-relay",
];

/// True when the ELF file still has a symbol table.
fn has_symbols(p: &Path) -> bool {
    let b = std::fs::read(p).unwrap();
    assert_eq!(&b[..4], b"\x7fELF", "{} is not ELF", p.display());
    b.windows(8).any(|w| w == b".symtab\0")
}

#[test]
fn make_install_puts_every_part_in_place_and_the_installed_crawl_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("dest");
    let built = exe("nlpcd").parent().unwrap().to_path_buf();
    let o = Command::new("make")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("install-files")
        .arg("PROFILE=debug")
        .arg(format!("BINSRC={}", built.display()))
        .arg(format!("DESTDIR={}", dest.display()))
        .arg("PREFIX=/usr")
        .output()
        .expect("run make (apt-get install make)");
    assert!(o.status.success(), "make install: {}", stderr(&o));
    let usr = dest.join("usr");
    for b in BINS {
        let p = usr.join("bin").join(b);
        assert!(p.exists(), "{} missing", p.display());
        assert!(!has_symbols(&p), "{} is not stripped", p.display());
    }
    // The built binary had symbols: the check can tell.
    assert!(has_symbols(&exe("nlpc-list")));
    for m in [
        "man1/nlpc-scan.1",
        "man1/nlpc-list.1",
        "man1/nlpc-stat.1",
        "man7/nlpcrawl.7",
        "man8/nlpcd.8",
        "man8/nlpc-index.8",
        "man8/nlpc-relay.8",
        "man1/nlpc-search.1",
    ] {
        assert!(usr.join("share/man").join(m).exists(), "{m} missing");
    }
    let unit = std::fs::read_to_string(usr.join("lib/systemd/system/nlpcd.service")).unwrap();
    assert!(
        unit.contains("ExecStart=/usr/bin/nlpcd --dir /var/lib/nlpcrawl "),
        "{unit}"
    );
    assert!(
        unit.contains("EnvironmentFile=-/etc/default/nlpcrawl"),
        "{unit}"
    );
    assert!(unit.contains("UMask=0007"), "{unit}");
    assert!(usr.join("lib/systemd/system/nlpcrawl.target").exists());
    let default = dest.join("etc/default/nlpcrawl");
    assert!(
        std::fs::read_to_string(&default)
            .unwrap()
            .contains("NLPCD_OPTS="),
        "{}",
        default.display()
    );

    // The installed programs, on a crawl directory of their own.
    let bin = |b: &str| -> PathBuf { usr.join("bin").join(b) };
    let o = Command::new(bin("nlpc-scan")).arg("-v").output().unwrap();
    assert!(stdout(&o).starts_with("nlpc-scan "), "{}", stdout(&o));
    let crawl = tmp.path().join("crawl");
    let dir = crawl.to_str().unwrap();
    // nlpcd creates the crawl, stores its settings, and finds its daemons
    // beside itself, the installed ones.
    let o = Command::new(bin("nlpcd"))
        .args(["--dir", dir, "--once", "--nameserver", "127.0.0.143:9"])
        .args(["--filter-auth", "a.test"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("crawling {}", crawl.join("db").display())),
        "{err}"
    );
    for b in [
        "nlpc-scan",
        "nlpc-resolve",
        "nlpc-fetch",
        "nlpc-vrfy",
        "nlpc-up",
    ] {
        assert!(err.contains(&format!("{b} info: started")), "{b}: {err}");
    }
    let o = Command::new(bin("nlpc-list"))
        .args(["--dir", dir, "--config"])
        .output()
        .unwrap();
    assert!(
        stdout(&o).lines().any(|l| l == "filter-auth=a.test"),
        "{}",
        stdout(&o)
    );
}

//! nlpc-fetch throughput with politeness 0 on loopback, beside the raw rate
//! of the same URLs fetched by plain curl with keep-alive, both from one
//! nginx serving 100 loopback addresses.
//!
//! cargo bench --bench fetch [-- PAGES]   (default 10000; needs nginx and curl)
//! FETCH_BENCH_DIR=/dev/shm cargo bench --bench fetch   (crawl files on a tmpfs)
//! FETCH_BENCH_ADDRS=4 cargo bench --bench fetch   (the pages on 4 addresses)

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use nlpcrawl::store::record::{Record, State};
use nlpcrawl::store::{self, Store};

fn cpu_children() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

fn main() {
    // FETCH_BENCH_ADDRS=N spreads the pages over N addresses (default 100).
    let addrs: usize = std::env::var("FETCH_BENCH_ADDRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| (1..=250).contains(n))
        .unwrap_or(100);
    let pages: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(nginx) = nginx else {
        eprintln!("fetch bench: nginx not found (apt-get install nginx-light)");
        return;
    };
    // FETCH_BENCH_DIR puts the crawl (database, cache) on another file
    // system, such as a tmpfs, to tell the fetcher's cost from the disk's.
    let tmp = match std::env::var("FETCH_BENCH_DIR") {
        Ok(d) => tempfile::tempdir_in(d),
        Err(_) => tempfile::tempdir(),
    }
    .expect("temporary directory");
    let root = tmp.path().join("www");
    std::fs::create_dir_all(&root).expect("docroot");
    let mut bytes = 0;
    for i in 0..pages / addrs {
        // Sizes from 2 KB to about 50 KB.
        let size = 2_000 + (i * 7919) % 48_000;
        let mut body = String::from("<html><head><meta charset=utf-8></head><body>");
        while body.len() < size {
            body.push_str("<p>Latvija ir valsts Baltijas jūras austrumu krastā.</p>\n");
        }
        body.push_str("</body></html>");
        bytes += body.len() * addrs;
        std::fs::write(root.join(format!("p{i}.html")), body).expect("page");
    }
    std::fs::write(
        root.join("robots.txt"),
        "User-agent: *\nDisallow: /private\n",
    )
    .expect("robots");
    let mut listen = String::new();
    for a in 1..=addrs {
        let _ = writeln!(listen, "    listen 127.0.9.{a}:8089;");
    }
    let conf = format!(
        "daemon off;\nworker_processes 1;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\nevents {{ worker_connections 4096; }}\nhttp {{\n  access_log off;\n  keepalive_requests 100000;\n  client_body_temp_path {dir}/tmp; proxy_temp_path {dir}/tmp; fastcgi_temp_path {dir}/tmp; uwsgi_temp_path {dir}/tmp; scgi_temp_path {dir}/tmp;\n  types {{ text/html html; text/plain txt; }}\n  server {{\n{listen}    root {root};\n  }}\n}}\n",
        dir = tmp.path().display(),
        root = root.display()
    );
    let conf_path = tmp.path().join("nginx.conf");
    std::fs::write(&conf_path, conf).expect("nginx.conf");
    let mut server = Command::new(nginx)
        .arg("-c")
        .arg(&conf_path)
        .arg("-e")
        .arg(tmp.path().join("error.log"))
        .stderr(Stdio::null())
        .spawn()
        .expect("start nginx");
    // nginx is up when its last address answers.
    let up = Instant::now();
    let last = format!("127.0.9.{addrs}");
    while std::net::TcpStream::connect((last.as_str(), 8089)).is_err() {
        assert!(up.elapsed().as_secs() < 10, "nginx did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    let urls: Vec<(String, String)> = (0..pages)
        .map(|n| {
            let a = n % addrs + 1;
            (
                format!("http://127.0.9.{a}:8089/p{}.html", n / addrs),
                format!("127.0.9.{a}"),
            )
        })
        .collect();

    // The raw ceiling: one curl per address, all its URLs over one
    // kept-alive connection, 64 addresses at a time (as --fetch-hosts).
    let lists = tmp.path().join("lists");
    std::fs::create_dir_all(&lists).expect("lists");
    for a in 1..=addrs {
        let mut s = String::new();
        for (u, _) in urls.iter().filter(|(_, ad)| *ad == format!("127.0.9.{a}")) {
            let _ = writeln!(s, "url = \"{u}\"\noutput = \"/dev/null\"");
        }
        std::fs::write(lists.join(a.to_string()), s).expect("list");
    }
    let cpu0 = cpu_children();
    let t = Instant::now();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ls {} | xargs -P 64 -I{{}} curl -s --noproxy '*' -K {}/{{}}",
            lists.display(),
            lists.display()
        ))
        .status()
        .expect("curl");
    assert!(status.success(), "curl failed");
    let raw_secs = t.elapsed().as_secs_f64();
    let raw_cpu = cpu_children() - cpu0;
    let raw_rate = pages as f64 / raw_secs;

    let db = tmp.path().join("db");
    let st = Store::open(&db, store::Options::default()).expect("store");
    let recs: Vec<Record> = urls
        .iter()
        .map(|(u, a)| {
            let mut r = Record::new(u, 1);
            r.state = State::Ready;
            r.addr = a.clone();
            r
        })
        .collect();
    let mut w = st.write().expect("write");
    w.insert_batch(&recs).expect("insert");
    w.commit().expect("commit");
    drop(st);
    let cpu0 = cpu_children();
    let t = Instant::now();
    // FETCH_WRAP="perf record -g -o FILE" (or "strace -c -f -o FILE") runs
    // nlpc-fetch under a profiler.
    let mut cmd = match std::env::var("FETCH_WRAP") {
        Ok(wrap) if !wrap.trim().is_empty() => {
            let mut words = wrap.split_whitespace();
            let mut c = Command::new(words.next().unwrap_or("env"));
            c.args(words).arg(env!("CARGO_BIN_EXE_nlpc-fetch"));
            c
        }
        _ => Command::new(env!("CARGO_BIN_EXE_nlpc-fetch")),
    };
    let out = cmd
        .args(["--once", "--fetch-polite", "0", "--fetch-hosts", "64"])
        .arg("-p")
        .arg(&db)
        .arg("-f")
        .arg(tmp.path().join("cache"))
        .arg("-r")
        .arg(tmp.path().join("rep"))
        .arg("-a")
        .arg(tmp.path().join("archive"))
        .stderr(match std::env::var("FETCH_LOG") {
            // FETCH_LOG=FILE keeps nlpc-fetch's lines (with -d in FETCH_ARGS).
            Ok(f) => Stdio::from(std::fs::File::create(f).expect("log file")),
            Err(_) => Stdio::null(),
        })
        .args(
            std::env::var("FETCH_ARGS")
                .unwrap_or_default()
                .split_whitespace(),
        )
        .status()
        .expect("nlpc-fetch");
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_children() - cpu0;
    assert!(out.success(), "nlpc-fetch failed");
    let st = Store::open(&db, store::Options::default()).expect("store");
    let fresh = st
        .read()
        .expect("read")
        .count(State::Fresh, false)
        .expect("count");
    // SIGTERM lets the master stop its workers; SIGKILL would orphan them.
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = server.wait();

    println!(
        "fetch: {pages} pages ({:.1} MB) on {addrs} loopback addresses, nginx",
        bytes as f64 / 1e6
    );
    println!(
        "fetch: raw curl keep-alive: {raw_rate:.0} pages/s, {:.0} us CPU/page (curl)",
        raw_cpu / pages as f64 * 1e6
    );
    println!(
        "fetch: nlpc-fetch --fetch-polite 0: {:.0} pages/s, {:.0} us CPU/page, {fresh} FRESH, {:.0}% of raw",
        pages as f64 / secs,
        cpu / pages as f64 * 1e6,
        pages as f64 / secs / raw_rate * 100.0
    );
}

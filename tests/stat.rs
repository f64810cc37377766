//! nlpc-stat over a planted history (the table and the CSV hold exactly
//! the planted numbers; --since leaves older entries out; the PNG decodes
//! at the asked size; the SVG is well-formed and names its series; a
//! history of a few seconds, as the demo's, puts something in every chart
//! and no time label twice on an axis; a missing font is one clear line)
//! and over the history a real crawl under nlpcd writes.

mod common;

use common::web::Web;
use common::*;
use nlpcrawl::store::record::State;
use nlpcrawl::store::series;

/// The start of the current minute, and three minutes of planted history
/// ending there, plus one entry two hours older.
fn planted(c: &Crawl) -> u64 {
    let now = nlpcrawl::run::clock::real_now();
    let m = now - now % 60;
    let st = c.store();
    let fetch = |t: u64, pages: u64, bytes: u64, errors: u64| {
        let v = [("pages", pages), ("bytes", bytes), ("errors", errors)]
            .map(|(k, v)| (k.to_string(), v));
        series::record(&st, t, "nlpc-fetch", &v).unwrap();
    };
    let states = |t: u64, s: &[(State, u64)]| {
        let v: Vec<(String, u64)> = s.iter().map(|(s, n)| (s.name().to_string(), *n)).collect();
        series::record(&st, t, series::STATES, &v).unwrap();
    };
    let yields = |t: u64, judged: u64, text: u64| {
        let v = [(series::JUDGED_BYTES, judged), (series::TEXT_BYTES, text)]
            .map(|(k, v)| (k.to_string(), v));
        series::record(&st, t, series::YIELD, &v).unwrap();
    };
    fetch(m - 7200, 1, 1, 0);
    yields(m - 120, 1000, 100);
    // 400 bytes of text of 2000 judged: 20%.
    yields(m - 60, 3000, 500);
    // Nothing judged in the last minute: no yield.
    yields(m, 3000, 500);
    fetch(m - 120, 10, 500, 1);
    states(
        m - 120,
        &[(State::New, 7), (State::Verified, 3), (State::Rejected, 1)],
    );
    fetch(m - 60, 70, 900, 2);
    // Within the same minute: the later entry wins.
    states(m - 60, &[(State::New, 1), (State::Scanned, 1)]);
    states(
        m - 60 + 30,
        &[(State::New, 5), (State::Scanned, 3), (State::Rejected, 1)],
    );
    // A restarted fetcher: counts from zero again.
    fetch(m, 6, 300, 0);
    states(
        m,
        &[(State::New, 2), (State::Scanned, 8), (State::Rejected, 2)],
    );
    m
}

fn iso(t: u64) -> String {
    nlpcrawl::run::clock::iso8601(t)
}

#[test]
fn the_table_and_the_csv_hold_the_planted_numbers() {
    let c = Crawl::new();
    let m = planted(&c);
    let o = c.run("nlpc-stat", &["--csv", "--since", "1h"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines,
        [
            "time,nlpc-fetch.bytes,nlpc-fetch.errors,nlpc-fetch.pages,nlpc-vrfy.judged_bytes,nlpc-vrfy.text_bytes,nlpcd.NEW,nlpcd.REJECTED,nlpcd.SCANNED,nlpcd.VERIFIED,pages_per_s,bytes_per_s,harvest,yield".to_string(),
            format!("{},500,1,10,1000,100,7,1,,3,,,0.7500,", iso(m - 120)),
            format!("{},900,2,70,3000,500,5,1,3,,1.000,6.7,0.7500,0.2000", iso(m - 60)),
            format!("{},300,0,6,3000,500,2,2,8,,0.100,5.0,0.8000,", iso(m)),
        ]
    );
    // Without --since the entry of two hours ago is there too.
    let all = stdout(&c.run("nlpc-stat", &["--csv"]));
    assert_eq!(all.lines().count(), 5, "{all}");
    assert!(
        all.lines().nth(1).unwrap().starts_with(&iso(m - 7200)),
        "{all}"
    );

    let o = c.run("nlpc-stat", &["--since", "1h"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let hhmm = |t: u64| iso(t)[11..16].to_string();
    let day = |t: u64| iso(t)[..10].to_string();
    let want: Vec<Vec<String>> = [
        "time (UTC) pages pages/s bytes errors NEW VERIFIED SCANNED REJECTED harvest yield",
        &format!(
            "{} {} 10 - 500 B 1 7 3 - 1 75.0% -",
            day(m - 120),
            hhmm(m - 120)
        ),
        &format!(
            "{} {} 70 1.0 900 B 2 5 - 3 1 75.0% 20.0%",
            day(m - 60),
            hhmm(m - 60)
        ),
        &format!("{} {} 6 0.1 300 B 0 2 - 8 2 80.0% -", day(m), hhmm(m)),
    ]
    .iter()
    .map(|l| l.split_whitespace().map(str::to_string).collect())
    .collect();
    assert_eq!(rows, want, "{table}");
}

/// True when `svg` is well-formed as far as its elements go: every tag
/// closes, in order, and one root holds everything.
fn well_formed(svg: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').ok_or("a tag never ends")?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        if stack.is_empty() {
            roots += 1;
        }
        if !tag.ends_with('/') {
            stack.push(name.to_string());
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed: {stack:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

#[test]
fn the_charts_decode_at_the_asked_size_and_name_their_series() {
    let c = Crawl::new();
    planted(&c);
    let png_path = c.tmp.path().join("chart.png");
    let svg_path = c.tmp.path().join("chart.svg");
    let o = c.run(
        "nlpc-stat",
        &[
            "--png",
            png_path.to_str().unwrap(),
            "--svg",
            svg_path.to_str().unwrap(),
            "--width",
            "640",
            "--height",
            "480",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "charts print nothing");

    let dec = png::Decoder::new(std::fs::File::open(&png_path).unwrap());
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (640, 480));
    // Not a blank canvas: lines and text in several colours.
    let px = info.line_size / info.width as usize;
    let colours: std::collections::BTreeSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    assert!(colours.len() > 10, "{} colours", colours.len());

    let svg = std::fs::read_to_string(&svg_path).unwrap();
    well_formed(&svg).unwrap_or_else(|e| panic!("SVG not well-formed: {e}"));
    assert!(svg.contains("width=\"640\"") && svg.contains("height=\"480\""));
    for name in nlpcrawl::output::stat::SERIES_NAMES
        .iter()
        .chain(&["NEW", "SCANNED", "REJECTED", "VERIFIED"])
    {
        assert!(svg.contains(name), "{name} missing from the SVG");
    }
    assert!(well_formed("<svg><g></svg>").is_err());
}

/// A crawl of two seconds sampled every second, as scripts/demo's: three
/// rows a second apart, nlpc-fetch's counts in the last two only, so one
/// rate. Returns the first second.
fn planted_seconds(c: &Crawl) -> u64 {
    let now = nlpcrawl::run::clock::real_now();
    let t = now - now % 60 - 60;
    let st = c.store();
    let fetch = |time: u64, pages: u64, bytes: u64| {
        let v = [("pages", pages), ("bytes", bytes)].map(|(k, v)| (k.to_string(), v));
        series::record(&st, time, "nlpc-fetch", &v).unwrap();
    };
    let states = |time: u64, new: u64, scanned: u64| {
        let v =
            [(State::New, new), (State::Scanned, scanned)].map(|(s, n)| (s.name().to_string(), n));
        series::record(&st, time, series::STATES, &v).unwrap();
    };
    let yields = |time: u64, judged: u64, text: u64| {
        let v = [(series::JUDGED_BYTES, judged), (series::TEXT_BYTES, text)]
            .map(|(k, v)| (k.to_string(), v));
        series::record(&st, time, series::YIELD, &v).unwrap();
    };
    states(t, 6, 0);
    yields(t, 0, 0);
    yields(t + 1, 50_000, 4_000);
    yields(t + 2, 300_000, 20_000);
    fetch(t + 1, 40, 90_000);
    states(t + 1, 30, 12);
    fetch(t + 2, 130, 400_000);
    states(t + 2, 3, 90);
    t
}

/// The RGB pixels of a decoded PNG.
fn pixels(path: &std::path::Path) -> (u32, u32, Vec<[u8; 3]>) {
    let dec = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.line_size / info.width as usize;
    assert!(px >= 3, "{px} bytes a pixel");
    let rgb = buf[..info.buffer_size()]
        .chunks(px)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

#[test]
fn a_history_of_seconds_fills_every_chart_and_labels_each_second_once() {
    let c = Crawl::new();
    let t = planted_seconds(&c);
    let png_path = c.tmp.path().join("chart.png");
    let svg_path = c.tmp.path().join("chart.svg");
    let o = c.run(
        "nlpc-stat",
        &[
            "--step",
            "1s",
            "--png",
            png_path.to_str().unwrap(),
            "--svg",
            svg_path.to_str().unwrap(),
            "--width",
            "800",
            "--height",
            "600",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Each chart's own colour is in its quarter of the picture: pages/s
    // (blue) and kB/s (magenta) have one rate each, the yield (cyan, top
    // right) two, the harvest (green) and the states three samples.
    let (w, h, rgb) = pixels(&png_path);
    let count = |colour: [u8; 3], left: bool, top: bool| {
        rgb.iter()
            .enumerate()
            .filter(|(i, p)| {
                let (x, y) = ((*i as u32) % w, (*i as u32) / w);
                **p == colour && (x < w / 2) == left && (y < h / 2) == top
            })
            .count()
    };
    for (name, colour, left, top) in [
        ("pages fetched/s", [0, 0, 255], true, true),
        ("kB fetched/s", [255, 0, 255], true, false),
        ("yield %", [0, 255, 255], false, true),
    ] {
        let n = count(colour, left, top);
        assert!(n >= 12, "{name}: {n} pixels of its colour: an empty chart");
    }
    // The time axes: seconds, each label once in each of the five charts.
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let mut labels: std::collections::BTreeMap<String, usize> = Default::default();
    for piece in svg.split("</text>") {
        let text = piece.rsplit('>').next().unwrap_or("").trim();
        let b = text.as_bytes();
        if b.len() == 8 && b[2] == b':' && b[5] == b':' {
            *labels.entry(text.to_string()).or_default() += 1;
        }
    }
    let hms = |t: u64| iso(t)[11..19].to_string();
    assert!(labels.contains_key(&hms(t)), "{labels:?}");
    assert!(labels.contains_key(&hms(t + 2)), "{labels:?}");
    assert!(labels.len() >= 2, "{labels:?}");
    for (label, n) in &labels {
        assert_eq!(*n, 5, "{label} appears {n} times: {labels:?}");
    }
}

#[test]
fn a_missing_font_is_one_clear_line() {
    let c = Crawl::new();
    planted(&c);
    let png_path = c.tmp.path().join("chart.png");
    let o = c.run(
        "nlpc-stat",
        &[
            "--png",
            png_path.to_str().unwrap(),
            "--font",
            "/nonexistent/font.ttf",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/font.ttf") && err.contains("fonts-dejavu-core"),
        "{err}"
    );
    assert!(!png_path.exists());
}

#[test]
fn a_crawl_under_nlpcd_leaves_its_history() {
    let web = Web::start(170);
    let c = Crawl::new();
    let log = c.tmp.path().join("daemons.log");
    let o = c
        .cmd("nlpcd")
        .args(web.nlpcd_args())
        .args(["--with", "resolve:--dns-pause=0.1s"])
        .args(["--once", "--log", log.to_str().unwrap(), web.seed()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&c.run("nlpc-stat", &["--csv"]));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(!rows.is_empty(), "{csv}");
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name} in {csv}"))
    };
    // The last word on the states is nlpcd's, after every daemon stopped.
    let st = c.store();
    let rd = st.read().unwrap();
    let last = rows.last().unwrap();
    for s in State::ALL {
        let n = rd.count(s, false).unwrap() + rd.count(s, true).unwrap();
        assert_eq!(
            last[col(&format!("nlpcd.{}", s.name()))],
            n.to_string(),
            "{s}: {csv}"
        );
    }
    assert!(rd.count(State::Scanned, false).unwrap() > 0);
    // nlpc-resolve wrote its counts: it resolved the web's hosts.
    let resolved: u64 = rows
        .iter()
        .rev()
        .find_map(|r| r[col("nlpc-resolve.resolved")].parse().ok())
        .unwrap();
    assert!(resolved > 0, "{csv}");
    // nlpc-fetch wrote its totals when it stopped: every page it fetched.
    let fetched = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("nlpc-fetch info: fetched "))
        .count();
    let pages: u64 = rows
        .iter()
        .rev()
        .find_map(|r| r[col("nlpc-fetch.pages")].parse().ok())
        .unwrap();
    assert_eq!(pages, fetched as u64, "{csv}");
    // nlpcd's last entry holds the yield's totals from the harvest table,
    // which nlpc-vrfy filled: some text of some bytes.
    let total = nlpcrawl::store::harvest::report(&rd).unwrap().total;
    assert!(total.text > 0 && total.bytes > total.text, "{total:?}");
    assert_eq!(
        last[col("nlpc-vrfy.judged_bytes")],
        total.bytes.to_string(),
        "{csv}"
    );
    assert_eq!(
        last[col("nlpc-vrfy.text_bytes")],
        total.text.to_string(),
        "{csv}"
    );
}

#[test]
fn the_history_keeps_two_days_whole_then_one_entry_an_hour_then_nothing() {
    let c = Crawl::new();
    let st = c.store();
    let now = nlpcrawl::run::clock::real_now();
    let hour = now - now % 3600;
    let one = |t: u64, d: &str, n: u64| {
        series::record(&st, t, d, &[("pages".to_string(), n)]).unwrap();
    };
    one(now - 401 * 86_400, "nlpc-fetch", 1);
    // Three days ago, two hours of minutes, for two daemons.
    let old = hour - 3 * 86_400;
    for m in 0..120 {
        one(old + m * 60, "nlpc-fetch", m);
        one(old + m * 60, "nlpcd", m);
    }
    // Yesterday: kept whole.
    for m in 0..5 {
        one(now - 86_400 + m * 60, "nlpc-fetch", 1000 + m);
    }
    // The write that thins what came before.
    one(now, "nlpc-fetch", 5000);
    let rd = st.read().unwrap();
    let got: Vec<(u64, String, u64)> = series::entries(&rd, 0)
        .unwrap()
        .into_iter()
        .map(|e| (e.time, e.daemon, e.counters["pages"]))
        .collect();
    let mut want = Vec::new();
    for h in [0, 60] {
        for d in ["nlpc-fetch", "nlpcd"] {
            want.push((old + h * 60, d.to_string(), h));
        }
    }
    for m in 0..5 {
        want.push((now - 86_400 + m * 60, "nlpc-fetch".to_string(), 1000 + m));
    }
    want.push((now, "nlpc-fetch".to_string(), 5000));
    assert_eq!(got, want);
}

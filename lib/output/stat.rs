//! nlpc-stat: the statistics history (see [`crate::store::series`]) as a
//! table for people, as CSV, or as charts (PNG or SVG) of pages fetched a
//! second, records per state, the harvest rate and yield, and bytes fetched
//! a second.
//!
//! The daemons' entries are gathered into one row a minute; a column is a
//! daemon's counter, `DAEMON.COUNTER` (nlpcd's are the states). Three figures
//! are derived: `pages_per_s`, from nlpc-fetch's running count (a restart
//! of the fetcher, which counts from zero again, is not a negative rate),
//! and `harvest`, the share of judged pages accepted, (VERIFIED + SCANNED)
//! / (VERIFIED + SCANNED + REJECTED). A third, `yield`, is the bytes of
//! accepted main text per byte judged over the step, from the growth of
//! nlpc-vrfy's running totals (`store::series::YIELD`); empty when nothing
//! was judged.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::human;
use crate::run::options::Parsed;
use crate::store::record::State;
use crate::store::series::{self, Entry};

/// Where the charts' font is looked for unless `--font` says otherwise:
/// Debian's fonts-dejavu-core.
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// What nlpc-stat is to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub csv: bool,
    pub png: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub width: u32,
    pub height: u32,
    pub since: Option<u64>,
    /// Seconds a row spans.
    pub step: u64,
    pub font: PathBuf,
}

impl Config {
    pub fn from_options(o: &Parsed) -> Result<Config> {
        Ok(Config {
            csv: o.flag("csv"),
            png: o.path("png"),
            svg: o.path("svg"),
            width: o.int("width")?,
            height: o.int("height")?,
            since: o.since("since", clock::real_now())?,
            step: o.duration("step")?.as_secs().max(1),
            font: o
                .path("font")
                .unwrap_or_else(|| PathBuf::from(DEFAULT_FONT)),
        })
    }

    /// The earliest time of the history to show.
    pub fn from_time(&self) -> u64 {
        self.since.unwrap_or(0)
    }
}

/// One step (a minute by default) of the history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The start of the step, Unix seconds.
    pub time: u64,
    /// `DAEMON.COUNTER` → value; the last entry of the minute wins.
    pub values: BTreeMap<String, u64>,
    /// Pages fetched a second since the row before (None for the first).
    pub pages_per_s: Option<f64>,
    /// Bytes fetched a second since the row before.
    pub bytes_per_s: Option<f64>,
    pub harvest: Option<f64>,
    /// Accepted text bytes / bytes judged since the row before; None for
    /// the first row or when nothing was judged.
    pub yield_ratio: Option<f64>,
}

impl Row {
    fn get(&self, col: &str) -> Option<u64> {
        self.values.get(col).copied()
    }

    fn state(&self, s: State) -> Option<u64> {
        self.get(&format!("{}.{}", series::STATES, s.name()))
    }
}

const PAGES: &str = "nlpc-fetch.pages";
const BYTES: &str = "nlpc-fetch.bytes";
const ERRORS: &str = "nlpc-fetch.errors";

fn yield_col(counter: &str) -> String {
    format!("{}.{counter}", series::YIELD)
}

/// The growth of a running count from `prev` to `cur`: a count lower than
/// before means its process restarted from zero.
fn growth(prev: u64, cur: u64) -> u64 {
    if cur >= prev {
        cur - prev
    } else {
        cur
    }
}

/// The entries gathered into one row per `step` seconds, with the derived
/// figures.
pub fn rows(entries: &[Entry], step: u64) -> Vec<Row> {
    let step = step.max(1);
    let mut by_minute: BTreeMap<u64, Row> = BTreeMap::new();
    for e in entries {
        let minute = e.time - e.time % step;
        let row = by_minute.entry(minute).or_insert_with(|| Row {
            time: minute,
            ..Row::default()
        });
        for (k, v) in &e.counters {
            row.values.insert(format!("{}.{k}", e.daemon), *v);
        }
    }
    let mut rows: Vec<Row> = by_minute.into_values().collect();
    // The last row that had each running count, to take rates from.
    let mut last: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let (judged_col, text_col) = (
        yield_col(series::JUDGED_BYTES),
        yield_col(series::TEXT_BYTES),
    );
    // The yield's totals at the last row that had both.
    let mut last_yield: Option<(u64, u64)> = None;
    for row in &mut rows {
        if let (Some(&j), Some(&t)) = (row.values.get(&judged_col), row.values.get(&text_col)) {
            if let Some((pj, pt)) = last_yield {
                let judged = growth(pj, j);
                row.yield_ratio = (judged > 0).then(|| growth(pt, t) as f64 / judged as f64);
            }
            last_yield = Some((j, t));
        }
        let (time, values) = (row.time, &row.values);
        let mut rate = |col: &'static str| -> Option<f64> {
            let cur = *values.get(col)?;
            let r = last.get(col).and_then(|&(t, prev)| {
                let secs = time.checked_sub(t).filter(|s| *s > 0)?;
                Some(growth(prev, cur) as f64 / secs as f64)
            });
            last.insert(col, (time, cur));
            r
        };
        let (p, b) = (rate(PAGES), rate(BYTES));
        row.pages_per_s = p;
        row.bytes_per_s = b;
        let (v, s, r) = (
            row.state(State::Verified),
            row.state(State::Scanned),
            row.state(State::Rejected),
        );
        if v.is_some() || s.is_some() || r.is_some() {
            row.harvest = series::harvest(
                v.unwrap_or(0).saturating_add(s.unwrap_or(0)),
                r.unwrap_or(0),
            );
        }
    }
    rows
}

/// Every `DAEMON.COUNTER` column of `rows`, sorted.
pub fn columns(rows: &[Row]) -> Vec<String> {
    let set: BTreeSet<&String> = rows.iter().flat_map(|r| r.values.keys()).collect();
    set.into_iter().cloned().collect()
}

fn opt_f(x: Option<f64>, places: usize) -> String {
    x.map_or_else(String::new, |v| format!("{v:.places$}"))
}

/// CSV: a header line, then one row a step (a minute by default). `time` is RFC 3339 (UTC);
/// counters are exact; a counter no daemon wrote that minute is empty.
pub fn csv(rows: &[Row]) -> String {
    let cols = columns(rows);
    let mut out = String::from("time");
    for c in &cols {
        out.push(',');
        out.push_str(c);
    }
    out.push_str(",pages_per_s,bytes_per_s,harvest,yield\n");
    for r in rows {
        out.push_str(&clock::iso8601(r.time));
        for c in &cols {
            out.push(',');
            if let Some(v) = r.get(c) {
                out.push_str(&v.to_string());
            }
        }
        out.push_str(&format!(
            ",{},{},{},{}\n",
            opt_f(r.pages_per_s, 3),
            opt_f(r.bytes_per_s, 1),
            opt_f(r.harvest, 4),
            opt_f(r.yield_ratio, 4)
        ));
    }
    out
}

/// The table for people: the time (UTC), pages fetched, pages a second,
/// bytes, errors, the records per state (states that were ever non-zero),
/// the harvest rate and the yield; in human units. Times show seconds when `step`
/// is not whole minutes.
pub fn table(rows: &[Row], step: u64) -> String {
    let states: Vec<State> = State::ALL
        .into_iter()
        .filter(|s| rows.iter().any(|r| r.state(*s).unwrap_or(0) > 0))
        .collect();
    let mut head: Vec<String> = ["time (UTC)", "pages", "pages/s", "bytes", "errors"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    head.extend(states.iter().map(|s| s.name().to_string()));
    head.push("harvest".into());
    head.push("yield".into());
    let dash = || "-".to_string();
    let mut body: Vec<Vec<String>> = Vec::new();
    for r in rows {
        let mut line = vec![
            time_text(r.time, step),
            r.get(PAGES).map_or_else(dash, human::count),
            r.pages_per_s.map_or_else(dash, human::rate),
            r.get(BYTES).map_or_else(dash, human::bytes),
            r.get(ERRORS).map_or_else(dash, human::count),
        ];
        line.extend(
            states
                .iter()
                .map(|s| r.state(*s).map_or_else(dash, human::count)),
        );
        // human::percent writes "-" for None, as `dash` does.
        line.push(human::percent(r.harvest));
        line.push(human::percent(r.yield_ratio));
        body.push(line);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            body.iter()
                .map(|l| l[i].chars().count())
                .chain([head[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let fmt = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(c.chars().count());
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = fmt(&head);
    for l in &body {
        out.push_str(&fmt(l));
    }
    out
}

/// `2026-11-24 14:05`, or `2026-11-24 14:05:30` when `step` is not whole
/// minutes.
fn time_text(t: u64, step: u64) -> String {
    let iso = clock::iso8601(t);
    let end = if step.is_multiple_of(60) { 16 } else { 19 };
    iso.get(..end).unwrap_or(&iso).replace('T', " ")
}

/// Reads the history at or after `since`, one row per `step` seconds.
pub fn load(store: &crate::store::Store, since: u64, step: u64) -> Result<Vec<Row>> {
    let rd = store.read()?;
    Ok(rows(&series::entries(&rd, since)?, step))
}

/// Reads the font file and makes it the charts' font. A missing font is
/// one clear line naming the file and the package that has it.
fn use_font(path: &Path) -> Result<()> {
    let bytes = std::fs::read(path).map_err(|e| {
        Error::Input(format!(
            "{}: cannot read the charts' font ({e}); install fonts-dejavu-core or give --font FILE",
            path.display()
        ))
    })?;
    // Plotters keeps fonts for the life of the process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| {
        Error::Input(format!(
            "{}: not a TrueType or OpenType font",
            path.display()
        ))
    })
}

/// The names of the charts' series, as they appear in the legends.
pub const SERIES_NAMES: [&str; 5] = [
    "pages fetched/s",
    "harvest %",
    "yield %",
    "kB fetched/s",
    "records per state",
];

fn chart_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Input(format!("{}: cannot draw the charts: {e}", path.display()))
}

/// A colour of its own for each state, the same in every chart.
fn state_colour(s: State) -> RGBColor {
    const C: [(u8, u8, u8); 13] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
        (0, 0, 0),
        (255, 187, 120),
        (152, 223, 138),
    ];
    let (r, g, b) = C[(s as usize).saturating_sub(1) % C.len()];
    RGBColor(r, g, b)
}

/// Draws the five charts into `root`: three above (pages, harvest, yield),
/// two below.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    rows: &[Row],
    step: u64,
    path: &Path,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| chart_err(path, e);
    root.fill(&WHITE).map_err(err)?;
    let (above, below) = root.split_vertically(root.dim_in_pixel().1 / 2);
    let mut panels = above.split_evenly((1, 3));
    panels.extend(below.split_evenly((1, 2)));
    let (t0, t1) = match (rows.first(), rows.last()) {
        (Some(a), Some(b)) => (a.time as f64, b.time.max(a.time + step) as f64),
        _ => (0.0, step as f64),
    };
    // Seconds on the axis when the whole span is under ten minutes.
    let seconds = t1 - t0 < 600.0;
    // No more labels than whole units (seconds, or minutes) in the span,
    // so no two read the same: 13:39:11 twice would be two ticks half a
    // second apart, labelled by the second.
    let unit = if seconds { 1.0 } else { 60.0 };
    let labels = (((t1 - t0) / unit) as usize).saturating_add(1).clamp(2, 6);
    let hhmm = move |x: &f64| {
        let t = x.max(0.0) as u64;
        if seconds {
            format!("{:02}:{:02}:{:02}", t / 3600 % 24, t / 60 % 60, t % 60)
        } else {
            format!("{:02}:{:02}", t / 3600 % 24, t / 60 % 60)
        }
    };
    // (time, value) of every row that has the figure.
    let points = |f: fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
        rows.iter()
            .filter_map(|r| Some((r.time as f64, f(r)?)))
            .collect()
    };
    let pages = points(|r| r.pages_per_s);
    let harvest = points(|r| Some(r.harvest? * 100.0));
    let yields = points(|r| Some(r.yield_ratio? * 100.0));
    let bytes = points(|r| Some(r.bytes_per_s? / 1000.0));
    let single = [
        (&panels[0], SERIES_NAMES[0], &pages, BLUE),
        (&panels[1], SERIES_NAMES[1], &harvest, GREEN),
        (&panels[2], SERIES_NAMES[2], &yields, CYAN),
        (&panels[3], SERIES_NAMES[3], &bytes, MAGENTA),
    ];
    for (area, name, data, color) in single {
        let top = data.iter().map(|p| p.1).fold(0.0, f64::max).max(1.0) * 1.1;
        // Harvest is on 0-100; yield, mostly a few per cent of the bytes,
        // is scaled to its data as the rates are.
        let top = if name == SERIES_NAMES[1] { 100.0 } else { top };
        let mut chart = panel(area, name, t0..t1, top, (labels, &hhmm), path)?;
        // One series: the caption names it. A point marks each sample, so
        // a short history (one rate, between the first two samples) shows.
        chart
            .draw_series(LineSeries::new(data.iter().copied(), color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(data.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    // Records per state: one line for each state that was ever non-zero.
    let states: Vec<State> = State::ALL
        .into_iter()
        .filter(|s| rows.iter().any(|r| r.state(*s).unwrap_or(0) > 0))
        .collect();
    let top = rows
        .iter()
        .flat_map(|r| states.iter().filter_map(|s| r.state(*s)))
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.1;
    let mut chart = panel(
        &panels[4],
        SERIES_NAMES[4],
        t0..t1,
        top,
        (labels, &hhmm),
        path,
    )?;
    for s in &states {
        let color = state_colour(*s);
        let data: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| Some((r.time as f64, r.state(*s)? as f64)))
            .collect();
        chart
            .draw_series(data.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(data, color.stroke_width(2)))
            .map_err(err)?
            .label(s.name())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// One chart of the five: its caption, a time axis in UTC with at most
/// `labels.0` labels written by `labels.1`, and a value axis from 0 to
/// `top`, mesh drawn.
fn panel<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    name: &str,
    x: std::ops::Range<f64>,
    top: f64,
    labels: (usize, &dyn Fn(&f64) -> String),
    path: &Path,
) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| chart_err(path, e);
    let mut chart = ChartBuilder::on(area)
        .caption(name, ("sans-serif", 20))
        .margin(10)
        // Room for the last time label, centred on the right edge.
        .margin_right(30)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x, 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(labels.0)
        .x_label_formatter(labels.1)
        .x_desc("UTC")
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Draws the charts of `rows` into the PNG file `path`.
pub fn png(rows: &[Row], path: &Path, cfg: &Config) -> Result<()> {
    use_font(&cfg.font)?;
    let root = BitMapBackend::new(path, (cfg.width, cfg.height)).into_drawing_area();
    draw(root, rows, cfg.step, path)
}

/// Draws the charts of `rows` into the SVG file `path`.
pub fn svg(rows: &[Row], path: &Path, cfg: &Config) -> Result<()> {
    use_font(&cfg.font)?;
    let root = SVGBackend::new(path, (cfg.width, cfg.height)).into_drawing_area();
    draw(root, rows, cfg.step, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(time: u64, daemon: &str, c: &[(&str, u64)]) -> Entry {
        Entry {
            time,
            daemon: daemon.into(),
            counters: c.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn rows_gather_a_minute_and_rates_survive_a_restart() {
        let e = [
            entry(600, "nlpc-fetch", &[("pages", 100), ("bytes", 1000)]),
            entry(
                610,
                "nlpcd",
                &[("VERIFIED", 3), ("SCANNED", 5), ("REJECTED", 2)],
            ),
            entry(660, "nlpc-fetch", &[("pages", 160), ("bytes", 7000)]),
            // Restarted: counts from zero again.
            entry(720, "nlpc-fetch", &[("pages", 30), ("bytes", 600)]),
        ];
        let r = rows(&e, 60);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].time, 600);
        assert_eq!(r[0].values.get("nlpcd.SCANNED"), Some(&5));
        assert_eq!(r[0].pages_per_s, None);
        assert_eq!(r[0].harvest, Some(0.8));
        assert_eq!(r[1].pages_per_s, Some(1.0));
        assert_eq!(r[1].bytes_per_s, Some(100.0));
        assert_eq!(r[2].pages_per_s, Some(0.5));
        // Two minutes a row: the later entry of a daemon in a step wins.
        let r2 = rows(&e, 120);
        assert_eq!(r2.iter().map(|r| r.time).collect::<Vec<_>>(), [600, 720]);
        assert_eq!(r2[0].values.get("nlpc-fetch.pages"), Some(&160));
        assert_eq!(r2[1].pages_per_s, Some(0.25));
        let c = csv(&r);
        let mut lines = c.lines();
        assert_eq!(
            lines.next(),
            Some("time,nlpc-fetch.bytes,nlpc-fetch.pages,nlpcd.REJECTED,nlpcd.SCANNED,nlpcd.VERIFIED,pages_per_s,bytes_per_s,harvest,yield")
        );
        assert_eq!(
            lines.next(),
            Some("1970-01-01T00:10:00Z,1000,100,2,5,3,,,0.8000,")
        );
    }

    #[test]
    fn the_yield_is_text_over_bytes_judged_in_each_step() {
        let tmp = tempfile::tempdir().unwrap();
        let st = crate::store::Store::open(tmp.path(), crate::store::Options::default()).unwrap();
        let put = |t: u64, judged: u64, text: u64| {
            let c = [(series::JUDGED_BYTES, judged), (series::TEXT_BYTES, text)]
                .map(|(k, v)| (k.to_string(), v));
            series::record(&st, t, series::YIELD, &c).unwrap();
        };
        put(600, 10_000, 1_000);
        // 500 bytes of text of 4000 judged.
        put(660, 14_000, 1_500);
        // Nothing judged: no yield, not 0.
        put(720, 14_000, 1_500);
        // Judged, none accepted: 0.
        put(780, 15_000, 1_500);
        // A store started again counts from zero: the totals are the step's.
        put(840, 2_000, 100);
        let r = load(&st, 0, 60).unwrap();
        let got: Vec<Option<f64>> = r.iter().map(|r| r.yield_ratio).collect();
        assert_eq!(got, [None, Some(0.125), None, Some(0.0), Some(0.05)]);
        // A step of two minutes: the growth from the last entry of the
        // step before.
        let r = load(&st, 0, 120).unwrap();
        let got: Vec<(u64, Option<f64>)> = r.iter().map(|r| (r.time, r.yield_ratio)).collect();
        assert_eq!(got, [(600, None), (720, Some(0.0)), (840, Some(0.05))]);
        let c = csv(&r);
        assert!(c.lines().next().unwrap().ends_with(",harvest,yield"), "{c}");
        assert!(c.lines().nth(1).unwrap().ends_with(",,,,"), "{c}");
        assert!(c.lines().nth(3).unwrap().ends_with(",,,,0.0500"), "{c}");
        let t = table(&r, 120);
        assert!(t.lines().next().unwrap().ends_with("yield"), "{t}");
        assert!(t.lines().nth(1).unwrap().ends_with('-'), "{t}");
        assert!(t.lines().nth(3).unwrap().ends_with("5.0%"), "{t}");
    }
}

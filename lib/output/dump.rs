//! nlpc-dump: the verified corpus out of the file cache, as WARC 1.1, as
//! a tree of UTF-8 text files with a TSV index, and in the corpus formats
//! (JSON Lines, vertical text, WET: `output::corpus`).
//!
//! The whole dump is one read snapshot of the database, so it is consistent
//! however long it runs and whatever the daemons do meanwhile. The file
//! cache is not versioned, so every body is checked against the hash the
//! snapshot holds; a body nlpc-fetch replaced since is read from the
//! archive, where nlpc-fetch keeps it before replacing it.
//!
//! The WARC file records every version of every selected page; a body it
//! holds already, of this page or another, is written as a revisit. Pages
//! marked as duplicates are left out of the text tree and the corpus
//! formats only ([`exported`]).

use std::fs::{self, File};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::document::escape::controls;
use crate::document::lang::{self, Language};
use crate::error::{Error, Result};
use crate::output::corpus::{self, Document};
use crate::output::file::Output;
use crate::output::formats::{self, Formats};
use crate::output::incremental::Incremental;
use crate::output::paragraphs::Seen;
use crate::output::warc::{self, Payloads, Writer};
use crate::run::clock;
use crate::run::options::Parsed;
use crate::store::archive::{self, Archive, Version};
use crate::store::cache::{self, Cache};
use crate::store::record::{Record, State};
use crate::store::select::Selector;
use crate::store::{dups, hex, Key, Read, Store};
use crate::{debug, info};

/// The states whose records make up the corpus.
pub const CORPUS: [State; 2] = [State::Verified, State::Scanned];

/// What to dump, and where.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Which records; states default to [`CORPUS`] and may only be those.
    pub select: Selector,
    /// `--lang`: only records in one of these languages (empty: any).
    pub langs: Vec<Language>,
    /// `--archived`: earlier versions too, from the archive.
    pub archived: bool,
    /// `--warc`: the WARC file, or `-` for standard output.
    pub warc: Option<PathBuf>,
    /// `--text`: the directory of text files.
    pub text: Option<PathBuf>,
    /// `--jsonl`, `--vert`, `--wet`: the corpus formats.
    pub formats: formats::Paths,
    /// `--since`: only records changed at or after this time.
    pub since: Option<u64>,
    /// `--cursor`: only records changed since the last export with this
    /// cursor, which the dump then advances.
    pub cursor: Option<String>,
    /// `--duplicates`: exact and near duplicates in the corpus formats
    /// too (the WARC file always has them).
    pub duplicates: bool,
    /// `--dedup-paragraphs`: paragraphs written once are left out of later
    /// texts (`output::paragraphs`).
    pub dedup_paragraphs: bool,
    /// `--lang-paragraphs`: the paragraphs in a language other than the
    /// page's are left out of the text and the corpus formats.
    pub lang_paragraphs: bool,
}

impl Config {
    /// nlpc-dump's configuration from its options.
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let select = o.selector()?;
        if let Some(s) = select.states.iter().find(|s| !CORPUS.contains(s)) {
            return Err(Error::Usage(format!(
                "-s: {s} records are not part of the corpus (VERIFIED, SCANNED)"
            )));
        }
        let cfg = Config {
            select,
            langs: o.langs("lang")?,
            archived: o.flag("archived"),
            warc: o.path("warc"),
            text: o.path("text"),
            formats: formats::Paths {
                jsonl: o.path("jsonl"),
                vert: o.path("vert"),
                wet: o.path("wet"),
            },
            since: o.since("since", clock::now())?,
            cursor: o.text("cursor").filter(|t| !t.is_empty()),
            duplicates: o.flag("duplicates"),
            dedup_paragraphs: o.flag("dedup-paragraphs"),
            lang_paragraphs: o.flag("lang-paragraphs"),
        };
        if cfg.dedup_paragraphs && cfg.text.is_none() {
            return Err(Error::Usage(
                "--dedup-paragraphs applies to the text of --text; give --text".into(),
            ));
        }
        if let Some(n) = &cfg.cursor {
            crate::store::cursor::check_name(n)
                .map_err(|why| Error::Usage(format!("--cursor: {why}")))?;
        }
        if cfg.warc.is_none() && cfg.text.is_none() && cfg.formats.is_empty() {
            return Err(Error::Usage(
                "nothing to do: give --warc, --text, --jsonl, --vert or --wet".into(),
            ));
        }
        let stdout = [
            &cfg.warc,
            &cfg.formats.jsonl,
            &cfg.formats.vert,
            &cfg.formats.wet,
        ]
        .iter()
        .filter(|p| p.as_deref() == Some(Path::new("-")))
        .count();
        if stdout > 1 {
            return Err(Error::Usage(
                "only one output may be standard output (-)".into(),
            ));
        }
        Ok(cfg)
    }
}

/// What a dump wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Records with at least one version written.
    pub records: usize,
    /// Versions written (responses and revisits).
    pub versions: usize,
    /// Versions written as revisits of an earlier identical one.
    pub revisits: usize,
    /// Versions whose body could not be found with the snapshot's hash.
    pub missing: usize,
    /// Bytes written to the WARC file.
    pub warc_bytes: u64,
    /// Text files written.
    pub text_files: usize,
    /// Documents written to the corpus formats.
    pub documents: usize,
    /// Records skipped as exported already by the cursor.
    pub skipped: usize,
    /// Pages left out of the corpus formats as duplicates of a page in the
    /// corpus (the WARC file has them).
    pub duplicates: usize,
    /// Versions left out of the text tree and the corpus formats for
    /// having no main text.
    pub no_text: usize,
}

/// One version of a page to dump.
struct Item<'a> {
    key: &'a Key,
    rec: &'a Record,
    v: Version,
    current: bool,
}

/// The body of a version, as the snapshot describes it: the cache file if
/// it still has the snapshot's hash, else the archived copy. None when
/// neither is there (pruned, or the cache was tampered with).
fn body_of(cache: &Cache, arch: &Archive, it: &Item<'_>) -> Result<Option<Vec<u8>>> {
    let want = it.v.hash;
    if it.current {
        if let Some(b) = cache.read(it.key)? {
            if *blake3::hash(&b).as_bytes() == want {
                return Ok(Some(b));
            }
        }
    }
    let p = arch.path(it.key, it.v.fetched, &want);
    match fs::read(&p) {
        Ok(b) if *blake3::hash(&b).as_bytes() == want => Ok(Some(b)),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, "cannot read archived version", e)),
    }
}

/// The HTTP reason phrase of a 2xx status.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        206 => "Partial Content",
        _ => "",
    }
}

/// The response head nlpc-dump writes for a version: we keep the decoded
/// body and a few headers, not the bytes the server sent, so this is a
/// faithful reconstruction rather than a copy. A version last confirmed by
/// a 304 is written as the 200 that brought its body.
pub fn response_head(rec: &Record, v: &Version, current: bool) -> Vec<u8> {
    let status = if (200..300).contains(&v.status) {
        v.status
    } else {
        200
    };
    let mut h = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    if !v.content_type.is_empty() {
        let mut ct = v.content_type.clone();
        if !v.charset.is_empty() && !ct.to_ascii_lowercase().contains("charset=") {
            ct.push_str("; charset=");
            ct.push_str(&v.charset);
        }
        h.push_str(&format!("Content-Type: {}\r\n", warc::field_value(&ct)));
    }
    h.push_str(&format!("Content-Length: {}\r\n", v.size));
    // The validators are only known for the version the record describes.
    if current {
        if !rec.last_modified.is_empty() {
            h.push_str(&format!(
                "Last-Modified: {}\r\n",
                warc::field_value(&rec.last_modified)
            ));
        }
        if !rec.etag.is_empty() {
            h.push_str(&format!("ETag: {}\r\n", warc::field_value(&rec.etag)));
        }
    }
    h.push_str("\r\n");
    h.into_bytes()
}

/// The User-Agent nlpc-fetch sends without `--bot-url`.
fn user_agent() -> String {
    format!("nlpcrawl/{}", env!("CARGO_PKG_VERSION"))
}

/// The request nlpc-fetch made, in its essentials.
pub fn request(url: &str) -> Vec<u8> {
    let origin = crate::web::url::origin_of(url);
    let path = match &url[origin.len()..] {
        "" => "/",
        p => p,
    };
    format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {}\r\nAccept: */*\r\n\r\n",
        crate::web::url::host_port_of(url),
        user_agent()
    )
    .into_bytes()
}

/// The WARC side of a dump.
struct WarcSink {
    w: Writer<BufWriter<Box<dyn Write>>>,
    out: Option<Output>,
    info_id: String,
    /// The payloads written in full so far, for revisits.
    payloads: Payloads,
}

/// The WARC-Date of a version: when it was fetched, or when the record
/// last changed if that is unknown.
fn warc_date(fetched: u64, rec: &Record) -> String {
    clock::iso8601(if fetched != 0 { fetched } else { rec.changed })
}

impl WarcSink {
    fn open(path: &Path, cfg: &Config) -> Result<WarcSink> {
        let (out, file): (Option<Output>, Box<dyn Write>) = if path == Path::new("-") {
            (None, Box::new(io::stdout()))
        } else {
            let (o, f) = Output::create(path)?;
            (Some(o), Box::new(f))
        };
        let mut s = WarcSink {
            w: Writer::new(BufWriter::with_capacity(1 << 20, file)),
            out,
            info_id: warc::record_id(),
            payloads: Payloads::default(),
        };
        let fields = warc::info_fields(&s.info_id, s.out.is_some().then_some(path));
        let mut desc = String::from(
            "every page verified by nlpcrawl, from its file cache, duplicates included",
        );
        if cfg.archived {
            desc.push_str(", with their archived versions");
        }
        desc.push_str("; HTTP messages reconstructed from the stored bodies and headers");
        let block = format!(
            "software: nlpcrawl/{v} (nlpc-dump)\r\nformat: WARC File Format 1.1\r\n\
             conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
             http-header-user-agent: {ua}\r\nrobots: obey\r\ndescription: {desc}\r\n",
            v = env!("CARGO_PKG_VERSION"),
            ua = user_agent(),
        );
        s.record("warcinfo", &fields, &[block.as_bytes()], path)?;
        Ok(s)
    }

    fn record(
        &mut self,
        t: &str,
        fields: &[(&str, String)],
        block: &[&[u8]],
        path: &Path,
    ) -> Result<()> {
        self.w
            .record(t, fields, block)
            .map_err(|e| Error::io(path, "cannot write WARC", e))
    }

    /// The URL and WARC-Date of the response that first held a payload,
    /// as written: the record is read from the same snapshot. None when
    /// the snapshot has no such record, which cannot happen.
    fn first_of(
        rd: &Read<'_>,
        it: &Item<'_>,
        first: &warc::First,
    ) -> Result<Option<(String, String)>> {
        if first.key == *it.key {
            return Ok(Some((it.rec.url.clone(), warc_date(first.fetched, it.rec))));
        }
        Ok(rd
            .get(&first.key)?
            .map(|r| (r.url.clone(), warc_date(first.fetched, &r))))
    }

    /// Writes a request and a response, or a revisit when a version
    /// written earlier in the file (of this page or another) had the same
    /// body. Returns true for a revisit.
    fn version(&mut self, rd: &Read<'_>, it: &Item<'_>, body: &[u8], path: &Path) -> Result<bool> {
        let url = &it.rec.url;
        let date = warc_date(it.v.fetched, it.rec);
        // Derived, not random: a WET file's WARC-Refers-To names it.
        let id = warc::version_id(it.key, it.v.fetched, &it.v.hash);
        let head = response_head(it.rec, &it.v, it.current);
        let payload = warc::sha1_digest(&[body]);
        let mut fields = vec![
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", date.clone()),
            ("WARC-Target-URI", url.clone()),
            ("WARC-Warcinfo-ID", self.info_id.clone()),
        ];
        if it.current && it.rec.ip().is_some() {
            fields.push(("WARC-IP-Address", it.rec.addr.clone()));
        }
        fields.push(("WARC-Payload-Digest", payload));
        fields.push(("Content-Type", "application/http; msgtype=response".into()));
        let this = warc::First {
            key: *it.key,
            fetched: it.v.fetched,
        };
        let earlier = match self.payloads.first_or_remember(&it.v.hash, this) {
            Some(f) => Self::first_of(rd, it, &f)?.map(|(u, d)| (f, u, d)),
            None => None,
        };
        let req = request(url);
        let req_fields = vec![
            ("WARC-Record-ID", warc::record_id()),
            ("WARC-Date", date.clone()),
            ("WARC-Target-URI", url.clone()),
            ("WARC-Warcinfo-ID", self.info_id.clone()),
            ("WARC-Concurrent-To", id.clone()),
            ("Content-Type", "application/http; msgtype=request".into()),
        ];
        self.record("request", &req_fields, &[&req], path)?;
        match earlier {
            Some((f, ref_url, ref_date)) => {
                fields.push(("WARC-Profile", warc::IDENTICAL_PAYLOAD.into()));
                fields.push((
                    "WARC-Refers-To",
                    warc::version_id(&f.key, f.fetched, &it.v.hash),
                ));
                fields.push(("WARC-Refers-To-Target-URI", ref_url));
                fields.push(("WARC-Refers-To-Date", ref_date));
                self.record("revisit", &fields, &[&head], path)?;
                Ok(true)
            }
            None => {
                self.record("response", &fields, &[&head, body], path)?;
                Ok(false)
            }
        }
    }

    fn finish(self) -> Result<u64> {
        let n = self.w.written;
        let path = self
            .out
            .as_ref()
            .map(|o| o.dest.clone())
            .unwrap_or_else(|| "standard output".into());
        let mut buf = self
            .w
            .finish()
            .map_err(|e| Error::io(&path, "cannot write WARC", e))?;
        buf.flush()
            .map_err(|e| Error::io(&path, "cannot write WARC", e))?;
        if let Some(o) = &self.out {
            let f = buf
                .into_inner()
                .map_err(|e| Error::io(&path, "cannot write WARC", e.into_error()))?;
            drop(f);
            o.commit()?;
        }
        Ok(n)
    }
}

/// The text side of a dump: a file per version and the index.
struct TextSink {
    dir: PathBuf,
    index: BufWriter<File>,
    out: Output,
    /// The paragraphs written, with `--dedup-paragraphs`.
    paragraphs: Option<Seen>,
}

/// The language confidence of a record, 0 to 1 with three decimals, or
/// "-" when no language was detected.
fn confidence(r: &Record) -> String {
    if r.language.is_empty() {
        "-".into()
    } else {
        format!("{:.3}", f64::from(r.lang_conf) / 1000.0)
    }
}

impl TextSink {
    fn open(dir: &Path, dedup_paragraphs: bool) -> Result<TextSink> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, "cannot create directory", e))?;
        let (out, f) = Output::create(&dir.join("index.tsv"))?;
        Ok(TextSink {
            dir: dir.to_path_buf(),
            index: BufWriter::new(f),
            out,
            paragraphs: dedup_paragraphs.then(Seen::default),
        })
    }

    /// Writes the main text of one version and its index line; false
    /// when there is none (the version is not a text document, or has no
    /// main text: the caller says which).
    fn version(&mut self, it: &Item<'_>, doc: Option<&Document>) -> Result<bool> {
        let Some(doc) = doc else {
            return Ok(false);
        };
        // The main text, a block a line.
        let mut blocks = doc.blocks.clone();
        if let Some(seen) = self.paragraphs.as_mut() {
            let had = blocks.len();
            if had > 0 && seen.drop_repeated(&mut blocks) == had {
                debug!(
                    "{}: every paragraph written before, no text file",
                    it.rec.url
                );
                return Ok(false);
            }
        }
        let mut text = String::new();
        for b in &blocks {
            text.push_str(&b.text);
            text.push('\n');
        }
        let host = match it.rec.host() {
            "" | "." | ".." => "_",
            h if h.contains('/') => "_",
            h => h,
        };
        let rel = format!("{host}/{}.{}.txt", it.key.hex(), it.v.fetched);
        cache::write_export(&self.dir.join(&rel), text.as_bytes())?;
        let lang = if it.rec.language.is_empty() {
            "-"
        } else {
            it.rec.language.as_str()
        };
        // How nlpc-vrfy decided the charset is known for the version it
        // last verified, the current one.
        let how = match it.rec.charset_source {
            Some(s) if it.current => s.name(),
            _ => "-",
        };
        writeln!(
            self.index,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{how}",
            controls(&rel),
            controls(&it.rec.url),
            clock::iso8601(it.v.fetched),
            controls(lang),
            doc.charset,
            hex(&it.v.hash),
            if it.current { "current" } else { "archived" },
            confidence(it.rec),
        )
        .map_err(|e| Error::io(&self.out.dest, "cannot write", e))?;
        Ok(true)
    }

    fn finish(self) -> Result<()> {
        let dest = self.out.dest.clone();
        let f = self
            .index
            .into_inner()
            .map_err(|e| Error::io(&dest, "cannot write", e.into_error()))?;
        drop(f);
        self.out.commit()
    }
}

/// The open outputs of a dump.
struct Sinks {
    warc: Option<WarcSink>,
    text: Option<TextSink>,
    formats: Formats,
}

impl Sinks {
    fn open(cfg: &Config) -> Result<Sinks> {
        let mut s = Sinks {
            warc: None,
            text: None,
            formats: Formats::default(),
        };
        let res = (|| -> Result<()> {
            if let Some(p) = &cfg.warc {
                s.warc = Some(WarcSink::open(p, cfg)?);
            }
            if let Some(d) = &cfg.text {
                s.text = Some(TextSink::open(d, cfg.dedup_paragraphs)?);
            }
            s.formats = Formats::open(&cfg.formats)?;
            Ok(())
        })();
        match res {
            Ok(()) => Ok(s),
            Err(e) => {
                s.abandon();
                Err(e)
            }
        }
    }

    fn abandon(&self) {
        if let Some(o) = self.warc.as_ref().and_then(|s| s.out.as_ref()) {
            o.abandon();
        }
        if let Some(t) = &self.text {
            t.out.abandon();
        }
        self.formats.abandon();
    }

    /// Puts every file in place (synced when `sync`, for a cursor); the
    /// WARC's size.
    fn finish(self, sync: bool) -> Result<u64> {
        let Sinks {
            warc,
            text,
            formats,
        } = self;
        let mut n = 0;
        if let Some(s) = warc {
            match s.finish() {
                Ok(b) => n = b,
                Err(e) => {
                    if let Some(t) = &text {
                        t.out.abandon();
                    }
                    formats.abandon();
                    return Err(e);
                }
            }
        }
        if let Some(t) = text {
            let dir = t.dir.clone();
            if let Err(e) = t.finish() {
                formats.abandon();
                return Err(e);
            }
            if sync {
                sync_tree(&dir)?;
            }
        }
        formats.finish()?;
        Ok(n)
    }
}

/// Syncs the file system that holds `dir`: the text files are written
/// one by one without a sync each, and a cursor may only count them as
/// exported once they are on disk.
fn sync_tree(dir: &Path) -> Result<()> {
    let d = File::open(dir).map_err(|e| Error::io(dir, "cannot open", e))?;
    // SAFETY: syncfs takes any open descriptor; `d` outlives the call.
    if unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&d)) } != 0 {
        return Err(Error::io(dir, "cannot sync", io::Error::last_os_error()));
    }
    Ok(())
}

/// Whether a selected record goes to the corpus formats (the text tree,
/// JSON Lines, vertical text, WET): not when it is an exact or near
/// duplicate of a page in the corpus (`store::dups`), unless
/// `--duplicates` asks for those too. Every corpus format goes through
/// this one test; the WARC file takes every record.
pub fn exported(rd: &Read<'_>, key: &Key, rec: &Record, cfg: &Config) -> Result<bool> {
    if cfg.duplicates {
        return Ok(true);
    }
    match dups::covered(rd, key, &CORPUS)? {
        Some(m) => {
            debug!("{}: {} duplicate, skipped", rec.url, m.kind);
            Ok(false)
        }
        None => Ok(true),
    }
}

/// Dumps the selected records of one snapshot of `store`; with a cursor,
/// advances it once every file is in place.
pub fn dump(store: &Store, cache: &Cache, arch: &Archive, cfg: &Config) -> Result<Report> {
    let mut sel = cfg.select.clone();
    if sel.states.is_empty() {
        sel.states = CORPUS.to_vec();
    }
    let warc_path = cfg.warc.clone().unwrap_or_default();
    let mut sinks = Sinks::open(cfg)?;
    let mut rep = Report::default();
    // The time is taken before the snapshot: whatever commits after it
    // has a later time or a lease the snapshot shows.
    let now = clock::now();
    let rd = match store.read() {
        Ok(rd) => rd,
        Err(e) => {
            sinks.abandon();
            return Err(e);
        }
    };
    let mut inc = match Incremental::begin(&rd, cfg.since, cfg.cursor.as_deref(), now) {
        Ok(i) => i,
        Err(e) => {
            sinks.abandon();
            return Err(e);
        }
    };
    let res = sel.walk(&rd, |key, rec| {
        // The stored language is nlpc-vrfy's code, looked up in the same
        // table as the option, so `--lang lvs` finds "lv".
        if !cfg.langs.is_empty()
            && !lang::of_tag(&rec.language).is_some_and(|l| cfg.langs.contains(&l))
        {
            return Ok(true);
        }
        if !inc.wanted(&key, &rec) {
            return Ok(true);
        }
        // A duplicate is left out of the corpus formats, not out of the
        // WARC file, which records every capture.
        let corpus = sinks.text.is_some() || sinks.formats.any();
        let in_corpus = exported(&rd, &key, &rec, cfg)?;
        if !in_corpus && corpus {
            rep.duplicates += 1;
        }
        if !in_corpus && sinks.warc.is_none() {
            return Ok(true);
        }
        let mut items: Vec<Item<'_>> = Vec::new();
        let old = if cfg.archived {
            archive::versions(&rd, &key)?
        } else {
            Vec::new()
        };
        for v in old {
            items.push(Item {
                key: &key,
                rec: &rec,
                v,
                current: false,
            });
        }
        items.push(Item {
            key: &key,
            rec: &rec,
            v: Version::of(&rec),
            current: true,
        });
        let mut any = false;
        for it in &items {
            let body = if it.v.hash == [0; 32] {
                None
            } else {
                body_of(cache, arch, it)?
            };
            let Some(body) = body else {
                info!(
                    "{}: no body with hash {} fetched {}, skipped",
                    rec.url,
                    &hex(&it.v.hash)[..16],
                    clock::iso8601(it.v.fetched)
                );
                rep.missing += 1;
                continue;
            };
            if let Some(s) = sinks.warc.as_mut() {
                if s.version(&rd, it, &body, &warc_path)? {
                    rep.revisits += 1;
                }
            }
            // Decoded and extracted once for the text tree and the
            // corpus formats alike.
            let doc = if corpus && in_corpus {
                let dup = corpus::duplicate_of(&rd, it.key)?;
                corpus::document(it.rec, &it.v, it.current, &body, dup)
            } else {
                None
            };
            let doc = doc.map(|mut d| {
                if cfg.lang_paragraphs {
                    let n = d.keep_language();
                    if n > 0 {
                        debug!("{}: {n} paragraphs in another language left out", rec.url);
                    }
                }
                d
            });
            // A page of menus, links or a form has no main text, and
            // nothing of it goes into the corpus.
            if doc.is_none() && (sinks.text.is_some() || sinks.formats.any()) {
                debug!(
                    "{}: {} is not text, not in the corpus",
                    rec.url, it.v.content_type
                );
            }
            let doc = match doc {
                Some(d) if d.blocks.is_empty() => {
                    debug!(
                        "{}: no main text in the version fetched {}, not in the corpus",
                        rec.url,
                        clock::iso8601(it.v.fetched)
                    );
                    rep.no_text += 1;
                    None
                }
                d => d,
            };
            if let Some(t) = sinks.text.as_mut() {
                if t.version(it, doc.as_ref())? {
                    rep.text_files += 1;
                }
            }
            if let Some(d) = &doc {
                if sinks.formats.version(it.key, it.rec, &it.v, d)? {
                    rep.documents += 1;
                }
            }
            rep.versions += 1;
            any = true;
        }
        if any {
            rep.records += 1;
            inc.exported(&key, &rec);
            debug!("dumped {}", rec.url);
        }
        Ok(true)
    });
    drop(rd);
    if let Err(e) = res {
        sinks.abandon();
        return Err(e);
    }
    rep.warc_bytes = sinks.finish(cfg.cursor.is_some())?;
    rep.skipped = inc.skipped;
    inc.commit(store)?;
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_head_from_what_the_record_keeps() {
        let mut r = Record::new("http://a.test/x?y", 1);
        r.etag = "\"e1\"".into();
        r.last_modified = "Sun, 06 Nov 1994 08:49:37 GMT".into();
        let v = Version {
            fetched: 1,
            hash: [1; 32],
            size: 12,
            status: 304,
            content_type: "text/html".into(),
            charset: "windows-1257".into(),
        };
        let h = String::from_utf8(response_head(&r, &v, true)).unwrap();
        assert_eq!(
            h,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1257\r\n\
             Content-Length: 12\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
             ETag: \"e1\"\r\n\r\n"
        );
        let old = String::from_utf8(response_head(&r, &v, false)).unwrap();
        assert!(!old.contains("ETag") && !old.contains("Last-Modified"));
        let req = String::from_utf8(request("http://a.test:8080/x?y")).unwrap();
        assert!(
            req.starts_with("GET /x?y HTTP/1.1\r\nHost: a.test:8080\r\n"),
            "{req}"
        );
        // A record kept from before userinfo was taken out of URLs: the
        // Host header names the host, never the credentials.
        let req = String::from_utf8(request("http://u:p@a.test:8080/x")).unwrap();
        assert!(req.contains("\r\nHost: a.test:8080\r\n"), "{req}");
        assert!(!req.contains("u:p"), "{req}");
        assert!(String::from_utf8(request("http://a.test"))
            .unwrap()
            .starts_with("GET / HTTP/1.1"));
    }
}

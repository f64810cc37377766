//! WET: the extracted text of each page as a WARC 1.1 `conversion` record
//! (`nlpc-dump --wet`), as the web archives' extracted-text files hold it.
//! Each names the record of the page's version in a WARC file by
//! `nlpc-dump --warc` (WARC-Refers-To), whose ids are derived alike in
//! every run ([`warc::version_id`]).

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::corpus::Document;
use crate::output::file::Dest;
use crate::output::warc::{self, Writer};
use crate::run::clock;
use crate::store::Key;

/// The WET side of a dump.
pub struct Wet {
    w: Writer<BufWriter<Box<dyn std::io::Write>>>,
    out: Option<crate::output::file::Output>,
    name: PathBuf,
    info_id: String,
}

impl Wet {
    pub fn open(path: &Path) -> Result<Wet> {
        let d = Dest::open(path)?;
        let name = d.name();
        let mut s = Wet {
            w: Writer::new(d.w),
            out: d.out,
            name,
            info_id: warc::record_id(),
        };
        let fields = warc::info_fields(&s.info_id, s.out.is_some().then_some(path));
        let block = format!(
            "software: nlpcrawl/{v} (nlpc-dump)\r\nformat: WARC File Format 1.1\r\n\
             conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
             description: the main text of pages verified by nlpcrawl, a block a line; \
             each record refers to the page's record in a WARC file by nlpc-dump --warc\r\n",
            v = env!("CARGO_PKG_VERSION"),
        );
        s.record("warcinfo", &fields, block.as_bytes())?;
        Ok(s)
    }

    fn record(&mut self, t: &str, fields: &[(&str, String)], block: &[u8]) -> Result<()> {
        self.w
            .record(t, fields, &[block])
            .map_err(|e| Error::io(&self.name, "cannot write WARC", e))
    }

    /// Writes the conversion record of one version of the page under
    /// `key`, whose body hash is `hash`.
    pub fn document(
        &mut self,
        key: &Key,
        hash: &[u8; 32],
        d: &Document,
        changed: u64,
    ) -> Result<()> {
        // The date of the response it came from, as nlpc-dump --warc
        // writes it.
        let date = clock::iso8601(if d.fetched != 0 { d.fetched } else { changed });
        let mut text = d.text("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        let mut fields = vec![
            ("WARC-Record-ID", warc::record_id()),
            ("WARC-Date", date),
            ("WARC-Target-URI", d.url.clone()),
            ("WARC-Warcinfo-ID", self.info_id.clone()),
            ("WARC-Refers-To", warc::version_id(key, d.fetched, hash)),
            ("Content-Type", "text/plain; charset=utf-8".into()),
        ];
        // The language as Common Crawl's WET files name it, and what
        // WARC has no field for under a name of ours.
        if let Some(conf) = d.lang_conf.filter(|_| !d.lang.is_empty()) {
            fields.push(("WARC-Identified-Content-Language", d.lang.clone()));
            fields.push(("nlpcrawl-Language-Confidence", format!("{conf:.3}")));
        }
        if !d.charset.is_empty() {
            fields.push(("nlpcrawl-Charset", d.charset.clone()));
        }
        if let Some(how) = d.charset_source {
            fields.push(("nlpcrawl-Charset-Source", how.to_string()));
        }
        self.record("conversion", &fields, text.as_bytes())
    }

    pub fn finish(self) -> Result<()> {
        let w = self
            .w
            .finish()
            .map_err(|e| Error::io(&self.name, "cannot write WARC", e))?;
        // The compressed stream ends here; the rest is any destination's.
        Dest { w, out: self.out }.finish()
    }

    pub fn abandon(&self) {
        if let Some(o) = &self.out {
            o.abandon();
        }
    }
}

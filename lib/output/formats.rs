//! The corpus formats of a dump together: JSON Lines, vertical text and
//! WET, each written when asked for, all from the same [`Document`].

use std::path::PathBuf;

use crate::error::Result;
use crate::output::corpus::Document;
use crate::output::jsonl::Jsonl;
use crate::output::vert::Vert;
use crate::output::wet::Wet;
use crate::store::archive::Version;
use crate::store::record::Record;
use crate::store::Key;

/// Where each format goes (`-`: standard output); None: not written.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    pub jsonl: Option<PathBuf>,
    pub vert: Option<PathBuf>,
    pub wet: Option<PathBuf>,
}

impl Paths {
    pub fn is_empty(&self) -> bool {
        self.jsonl.is_none() && self.vert.is_none() && self.wet.is_none()
    }
}

/// The open corpus formats of a dump.
#[derive(Default)]
pub struct Formats {
    jsonl: Option<Jsonl>,
    vert: Option<Vert>,
    wet: Option<Wet>,
}

impl Formats {
    /// Opens every format `p` names; on failure nothing is left behind.
    pub fn open(p: &Paths) -> Result<Formats> {
        let mut f = Formats::default();
        let res = (|| -> Result<()> {
            if let Some(x) = &p.jsonl {
                f.jsonl = Some(Jsonl::open(x)?);
            }
            if let Some(x) = &p.vert {
                f.vert = Some(Vert::open(x)?);
            }
            if let Some(x) = &p.wet {
                f.wet = Some(Wet::open(x)?);
            }
            Ok(())
        })();
        match res {
            Ok(()) => Ok(f),
            Err(e) => {
                f.abandon();
                Err(e)
            }
        }
    }

    pub fn any(&self) -> bool {
        self.jsonl.is_some() || self.vert.is_some() || self.wet.is_some()
    }

    /// Writes document `d`, version `v` of the page under `key`, to
    /// every format; false when no format is written.
    pub fn version(&mut self, key: &Key, rec: &Record, v: &Version, d: &Document) -> Result<bool> {
        if !self.any() {
            return Ok(false);
        }
        if let Some(j) = self.jsonl.as_mut() {
            j.document(d)?;
        }
        if let Some(x) = self.vert.as_mut() {
            x.document(d)?;
        }
        if let Some(w) = self.wet.as_mut() {
            w.document(key, &v.hash, d, rec.changed)?;
        }
        Ok(true)
    }

    /// Puts every file in place; on failure the ones not yet in place are
    /// removed.
    pub fn finish(self) -> Result<()> {
        let Formats { jsonl, vert, wet } = self;
        let mut first = None;
        macro_rules! step {
            ($x:expr) => {
                if let Some(x) = $x {
                    if first.is_some() {
                        x.abandon();
                    } else if let Err(e) = x.finish() {
                        first = Some(e);
                    }
                }
            };
        }
        step!(jsonl);
        step!(vert);
        step!(wet);
        match first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub fn abandon(&self) {
        if let Some(x) = &self.jsonl {
            x.abandon();
        }
        if let Some(x) = &self.vert {
            x.abandon();
        }
        if let Some(x) = &self.wet {
            x.abandon();
        }
    }
}

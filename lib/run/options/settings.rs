//! The crawl's settings: the options the table marks as settings (filters,
//! politeness, admission), stored in the database's `meta` table when the
//! crawl is created, so that a daemon started by hand crawls as the others
//! do. A program reads them as its defaults; its command line overrides
//! them for that run. `nlpc-list --set` changes them, `--config` shows them.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::run::options::{check, table, Kind, Opt};
use crate::store::{self, Store, Table, SETTING};

/// The stored settings: long name → value as text.
pub type Settings = BTreeMap<String, String>;

/// Reads the stored settings.
pub fn load(st: &Store) -> Result<Settings> {
    let rd = st.read()?;
    let mut out = Settings::new();
    rd.table_walk(Table::Meta, SETTING, |k, v| {
        let name = String::from_utf8_lossy(&k[SETTING.len()..]).into_owned();
        out.insert(name, String::from_utf8_lossy(v).into_owned());
        Ok(true)
    })?;
    Ok(out)
}

/// Reads the stored settings of the database at `db`, if there is one.
/// Nothing (not an error) where none can be opened: no database yet, or
/// one that the program's own open will refuse (or `--create` replace)
/// with the reason.
pub fn load_at(db: &std::path::Path) -> Result<Settings> {
    let opts = store::Options {
        read_only: true,
        ..store::Options::default()
    };
    match Store::open(db, opts) {
        Ok(st) => load(&st),
        Err(_) => Ok(Settings::new()),
    }
}

/// Stores `value` for setting `o`, or removes it when `value` is empty
/// (or `no` for a flag): the program default holds again.
pub fn put(w: &mut store::Write<'_>, o: &Opt, value: &str) -> Result<()> {
    let key = [SETTING, o.long.as_bytes()].concat();
    if value.is_empty() || (o.kind == Kind::Flag && value == "no") {
        w.table_del(Table::Meta, &key)
    } else {
        w.table_put(Table::Meta, &key, value.as_bytes())
    }
}

/// `--filter-auth=lv, --fetch-burst=4`: settings for a log line.
pub fn describe(given: &[(&'static Opt, String)]) -> String {
    let v: Vec<String> = given
        .iter()
        .map(|(o, v)| format!("{}={v}", o.display()))
        .collect();
    v.join(", ")
}

/// Stores the settings of `given` (name, value) in one transaction.
pub fn store_all(st: &Store, given: &[(&'static Opt, String)]) -> Result<()> {
    let mut w = st.write()?;
    for (o, v) in given {
        put(&mut w, o, v)?;
    }
    w.commit()
}

/// `nlpc-list --set NAME=VALUE`: checks and stores each, in one
/// transaction; returns one line per change, for the log.
pub fn set(st: &Store, assignments: &[String]) -> Result<Vec<String>> {
    let old = load(st)?;
    let mut changes = Vec::new();
    let mut w = st.write()?;
    for a in assignments {
        let (o, v) = check::setting(a).map_err(|why| Error::Usage(format!("--set: {why}")))?;
        put(&mut w, o, &v)?;
        let was = old.get(o.long).map(String::as_str).unwrap_or("(default)");
        let now = if v.is_empty() || (o.kind == Kind::Flag && v == "no") {
            "(default)"
        } else {
            v.as_str()
        };
        changes.push(format!("setting {} changed: {was} -> {now}", o.long));
    }
    w.commit()?;
    Ok(changes)
}

/// `nlpc-list --config`: every setting of the table, `NAME=VALUE`, the
/// stored value or, after a `#`, the program default.
pub fn show(stored: &Settings) -> String {
    let mut out = String::new();
    for o in table::OPTIONS.iter().filter(|o| o.setting) {
        match stored.get(o.long) {
            Some(v) => out.push_str(&format!("{}={v}\n", o.long)),
            None => {
                let d = if o.kind == Kind::Flag {
                    "no"
                } else {
                    o.default
                };
                out.push_str(&format!("# {}={d} (default)\n", o.long));
            }
        }
    }
    // Stored names the table no longer has (a newer or older version's).
    for (k, v) in stored {
        if !table::OPTIONS.iter().any(|o| o.setting && o.long == k) {
            out.push_str(&format!("# {k}={v} (unknown to this version; ignored)\n"));
        }
    }
    out
}

//! The store: one LMDB environment shared by every daemon.
//!
//! Every LMDB call in nlpcrawl lives in `store` (here, in `txn` and `due` for the
//! transactions, and in `maint` for checks and backups), so that a change
//! of binding touches nothing else. The environment holds these databases:
//!
//! - `records`: record key (16-byte hash of the URL + 1 collision ordinal) →
//!   encoded [`Record`];
//! - `index`: index byte + record key → nothing. The index byte is the state,
//!   with the high bit set while the record is leased; walking one index byte
//!   walks exactly one daemon's input, in hash order;
//! - `counters`: index byte → number of records under it, kept in the same
//!   transaction as every state change, so counts are exact and cheap;
//! - `meta`: the format version, the crawl's stored settings under
//!   `setting:NAME` keys (see [`SETTING`]), and nlpc-dump's export cursors
//!   under `cursor:NAME` (`store::cursor`);
//! - free-form tables ([`Table`]) that other modules encode themselves,
//!   `dups` among them (duplicate marks, see `store::dups`);
//! - `series`: the statistics history, time (8 bytes, big-endian) + daemon
//!   name → JSON counters (see [`crate::store::series`]);
//! - `due` and `sched`: the due index, every record waiting for nlpc-up or
//!   for a re-fetch ordered by when it is due (see `due`);
//! - `ready`: the unleased READY records by address, for the fetcher's
//!   fills (see `ready`);
//! - `changes`: the change log of the corpus that nlpc-index follows (see
//!   `store::changes`);
//! - `outbox` and `cluster`: a cluster node's links for other nodes and the
//!   nodes' latest counters (see `store::outbox`, `cluster::relay`).

use std::path::{Path, PathBuf};

use lmdb::Transaction;

use crate::error::{DbError, Error, Result};
use crate::store::check::{self, Found};
use crate::store::record::{State, FORMAT_VERSION};

/// Length of a record key: a 16-byte hash and a collision ordinal.
pub const KEY_LEN: usize = 17;

/// The longest key LMDB holds (its default `MDB_MAXKEYSIZE`); nor does it
/// hold an empty one.
pub const MAX_TABLE_KEY: usize = 511;

/// The high bit of an index byte marks a leased record.
pub(super) const LEASED: u8 = 0x80;

/// Default map size: large and sparse; LMDB only uses what it writes.
pub const DEFAULT_MAP_SIZE: usize = 1 << 40;

/// The function that turns a normalised URL into the 16 bytes of its key.
pub type Hasher = fn(&[u8]) -> [u8; 16];

/// The key hash used by every daemon: the first 16 bytes of BLAKE3.
pub fn url_hash(url: &[u8]) -> [u8; 16] {
    let h = blake3::hash(url);
    let mut out = [0; 16];
    out.copy_from_slice(&h.as_bytes()[..16]);
    out
}

/// An LMDB failure as the error type of the library, which never names
/// the binding.
pub(super) fn db_error(e: lmdb::Error) -> DbError {
    match e {
        lmdb::Error::MapFull => DbError::full("database map is full (raise the map size)"),
        lmdb::Error::Other(libc::ENOSPC) => DbError::full("no space left on device"),
        e => DbError::other(e.to_string()),
    }
}

/// `b` in lowercase hex: how keys and hashes are written wherever a person
/// or a file name sees them.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(char::from(b"0123456789abcdef"[usize::from(x >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(x & 15)]));
    }
    s
}

/// A record's key: where it lives in `records` and in the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub [u8; KEY_LEN]);

impl Key {
    /// Lowercase hex, the name of the record's files in the caches.
    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    /// Parses [`Key::hex`] output.
    pub fn from_hex(s: &str) -> Option<Key> {
        let b = s.as_bytes();
        if b.len() != KEY_LEN * 2 {
            return None;
        }
        let mut k = [0; KEY_LEN];
        for (i, out) in k.iter_mut().enumerate() {
            let hi = (b[2 * i] as char).to_digit(16)?;
            let lo = (b[2 * i + 1] as char).to_digit(16)?;
            *out = (hi * 16 + lo) as u8;
        }
        Some(Key(k))
    }

    pub(super) fn from_slice(b: &[u8]) -> Option<Key> {
        b.try_into().ok().map(Key)
    }
}

/// Tables whose values other modules encode: per-host data, per-address data,
/// the daemons' published statistics, archive history. Keys and values are
/// bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Hosts,
    Addrs,
    Stats,
    History,
    /// The `meta` table: the format version and the stored settings.
    Meta,
    /// Host → records created (`store::scope`, for `--filter-quota`), and
    /// host and path → records with a query (`--filter-query-variants`).
    Quota,
    /// Host → pages judged, accepted, bytes (`store::harvest`).
    Yield,
    /// Rejected pages whose links are followed, and the hops of records
    /// reached through them (`store::tunnel`).
    Tunnel,
    /// Duplicate marks and the near-duplicate index (`store::dups`).
    Dups,
    /// The statistics history (see [`crate::store::series`]).
    Series,
    /// The change log nlpc-index follows (see `store::changes`).
    Changes,
    /// Links for other nodes of a cluster, until sent (`store::outbox`).
    Outbox,
    /// The latest counters of every node of a cluster, by node (nlpc-relay).
    Cluster,
}

/// The key prefix of a stored setting in [`Table::Meta`]: `setting:` and
/// the option's long name; the value is the option's text.
pub const SETTING: &[u8] = b"setting:";

/// Whether opening may create a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    /// Never: where there is no database, say so (the daemons, the tools).
    Never,
    /// Where nothing was ever created: no data.mdb and no lock.mdb (a
    /// writer's first run).
    IfAbsent,
    /// Also over an empty (0-byte) data.mdb, or where lock.mdb lies without
    /// data.mdb (`--create`). A data.mdb with anything in it is never
    /// replaced.
    Force,
}

/// How to open the store.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub read_only: bool,
    /// Ignored (as [`Create::Never`]) when `read_only`.
    pub create: Create,
    pub map_size: usize,
    /// Only tests change this, to force collisions.
    pub hasher: Hasher,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            read_only: false,
            create: Create::IfAbsent,
            map_size: DEFAULT_MAP_SIZE,
            hasher: url_hash,
        }
    }
}

/// What to do with a database that is gone but left a trace.
const LOST: &str = "the database was lost (restore it from a backup, or start a new, empty one with nlpc-scan --create or nlpcd --create)";

/// The open environment and its databases.
pub struct Store {
    pub(super) env: lmdb::Environment,
    path: PathBuf,
    pub(super) records: lmdb::Database,
    pub(super) index: lmdb::Database,
    pub(super) counters: lmdb::Database,
    /// The due index (`due`); None only in a read-only open of a database
    /// no writer has opened since the index was added.
    pub(super) due: Option<lmdb::Database>,
    pub(super) sched: Option<lmdb::Database>,
    /// The READY records by address (`ready`); None like `due`.
    pub(super) ready: Option<lmdb::Database>,
    tables: [lmdb::Database; 13],
    hasher: Hasher,
    created: bool,
    /// Records decoded through this handle: what a test counts to tell a
    /// pass that reads what is due from one that walks the database.
    pub(super) decoded: std::sync::atomic::AtomicU64,
}

/// What [`Write::fail_leases`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reclaimed {
    /// Records returned to their input state.
    pub returned: usize,
    /// URLs of the records set aside as QUARANTINED.
    pub quarantined: Vec<String>,
}

/// What [`Write::insert`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// A new record was written under this key.
    New(Key),
    /// The URL was known already, in this state; nothing was written.
    Known(Key, State),
    /// Another node of the cluster owns the URL's host: the link went into
    /// the outbox for this partition (`store::outbox`), not into records.
    Forwarded(u32),
}

pub(super) const META_FORMAT: &[u8] = b"format";

impl Store {
    /// Whether `flag` is set in the meta table: a side table (the due
    /// index, the READY table) says so once it is built.
    pub(super) fn meta_flag(&self, flag: &[u8]) -> Result<bool> {
        Ok(self
            .read()?
            .table_peek(Table::Meta, flag, |_| ())?
            .is_some())
    }

    /// Opens (and with a writable open, creates) the store at `path`.
    pub fn open(path: &Path, opts: Options) -> Result<Store> {
        let db_err = |what, e| Error::Db {
            path: path.to_path_buf(),
            what,
            source: db_error(e),
        };
        let create = if opts.read_only {
            Create::Never
        } else {
            opts.create
        };
        // Before LMDB maps the file: it trusts what it maps, and a
        // truncated or overwritten file would kill the process by a signal.
        let damaged = |why: String| Error::Damaged {
            path: path.to_path_buf(),
            why,
        };
        let found =
            check::inspect(path).map_err(|e| Error::io(path.join("data.mdb"), "cannot read", e))?;
        match found {
            Found::Sound => {}
            Found::Nothing if create == Create::Never => {
                return Err(Error::NoDatabase(path.to_path_buf()))
            }
            Found::Nothing => {}
            Found::Empty | Found::LockOnly if create == Create::Force => {}
            Found::Empty => return Err(damaged(format!("data.mdb is empty (0 bytes): {LOST}"))),
            Found::LockOnly => {
                return Err(damaged(format!(
                    "lock.mdb is here but data.mdb is missing: {LOST}"
                )))
            }
            Found::Damaged(why) => return Err(damaged(why)),
        }
        if create != Create::Never {
            std::fs::create_dir_all(path)
                .map_err(|e| Error::io(path, "cannot create database directory", e))?;
        }
        let mut flags = lmdb::EnvironmentFlags::NO_TLS;
        if opts.read_only {
            flags |= lmdb::EnvironmentFlags::READ_ONLY;
        }
        let env = lmdb::Environment::new()
            .set_flags(flags)
            .set_max_dbs(32)
            .set_max_readers(1024)
            .set_map_size(opts.map_size)
            .open(path)
            .map_err(|e| db_err("cannot open environment", e))?;
        // A process killed inside a read transaction leaves its reader slot
        // behind, which would keep old pages from ever being reused.
        let mut dead: libc::c_int = 0;
        // SAFETY: env is a valid, open environment for the whole call.
        unsafe { lmdb_sys::mdb_reader_check(env.env(), &mut dead) };
        crate::store::guard::arm(&env, path);

        // Tables are created only by an open that may create the database,
        // or (a table added since) once the format version is known good.
        let may_create = std::cell::Cell::new(create != Create::Never);
        let open = |name: &str| -> Result<lmdb::Database> {
            let r = if may_create.get() {
                env.create_db(Some(name), lmdb::DatabaseFlags::empty())
            } else {
                env.open_db(Some(name))
            };
            r.map_err(|e| match e {
                lmdb::Error::NotFound if name == "meta" => Error::NoDatabase(path.to_path_buf()),
                lmdb::Error::NotFound => damaged(format!(
                    "its {name} table is missing: the database is damaged (restore it from a backup)"
                )),
                e => db_err("cannot open table", e),
            })
        };
        let meta = open("meta")?;
        let created = Store::check_version(&env, meta, path, create == Create::Never)?;
        may_create.set(!opts.read_only);
        let records = open("records")?;
        let index = open("index")?;
        let counters = open("counters")?;
        let tables = [
            open("hosts")?,
            open("addrs")?,
            open("stats")?,
            open("history")?,
            meta,
            open("quota")?,
            open("yield")?,
            open("tunnel")?,
            open("dups")?,
            open("series")?,
            open("changes")?,
            open("outbox")?,
            open("cluster")?,
        ];
        let (due, sched, ready) = if opts.read_only {
            let optional = |name| match env.open_db(Some(name)) {
                Ok(d) => Ok(Some(d)),
                Err(lmdb::Error::NotFound) => Ok(None),
                Err(e) => Err(db_err("cannot open table", e)),
            };
            (optional("due")?, optional("sched")?, optional("ready")?)
        } else {
            (
                Some(open("due")?),
                Some(open("sched")?),
                Some(open("ready")?),
            )
        };
        let store = Store {
            env,
            path: path.to_path_buf(),
            records,
            index,
            counters,
            due,
            sched,
            ready,
            tables,
            hasher: opts.hasher,
            created,
            decoded: std::sync::atomic::AtomicU64::new(0),
        };
        if !opts.read_only {
            store.ensure_due()?;
            store.ensure_ready()?;
        }
        Ok(store)
    }

    fn check_version(
        env: &lmdb::Environment,
        meta: lmdb::Database,
        path: &Path,
        never_create: bool,
    ) -> Result<bool> {
        let db_err = |what, e| Error::Db {
            path: path.to_path_buf(),
            what,
            source: db_error(e),
        };
        let found = {
            let txn = env
                .begin_ro_txn()
                .map_err(|e| db_err("cannot begin transaction", e))?;
            match txn.get(meta, &META_FORMAT) {
                Ok(v) => Some(
                    <[u8; 4]>::try_from(v)
                        .map(u32::from_le_bytes)
                        .unwrap_or(u32::MAX),
                ),
                Err(lmdb::Error::NotFound) => None,
                Err(e) => return Err(db_err("cannot read format version", e)),
            }
        };
        match found {
            Some(v) if v == FORMAT_VERSION => Ok(false),
            Some(v) => Err(Error::Version {
                path: path.to_path_buf(),
                found: v,
                expected: FORMAT_VERSION,
            }),
            None if never_create => Err(Error::NoDatabase(path.to_path_buf())),
            None => {
                let mut txn = env
                    .begin_rw_txn()
                    .map_err(|e| db_err("cannot begin transaction", e))?;
                txn.put(
                    meta,
                    &META_FORMAT,
                    &FORMAT_VERSION.to_le_bytes(),
                    lmdb::WriteFlags::empty(),
                )
                .map_err(|e| db_err("cannot write format version", e))?;
                txn.commit()
                    .map_err(|e| db_err("cannot write format version", e))?;
                Ok(true)
            }
        }
    }

    /// Overwrites the stored format version; only for tests of the refusal.
    #[doc(hidden)]
    pub fn force_format_version(&self, v: u32) -> Result<()> {
        let meta = self
            .env
            .open_db(Some("meta"))
            .map_err(|e| self.err("cannot open table", e))?;
        let mut txn = self
            .env
            .begin_rw_txn()
            .map_err(|e| self.err("cannot begin transaction", e))?;
        txn.put(
            meta,
            &META_FORMAT,
            &v.to_le_bytes(),
            lmdb::WriteFlags::empty(),
        )
        .map_err(|e| self.err("cannot write format version", e))?;
        txn.commit().map_err(|e| self.err("cannot commit", e))
    }

    /// True when this open created the database (wrote its format version):
    /// the crawl begins here, and its settings are stored now.
    pub fn created(&self) -> bool {
        self.created
    }

    /// Records decoded through this handle since it was opened: reads by
    /// key, walks of a state or of every record, the due index's rebuild
    /// (not the checks and copies of `maint`).
    pub fn records_decoded(&self) -> u64 {
        self.decoded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Where the environment lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 17-byte key candidates of a URL start from this hash: the hash
    /// of its key form, so every spelling of one resource has one key.
    pub fn hash(&self, url: &str) -> [u8; 16] {
        (self.hasher)(crate::web::url::key_form(url).as_bytes())
    }

    /// A read-only snapshot. Readers never block writers.
    pub fn read(&self) -> Result<Read<'_>> {
        let txn = self
            .env
            .begin_ro_txn()
            .map_err(|e| self.err("cannot begin read transaction", e))?;
        Ok(Read { store: self, txn })
    }

    /// The write transaction; one at a time across every process.
    pub fn write(&self) -> Result<Write<'_>> {
        let txn = self
            .env
            .begin_rw_txn()
            .map_err(|e| self.err("cannot begin write transaction", e))?;
        Ok(Write {
            store: self,
            txn,
            deltas: Vec::new(),
            policy: None,
            added: 0,
        })
    }

    pub(super) fn err(&self, what: &'static str, e: lmdb::Error) -> Error {
        Error::Db {
            path: self.path.clone(),
            what,
            source: db_error(e),
        }
    }

    pub(super) fn corrupt(&self, key: &[u8], why: &'static str) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            key: Key::from_slice(key)
                .map(|k| k.hex())
                .unwrap_or_else(|| format!("{key:?}")),
            why,
        }
    }

    pub(super) fn table(&self, t: Table) -> lmdb::Database {
        self.tables[t as usize]
    }
}

/// A read-only snapshot of the store.
pub struct Read<'s> {
    pub(super) store: &'s Store,
    pub(super) txn: lmdb::RoTransaction<'s>,
}

/// The one write transaction. Dropping it without [`Write::commit`] aborts
/// every change it made.
pub struct Write<'s> {
    pub(super) store: &'s Store,
    pub(super) txn: lmdb::RwTransaction<'s>,
    /// Counter changes, applied at commit so a batch costs one put per state.
    pub(super) deltas: Vec<(u8, i64)>,
    /// The schedule policy, read once per transaction when first needed.
    pub(super) policy: Option<crate::store::sched::Policy>,
    /// States that gained an unleased record: whose waiters a commit wakes
    /// (a [`super::wake::mask`]).
    pub(super) added: u32,
}

//! nlpc-relay: one node's link to the others, over NATS JetStream.
//!
//! Each round it
//! 1. sends the outbox (`store::outbox`): every entry is published to
//!    `nlpcrawl.links.P` (P its partition) on the stream
//!    [`STREAM`], with `Nats-Msg-Id` set to the record hash so the
//!    stream's duplicate window drops a copy sent twice (a relay killed
//!    between the acknowledgement and the delete); entries are deleted, in
//!    one transaction, only once their publish is acknowledged (all of a
//!    batch's acknowledgements under one deadline). An entry that can
//!    never be sent (damaged, or larger than the stream's message limit)
//!    is dropped with a line, so the outbox drains;
//! 2. takes this node's links with a durable pull consumer (`node-I`),
//!    checks each and admits it through this node's own admission point
//!    as a link found on a page (`cluster::check`), inserts the admitted
//!    ones (`store::scope`) in one transaction, commits, and only then
//!    acknowledges the messages, refused ones included. A message delivered
//!    again finds its URL known: insertion is idempotent by the record
//!    hash. The commit wakes nlpc-resolve as nlpc-scan's do;
//! 3. every `--stat-every`, publishes this node's counters to
//!    `nlpcrawl.stats.I` and files every node's latest in the `cluster`
//!    table, for the monitor, each row checked (`cluster::check`);
//! 4. publishes its own figures (links sent, received, refused by cause)
//!    in the `stats` table under [`STATS_KEY`].
//!
//! The cluster's settings (the partition count and which node ran where)
//! live in the key-value bucket [`BUCKET`]: the first node creates the
//! count, every other compares and refuses a different one.
//!
//! The connection, its credentials and TLS are `cluster::nats`'s.
//!
//! The client is async; as in nlpc-resolve, a current-thread tokio runtime
//! runs it, driven only inside this daemon's synchronous loop. The client
//! reconnects by itself (with its backoff) when a server goes; nothing is
//! lost meanwhile, as the outbox keeps what was not acknowledged and the
//! stream keeps what was not acknowledged by us.
//!
//! The NATS side of a round (the stream, the bucket and the consumer
//! made, links published and taken) is in `bus`; the `cluster`
//! table's rows, which the monitor reads, in `table`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, consumer::PullConsumer};
use async_nats::{Client, Event};
use futures_util::{FutureExt, StreamExt};

use crate::cluster::check::{self, Tally};
pub use crate::cluster::nats::Config;
use crate::cluster::nats::{self, REQUEST};
use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::daemon::Daemon;
use crate::run::options::{Parser, Program};
use crate::store::outbox::{self, Entry};
use crate::store::record::Record;
use crate::store::{scope, series};
use crate::store::{Inserted, Store, Table};
use crate::web::admit::{self, Filter};
use crate::{debug, info};

mod bus;
mod table;

use bus::{publish, setup, take};
pub use table::{node_key, nodes, rows};

/// The subject prefix: links go to `nlpcrawl.links.P`, counters to
/// `nlpcrawl.stats.I`.
pub const PREFIX: &str = "nlpcrawl";
/// The stream of links between nodes.
pub const STREAM: &str = "NLPCRAWL_LINKS";
/// The key-value bucket of the cluster's settings.
pub const BUCKET: &str = "nlpcrawl";
/// Links sent or taken in one transaction.
const BATCH: usize = 512;
/// Counters messages filed in one round, at most; the subscription holds
/// at most [`STATS_QUEUE`] more, and drops what comes beyond.
const STATS_ROUND: usize = 256;
const STATS_QUEUE: usize = 1024;
/// The key of nlpc-relay's own figures in `Table::Stats`.
pub const STATS_KEY: &str = "nlpc-relay";
/// Room for a message's headers (its id, its sender) within the stream's
/// message limit.
const HEADERS: u64 = 128;

/// nlpc-scan's filter under the crawl's stored settings: what a link that
/// arrives passes, as a link found here would (the per-host quota).
pub fn filter_of(db: &std::path::Path) -> Result<Filter> {
    let args = [std::ffi::OsString::from("-p"), db.as_os_str().to_owned()];
    let mut o = Parser::new(Program::Scan)
        .parse(&args)
        .map_err(|_| Error::Usage("cannot read nlpc-scan's options".into()))?;
    o.load_stored()?;
    Ok(crate::stage::scan::Config::from_options(&o)?.filter)
}

fn nats_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Input(format!("NATS: {what}: {e}"))
}

/// A connected relay.
pub struct Relay {
    rt: tokio::runtime::Runtime,
    client: Client,
    js: jetstream::Context,
    consumer: PullConsumer,
    stats: async_nats::Subscriber,
    cfg: Config,
    filter: Filter,
    /// True while sending fails; the next success logs the recovery.
    failing: bool,
    /// The last publish of this node's counters.
    stated: Option<Instant>,
    /// The last publish of this relay's own figures.
    figured: Option<Instant>,
    /// What came from the cluster and was refused, by cause.
    pub refused: Tally,
    /// Links sent, received, inserted new, and outbox entries dropped as
    /// unsendable, since this relay started.
    totals: Round,
}

/// What one round did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub sent: usize,
    pub received: usize,
    pub new: usize,
    /// Links and counters rows refused.
    pub refused: usize,
    /// Outbox entries that can never be sent, dropped.
    pub dropped: usize,
}

impl Round {
    fn add(&mut self, r: &Round) {
        self.sent += r.sent;
        self.received += r.received;
        self.new += r.new;
        self.refused += r.refused;
        self.dropped += r.dropped;
    }
}

impl Relay {
    /// Connects (retrying with backoff until `stop` says so, unless the
    /// cluster refuses this node: then at once, in one line), checks the
    /// cluster's settings and makes the stream and this node's consumer.
    pub fn connect(cfg: Config, filter: Filter, stop: impl Fn(Duration) -> bool) -> Result<Relay> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::io("tokio", "cannot start the NATS runtime", e))?;
        let lost = Arc::new(AtomicBool::new(false));
        let mut pause = Duration::from_millis(250);
        let client = loop {
            let lost = lost.clone();
            let opts = nats::options(&cfg)?
                .name(format!("nlpc-relay {}", cfg.node))
                .request_timeout(Some(REQUEST))
                .connection_timeout(REQUEST)
                .subscription_capacity(STATS_QUEUE)
                // Its own counters are filed as they are published.
                .no_echo()
                .max_reconnects(None)
                .event_callback(move |ev| {
                    let lost = lost.clone();
                    async move {
                        match ev {
                            // One line a loss and one a recovery.
                            Event::Disconnected if !lost.swap(true, Ordering::Relaxed) => {
                                info!("NATS connection lost; reconnecting")
                            }
                            Event::Connected if lost.swap(false, Ordering::Relaxed) => {
                                info!("NATS connection recovered")
                            }
                            Event::ServerError(e) => info!("NATS server error: {e}"),
                            Event::ClientError(e) => info!("NATS client error: {e}"),
                            _ => {}
                        }
                    }
                });
            match rt.block_on(opts.connect(nats::addrs(&cfg)?)) {
                Ok(c) => break c,
                Err(e) => {
                    let why = nats::refusal(&cfg, &e)?;
                    info!(
                        "NATS: cannot connect to {}: {why}; again in {:.1} s",
                        cfg.shown(),
                        pause.as_secs_f64()
                    );
                    if stop(pause) {
                        return Err(Error::Input("stopped before NATS was reached".into()));
                    }
                    pause = (pause * 2).min(Duration::from_secs(30));
                }
            }
        };
        // The context spawns its acknowledgement task on the runtime.
        let js = {
            let _guard = rt.enter();
            jetstream::new(client.clone())
        };
        // While the servers elect their leaders (a cluster starting, a
        // server gone), requests time out: try again, as for the connection.
        let mut pause = Duration::from_millis(250);
        let (consumer, stats) = loop {
            match rt.block_on(setup(&client, &js, &cfg)) {
                Ok(s) => break s,
                Err(e @ Error::Usage(_)) => return Err(e),
                Err(e) => {
                    info!("{e}; again in {:.1} s", pause.as_secs_f64());
                    if stop(pause) {
                        return Err(Error::Input("stopped before NATS was ready".into()));
                    }
                    pause = (pause * 2).min(Duration::from_secs(30));
                }
            }
        };
        info!(
            "node {} of the cluster at {} ({} replicas)",
            cfg.node,
            cfg.shown(),
            cfg.replicas()
        );
        Ok(Relay {
            rt,
            client,
            js,
            consumer,
            stats,
            cfg,
            filter,
            failing: false,
            stated: None,
            figured: None,
            refused: Tally::default(),
            totals: Round::default(),
        })
    }

    /// Logs a failure once, until the next success.
    fn trouble(&mut self, e: Error) {
        if !self.failing {
            info!("{e}; will try again");
            self.failing = true;
        }
    }

    fn fine(&mut self) {
        if self.failing {
            info!("NATS requests succeed again");
            self.failing = false;
        }
    }

    /// One round: sends the outbox, takes this node's links (waiting up to
    /// `wait` for one when there was nothing else to do), publishes the
    /// counters when due.
    pub fn round(&mut self, store: &Store, wait: Duration) -> Result<Round> {
        let mut r = Round::default();
        let (batch, damaged) = {
            let rd = store.read()?;
            (outbox::peek(&rd, BATCH)?, outbox::damaged(&rd, BATCH)?)
        };
        // What can never be sent leaves the outbox, said once each: a
        // damaged entry, or a link larger than the stream takes.
        let limit = self.cfg.limits.max_msg.saturating_sub(HEADERS);
        let (batch, too_big): (Vec<Entry>, Vec<Entry>) = batch
            .into_iter()
            .partition(|e| (e.encode().len() as u64) <= limit);
        if !damaged.is_empty() || !too_big.is_empty() {
            let mut w = store.write()?;
            outbox::remove_keys(&mut w, &damaged)?;
            outbox::remove(&mut w, &too_big)?;
            w.commit()?;
            for e in &too_big {
                info!(
                    "{}: larger than the links stream's messages (--nats-max-msg {limit} bytes with headers); dropped from the outbox",
                    admit::shown(&e.url)
                );
            }
            if !damaged.is_empty() {
                info!("{} damaged outbox entries dropped", damaged.len());
            }
            r.dropped = damaged.len() + too_big.len();
        }
        if !batch.is_empty() {
            let acked = self
                .rt
                .block_on(publish(&self.js, &batch, self.cfg.node.node));
            let sent: Vec<Entry> = batch
                .iter()
                .zip(&acked)
                .filter(|(_, ok)| ok.is_ok())
                .map(|(e, _)| e.clone())
                .collect();
            if let Some(Err(e)) = acked.into_iter().find(|a| a.is_err()) {
                self.trouble(e);
            } else {
                self.fine();
            }
            if !sent.is_empty() {
                let mut w = store.write()?;
                outbox::remove(&mut w, &sent)?;
                w.commit()?;
                r.sent = sent.len();
                info!("sent {} links to other nodes", sent.len());
            }
        }
        let idle = batch.is_empty();
        let msgs = match self.rt.block_on(take(&self.consumer, idle.then_some(wait))) {
            Ok(m) => {
                if !m.is_empty() {
                    self.fine();
                }
                m
            }
            Err(e) => {
                self.trouble(e);
                // Nothing was taken: rest as an idle round would.
                if idle {
                    std::thread::sleep(wait.min(Duration::from_millis(200)));
                }
                Vec::new()
            }
        };
        if !msgs.is_empty() {
            let (new, known, refused) = self.insert(store, &msgs)?;
            // Acknowledged only now, after the commit: a relay killed
            // before this gets the batch again, and finds it known. A
            // refused message is acknowledged too: it would be refused
            // again. One deadline for the batch, so lost acknowledgements
            // (a server restarting) hold the round up seconds, not minutes.
            let acks = self.rt.block_on(async {
                let deadline = tokio::time::Instant::now() + REQUEST;
                let mut failed = 0;
                for m in &msgs {
                    match tokio::time::timeout_at(deadline, m.ack()).await {
                        Ok(Ok(())) => {}
                        _ => failed += 1,
                    }
                }
                failed
            });
            if acks > 0 {
                info!("{acks} acknowledgements not sent; those links come again");
            }
            r.received = msgs.len();
            r.new = new;
            r.refused += refused;
            info!(
                "received {} links ({new} new, {known} known{})",
                msgs.len(),
                if refused > 0 {
                    format!(", {refused} refused")
                } else {
                    String::new()
                }
            );
        }
        if self
            .stated
            .is_none_or(|t| t.elapsed() >= self.cfg.stat_every)
        {
            self.stated = Some(Instant::now());
            if let Err(e) = self.publish_stats(store) {
                self.trouble(e);
            }
        }
        r.refused += self.file_stats(store)?;
        self.totals.add(&r);
        if r != Round::default()
            || self
                .figured
                .is_none_or(|t| t.elapsed() >= Duration::from_secs(1))
        {
            self.figures(store)?;
        }
        Ok(r)
    }

    /// Publishes this relay's figures in `Table::Stats` (for the monitor
    /// and for whoever asks what was refused).
    fn figures(&mut self, store: &Store) -> Result<()> {
        let t = &self.totals;
        let v = serde_json::json!({
            "pid": std::process::id(),
            "time": clock::real_now(),
            "sent": t.sent,
            "received": t.received,
            "new": t.new,
            "dropped": t.dropped,
            "refused": self.refused.total(),
            "refused_by_cause": self.refused.json(),
        });
        let mut w = store.write()?;
        w.table_put(Table::Stats, STATS_KEY.as_bytes(), v.to_string().as_bytes())?;
        w.commit()?;
        self.figured = Some(Instant::now());
        Ok(())
    }

    /// Checks, admits and inserts the links of a batch in one transaction;
    /// returns how many were new, known and refused.
    fn insert(
        &mut self,
        store: &Store,
        msgs: &[jetstream::Message],
    ) -> Result<(usize, usize, usize)> {
        let now = clock::now();
        let (mut new, mut known, mut refused) = (0, 0, 0);
        let me = self.cfg.node;
        let mut w = store.write()?;
        for m in msgs {
            let from = check::sender(
                me.of,
                m.headers
                    .as_ref()
                    .and_then(|h| h.get(check::SENDER))
                    .map(|v| v.as_str()),
            );
            let a = match check::link(me, &self.filter, &m.payload) {
                Ok(a) => a,
                Err((cause, what, detail)) => {
                    self.refused.refuse(cause, &from, &what, &detail);
                    refused += 1;
                    continue;
                }
            };
            let mut rec = Record::new(&a.url, now);
            rec.depth = a.depth;
            match scope::insert(&mut w, &rec, &self.filter)? {
                Ok(Inserted::New(_)) => {
                    debug!("{}: new", a.url);
                    new += 1
                }
                Ok(Inserted::Known(..)) => {
                    debug!("{}: known", a.url);
                    known += 1
                }
                Ok(Inserted::Forwarded(p)) => {
                    // check::link found this node the owner: only a
                    // partition map changed under the relay comes here.
                    self.refused.refuse(
                        "host of another node",
                        &from,
                        &a.url,
                        &format!("node {p} owns it"),
                    );
                    refused += 1
                }
                Err(why) => {
                    self.refused
                        .refuse(why.kind(), &from, &a.url, &why.to_string());
                    refused += 1
                }
            }
        }
        w.commit()?;
        Ok((new, known, refused))
    }

    /// This node's counters, as published.
    fn counters(&self, store: &Store) -> Result<serde_json::Value> {
        let rd = store.read()?;
        let states: serde_json::Map<String, serde_json::Value> = series::state_counts(&rd)?
            .into_iter()
            .map(|(k, v)| (k, v.into()))
            .collect();
        Ok(serde_json::json!({
            "node": self.cfg.node.node,
            "of": self.cfg.node.of,
            "time": clock::real_now(),
            "outbox": outbox::len(&rd)?,
            "refused": self.refused.total(),
            "states": states,
        }))
    }

    fn publish_stats(&mut self, store: &Store) -> Result<()> {
        let v = self.counters(store)?;
        let body = serde_json::to_vec(&v).map_err(|e| Error::Input(e.to_string()))?;
        // Filed here at once, so the monitor shows this node without NATS.
        let mut w = store.write()?;
        w.table_put(Table::Cluster, &node_key(self.cfg.node.node), &body)?;
        w.commit()?;
        let subject = format!("{PREFIX}.stats.{}", self.cfg.node.node);
        self.rt
            .block_on(self.client.publish(subject, body.into()))
            .map_err(|e| nats_err("cannot publish counters", e))
    }

    /// Files the other nodes' counters that arrived, each checked and made
    /// again from its fields; returns how many were refused.
    fn file_stats(&mut self, store: &Store) -> Result<usize> {
        let mut got = Vec::new();
        while got.len() < STATS_ROUND {
            match self.stats.next().now_or_never() {
                Some(Some(m)) => got.push(m),
                _ => break,
            }
        }
        if got.is_empty() {
            return Ok(0);
        }
        let me = self.cfg.node;
        let mut refused = 0;
        let mut w = store.write()?;
        for m in got {
            let n = m
                .subject
                .strip_prefix(&format!("{PREFIX}.stats."))
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|n| *n < me.of);
            let from = match n {
                Some(n) => format!("node {n}"),
                None => "an unknown sender".into(),
            };
            let row = match n {
                Some(n) => check::stats_row(me, n, &m.payload).map(|row| (n, row)),
                None => Err("a subject of no node of this cluster".into()),
            };
            match row {
                Ok((n, row)) => w.table_put(Table::Cluster, &node_key(n), &row)?,
                Err(why) => {
                    self.refused
                        .refuse("counters row not valid", &from, &m.subject, &why);
                    refused += 1;
                }
            }
        }
        w.commit()?;
        Ok(refused)
    }
}

/// Runs the relay until stopped (or, with `--once`, until a round finds
/// nothing to send or take and the outbox is empty: links that wait for a
/// server are links it can still send).
pub fn run(d: &Daemon, cfg: Config) -> Result<()> {
    outbox::set_map(&d.store, cfg.node)?;
    let filter = filter_of(&d.common.db)?;
    let mut relay = Relay::connect(cfg, filter, |p| d.signals.wait(p))?;
    let wait = d
        .common
        .interval
        .clamp(Duration::from_millis(50), Duration::from_secs(1));
    while !d.signals.stopping() {
        let r = relay.round(&d.store, wait)?;
        if d.common.once && r == Round::default() && outbox::len(&d.store.read()?)? == 0 {
            break;
        }
    }
    // Counters as they are at the stop, for the monitor.
    let _ = relay.publish_stats(&d.store);
    let _ = relay.figures(&d.store);
    let _ = relay.rt.block_on(relay.client.flush());
    Ok(())
}

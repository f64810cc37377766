//! nlpc-relay: one node's link to the others, over NATS JetStream.
//!
//! Each round it
//! 1. sends the outbox (`store::outbox`): every entry is published to
//!    `nlpcrawl.links.P` (P its partition) on the stream
//!    [`STREAM`], with `Nats-Msg-Id` set to the record hash so the
//!    stream's duplicate window drops a copy sent twice (a relay killed
//!    between the acknowledgement and the delete); entries are deleted, in
//!    one transaction, only once their publish is acknowledged;
//! 2. takes this node's links with a durable pull consumer (`node-I`),
//!    inserts the batch through the admission point (`store::scope`) in one
//!    transaction, commits, and only then acknowledges the messages. A
//!    message delivered again finds its URL known: insertion is idempotent
//!    by the record hash. The commit wakes nlpc-resolve as nlpc-scan's do;
//! 3. every `--stat-every`, publishes this node's counters to
//!    `nlpcrawl.stats.I` and files every node's latest in the `cluster`
//!    table, for the monitor.
//!
//! The cluster's settings (the partition count and which node ran where)
//! live in the key-value bucket [`BUCKET`]: the first node creates the
//! count, every other compares and refuses a different one.
//!
//! The client is async; as in nlpc-resolve, a current-thread tokio runtime
//! runs it, driven only inside this daemon's synchronous loop. The client
//! reconnects by itself (with its backoff) when a server goes; nothing is
//! lost meanwhile, as the outbox keeps what was not acknowledged and the
//! stream keeps what was not acknowledged by us.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, consumer::PullConsumer, kv, stream};
use async_nats::{Client, ConnectOptions, Event, HeaderMap};
use futures_util::{FutureExt, StreamExt};

use crate::error::{Error, Result};
use crate::run::clock;
use crate::run::daemon::Daemon;
use crate::run::options::{Parsed, Parser, Program};
use crate::store::outbox::{self, Entry};
use crate::store::{scope, series};
use crate::store::{Inserted, Store, Table};
use crate::web::admit::Filter;
use crate::web::partition::Partition;
use crate::web::url;
use crate::{debug, info};

/// The subject prefix: links go to `nlpcrawl.links.P`, counters to
/// `nlpcrawl.stats.I`.
pub const PREFIX: &str = "nlpcrawl";
/// The stream of links between nodes.
pub const STREAM: &str = "NLPCRAWL_LINKS";
/// The key-value bucket of the cluster's settings.
pub const BUCKET: &str = "nlpcrawl";
/// Links sent or taken in one transaction.
const BATCH: usize = 512;
/// The most a counters message may hold; a larger one is dropped.
const MAX_STATS: usize = 16 * 1024;
/// How long a JetStream request may take before the round gives up on it.
const REQUEST: Duration = Duration::from_secs(5);

/// What nlpc-relay is told.
#[derive(Clone, Debug)]
pub struct Config {
    pub servers: Vec<String>,
    pub node: Partition,
    pub stat_every: Duration,
}

impl Config {
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let servers = o.list("nats");
        if servers.is_empty() {
            return Err(Error::Usage(
                "give the NATS servers with --nats nats://HOST:PORT,...".into(),
            ));
        }
        let node = o
            .text("node")
            .ok_or_else(|| Error::Usage("--nats needs --node I/N".into()))?;
        let node = Partition::parse(&node).map_err(|e| Error::Usage(format!("--node {e}")))?;
        Ok(Config {
            servers,
            node,
            stat_every: o.duration("stat-every")?,
        })
    }

    /// JetStream copies: one per server, at most 3 (a majority survives
    /// the loss of one).
    pub fn replicas(&self) -> usize {
        self.servers.len().clamp(1, 3)
    }
}

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
}

/// What one round did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub sent: usize,
    pub received: usize,
    pub new: usize,
}

impl Relay {
    /// Connects (retrying with backoff until `stop` says so), checks the
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
            let opts = ConnectOptions::new()
                .name(format!("nlpc-relay {}", cfg.node))
                .request_timeout(Some(REQUEST))
                .connection_timeout(REQUEST)
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
            let addrs: Vec<async_nats::ServerAddr> = cfg
                .servers
                .iter()
                .map(|s| s.parse().map_err(|e| nats_err(s, e)))
                .collect::<Result<_>>()?;
            match rt.block_on(opts.connect(addrs)) {
                Ok(c) => break c,
                Err(e) => {
                    info!(
                        "NATS: cannot connect to {}: {e}; again in {:.1} s",
                        cfg.servers.join(","),
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
            cfg.servers.join(","),
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
        let batch = outbox::peek(&store.read()?, BATCH)?;
        if !batch.is_empty() {
            let acked = self.rt.block_on(publish(&self.js, &batch));
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
            let (new, known, dropped) = self.insert(store, &msgs)?;
            // Acknowledged only now, after the commit: a relay killed
            // before this gets the batch again, and finds it known.
            let acks = self.rt.block_on(async {
                let mut failed = 0;
                for m in &msgs {
                    if m.ack().await.is_err() {
                        failed += 1;
                    }
                }
                failed
            });
            if acks > 0 {
                info!("{acks} acknowledgements not sent; those links come again");
            }
            r.received = msgs.len();
            r.new = new;
            info!(
                "received {} links ({new} new, {known} known{})",
                msgs.len(),
                if dropped > 0 {
                    format!(", {dropped} dropped")
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
        self.file_stats(store)?;
        Ok(r)
    }

    /// Inserts the links of a batch in one transaction.
    fn insert(&self, store: &Store, msgs: &[jetstream::Message]) -> Result<(usize, usize, usize)> {
        let now = clock::now();
        let (mut new, mut known, mut dropped) = (0, 0, 0);
        let mut w = store.write()?;
        for m in msgs {
            // The sender admitted it; the length is checked again, as a
            // message is input from another machine.
            let Some(e) =
                Entry::decode([0; 16], &m.payload).filter(|e| e.url.len() <= self.filter.max_len)
            else {
                info!(
                    "a message on {} is no link (or too long); dropped",
                    m.subject
                );
                dropped += 1;
                continue;
            };
            let host = url::host_of(&e.url).to_ascii_lowercase();
            if e.partition != self.cfg.node.node || !self.cfg.node.owns(&host) {
                // Sent by a node with another map: refused at start, so
                // only a message from elsewhere comes here.
                info!(
                    "{}: sent for node {}, not this one; dropped",
                    e.url, e.partition
                );
                dropped += 1;
                continue;
            }
            match scope::insert(&mut w, &e.record(now), &self.filter)? {
                Ok(Inserted::New(_)) => {
                    debug!("{}: new", e.url);
                    new += 1
                }
                Ok(Inserted::Known(..)) => {
                    debug!("{}: known", e.url);
                    known += 1
                }
                Ok(Inserted::Forwarded(p)) => {
                    debug!("{}: forwarded to node {p}", e.url);
                    dropped += 1
                }
                Err(why) => {
                    debug!("{}: {why}", e.url);
                    dropped += 1
                }
            }
        }
        w.commit()?;
        Ok((new, known, dropped))
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

    /// Files the other nodes' counters that arrived.
    fn file_stats(&mut self, store: &Store) -> Result<()> {
        let mut got = Vec::new();
        while let Some(Some(m)) = self.stats.next().now_or_never() {
            got.push(m);
        }
        if got.is_empty() {
            return Ok(());
        }
        let mut w = store.write()?;
        for m in got {
            let node = m
                .subject
                .rsplit('.')
                .next()
                .and_then(|n| n.parse::<u32>().ok());
            match node {
                Some(n) if n < self.cfg.node.of && m.payload.len() <= MAX_STATS => {
                    if serde_json::from_slice::<serde_json::Value>(&m.payload).is_ok() {
                        w.table_put(Table::Cluster, &node_key(n), &m.payload)?;
                    }
                }
                _ => debug!("counters on {} ignored", m.subject),
            }
        }
        w.commit()
    }
}

/// The key of a node in the `cluster` table: its number, big-endian, so
/// the nodes walk in order.
pub fn node_key(n: u32) -> [u8; 4] {
    n.to_be_bytes()
}

/// The latest counters of every node, in node order, as filed.
pub fn nodes(store: &Store) -> Result<Vec<(u32, serde_json::Value)>> {
    let rd = store.read()?;
    let mut out = Vec::new();
    rd.table_walk(Table::Cluster, &[], |k, v| {
        if let (Ok(k), Ok(v)) = (<[u8; 4]>::try_from(k), serde_json::from_slice(v)) {
            out.push((u32::from_be_bytes(k), v));
        }
        Ok(true)
    })?;
    Ok(out)
}

/// The monitor's rows of a cluster: a heading and one row a node, from
/// the latest counters filed; nothing outside a cluster.
pub fn rows(store: &Store) -> Result<Vec<String>> {
    let nodes = nodes(store)?;
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    let now = clock::real_now();
    let mut out = vec![
        String::new(),
        format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>8}",
            "NODE", "RECORDS", "VERIFIED", "NEW", "OUTBOX", "AGE"
        ),
    ];
    for (n, v) in nodes {
        let state = |k: &str| v["states"][k].as_u64().unwrap_or(0);
        let total: u64 = v["states"]
            .as_object()
            .map(|m| m.values().filter_map(|x| x.as_u64()).sum())
            .unwrap_or(0);
        let age = now.saturating_sub(v["time"].as_u64().unwrap_or(0));
        out.push(format!(
            "{:<6} {:>10} {:>10} {:>10} {:>10} {:>7}s",
            format!("{n}/{}", v["of"].as_u64().unwrap_or(0)),
            total,
            state("VERIFIED") + state("SCANNED"),
            state("NEW") + state("READY"),
            v["outbox"].as_u64().unwrap_or(0),
            age
        ));
    }
    Ok(out)
}

/// The stream, the settings bucket and this node's consumer.
async fn setup(
    client: &Client,
    js: &jetstream::Context,
    cfg: &Config,
) -> Result<(PullConsumer, async_nats::Subscriber)> {
    // The bucket's stream is made here, as the client's create_key_value
    // would make it: that call first reads the account's limits, whose
    // answer from a 2.9 server (Debian's) lacks fields the client requires.
    js.get_or_create_stream(stream::Config {
        name: format!("KV_{BUCKET}"),
        subjects: vec![format!("$KV.{BUCKET}.>")],
        max_messages_per_subject: 1,
        discard: stream::DiscardPolicy::New,
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        storage: stream::StorageType::File,
        num_replicas: cfg.replicas(),
        duplicate_window: Duration::from_secs(120),
        ..Default::default()
    })
    .await
    .map_err(|e| nats_err("cannot make the settings bucket", e))?;
    let bucket = js
        .get_key_value(BUCKET)
        .await
        .map_err(|e| nats_err("cannot open the settings bucket", e))?;
    let mine = cfg.node.of.to_string();
    match bucket.create("partitions", mine.clone().into()).await {
        Ok(_) => info!("cluster settings made: {} partitions", cfg.node.of),
        Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {
            let theirs = bucket
                .get("partitions")
                .await
                .map_err(|e| nats_err("cannot read the partition count", e))?
                .unwrap_or_default();
            let theirs = String::from_utf8_lossy(&theirs).into_owned();
            if theirs != mine {
                return Err(Error::Usage(format!(
                    "the cluster has {theirs} partitions, this node was given --node {}: refusing a different partition map",
                    cfg.node
                )));
            }
        }
        Err(e) => return Err(nats_err("cannot write the partition count", e)),
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    bucket
        .put(
            format!("node.{}", cfg.node.node),
            format!("{host} pid {}", std::process::id()).into(),
        )
        .await
        .map_err(|e| nats_err("cannot write the node list", e))?;
    let stream = js
        .get_or_create_stream(stream::Config {
            name: STREAM.into(),
            subjects: vec![format!("{PREFIX}.links.*")],
            // A link leaves the stream once its node acknowledged it.
            retention: stream::RetentionPolicy::WorkQueue,
            storage: stream::StorageType::File,
            num_replicas: cfg.replicas(),
            duplicate_window: Duration::from_secs(120),
            ..Default::default()
        })
        .await
        .map_err(|e| nats_err("cannot make the links stream", e))?;
    let name = format!("node-{}", cfg.node.node);
    let consumer = stream
        .get_or_create_consumer(
            &name,
            jetstream::consumer::pull::Config {
                durable_name: Some(name.clone()),
                filter_subject: format!("{PREFIX}.links.{}", cfg.node.node),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ack_wait: Duration::from_secs(30),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| nats_err("cannot make this node's consumer", e))?;
    let stats = client
        .subscribe(format!("{PREFIX}.stats.*"))
        .await
        .map_err(|e| nats_err("cannot subscribe to the counters", e))?;
    Ok((consumer, stats))
}

/// Publishes a batch and waits for every acknowledgement; one result per
/// entry, in order.
async fn publish(js: &jetstream::Context, batch: &[Entry]) -> Vec<Result<()>> {
    let mut pending = Vec::with_capacity(batch.len());
    for e in batch {
        let mut h = HeaderMap::new();
        h.insert(async_nats::header::NATS_MESSAGE_ID, e.id().as_str());
        let subject = format!("{PREFIX}.links.{}", e.partition);
        pending.push(js.publish_with_headers(subject, h, e.encode().into()).await);
    }
    let mut out = Vec::with_capacity(batch.len());
    for p in pending {
        out.push(match p {
            Ok(ack) => match tokio::time::timeout(REQUEST, ack).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(nats_err("a link was not stored", e)),
                Err(_) => Err(nats_err("a link was not stored", "no acknowledgement")),
            },
            Err(e) => Err(nats_err("cannot send a link", e)),
        });
    }
    out
}

/// Takes what is waiting for this node, up to a batch; with `wait`, first
/// waits that long for one message when none is waiting.
async fn take(c: &PullConsumer, wait: Option<Duration>) -> Result<Vec<jetstream::Message>> {
    let mut out = Vec::new();
    drain(c, &mut out).await?;
    if let (true, Some(w)) = (out.is_empty(), wait) {
        let one = c
            .batch()
            .max_messages(1)
            .expires(w)
            .messages()
            .await
            .map_err(|e| nats_err("cannot ask for links", e))?;
        let got: Vec<_> = tokio::time::timeout(w + REQUEST, one.collect::<Vec<_>>())
            .await
            .map_err(|_| nats_err("cannot ask for links", "no answer"))?;
        for m in got {
            out.push(m.map_err(|e| nats_err("cannot take links", e))?);
        }
        if !out.is_empty() {
            drain(c, &mut out).await?;
        }
    }
    Ok(out)
}

/// What is waiting now, without waiting.
async fn drain(c: &PullConsumer, out: &mut Vec<jetstream::Message>) -> Result<()> {
    let want = BATCH.saturating_sub(out.len());
    if want == 0 {
        return Ok(());
    }
    let b = c
        .fetch()
        .max_messages(want)
        .messages()
        .await
        .map_err(|e| nats_err("cannot ask for links", e))?;
    let got: Vec<_> = tokio::time::timeout(REQUEST, b.collect::<Vec<_>>())
        .await
        .map_err(|_| nats_err("cannot ask for links", "no answer"))?;
    for m in got {
        out.push(m.map_err(|e| nats_err("cannot take links", e))?);
    }
    Ok(())
}

/// Runs the relay until stopped (or, with `--once`, until a round finds
/// nothing to send or take).
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
        if d.common.once && r == Round::default() {
            break;
        }
    }
    // Counters as they are at the stop, for the monitor.
    let _ = relay.publish_stats(&d.store);
    let _ = relay.rt.block_on(relay.client.flush());
    Ok(())
}

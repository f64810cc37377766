//! The relay's side of NATS JetStream: the links stream, the settings
//! bucket and this node's pull consumer, made or checked at connection
//! ([`setup`]); a batch of links published under one deadline for its
//! acknowledgements ([`publish`]); links taken for this node ([`take`]).

use std::time::Duration;

use async_nats::jetstream::{self, consumer::PullConsumer, kv, stream};
use async_nats::{Client, HeaderMap};
use futures_util::StreamExt;

use crate::cluster::check;
use crate::cluster::nats::{Config, REQUEST};
use crate::error::{Error, Result};
use crate::info;
use crate::store::outbox::Entry;

use super::{nats_err, BATCH, BUCKET, PREFIX, STREAM};

/// The stream, the settings bucket and this node's consumer.
pub(super) async fn setup(
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
    let l = cfg.limits;
    let want = stream::Config {
        name: STREAM.into(),
        subjects: vec![format!("{PREFIX}.links.*")],
        // A link leaves the stream once its node acknowledged it.
        retention: stream::RetentionPolicy::WorkQueue,
        storage: stream::StorageType::File,
        num_replicas: cfg.replicas(),
        duplicate_window: Duration::from_secs(120),
        max_bytes: i64::try_from(l.max_bytes).unwrap_or(i64::MAX),
        max_age: l.max_age,
        max_message_size: i32::try_from(l.max_msg).unwrap_or(i32::MAX),
        discard: l.discard(),
        ..Default::default()
    };
    let mut stream = js
        .get_or_create_stream(want.clone())
        .await
        .map_err(|e| nats_err("cannot make the links stream", e))?;
    // A stream made before (by an older relay, or a node with other
    // limits) gets this node's limits: the last node started sets them.
    let have = stream
        .info()
        .await
        .map_err(|e| nats_err("cannot read the links stream", e))?
        .config
        .clone();
    let limits = |c: &stream::Config| (c.max_bytes, c.max_age, c.max_message_size, c.discard);
    if limits(&have) != limits(&want) {
        let mut c = have.clone();
        (c.max_bytes, c.max_age, c.max_message_size, c.discard) = limits(&want);
        js.update_stream(c)
            .await
            .map_err(|e| nats_err("cannot set the links stream's limits", e))?;
        info!(
            "links stream limits set: {} bytes, age {}, messages of {} bytes, discard {:?} (were {} bytes, age {}, {} bytes, {:?})",
            want.max_bytes,
            crate::run::human::duration(want.max_age.as_secs()),
            want.max_message_size,
            want.discard,
            have.max_bytes,
            crate::run::human::duration(have.max_age.as_secs()),
            have.max_message_size,
            have.discard
        );
    }
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
    // Sent now, not with the first round: the servers know this node
    // listens before the relay says it is ready.
    client
        .flush()
        .await
        .map_err(|e| nats_err("cannot subscribe to the counters", e))?;
    Ok((consumer, stats))
}

/// Publishes a batch, each message naming its sender, and waits for the
/// acknowledgements under one deadline; one result per entry, in order.
pub(super) async fn publish(js: &jetstream::Context, batch: &[Entry], me: u32) -> Vec<Result<()>> {
    let mut pending = Vec::with_capacity(batch.len());
    for e in batch {
        let mut h = HeaderMap::new();
        h.insert(async_nats::header::NATS_MESSAGE_ID, e.id().as_str());
        h.insert(check::SENDER, me.to_string().as_str());
        let subject = format!("{PREFIX}.links.{}", e.partition);
        pending.push(js.publish_with_headers(subject, h, e.encode().into()).await);
    }
    let deadline = tokio::time::Instant::now() + REQUEST;
    let mut out = Vec::with_capacity(batch.len());
    for p in pending {
        out.push(match p {
            Ok(ack) => match tokio::time::timeout_at(deadline, ack).await {
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
pub(super) async fn take(
    c: &PullConsumer,
    wait: Option<Duration>,
) -> Result<Vec<jetstream::Message>> {
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

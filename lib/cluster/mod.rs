//! The cluster: several machines crawling one web, each a node running the
//! whole suite over its own database, and nlpc-relay carrying the links one
//! node finds for another's hosts over NATS JetStream (`relay`). Uses
//! `stage` (nlpc-scan's filter, for the links it inserts), `run` (options,
//! the daemon loop, the log), `store` (the outbox, the admission point) and
//! `web` (the partition map).

pub mod relay;

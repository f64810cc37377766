//! The cluster: several machines crawling one web, each a node running the
//! whole suite over its own database, and nlpc-relay carrying the links one
//! node finds for another's hosts over NATS JetStream (`relay`). Uses
//! `stage` (nlpc-scan's filter, for the links it inserts), `run` (options,
//! the daemon loop, the log), `store` (the outbox, the admission point) and
//! `web` (the partition map, the admission point). `nats` is the connection
//! (servers, credentials, TLS, the stream's limits), `check` what arrives
//! from other machines (links admitted as found here, counters rows),
//! `relay` the daemon's rounds.

pub mod check;
pub mod nats;
pub mod relay;

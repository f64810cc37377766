//! nlpc-fetch's configuration from its options.

use std::fs::File;

use super::{health, Config};
use crate::error::{Error, Result};
use crate::run::options::Parsed;
use crate::web::http::{self, HeaderFilter};
use crate::web::politeness::Policy;

impl Config {
    /// Reads nlpc-fetch's options. The table keeps --fetch-burst,
    /// --fetch-pipeline and --fetch-hosts at 1 or more.
    pub fn from_options(o: &Parsed) -> Result<Config> {
        let policy = Policy {
            burst: o.int("fetch-burst")?,
            polite: o.duration("fetch-polite")?,
            pipeline: o.int("fetch-pipeline")?,
        };
        let types: Vec<String> = o
            .list("filter-type")
            .iter()
            .map(|t| t.to_ascii_lowercase())
            .collect();
        let version = env!("CARGO_PKG_VERSION");
        let user_agent = match o.text("bot-url") {
            Some(u) => format!("nlpcrawl/{version} (+{u})"),
            None => format!("nlpcrawl/{version}"),
        };
        let ca_file = o.path("fetch-cafile");
        if let Some(f) = &ca_file {
            // Cheap, and better said now than by every TLS handshake.
            File::open(f).map_err(|e| Error::io(f, "cannot read certificate file", e))?;
        }
        let hosts: usize = o.int("fetch-hosts")?;
        let cfg = Config {
            policy,
            hosts,
            http: http::Config {
                user_agent,
                from: o.text("from"),
                accept: types.join(", "),
                connect_timeout: o.duration("fetch-connect-timeout")?,
                timeout: o.duration("fetch-timeout")?,
                min_speed: o.int("fetch-min-speed")?,
                slow_time: o.duration("fetch-slow-time")?,
                max_size: o.size("fetch-max-size")?,
                filter: HeaderFilter {
                    types,
                    charsets: o.charsets("filter-charset")?,
                    langs: o.langs("filter-lang")?,
                },
                max_connections: hosts.saturating_mul(2),
                pipeline: policy.pipeline,
                ca_file,
            },
            robots_ttl: o.duration("robots-ttl")?,
            max_redirects: o.int("fetch-redirects")?,
            admit: crate::stage::admission(o)?,
            yield_rule: crate::store::harvest::Rule {
                sample: o.int("yield-sample")?,
                min: o.share("yield-min")?,
            },
            monitor: o.flag("m"),
            stat_every: o.duration("stat-every")?,
            max_delay: o.duration("fetch-max-delay")?,
            health: health::Rules {
                pause: o.duration("fetch-pause")?,
                pause_max: o.duration("fetch-pause-max")?,
                max_retry_after: o.duration("fetch-max-retry-after")?,
                slow_factor: o.int("fetch-slow-factor")?,
                max_delay: o.duration("fetch-max-delay")?,
            },
            store_cap: o.size("fetch-store-cap")?,
            sync_each: o.flag("fetch-sync-each"),
            // Focus orders by the language's yield: without a language
            // to look for there is none to order by.
            focus: !o.flag("fetch-no-focus") && !o.langs("filter-lang")?.is_empty(),
            explore: o.share("fetch-explore")?,
        };
        cfg.validate().map_err(Error::Usage)?;
        Ok(cfg)
    }
}

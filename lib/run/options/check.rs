//! The checks an option's value must pass, each a parser to a typed value:
//! the same function answers the daemons' parsers, nlpcd's checks before it
//! starts anything, and the typed getters the config builders call.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use encoding_rs::Encoding;

use crate::document::{charset, lang};
use crate::run::clock::parse_duration;
use crate::run::options::opt::{Check, Program};
use crate::store::record::State;
use crate::web::{address, admit, scope};

/// Why a value fails its check, in words that name the value.
pub type Why = String;

impl Check {
    /// Checks one value (one item of a list).
    pub fn check(self, v: &str) -> Result<(), Why> {
        match self {
            Check::None | Check::Text => Ok(()),
            Check::Path => path(v).map(drop),
            Check::Duration { nonzero } => duration(v, nonzero).map(drop),
            Check::Int { min, max } => int(v, min, max).map(drop),
            Check::Percent => number(v, 100.0).map(drop),
            Check::Fraction => number(v, 1.0).map(drop),
            Check::Size => size(v).map(drop),
            Check::Charset => encoding(v).map(drop),
            Check::Lang => lang::parse(v).map(drop).map_err(|e| e.to_string()),
            Check::Hosts => admit::normalise_host(v).map(drop),
            Check::Scheme => scheme(v).map(drop),
            Check::Pattern => scope::Pattern::parse(v).map(drop),
            Check::Deny => admit::Deny::parse(v).map(drop),
            Check::Address => address::parse_nameserver(v).map(drop),
            Check::State => v.parse::<State>().map(drop),
            Check::DaemonArg => daemon_arg(v).map(drop),
            Check::Setting => setting(v).map(drop),
            Check::Node => crate::web::partition::Partition::parse(v).map(drop),
            Check::NatsUrl => nats_url(v),
        }
    }
}

pub fn path(v: &str) -> Result<PathBuf, Why> {
    if v.is_empty() {
        return Err("empty path".into());
    }
    Ok(v.into())
}

pub fn duration(v: &str, nonzero: bool) -> Result<Duration, Why> {
    let d = parse_duration(v)?;
    if nonzero && d.is_zero() {
        return Err(format!("{v:?} must be longer than 0"));
    }
    Ok(d)
}

pub fn int(v: &str, min: u64, max: u64) -> Result<u64, Why> {
    let n: u64 = v
        .trim()
        .parse()
        .map_err(|_| format!("{v:?} is not a whole number"))?;
    if n < min {
        return Err(format!("{n} is less than {min}"));
    }
    if n > max {
        return Err(format!("{n} is more than {max}"));
    }
    Ok(n)
}

/// A number from 0 to `top`.
pub fn number(v: &str, top: f64) -> Result<f64, Why> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("{v:?} is not a number"))?;
    if !(0.0..=top).contains(&x) {
        return Err(format!("{v} is not between 0 and {top}"));
    }
    Ok(x)
}

/// "4M", "512k", "100000": a byte count.
pub fn size(v: &str) -> Result<u64, Why> {
    let s = v.trim();
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1 << 10),
        Some('m' | 'M') => (&s[..s.len() - 1], 1 << 20),
        Some('g' | 'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("{v:?} is not a size (try 512k or 4M)"))
}

pub fn encoding(v: &str) -> Result<&'static Encoding, Why> {
    charset::parse(v).map_err(|e| e.to_string())
}

pub fn scheme(v: &str) -> Result<String, Why> {
    let ok = v.starts_with(|c: char| c.is_ascii_alphabetic())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !ok {
        return Err(format!("{v:?} is not a URL scheme"));
    }
    Ok(v.to_ascii_lowercase())
}

pub fn address(v: &str) -> Result<SocketAddr, Why> {
    address::parse_nameserver(v)
}

/// `nlpc-fetch:--fetch-max-size=1M` or `fetch:...`: a daemon nlpcd runs
/// and one argument for it.
pub fn daemon_arg(v: &str) -> Result<(Program, String), Why> {
    let Some((d, arg)) = v.split_once(':') else {
        return Err(format!("{v:?} is not DAEMON:ARG"));
    };
    match Program::from_name(d) {
        Some(p) if Program::DAEMONS.contains(&p) || p == Program::Relay => Ok((p, arg.to_string())),
        _ => Err(format!("{v:?}: nlpcd runs no daemon {d:?}")),
    }
}

/// `NAME=VALUE` for a stored setting: the option (a setting of the table)
/// and its value, checked as the option checks it. An empty value (and
/// `no` for a flag) means: remove the stored value.
pub fn setting(v: &str) -> Result<(&'static crate::run::options::Opt, String), Why> {
    use crate::run::options::{table, Kind};
    let Some((name, value)) = v.split_once('=') else {
        return Err(format!("{v:?} is not NAME=VALUE"));
    };
    let name = name.trim().trim_start_matches("--");
    let o = table::OPTIONS
        .iter()
        .find(|o| o.setting && o.long == name)
        .ok_or_else(|| {
            format!("{name:?} is not a setting of the crawl (nlpc-list --config lists them)")
        })?;
    let value = value.trim();
    if o.kind == Kind::Flag {
        return match value {
            "yes" | "no" | "" => Ok((o, value.to_string())),
            _ => Err(format!("{name}: {value:?}: give yes or no")),
        };
    }
    if !value.is_empty() {
        crate::run::options::check_value(o, value)
            .map_err(|why| format!("{name}={value}: {why}"))?;
    }
    Ok((o, value.to_string()))
}

/// A NATS server URL: `nats://` or `tls://`, a host and a port.
fn nats_url(v: &str) -> Result<(), Why> {
    // Named without what is before an "@": that may be a password.
    let shown = crate::run::log::redact(v);
    let rest = v
        .strip_prefix("nats://")
        .or_else(|| v.strip_prefix("tls://"))
        .ok_or_else(|| format!("{shown:?}: a NATS server URL starts with nats:// or tls://"))?;
    if rest.contains('@') {
        return Err(format!(
            "{shown:?}: no credentials in a server URL (a command line is seen by every user of the machine); give --nats-user with --nats-password FILE, --nats-token FILE, --nats-nkey FILE or --nats-creds FILE"
        ));
    }
    match rest.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0) => Ok(()),
        _ => Err(format!("{shown:?}: give the server as nats://HOST:PORT")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_value() {
        assert_eq!(
            int("many", 1, 9),
            Err("\"many\" is not a whole number".into())
        );
        assert_eq!(int("0", 1, 9), Err("0 is less than 1".into()));
        assert_eq!(int("10", 1, 9), Err("10 is more than 9".into()));
        assert_eq!(int(" 3", 1, 9), Ok(3));
        assert_eq!(
            number("150", 100.0),
            Err("150 is not between 0 and 100".into())
        );
        assert_eq!(number("0.5", 1.0), Ok(0.5));
        assert!(number("NaN", 1.0).is_err());
        assert_eq!(size("4M"), Ok(4 << 20));
        assert_eq!(size("512k"), Ok(512 << 10));
        assert!(size("é").is_err());
        assert!(size("99999999999999999999G").is_err());
        assert!(duration("0", true).is_err());
        assert_eq!(duration("0", false), Ok(Duration::ZERO));
        assert!(path("").is_err());
        assert_eq!(scheme("HTTPS"), Ok("https".into()));
        assert!(scheme("ht tp").is_err());
        assert!(Check::Charset.check("latin-99").is_err());
        assert!(Check::Lang.check("lv").is_ok());
        assert!(Check::State.check("sleepy").is_err());
        assert_eq!(
            daemon_arg("fetch:--fetch-burst=3"),
            Ok((Program::Fetch, "--fetch-burst=3".into()))
        );
        assert!(daemon_arg("nlpc-list:-c").is_err());
        assert!(daemon_arg("fetch").is_err());
    }
}

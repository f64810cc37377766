//! What the option table is made of: the programs, how an option occurs,
//! one option's entry, and what its value must be (its [`Check`], whose
//! parsers are in [`super::check`]).

/// The executables of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    Nlpcd,
    Scan,
    Resolve,
    Fetch,
    Vrfy,
    Up,
    List,
    Dump,
    Index,
    Search,
    Stat,
    Relay,
}

/// What operands a program takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    None,
    /// At most one, named so.
    One(&'static str),
    /// Any number, named so.
    Many(&'static str),
}

impl Program {
    pub const ALL: [Program; 12] = [
        Program::Nlpcd,
        Program::Scan,
        Program::Resolve,
        Program::Fetch,
        Program::Vrfy,
        Program::Up,
        Program::List,
        Program::Dump,
        Program::Index,
        Program::Search,
        Program::Stat,
        Program::Relay,
    ];

    /// The daemons nlpcd runs, in the order of the crawl.
    pub const DAEMONS: [Program; 6] = [
        Program::Scan,
        Program::Resolve,
        Program::Fetch,
        Program::Vrfy,
        Program::Up,
        Program::Index,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Program::Nlpcd => "nlpcd",
            Program::Scan => "nlpc-scan",
            Program::Resolve => "nlpc-resolve",
            Program::Fetch => "nlpc-fetch",
            Program::Vrfy => "nlpc-vrfy",
            Program::Up => "nlpc-up",
            Program::List => "nlpc-list",
            Program::Dump => "nlpc-dump",
            Program::Index => "nlpc-index",
            Program::Search => "nlpc-search",
            Program::Stat => "nlpc-stat",
            Program::Relay => "nlpc-relay",
        }
    }

    /// The program of this name; `fetch` is short for `nlpc-fetch`.
    pub fn from_name(name: &str) -> Option<Program> {
        let full = if name.starts_with("nlpc") {
            name.to_string()
        } else {
            format!("nlpc-{name}")
        };
        Program::ALL.into_iter().find(|p| p.name() == full)
    }

    pub fn operands(self) -> Operands {
        match self {
            Program::Nlpcd | Program::Scan => Operands::Many("[url ... | -]"),
            Program::Up | Program::List | Program::Dump => Operands::One("[pattern]"),
            Program::Search => Operands::Many("[query ...]"),
            Program::Resolve
            | Program::Fetch
            | Program::Vrfy
            | Program::Index
            | Program::Stat
            | Program::Relay => Operands::None,
        }
    }

    pub(super) const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// How an option occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Present or not.
    Flag,
    /// Counted each time it is given (`-dd`).
    Count,
    /// Takes one value, given once.
    Value,
    /// Repeatable; each value is a list split on white space and commas.
    List,
    /// Repeatable; each value is one item, never split.
    Repeat,
}

/// One option.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// The long name without dashes, or "" for a short-only option.
    pub long: &'static str,
    /// The short letter, or None.
    pub short: Option<char>,
    pub kind: Kind,
    /// The value's name in the usage ("" for flags).
    pub metavar: &'static str,
    /// The default as text ("" for none); it must pass `check`.
    pub default: &'static str,
    pub check: Check,
    /// One line of help.
    pub help: &'static str,
    /// The programs that take it: a set of [`Program`] bits.
    pub(super) programs: u16,
    /// True when nlpcd hands it on to the daemons that take it; false for
    /// what nlpcd and each daemon read for themselves (-h, -v, -m, --once).
    pub passed: bool,
    /// True for the crawl's settings: stored in the database when the
    /// crawl is created, and read from it by every program that takes them
    /// unless given on its command line (filters, politeness, admission).
    pub setting: bool,
}

impl Opt {
    /// True when `p` takes this option.
    pub fn takes(&self, p: Program) -> bool {
        self.programs & p.bit() != 0
    }

    /// The name the parsers know it by: the long name, else the letter.
    pub fn key(&self) -> String {
        match self.short {
            Some(c) if self.long.is_empty() => c.to_string(),
            _ => self.long.to_string(),
        }
    }

    /// As a user writes it: `--fetch-burst`, `-s`.
    pub fn display(&self) -> String {
        match self.short {
            Some(c) if self.long.is_empty() => format!("-{c}"),
            _ => format!("--{}", self.long),
        }
    }

    /// The help line with its default.
    pub fn help_line(&self) -> String {
        if self.default.is_empty() {
            self.help.to_string()
        } else {
            format!("{} (default {})", self.help, self.default)
        }
    }
}

/// What a value must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// A flag: no value.
    None,
    /// Any text.
    Text,
    /// A non-empty path.
    Path,
    /// A duration (`90s`, `12h`); `nonzero` refuses 0.
    Duration { nonzero: bool },
    /// A whole number within bounds.
    Int { min: u64, max: u64 },
    /// A number from 0 to 100.
    Percent,
    /// A number from 0 to 1.
    Fraction,
    /// A byte count with an optional k, M or G.
    Size,
    /// A charset label WHATWG knows.
    Charset,
    /// An ISO 639-1 or 639-3 language code.
    Lang,
    /// A host name (with its subdomains).
    Hosts,
    /// A URL scheme.
    Scheme,
    /// A URL glob (`web::scope::Pattern`).
    Pattern,
    /// A host or a URL glob (`web::scope::Deny`).
    Deny,
    /// An IP address with an optional port.
    Address,
    /// A record state.
    State,
    /// nlpcd's `DAEMON:ARG`.
    DaemonArg,
    /// nlpc-list's `NAME=VALUE` for a stored setting.
    Setting,
    /// A cluster node, `I/N` (`web::partition`).
    Node,
    /// A NATS server URL (`nats://host:port`).
    NatsUrl,
}

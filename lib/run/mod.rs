//! Running a daemon: the options every executable reads, the work loop that
//! leases records from the store and hands them to a stage, signals, the
//! log, the clock and numbers for people. Uses `store` and below.

pub mod clock;
pub mod daemon;
pub mod human;
pub mod log;
pub mod options;

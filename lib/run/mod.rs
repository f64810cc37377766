//! Running a daemon: the options every executable reads, the work loop that
//! leases records from the store and hands them to a stage, signals, the
//! log and the clock. Uses `store` and below.

pub mod clock;
pub mod daemon;
pub mod log;
pub mod options;

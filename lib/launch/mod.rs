//! nlpcd's half: seeding, starting every daemon with the shared options,
//! restarting those that die, stopping them all, and the monitor. The top
//! of the library; uses any folder below.

pub mod args;
pub mod child;
pub mod monitor;
pub mod supervisor;

//! The tests' generator of inputs: xorshift64, the same sequence on every
//! run and on every machine, with no dependency.

/// The state after `x` (never 0 unless `x` is 0).
pub(crate) fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

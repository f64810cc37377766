//! When the loop hands its gathered results to the storer: a group
//! commit. A page's links are found only once its record is FRESH, so
//! every link level of a crawl waits for this hand-over; results used to
//! wait out a timer of 100 ms whatever else was going on.
//!
//! Now results go as soon as no earlier batch is still being stored or
//! committed, so an idle storer costs a result no wait. While one is, the
//! results arriving meanwhile are gathered and go together when it is
//! done: under load each batch grows to what arrived during the last
//! one's store and commit, so the syncs and the transactions stay shared
//! by many pages. On `/dev/shm` a store and commit take about a
//! millisecond, and handing over at once made batches of a few pages and
//! twice the transactions and syncs of the timer (strace of
//! `scripts/bench/compare`): hand-overs are [`SPACING`] apart at least,
//! which keeps a busy fetcher's batches large and a link level's wait
//! short. The old bounds stay as a backstop for a storer that takes long
//! (a slow disk): the gathered results go anyway after [`EVERY`] or at
//! [`MOST`] of them, and the storer groups the batches that reach it while
//! it works.

use std::time::Duration;

/// Results gathered at which they go whatever the storer is doing.
pub(super) const MOST: usize = 256;

/// How long results wait at most for a batch before them to be done.
pub(super) const EVERY: Duration = Duration::from_millis(100);

/// The least time between two hand-overs while results keep coming.
pub(super) const SPACING: Duration = Duration::from_millis(20);

/// True when the `gathered` results should be handed over now, the last
/// hand-over `since` ago: there are some, and either no batch is in the
/// storer or the writer (`in_store` batches are) and [`SPACING`] has
/// passed, or enough have gathered, or [`EVERY`] has passed.
pub(super) fn due(gathered: usize, in_store: usize, since: Duration) -> bool {
    gathered > 0 && ((in_store == 0 && since >= SPACING) || gathered >= MOST || since >= EVERY)
}

/// How long till [`due`] turns true by the spacing alone, when the
/// storer is idle and results are gathered; None when it does not wait on
/// the spacing (nothing gathered, a batch in the storer, whose reply the
/// loop looks for anyway, or the spacing over).
pub(super) fn spacing_left(gathered: usize, in_store: usize, since: Duration) -> Option<Duration> {
    let left = SPACING.saturating_sub(since);
    (gathered > 0 && in_store == 0 && !left.is_zero()).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spacing_left_ends_where_results_are_due() {
        for ms in [0, 1, 7, 19] {
            let since = Duration::from_millis(ms);
            let left = spacing_left(3, 0, since).expect("waits on the spacing");
            assert!(!due(3, 0, since));
            assert!(due(3, 0, since + left));
        }
        assert_eq!(spacing_left(3, 0, SPACING), None);
        assert_eq!(spacing_left(0, 0, Duration::ZERO), None);
        assert_eq!(spacing_left(3, 1, Duration::ZERO), None);
    }

    #[test]
    fn results_go_at_once_to_an_idle_storer() {
        assert!(due(1, 0, SPACING));
        assert!(due(3, 0, Duration::from_secs(3)));
        // Not right after the last hand-over, unless there are many.
        assert!(!due(3, 0, SPACING - Duration::from_millis(1)));
        assert!(due(MOST, 0, Duration::ZERO));
        // Nothing gathered: nothing to hand over, however long it was.
        assert!(!due(0, 0, Duration::from_secs(5)));
        assert!(!due(0, 2, Duration::from_secs(5)));
    }

    #[test]
    fn results_gather_while_a_batch_is_stored() {
        assert!(!due(1, 1, Duration::ZERO));
        assert!(!due(1, 1, SPACING));
        assert!(!due(MOST - 1, 1, EVERY - Duration::from_millis(1)));
        assert!(!due(10, 3, Duration::from_millis(50)));
        // The backstops: enough of them, or waited long enough.
        assert!(due(MOST, 1, Duration::ZERO));
        assert!(due(1, 1, EVERY));
        assert!(due(1, 2, Duration::from_secs(1)));
    }
}

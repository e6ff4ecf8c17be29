//! A histogram anyone can observe into without waiting for anyone else:
//! one atomic counter per bucket and an atomic sum, read at scrape time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How many raw units make one unit of the bounds: durations are counted
/// in nanoseconds and exposed in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale(f64);

/// Bounds in seconds, observations as [`Duration`]s.
pub const SECONDS: Scale = Scale(1e9);
/// Bounds and observations in the same unit (tokens, bytes).
pub const UNITS: Scale = Scale(1.0);

/// OpenTelemetry's buckets for an operation's duration in seconds (MCP's
/// `mcp.server.operation.duration`, and the tool calls'): 10 ms to 5 min.
pub const OPERATION_SECONDS: &[f64] = &[
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Buckets for quick store work, in seconds: 100 µs to 10 s.
pub(crate) const STORE_SECONDS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 10.0,
];

#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    /// `bounds` in raw units, for a comparison without floating point.
    raw_bounds: Box<[u64]>,
    /// One counter per bound, then one for what is above every bound.
    counts: Box<[AtomicU64]>,
    raw_sum: AtomicU64,
    scale: Scale,
}

/// A histogram as read at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Per bound, not cumulative.
    pub counts: Vec<u64>,
    /// Every observation, above the last bound included.
    pub count: u64,
    /// In the bounds' unit.
    pub sum: f64,
}

impl Histogram {
    /// A histogram of `bounds` (increasing), observations counted in raw
    /// units of `scale`.
    pub fn new(bounds: &'static [f64], scale: Scale) -> Histogram {
        debug_assert!(bounds.windows(2).all(|pair| pair[0] < pair[1]));
        Histogram {
            bounds,
            // Saturating: a bound beyond u64 nanoseconds is "everything".
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            raw_bounds: bounds
                .iter()
                .map(|bound| (bound * scale.0) as u64)
                .collect(),
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            raw_sum: AtomicU64::new(0),
            scale,
        }
    }

    pub fn bounds(&self) -> &'static [f64] {
        self.bounds
    }

    /// Counts a duration (a histogram in [`SECONDS`]).
    pub fn observe(&self, duration: Duration) {
        self.observe_raw(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Counts a value in raw units (a histogram in [`UNITS`]).
    pub fn observe_raw(&self, raw: u64) {
        // `le` is inclusive: a value equal to a bound is in its bucket.
        let bucket = self.raw_bounds.partition_point(|&bound| bound < raw);
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        self.raw_sum.fetch_add(raw, Ordering::Relaxed);
    }

    /// The counts now. The total is the sum of the buckets read, so the
    /// `+Inf` bucket always equals the count even while others observe.
    pub fn snapshot(&self) -> Snapshot {
        let all: Vec<u64> = self
            .counts
            .iter()
            .map(|count| count.load(Ordering::Relaxed))
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let sum = self.raw_sum.load(Ordering::Relaxed) as f64 / self.scale.0;
        Snapshot {
            count: all.iter().sum(),
            counts: all[..self.bounds.len()].to_vec(),
            sum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_on_a_bound_is_in_that_bound_s_bucket_and_above_all_is_only_in_the_count() {
        let histogram = Histogram::new(&[1.0, 10.0], UNITS);
        for value in [0, 1, 2, 10, 11, 1_000] {
            histogram.observe_raw(value);
        }
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.counts, [2, 2]);
        assert_eq!(snapshot.count, 6);
        assert!((snapshot.sum - 1_024.0).abs() < f64::EPSILON);
    }

    #[test]
    fn durations_are_counted_against_bounds_in_seconds() {
        let histogram = Histogram::new(OPERATION_SECONDS, SECONDS);
        histogram.observe(Duration::from_millis(10));
        histogram.observe(Duration::from_micros(10_001));
        histogram.observe(Duration::from_secs(400));
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.counts[0], 1, "10 ms is within le=0.01");
        assert_eq!(snapshot.counts[1], 1);
        assert_eq!(snapshot.counts.iter().sum::<u64>(), 2);
        assert_eq!(snapshot.count, 3);
    }
}

//! What became of this process's outbound requests, for `/metrics`: sent
//! (any answer), failed (no answer: unreachable, timed out, bad TLS) or
//! refused by the policy before a packet left. Process-wide, as the
//! network is.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::telemetry::Exposition;

static SENT: AtomicU64 = AtomicU64::new(0);
static FAILED: AtomicU64 = AtomicU64::new(0);
static REFUSED: AtomicU64 = AtomicU64::new(0);

/// How an outbound request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Sent,
    Failed,
    Refused,
}

pub(crate) fn count(outcome: Outcome) {
    let counter = match outcome {
        Outcome::Sent => &SENT,
        Outcome::Failed => &FAILED,
        Outcome::Refused => &REFUSED,
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn write(out: &mut Exposition) {
    out.counters(
        "outbound_requests_total",
        "Outbound requests by outcome: sent (answered), failed (no answer) or refused by the outbound policy (nothing sent).",
        "outcome",
        [("sent", &SENT), ("failed", &FAILED), ("refused", &REFUSED)],
    );
}

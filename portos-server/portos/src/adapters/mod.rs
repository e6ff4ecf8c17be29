//! The semantic adapters, one file per tool family. Each is a
//! `#[portos_tool]`; nothing else registers them.

pub mod brain;
pub mod calendar;
pub mod catalog;
pub mod cos;
pub mod eidoverse;
pub mod feeds;
pub mod goals;
pub mod health;
pub mod journal;
pub(crate) mod local_date;
pub mod processes;
pub mod time;
pub mod user_actions;
pub mod weather;

/// The contract's clamping of `limit` arguments: absent or not positive →
/// the default; above the maximum → the maximum.
pub(crate) fn clamp_limit(limit: Option<i64>, default: usize, max: usize) -> usize {
    match limit {
        Some(n) if n > 0 => usize::try_from(n).map_or(max, |n| n.min(max)),
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use super::clamp_limit;

    #[test]
    fn clamps() {
        assert_eq!(clamp_limit(None, 5, 10), 5);
        assert_eq!(clamp_limit(Some(0), 5, 10), 5);
        assert_eq!(clamp_limit(Some(-3), 5, 10), 5);
        assert_eq!(clamp_limit(Some(7), 5, 10), 7);
        assert_eq!(clamp_limit(Some(500), 5, 10), 10);
    }
}

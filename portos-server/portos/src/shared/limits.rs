//! The contract's clamping of `limit` arguments, shared by every domain
//! that lists.

/// The contract's clamping of `limit` arguments: absent or not positive →
/// the default; above the maximum → the maximum.
pub fn clamp_limit(limit: Option<i64>, default: usize, max: usize) -> usize {
    match limit {
        Some(n) if n > 0 => usize::try_from(n).map_or(max, |n| n.min(max)),
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use crate::shared::limits::clamp_limit;

    #[test]
    fn clamps() {
        assert_eq!(clamp_limit(None, 5, 10), 5);
        assert_eq!(clamp_limit(Some(0), 5, 10), 5);
        assert_eq!(clamp_limit(Some(-3), 5, 10), 5);
        assert_eq!(clamp_limit(Some(7), 5, 10), 7);
        assert_eq!(clamp_limit(Some(500), 5, 10), 10);
    }
}

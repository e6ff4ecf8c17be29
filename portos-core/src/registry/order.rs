//! Catalog order: the names an application lists come first, in its order
//! (`RegistryBuilder::order`); every other tool follows by canonical name.
//! Link order is not stable across builds, so it is never used.

/// The sort key of a canonical name under `order`.
pub(super) fn catalog_rank<'a>(order: &[&str], name: &'a str) -> (usize, &'a str) {
    match order.iter().position(|known| *known == name) {
        Some(position) => (position, ""),
        None => (order.len(), name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_names_first_then_by_name() {
        let order = ["time.now", "brain.capture"];
        let mut names = ["b.x", "brain.capture", "a.y", "time.now"];
        names.sort_by_key(|name| catalog_rank(&order, name));
        assert_eq!(names, ["time.now", "brain.capture", "a.y", "b.x"]);
        names.sort_by_key(|name| catalog_rank(&[], name));
        assert_eq!(names, ["a.y", "b.x", "brain.capture", "time.now"]);
    }
}

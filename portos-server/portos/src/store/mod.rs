//! PortOS's store: the runtime's store opened with every linked schema
//! (each domain folder declares its own in its `store.rs`).

use std::path::Path;

pub use portos_server::store::{Store, StoreError};

/// Opens (creating if needed) the store in `data_dir` (`portos.db` there)
/// with every linked schema (PortOS's tables).
pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
    Store::open(
        &crate::config_in(data_dir).database_path(),
        &portos_server::store::linked_schemas(),
    )
}

/// A private in-memory store with every linked schema (tests, benchmarks).
pub fn open_in_memory() -> Result<Store, StoreError> {
    Store::open_in_memory(&portos_server::store::linked_schemas())
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    /// A data directory written by the last build that kept one numbered
    /// migration list (`user_version` 7) opens with its rows intact, and
    /// every component is recorded at its version.
    #[test]
    fn a_store_of_the_single_list_layout_is_adopted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = crate::config_in(dir.path()).database_path();
        let legacy = Connection::open(&path).expect("legacy db");
        legacy
            .execute_batch(include_str!("legacy-store-v7.sql"))
            .expect("legacy schema");
        legacy
            .execute(
                "INSERT INTO brain_captures (id, text, captured_at, local_date, seq)
                 VALUES ('c1', 'kept', '2026-01-01T00:00:00Z', '2026-01-01', 1)",
                [],
            )
            .expect("a legacy row");
        drop(legacy);

        let store = super::open(dir.path()).expect("adopted");
        let (text, components): (String, i64) = store
            .run_blocking(|connection| {
                Ok((
                    connection.query_row(
                        "SELECT text FROM brain_captures WHERE id = 'c1'",
                        [],
                        |row| row.get(0),
                    )?,
                    connection.query_row(
                        "SELECT count(*) FROM store_migrations WHERE version >= 1",
                        [],
                        |row| row.get(0),
                    )?,
                ))
            })
            .expect("read back");
        assert_eq!(text, "kept");
        let linked = portos_server::store::linked_schemas().len() + 1;
        assert_eq!(usize::try_from(components).expect("count"), linked);
    }
}

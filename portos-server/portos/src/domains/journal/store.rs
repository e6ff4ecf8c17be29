//! The daily journal's table and every SQL statement on it.

use portos_server::store::sql::{Connection, params};
use portos_server::store::{Schema, StoreError};

use super::model::Segment;

portos_server::store_schema!(
    /// The daily journal's segments.
    JOURNAL = Schema {
        component: "journal",
        migrations: &[
            // 1 (IF NOT EXISTS: a store written before components has them).
            "CREATE TABLE IF NOT EXISTS journal_segments (
                id         TEXT PRIMARY KEY,
                local_date TEXT NOT NULL,
                text       TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS journal_segments_by_date ON journal_segments (local_date);",
        ],
    }
);

/// Appends `segment`; answers how many segments its day now has.
pub fn append(connection: &Connection, segment: &Segment) -> Result<usize, StoreError> {
    connection.execute(
        "INSERT INTO journal_segments (id, local_date, text, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![segment.id, segment.date, segment.text, segment.created_at],
    )?;
    let count: i64 = connection.query_row(
        "SELECT COUNT(*) FROM journal_segments WHERE local_date = ?1",
        [&segment.date],
        |row| row.get(0),
    )?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The segments of the day `date`, in the order they were appended.
pub fn day(connection: &Connection, date: &str) -> Result<Vec<Segment>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, local_date, text, created_at FROM journal_segments
         WHERE local_date = ?1 ORDER BY rowid",
    )?;
    let rows = statement.query_map([date], |row| {
        Ok(Segment {
            id: row.get(0)?,
            date: row.get(1)?,
            text: row.get(2)?,
            created_at: row.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Deletes one segment; `false` when there was none.
pub fn delete(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM journal_segments WHERE id = ?1", [id])? > 0)
}

//! The brain inbox's table and every SQL statement on it. `seq` orders the
//! captures (newest is highest) independently of clock changes. On a
//! shared PostgreSQL store two captures committed at once can take the same
//! `seq`, so listings break ties by `id`: a page boundary never skips or
//! repeats one.

use portos_server::store::sql::{Connection, Row, params};
use portos_server::store::{Schema, StoreError};

use super::model::Capture;

portos_server::store_schema!(
    /// The brain inbox.
    BRAIN = Schema {
        component: "brain",
        migrations: &[
            // 1 (IF NOT EXISTS: a store written before components has them).
            "CREATE TABLE IF NOT EXISTS brain_captures (
                id          TEXT PRIMARY KEY,
                text        TEXT NOT NULL,
                captured_at TEXT NOT NULL,
                local_date  TEXT NOT NULL,
                seq         INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS brain_captures_recent ON brain_captures (seq DESC);",
        ],
    }
);

const CAPTURE_COLUMNS: &str = "id, text, local_date, captured_at";

fn capture_from(row: &Row<'_>) -> portos_server::store::sql::Result<Capture> {
    Ok(Capture {
        id: row.get(0)?,
        text: row.get(1)?,
        date: row.get(2)?,
        captured_at: row.get(3)?,
    })
}

/// Adds `capture` after every other one.
pub fn insert(connection: &Connection, capture: &Capture) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO brain_captures (id, text, captured_at, local_date, seq)
         VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM brain_captures))",
        params![capture.id, capture.text, capture.captured_at, capture.date],
    )?;
    Ok(())
}

/// At most `limit` captures whose folded text contains the lowercase
/// `needle`, newest first.
pub fn search(
    connection: &Connection,
    needle: &str,
    limit: i64,
) -> Result<Vec<Capture>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {CAPTURE_COLUMNS} FROM brain_captures
         WHERE instr(portos_fold(text), ?1) > 0
         ORDER BY seq DESC, id DESC LIMIT ?2"
    ))?;
    let rows = statement.query_map(params![needle, limit], capture_from)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// At most `limit` captures after skipping the `offset` newest, newest first.
pub fn latest(
    connection: &Connection,
    limit: i64,
    offset: i64,
) -> Result<Vec<Capture>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {CAPTURE_COLUMNS} FROM brain_captures
         ORDER BY seq DESC, id DESC LIMIT ?1 OFFSET ?2"
    ))?;
    let rows = statement.query_map(params![limit, offset], capture_from)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// How many captures there are.
pub fn count(connection: &Connection) -> Result<i64, StoreError> {
    Ok(connection.query_row("SELECT COUNT(*) FROM brain_captures", [], |row| row.get(0))?)
}

/// Whether there is any capture (without counting them all).
pub fn any(connection: &Connection) -> Result<bool, StoreError> {
    let mut statement = connection.prepare_cached("SELECT 1 FROM brain_captures LIMIT 1")?;
    Ok(statement.exists([])?)
}

//! The brain captures `eidoverse.project` mirrors (read-only: the table is
//! the brain domain's).

use portos_server::store::sql::Connection;

use crate::store::StoreError;

/// A brain capture as the world mirrors it.
#[derive(Clone, Debug)]
pub struct Capture {
    pub id: String,
    pub text: String,
    pub captured_at: String,
    pub local_date: String,
    pub seq: i64,
}

pub fn captures(connection: &Connection) -> Result<Vec<Capture>, StoreError> {
    let mut statement = connection
        .prepare_cached("SELECT id, text, captured_at, local_date, seq FROM brain_captures")?;
    let rows = statement.query_map([], |row| {
        Ok(Capture {
            id: row.get(0)?,
            text: row.get(1)?,
            captured_at: row.get(2)?,
            local_date: row.get(3)?,
            seq: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

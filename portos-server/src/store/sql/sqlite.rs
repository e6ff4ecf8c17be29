//! The SQLite side of [`Connection`](super::Connection): binding values and
//! walking rows on rusqlite's statements.

use rusqlite::types::{ToSqlOutput, ValueRef as SqliteValue};

use super::{Result, ValueRef};

struct Bound<'a>(ValueRef<'a>);

impl rusqlite::ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            ValueRef::Null => SqliteValue::Null,
            ValueRef::Integer(integer) => SqliteValue::Integer(integer),
            ValueRef::Real(real) => SqliteValue::Real(real),
            ValueRef::Text(text) => SqliteValue::Text(text.as_bytes()),
            ValueRef::Blob(blob) => SqliteValue::Blob(blob),
        }))
    }
}

fn bound<'a>(values: &'a [ValueRef<'a>]) -> impl rusqlite::Params + 'a {
    rusqlite::params_from_iter(values.iter().copied().map(Bound))
}

pub(super) fn execute(
    statement: &mut rusqlite::Statement<'_>,
    values: &[ValueRef<'_>],
) -> Result<usize> {
    Ok(statement.execute(bound(values))?)
}

/// Calls `visit` with each row until it answers `false`.
pub(super) fn each_row(
    statement: &mut rusqlite::Statement<'_>,
    values: &[ValueRef<'_>],
    mut visit: impl FnMut(&rusqlite::Row<'_>) -> bool,
) -> Result<()> {
    let mut rows = statement.query(bound(values))?;
    while let Some(row) = rows.next()? {
        if !visit(row) {
            break;
        }
    }
    Ok(())
}

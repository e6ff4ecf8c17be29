//! Moving from one server to several: the SQLite store of a data directory
//! copied into a PostgreSQL database that holds no store yet (the CLI's
//! `--copy-to-database`). Both are first migrated to this build's
//! versions, so every table has the same columns on both sides; the rows
//! are copied in one transaction (all or nothing), parents before the
//! tables whose foreign keys name them, each table in its insertion order,
//! and every counter (`AUTOINCREMENT`, the insertion order `rowid`) goes on
//! from where the SQLite store left it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::sql::{Connection, Value, params_from_iter};
use super::{Schema, Store, StoreError};

/// What was copied: each table with its row count, in copy order.
pub(super) type Copied = Vec<(String, usize)>;

/// Why a copy did not happen (nothing was written to the database).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CopyError {
    /// The data directory, the product, the file that is missing.
    #[error("{0} holds no {1} store ({2} is missing)")]
    NoSource(String, String, String),
    /// The product.
    #[error(
        "the database already holds a {0} store; copy into an empty database (nothing was written)"
    )]
    TargetNotEmpty(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One table's rows as SQLite keeps them.
struct Table {
    name: String,
    columns: Vec<String>,
    /// SQLite's `rowid` first, then `columns`.
    rows: Vec<Vec<Value>>,
    /// Tables this one's foreign keys name.
    parents: BTreeSet<String>,
}

/// Copies the SQLite store in the file `database` into the PostgreSQL
/// database at `url`; `product` names the application in messages.
pub(crate) fn copy_into_postgres(
    database: &Path,
    url: &str,
    schemas: &[Schema],
    product: &str,
) -> Result<Copied, CopyError> {
    if !database.is_file() {
        let name = |path: Option<&std::ffi::OsStr>| {
            path.map(|part| part.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        return Err(CopyError::NoSource(
            database
                .parent()
                .map(|dir| dir.display().to_string())
                .unwrap_or_default(),
            product.to_owned(),
            name(database.file_name()),
        ));
    }
    if Store::connect_existing(url, schemas)?.is_some() {
        return Err(CopyError::TargetNotEmpty(product.to_owned()));
    }
    let source = Store::open(database, schemas)?;
    let tables = source.run_blocking(read_tables)?;
    let target = Store::connect(url, schemas)?;
    Ok(target.run_blocking(move |connection| write_tables(connection, &tables))?)
}

fn read_tables(connection: &mut Connection) -> Result<Vec<Table>, StoreError> {
    let names: Vec<String> = strings(
        connection,
        "SELECT name FROM sqlite_master
         WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'store_migrations'
         ORDER BY name",
        None,
    )?;
    let mut tables = Vec::with_capacity(names.len());
    for name in names {
        let quoted = quote(&name);
        let columns = strings(
            connection,
            "SELECT name FROM pragma_table_info(?1) ORDER BY cid",
            Some(&name),
        )?;
        let parents: BTreeSet<String> = strings(
            connection,
            "SELECT \"table\" FROM pragma_foreign_key_list(?1)",
            Some(&name),
        )?
        .into_iter()
        .filter(|parent| *parent != name)
        .collect();
        let selected = std::iter::once("rowid".to_owned())
            .chain(columns.iter().map(|column| quote(column)))
            .collect::<Vec<_>>()
            .join(", ");
        let width = columns.len() + 1;
        let rows = connection
            .prepare(&format!("SELECT {selected} FROM {quoted} ORDER BY rowid"))?
            .query_map([], |row| {
                (0..width).map(|index| row.get::<_, Value>(index)).collect()
            })?
            .collect::<Result<Vec<Vec<Value>>, _>>()?;
        tables.push(Table {
            name,
            columns,
            rows,
            parents,
        });
    }
    Ok(parents_first(tables))
}

/// Orders tables so each comes after the tables it references.
fn parents_first(tables: Vec<Table>) -> Vec<Table> {
    let mut pending: BTreeMap<String, Table> =
        tables.into_iter().map(|t| (t.name.clone(), t)).collect();
    let mut ordered = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready: Vec<String> = pending
            .values()
            .filter(|table| table.parents.iter().all(|p| !pending.contains_key(p)))
            .map(|table| table.name.clone())
            .collect();
        // A cycle (none in PortOS's schemas) is copied in name order; the
        // database then says which key it breaks, and nothing is written.
        let next = if ready.is_empty() {
            pending.keys().take(1).cloned().collect()
        } else {
            ready
        };
        for name in next {
            if let Some(table) = pending.remove(&name) {
                ordered.push(table);
            }
        }
    }
    ordered
}

fn write_tables(connection: &mut Connection, tables: &[Table]) -> Result<Copied, StoreError> {
    let transaction = connection.transaction()?;
    // Rows the migrations seeded give way to the copied ones: children first.
    for table in tables.iter().rev() {
        transaction.execute(&format!("DELETE FROM {}", quote(&table.name)), [])?;
    }
    let mut copied = Vec::with_capacity(tables.len());
    for table in tables {
        let target_columns: BTreeSet<String> = strings(
            &transaction,
            "SELECT column_name FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = ?1",
            Some(&table.name),
        )?
        .into_iter()
        .collect();
        // The insertion order SQLite kept goes to the `rowid` column the
        // PostgreSQL tables without an integer key have.
        let keep_rowid =
            target_columns.contains("rowid") && !table.columns.iter().any(|c| c == "rowid");
        let skip = usize::from(!keep_rowid);
        let names: Vec<String> = keep_rowid
            .then(|| "rowid".to_owned())
            .into_iter()
            .chain(table.columns.iter().map(|column| quote(column)))
            .collect();
        let placeholders: Vec<String> = (1..=names.len()).map(|n| format!("?{n}")).collect();
        let insert = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            quote(&table.name),
            names.join(", "),
            placeholders.join(", ")
        );
        let mut statement = transaction.prepare(&insert)?;
        for row in &table.rows {
            statement.execute(params_from_iter(row[skip..].iter()))?;
        }
        drop(statement);
        restart_identities(&transaction, &table.name)?;
        copied.push((table.name.clone(), table.rows.len()));
    }
    transaction.commit()?;
    Ok(copied)
}

/// Makes each identity column of `table` go on after the largest value
/// copied into it.
fn restart_identities(connection: &Connection, table: &str) -> Result<(), StoreError> {
    let identities = strings(
        connection,
        "SELECT column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = ?1 AND is_identity = 'YES'",
        Some(table),
    )?;
    for column in identities {
        connection.execute(
            &format!(
                "SELECT setval(pg_get_serial_sequence(?1, ?2), (SELECT COALESCE(MAX({}), 0) + 1 FROM {}), false)",
                quote(&column),
                quote(table)
            ),
            [table, column.as_str()],
        )?;
    }
    Ok(())
}

/// The first column of what `sql` reads, with `?1` bound to `name` if given.
fn strings(
    connection: &Connection,
    sql: &str,
    name: Option<&str>,
) -> Result<Vec<String>, StoreError> {
    let mut statement = connection.prepare(sql)?;
    let rows = match name {
        Some(name) => statement.query_map([name], |row| row.get(0))?,
        None => statement.query_map([], |row| row.get(0))?,
    };
    Ok(rows.collect::<Result<Vec<String>, _>>()?)
}

/// An SQL identifier, quoted.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

//! One SQL interface over both engines. The project's statements are
//! written once, in the subset of SQL that SQLite and PostgreSQL share, and
//! run through this [`Connection`], whose calls read like rusqlite's
//! (`execute`, `query_row`, `prepare_cached(..)?.query_map`, `transaction`,
//! `.optional()`), so a domain's store module does not know which engine
//! it is on. Parameters are written `?1`, `?2` (PostgreSQL gets `$1`, `$2`),
//! and values cross as SQLite's five kinds ([`ValueRef`]). PostgreSQL is
//! there with the `postgres` feature only; without it every connection is
//! SQLite's.

mod dialect;
#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;
#[cfg(feature = "postgres")]
mod tls;
mod value;

use std::ops::Deref;

#[cfg(feature = "postgres")]
pub(crate) use dialect::numbered_parameters;
pub(crate) use dialect::{PRELUDE as POSTGRES_PRELUDE, postgres_migration};
#[cfg(feature = "postgres")]
pub(crate) use postgres::listen as postgres_listen;
#[cfg(feature = "postgres")]
pub(crate) use tls::connect_async as postgres_connect_async;
pub use value::{ConversionError, FromSql, ToSql, Value, ValueRef};

/// Which engine a connection (and so a store) runs on. `Postgres` is
/// named in every build, so that code matching on the engine compiles the
/// same with or without the `postgres` feature (without it, no connection
/// is on PostgreSQL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Non-exhaustive: the `postgres` feature adds a variant, and features
/// add up across a build's crates.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[cfg(feature = "postgres")]
    #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
    #[error("{}", postgres::describe(.0))]
    Postgres(#[from] ::postgres::Error),
    #[error("the query returned no rows")]
    QueryReturnedNoRows,
    #[error("column {column}: {source}")]
    Column {
        column: usize,
        source: ConversionError,
    },
    #[error("parameter {index}: {source}")]
    Parameter {
        index: usize,
        source: ConversionError,
    },
    /// Text holding U+0000, which PostgreSQL cannot store in a text column
    /// (nor take as a text parameter): refused before the statement is
    /// sent. SQLite stores such text as it is.
    #[error("text may not contain the NUL character (U+0000)")]
    NulInText,
    /// Encryption to the database could not be set up as its URL asks.
    #[error("{0}")]
    Tls(String),
}

impl Error {
    /// Whether the database could not be reached (the connection is gone),
    /// as opposed to a statement it refused: the caller may try again once
    /// it is back.
    pub fn is_unavailable(&self) -> bool {
        match self {
            #[cfg(feature = "postgres")]
            Error::Postgres(error) => postgres::is_unavailable(error),
            _ => false,
        }
    }

    /// Whether a lock wait ran past the transaction's `lock_timeout`
    /// (another transaction holds what this one needs).
    #[cfg(feature = "postgres")]
    pub(crate) fn is_lock_timeout(&self) -> bool {
        match self {
            Error::Postgres(error) => error
                .code()
                .is_some_and(|code| *code == ::postgres::error::SqlState::LOCK_NOT_AVAILABLE),
            _ => false,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `.optional()` on a single-row query: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::QueryReturnedNoRows) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A statement's parameters: `params![a, b]`, an array `[a]`, `[]`, or
/// [`params_from_iter`].
pub trait Params {
    fn values(&self) -> Result<Vec<ValueRef<'_>>>;
}

fn bind<'a>(
    values: impl IntoIterator<Item = &'a (impl ToSql + ?Sized + 'a)>,
) -> Result<Vec<ValueRef<'a>>> {
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            value.to_sql().map_err(|source| Error::Parameter {
                index: index + 1,
                source,
            })
        })
        .collect()
}

impl Params for &[&dyn ToSql] {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        bind(self.iter().copied())
    }
}

impl Params for [&dyn ToSql; 0] {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        Ok(Vec::new())
    }
}

macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn values(&self) -> Result<Vec<ValueRef<'_>>> {
                bind(self.iter())
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);

macro_rules! tuple_params {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<$($name: ToSql),+> Params for ($($name,)+) {
            fn values(&self) -> Result<Vec<ValueRef<'_>>> {
                bind([$(&self.$index as &dyn ToSql),+])
            }
        }
    )*};
}
tuple_params! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

/// Parameters from an iterator of values (a query built from filters).
#[derive(Debug)]
pub struct ParamsFromIter<T>(Vec<T>);

pub fn params_from_iter<T: ToSql>(values: impl IntoIterator<Item = T>) -> ParamsFromIter<T> {
    ParamsFromIter(values.into_iter().collect())
}

impl<T: ToSql> Params for ParamsFromIter<T> {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        bind(self.0.iter())
    }
}

/// `params![a, b, c]`: a statement's parameters of mixed types.
#[macro_export]
macro_rules! sql_params {
    () => {
        &[] as &[&dyn $crate::store::sql::ToSql]
    };
    ($($value:expr),+ $(,)?) => {
        &[$(&$value as &dyn $crate::store::sql::ToSql),+] as &[&dyn $crate::store::sql::ToSql]
    };
}
pub use crate::sql_params as params;

/// A connection to either engine. Its methods take `&self`, as rusqlite's
/// do, so helpers can share it; a [`Transaction`] derefs to it.
pub struct Connection {
    inner: Inner,
    /// Transactions open on this connection: one begun inside another is a
    /// savepoint, so work that opens its own transaction can run inside a
    /// call's (see `store::held`).
    depth: u32,
}

enum Inner {
    Sqlite(rusqlite::Connection),
    #[cfg(feature = "postgres")]
    Postgres(Box<postgres::PgConnection>),
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Connection")
            .field("engine", &self.engine())
            .finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn sqlite(connection: rusqlite::Connection) -> Connection {
        Connection {
            inner: Inner::Sqlite(connection),
            depth: 0,
        }
    }

    /// A private SQLite database in memory (unit tests of SQL).
    pub fn open_in_memory() -> Result<Connection> {
        Ok(Connection::sqlite(rusqlite::Connection::open_in_memory()?))
    }

    /// Connects to the PostgreSQL server at `url` (`postgres://…`).
    #[cfg(feature = "postgres")]
    pub(crate) fn postgres(url: &str) -> Result<Connection> {
        Ok(Connection {
            inner: Inner::Postgres(Box::new(postgres::PgConnection::connect(url)?)),
            depth: 0,
        })
    }

    pub fn engine(&self) -> Engine {
        match self.inner {
            Inner::Sqlite(_) => Engine::Sqlite,
            #[cfg(feature = "postgres")]
            Inner::Postgres(_) => Engine::Postgres,
        }
    }

    /// The SQLite connection underneath (the store's durability hooks and
    /// pragmas), `None` on PostgreSQL.
    pub(crate) fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            Inner::Sqlite(connection) => Some(connection),
            #[cfg(feature = "postgres")]
            Inner::Postgres(_) => None,
        }
    }

    pub(crate) fn as_sqlite_mut(&mut self) -> Option<&mut rusqlite::Connection> {
        match &mut self.inner {
            Inner::Sqlite(connection) => Some(connection),
            #[cfg(feature = "postgres")]
            Inner::Postgres(_) => None,
        }
    }

    /// Whether the connection is known to be gone (PostgreSQL's socket
    /// closed); a pool replaces such a connection.
    #[cfg(feature = "postgres")]
    pub(crate) fn is_closed(&self) -> bool {
        match &self.inner {
            Inner::Sqlite(_) => false,
            #[cfg(feature = "postgres")]
            Inner::Postgres(connection) => connection.is_closed(),
        }
    }

    /// Locks the rows of `table` whose `column` is `value` until the open
    /// transaction ends, so that a read-modify-write of them on another
    /// server waits for this one to commit and then reads what it wrote
    /// (take the lock before reading). SQLite has a single writer, the
    /// store's own connection: nothing to do. `table` and `column` are the
    /// caller's names, never input.
    pub fn lock_rows(&self, table: &str, column: &str, value: &str) -> Result<()> {
        if self.engine() == Engine::Postgres {
            self.execute(
                &format!("SELECT 1 FROM {table} WHERE {column} = ?1 FOR UPDATE"),
                [value],
            )?;
        }
        Ok(())
    }

    /// Takes the lock called `name` until the open transaction ends, so
    /// that transactions taking the same name run one after the other on
    /// every server (a check of a collection's size, then an insert into it).
    /// SQLite has a single writer: nothing to do.
    pub fn lock_name(&self, name: &str) -> Result<()> {
        if self.engine() == Engine::Postgres {
            self.execute("SELECT pg_advisory_xact_lock(hashtext(?1))", [name])?;
        }
        Ok(())
    }

    /// Runs one statement; the number of rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// Runs statements separated by `;`, without parameters.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.inner {
            Inner::Sqlite(connection) => Ok(connection.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Inner::Postgres(connection) => connection.batch(sql),
        }
    }

    /// The first row of a query, mapped by `map`; no row is
    /// [`Error::QueryReturnedNoRows`] (see [`OptionalExtension`]).
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, map)
    }

    /// A statement, compiled once per connection and kept for the next use.
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement {
            inner: match &self.inner {
                Inner::Sqlite(connection) => {
                    StatementInner::Sqlite(connection.prepare_cached(sql)?)
                }
                // Compiled on first use, when the values are known.
                #[cfg(feature = "postgres")]
                Inner::Postgres(connection) => StatementInner::Postgres(connection, sql.to_owned()),
            },
        })
    }

    /// As [`Connection::prepare_cached`] (every statement is kept).
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        self.prepare_cached(sql)
    }

    /// Begins a transaction (a savepoint inside one already open); it
    /// rolls back when dropped uncommitted.
    pub fn transaction(&mut self) -> Result<Transaction<'_>> {
        self.begin()?;
        Ok(Transaction {
            connection: self,
            open: true,
        })
    }

    /// Begins a transaction, or a savepoint inside the one open. On
    /// PostgreSQL it goes out with the next statement (and not at all if
    /// none comes before it ends).
    pub(crate) fn begin(&mut self) -> Result<()> {
        let begin = match self.depth {
            0 => "BEGIN".to_owned(),
            depth => format!("SAVEPOINT portos_{depth}"),
        };
        match &self.inner {
            Inner::Sqlite(connection) => connection.execute_batch(&begin)?,
            #[cfg(feature = "postgres")]
            Inner::Postgres(connection) => connection.defer(&begin),
        }
        self.depth += 1;
        Ok(())
    }

    /// Begins a transaction whose first statements are `setup` (e.g. `SET
    /// LOCAL …`), in one round trip; a savepoint and then `setup` inside
    /// one already open.
    #[cfg(feature = "postgres")]
    pub(crate) fn begin_with(&mut self, setup: &str) -> Result<()> {
        let begin = match self.depth {
            0 => "BEGIN".to_owned(),
            depth => format!("SAVEPOINT portos_{depth}"),
        };
        self.depth += 1;
        let begun = self.execute_batch(&format!("{begin}; {setup}"));
        if begun.is_err() {
            // Whatever of the batch ran is undone with what it began.
            let _ = self.end(false);
        }
        begun
    }

    /// Runs `sql` (statements without parameters, such as `SET LOCAL …`)
    /// before the next statement; on PostgreSQL it goes out with it, in
    /// the same round trip.
    #[cfg(feature = "postgres")]
    pub(crate) fn execute_before_next(&self, sql: &str) -> Result<()> {
        match &self.inner {
            Inner::Sqlite(connection) => Ok(connection.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Inner::Postgres(connection) => {
                connection.defer(sql);
                Ok(())
            }
        }
    }

    /// Ends what [`Connection::begin`] began last: commits it (releases the
    /// savepoint) or rolls it back. On PostgreSQL a release goes out with
    /// the next statement, and a transaction or savepoint that never went
    /// out is simply dropped.
    pub(crate) fn end(&mut self, commit: bool) -> Result<()> {
        let Some(depth) = self.depth.checked_sub(1) else {
            return Ok(());
        };
        self.depth = depth;
        #[cfg(feature = "postgres")]
        if let Inner::Postgres(connection) = &self.inner {
            return match (depth, commit) {
                (0, true) if connection.take_back("BEGIN") => Ok(()),
                (0, true) => connection.batch("COMMIT"),
                // Everything held back is undone by the rollback anyway.
                (0, false) if connection.discard() => Ok(()),
                (0, false) => connection.batch("ROLLBACK"),
                (depth, commit) => {
                    let savepoint = format!("SAVEPOINT portos_{depth}");
                    if connection.take_back(&savepoint) {
                        Ok(())
                    } else if commit {
                        connection.defer(&format!("RELEASE {savepoint}"));
                        Ok(())
                    } else {
                        connection.batch(&format!("ROLLBACK TO {savepoint}; RELEASE {savepoint}"))
                    }
                }
            };
        }
        match (depth, commit) {
            (0, true) => self.execute_batch("COMMIT"),
            (0, false) => self.execute_batch("ROLLBACK"),
            (depth, true) => self.execute_batch(&format!("RELEASE SAVEPOINT portos_{depth}")),
            (depth, false) => self.execute_batch(&format!(
                "ROLLBACK TO SAVEPOINT portos_{depth}; RELEASE SAVEPOINT portos_{depth}"
            )),
        }
    }

    /// Whether a transaction is open.
    #[cfg(feature = "postgres")]
    pub(crate) fn in_transaction(&self) -> bool {
        self.depth > 0
    }

    /// How many transactions and savepoints are open.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }
}

/// A transaction: statements run on it (it derefs to the connection) and
/// [`Transaction::commit`] ends it; dropping it rolls back.
pub struct Transaction<'c> {
    connection: &'c mut Connection,
    open: bool,
}

impl Transaction<'_> {
    pub fn commit(mut self) -> Result<()> {
        self.open = false;
        self.connection.end(true)
    }

    /// A savepoint inside this transaction, itself a [`Transaction`]:
    /// committed, its work joins this one; dropped, only its work is
    /// undone (a statement of it that failed included), and this one goes
    /// on.
    pub fn savepoint(&mut self) -> Result<Transaction<'_>> {
        self.connection.transaction()
    }
}

impl Deref for Transaction<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.connection
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to report to: the error that dropped the transaction
            // is on its way to the caller already, and a connection that
            // cannot roll back is gone (the server rolls it back itself).
            let _ = self.connection.end(false);
        }
    }
}

/// A compiled statement.
pub struct Statement<'c> {
    inner: StatementInner<'c>,
}

impl std::fmt::Debug for Statement<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Statement").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Transaction<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Transaction")
            .field("open", &self.open)
            .finish_non_exhaustive()
    }
}

enum StatementInner<'c> {
    Sqlite(rusqlite::CachedStatement<'c>),
    #[cfg(feature = "postgres")]
    Postgres(&'c postgres::PgConnection, String),
}

impl Statement<'_> {
    #[expect(
        clippy::needless_pass_by_value,
        reason = "by value, as rusqlite takes them: `[id]`, `params![..]`"
    )]
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        let values = params.values()?;
        match &mut self.inner {
            StatementInner::Sqlite(statement) => sqlite::execute(statement, &values),
            #[cfg(feature = "postgres")]
            StatementInner::Postgres(connection, statement) => {
                connection.execute(statement, &values)
            }
        }
    }

    /// Every row, each mapped by `map` (read to the end before returning).
    #[expect(
        clippy::needless_pass_by_value,
        reason = "by value, as rusqlite takes them: `[id]`, `params![..]`"
    )]
    pub fn query_map<T>(
        &mut self,
        params: impl Params,
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>> {
        let values = params.values()?;
        let mut mapped = Vec::new();
        match &mut self.inner {
            StatementInner::Sqlite(statement) => {
                sqlite::each_row(statement, &values, |row| {
                    mapped.push(map(&Row::Sqlite(row)));
                    true
                })?;
            }
            #[cfg(feature = "postgres")]
            StatementInner::Postgres(connection, statement) => {
                for row in connection.query(statement, &values)? {
                    mapped.push(map(&Row::Postgres(&row)));
                }
            }
        }
        Ok(mapped.into_iter())
    }

    /// The first row, mapped by `map`.
    #[expect(
        clippy::needless_pass_by_value,
        reason = "by value, as rusqlite takes them: `[id]`, `params![..]`"
    )]
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let values = params.values()?;
        let mut map = Some(map);
        let mut first = None;
        match &mut self.inner {
            StatementInner::Sqlite(statement) => {
                sqlite::each_row(statement, &values, |row| {
                    first = map.take().map(|map| map(&Row::Sqlite(row)));
                    false
                })?;
            }
            #[cfg(feature = "postgres")]
            StatementInner::Postgres(connection, statement) => {
                if let Some(row) = connection.query(statement, &values)?.first() {
                    first = map.take().map(|map| map(&Row::Postgres(row)));
                }
            }
        }
        first.unwrap_or(Err(Error::QueryReturnedNoRows))
    }

    /// Whether the query returns any row.
    pub fn exists(&mut self, params: impl Params) -> Result<bool> {
        self.query_row(params, |_| Ok(()))
            .optional()
            .map(|found| found.is_some())
    }
}

/// One row of a result. Non-exhaustive: the `postgres` feature adds a
/// variant, and features add up across a build's crates.
#[derive(Debug)]
#[non_exhaustive]
pub enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    #[cfg(feature = "postgres")]
    #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
    Postgres(&'r ::postgres::Row),
}

/// What names a column of a [`Row`]: its 0-based position.
pub trait RowIndex {
    fn position(self) -> usize;
}

impl RowIndex for usize {
    fn position(self) -> usize {
        self
    }
}

impl Row<'_> {
    /// Column `index` (0-based) as `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, index: I) -> Result<T> {
        let index = index.position();
        let value = match self {
            Row::Sqlite(row) => row.get_ref(index)?.into(),
            #[cfg(feature = "postgres")]
            Row::Postgres(row) => postgres::column(row, index)?,
        };
        T::from_sql(value).map_err(|source| Error::Column {
            column: index,
            source,
        })
    }
}

impl<'a> From<rusqlite::types::ValueRef<'a>> for ValueRef<'a> {
    fn from(value: rusqlite::types::ValueRef<'a>) -> ValueRef<'a> {
        use rusqlite::types::ValueRef as Sqlite;
        match value {
            Sqlite::Null => ValueRef::Null,
            Sqlite::Integer(integer) => ValueRef::Integer(integer),
            Sqlite::Real(real) => ValueRef::Real(real),
            // SQLite hands back what was stored; the project stores UTF-8.
            Sqlite::Text(text) => {
                std::str::from_utf8(text).map_or(ValueRef::Blob(text), ValueRef::Text)
            }
            Sqlite::Blob(blob) => ValueRef::Blob(blob),
        }
    }
}

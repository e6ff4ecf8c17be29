//! The store, on one of two engines behind one SQL interface ([`sql`]):
//!
//! - embedded (the default): one SQLite database in the data directory, in
//!   WAL mode, whose every commit is fsynced before anyone is told it is
//!   done, so a write that was answered as done survives a crash (and a
//!   power cut): migrations commit with `synchronous=FULL`, served work in
//!   groups that share one fsync (see `worker`);
//! - shared: a PostgreSQL database that several servers use at once
//!   (`--database-url`), reached from a few threads of the store's own
//!   (see `pool`); PostgreSQL makes each commit durable itself. Built with
//!   the `postgres` feature only: without it [`Store::connect`] refuses,
//!   naming the feature.
//!
//! Each component (the runtime, then each of the application's domains)
//! brings its own versioned migrations ([`Schema`]).

mod announcements;
mod batch;
pub mod changes;
#[cfg(feature = "postgres")]
mod copy;
mod durable;
#[cfg(feature = "postgres")]
mod held;
mod ledger;
mod migrations;
#[cfg(feature = "postgres")]
mod pool;
mod runtime_schema;
mod session;
#[cfg(test)]
mod session_tests;
pub mod sql;
mod stats;
mod work;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::OpenFlags;
use tokio::sync::oneshot;

#[cfg(feature = "postgres")]
pub(crate) use copy::copy_into_postgres;
use durable::Durable;
use futures::future::BoxFuture;
#[cfg(feature = "postgres")]
use held::Holdings;
pub(crate) use ledger::LocalCalls;
pub use ledger::SharedCalls;
pub use migrations::Schema;
#[cfg(feature = "postgres")]
use pool::Pool;
pub(crate) use runtime_schema::RUNTIME_SCHEMA;
use session::Session;
pub use sql::{Connection, Engine};
use work::{Deliver, End, Message, SessionWork, Undone};
use worker::Worker;

/// Every schema linked into the binary ([`store_schema!`](crate::store_schema)):
/// a crate that keeps tables declares them where its SQL lives, and every
/// server that links it migrates them.
#[linkme::distributed_slice]
pub static SCHEMAS: [Schema];

/// The linked schemas, by component name (a stable migration order).
pub fn linked_schemas() -> Vec<Schema> {
    let mut schemas: Vec<Schema> = SCHEMAS.iter().copied().collect();
    schemas.sort_by_key(|schema| schema.component);
    schemas
}

/// Declares a component's tables where its SQL lives; every server that
/// links the crate migrates them when its store opens.
///
/// ```ignore
/// portos_server::store_schema!(
///     /// The notes.
///     NOTES = Schema {
///     component: "notes",
///     migrations: &["CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, text TEXT NOT NULL)"],
/// });
/// ```
#[macro_export]
macro_rules! store_schema {
    ($(#[$attr:meta])* $name:ident = $schema:expr) => {
        $(#[$attr])*
        #[$crate::__private::v1::linkme::distributed_slice($crate::store::SCHEMAS)]
        #[linkme(crate = $crate::__private::v1::linkme)]
        pub static $name: $crate::store::Schema = $schema;
    };
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("database error: {0}")]
    Sql(sql::Error),
    /// Text to store or look up holds U+0000 (the request's fault: 400).
    #[error("Text may not contain the NUL character (U+0000).")]
    NulInText,
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// A PostgreSQL URL given to a build without the `postgres` feature.
    #[error(
        "a PostgreSQL store (--database-url) needs portos-server's `postgres` cargo feature, which this build was compiled without; leave the URL out to use the embedded SQLite store, or build with the feature"
    )]
    PostgresNotBuilt,
    #[error(
        "the database's `{component}` tables are at schema version {found}, newer than this build knows ({known}); use a newer build"
    )]
    TooNew {
        component: &'static str,
        found: u32,
        known: u32,
    },
    #[error("migration {version} of the `{component}` tables failed: {source}")]
    Migration {
        component: &'static str,
        version: usize,
        source: sql::Error,
    },
    #[error("the store worker stopped: {0}")]
    Worker(String),
    #[error(
        "two table declarations (`store_schema!`) name the component `{0}`: each component's migrations are one list, so give one of them another name"
    )]
    DuplicateComponent(&'static str),
    #[error("the catalog-change reason {0:?} is not a name: 1 to 64 of a-z, 0-9, -, _, .")]
    CatalogReason(String),
    #[error(
        "the updated resource's URI {0:?} cannot be announced: 1 to 2048 bytes, no spaces or control characters"
    )]
    ResourceUri(String),
}

impl From<sql::Error> for StoreError {
    fn from(error: sql::Error) -> StoreError {
        match error {
            sql::Error::NulInText => StoreError::NulInText,
            error => StoreError::Sql(error),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError::from(sql::Error::from(error))
    }
}

impl StoreError {
    /// What a caller is told when the database could not be reached (503).
    pub const UNAVAILABLE_MESSAGE: &str = "The database is unavailable. Try again shortly.";

    /// Whether the database could not be reached (not a refusal of the
    /// work itself): callers answer 503 and may try again.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Unavailable(_) => true,
            StoreError::Sql(error) => error.is_unavailable(),
            _ => false,
        }
    }
}

/// A handle to the store; clones share it.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    /// What `/metrics` says of it.
    stats: Arc<stats::StoreStats>,
    /// The SQLite file, shared so a clone (one per request in places)
    /// allocates nothing; `None` in memory and on PostgreSQL.
    path: Option<Arc<Path>>,
}

#[derive(Clone, Debug)]
enum Backend {
    /// One connection, on the store's own thread, in the order work comes,
    /// so SQLite never blocks the async workers.
    Sqlite {
        durable: Arc<Durable>,
        worker: Worker,
    },
    /// A few connections, each on a thread of its own; and those tool
    /// calls hold for their whole run (`held`).
    #[cfg(feature = "postgres")]
    Postgres { pool: Pool, holdings: Arc<Holdings> },
}

impl Store {
    /// Opens (creating it and its directory if needed) the SQLite store in
    /// the file `path` (`Config::database_path`: `{app}.db` in the data
    /// directory) and migrates the runtime's tables and each of `schemas`.
    pub fn open(path: &Path, schemas: &[Schema]) -> Result<Store, StoreError> {
        if let Some(data_dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(data_dir).map_err(|source| StoreError::CreateDir {
                path: data_dir.to_owned(),
                source,
            })?;
        }
        let mut connection = Connection::sqlite(rusqlite::Connection::open(path)?);
        configure(&connection)?;
        migrations::apply(&mut connection, &with_runtime(schemas))?;
        Store::serving(connection, Some(Arc::from(path)))
    }

    /// Connects to the PostgreSQL database at `url` (`postgres://…`) and
    /// migrates the runtime's tables and each of `schemas`; an unreachable
    /// server is [`StoreError::Unavailable`]. Without the `postgres`
    /// feature: [`StoreError::PostgresNotBuilt`] (it is here in every build
    /// because a configured URL reaches it: `Config::database_url`).
    pub fn connect(url: &str, schemas: &[Schema]) -> Result<Store, StoreError> {
        #[cfg(feature = "postgres")]
        {
            let pool = Pool::start(url, pool::DEFAULT_SIZE)?;
            let schemas = with_runtime(schemas);
            pool.run_blocking(move |connection| migrations::apply(connection, &schemas))?;
            Ok(Store::postgres(pool, url))
        }
        #[cfg(not(feature = "postgres"))]
        {
            let _ = (url, schemas);
            Err(StoreError::PostgresNotBuilt)
        }
    }

    /// Connects to an existing PostgreSQL store without migrating it (the
    /// CLI's dumps), or `None` when the database holds no store yet.
    /// Without the `postgres` feature: [`StoreError::PostgresNotBuilt`].
    pub fn connect_existing(url: &str, schemas: &[Schema]) -> Result<Option<Store>, StoreError> {
        #[cfg(feature = "postgres")]
        {
            let pool = Pool::start(url, 1)?;
            let schemas = with_runtime(schemas);
            let exists = pool.run_blocking(move |connection| {
                migrations::check_readable(connection, &schemas)?;
                migrations::versions_table_exists(connection)
            })?;
            Ok(exists.then(|| Store::postgres(pool, url)))
        }
        #[cfg(not(feature = "postgres"))]
        {
            let _ = (url, schemas);
            Err(StoreError::PostgresNotBuilt)
        }
    }

    #[cfg(feature = "postgres")]
    fn postgres(pool: Pool, url: &str) -> Store {
        let holdings = Holdings::new(Arc::from(url), held::DEFAULT_HELD, pool.losses().clone());
        Store {
            stats: Arc::new(stats::StoreStats::with_pool(pool.stats().clone())),
            backend: Backend::Postgres {
                pool,
                holdings: Arc::new(holdings),
            },
            path: None,
        }
    }

    /// Whether several servers may share this store (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        match self.backend {
            Backend::Sqlite { .. } => false,
            #[cfg(feature = "postgres")]
            Backend::Postgres { .. } => true,
        }
    }

    /// Opens the existing store in the file `path` read-only (for the CLI's
    /// dumps), or `None` when there is no such file yet. Nothing is created.
    pub fn open_existing_read_only(
        path: &Path,
        schemas: &[Schema],
    ) -> Result<Option<Store>, StoreError> {
        if !path.exists() {
            return Ok(None);
        }
        let connection = Connection::sqlite(rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?);
        migrations::check_readable(&connection, &with_runtime(schemas))?;
        register_functions(&connection)?;
        Store::serving(connection, Some(Arc::from(path))).map(Some)
    }

    /// A private in-memory store (tests, benchmarks).
    pub fn open_in_memory(schemas: &[Schema]) -> Result<Store, StoreError> {
        let mut connection = Connection::open_in_memory()?;
        configure(&connection)?;
        migrations::apply(&mut connection, &with_runtime(schemas))?;
        Store::serving(connection, None)
    }

    /// A SQLite store on `connection`, with its thread started.
    fn serving(connection: Connection, path: Option<Arc<Path>>) -> Result<Store, StoreError> {
        let durable = Arc::new(Durable::new(connection, path.as_deref())?);
        let worker = Worker::start(durable.clone()).map_err(|error| {
            StoreError::Worker(format!("cannot start the store thread: {error}"))
        })?;
        Ok(Store {
            stats: Arc::new(stats::StoreStats::new()),
            backend: Backend::Sqlite { durable, worker },
            path,
        })
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `work` with a connection on one of the store's threads. Once
    /// queued it runs to its end even if the caller stops waiting. Inside a
    /// write tool call, it is part of the call's transaction: on PostgreSQL
    /// on the connection the call holds, on SQLite in the call's session.
    pub async fn run<R, F>(&self, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let started = std::time::Instant::now();
        let span = tracing::info_span!(
            target: portos_core::telemetry::SPAN_TARGET,
            "store work",
            otel.kind = "client",
            db.system.name = self.stats.engine(),
        );
        let answer = portos_core::telemetry::in_span(&span, self.run_unobserved(work)).await;
        self.stats.observe(started.elapsed());
        answer
    }

    /// The store's series, for `/metrics`.
    pub fn write_metrics(&self, out: &mut crate::telemetry::Exposition) {
        self.stats.write(out);
    }

    async fn run_unobserved<R, F>(&self, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres { holdings, .. } = &self.backend
            && let Some(held) = holdings.current()
        {
            return held.run(work).await;
        }
        let (answer, answered) = oneshot::channel();
        let queued = match &self.backend {
            Backend::Sqlite { worker, durable } => {
                let message = match Session::current(durable) {
                    Some(session) => Message::Piece(
                        session.id,
                        piece(work, move |result| {
                            let _ = answer.send(result);
                        }),
                    ),
                    None => Message::Work(Box::new(move |connection| {
                        let result = work(connection);
                        Box::new(move |synced: Result<(), &std::io::Error>| {
                            let _ = answer.send(synced.map_err(not_durable).and(result));
                        })
                    })),
                };
                worker.send(message).is_ok()
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres { pool, .. } => pool.send(Box::new(move |connection| {
                let _ = answer.send(connection.and_then(work));
            })),
        };
        if !queued {
            return Err(StoreError::Worker(
                "the store thread has stopped".to_owned(),
            ));
        }
        answered.await.map_err(|_| {
            StoreError::Worker("the store's work panicked; nothing was answered".to_owned())
        })?
    }

    /// Runs `work` on the store's connections and waits for it on the
    /// calling thread: for synchronous code on a request's path (a catalog
    /// listing). Unlike [`Store::run_blocking`] it opens no connection on
    /// PostgreSQL; it blocks the calling thread meanwhile, so keep `work`
    /// short.
    pub fn run_waiting<R, F>(&self, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        match &self.backend {
            Backend::Sqlite { .. } => self.run_blocking(work),
            #[cfg(feature = "postgres")]
            Backend::Postgres { pool, .. } => {
                let (answer, answered) = std::sync::mpsc::sync_channel(1);
                let queued = pool.send(Box::new(move |connection| {
                    let _ = answer.send(connection.and_then(work));
                }));
                if !queued {
                    return Err(StoreError::Worker(
                        "the store thread has stopped".to_owned(),
                    ));
                }
                answered.recv().map_err(|_| {
                    StoreError::Worker("the store's work panicked; nothing was answered".to_owned())
                })?
            }
        }
    }

    /// Runs `work` and waits for it on the calling thread (start-up, CLI
    /// and test paths only: on PostgreSQL each call opens a connection of
    /// its own).
    pub fn run_blocking<R: Send>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<R, StoreError> + Send,
    ) -> Result<R, StoreError> {
        match &self.backend {
            Backend::Sqlite { durable, .. } => {
                // A write call's open transaction is waited for, unless it
                // is this task's own (then this is a piece of it).
                let own = Session::current(durable).map(|session| session.id);
                let (result, synced) = durable.group_outside_sessions(own, work);
                synced.map_err(|error| not_durable(&error))?;
                result
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres { pool, .. } => pool.run_blocking(work),
        }
    }

    /// Runs `call` (a write tool call's run, ending in its output) as one
    /// session of this SQLite store: everything it stores and what `keep`
    /// makes of its output commit in one transaction, durable when this
    /// answers. `Err`: nothing of it was kept (it was rolled back).
    pub(crate) async fn write_session<T, F>(
        &self,
        call: F,
        keep: impl FnOnce(&T) -> work::Keep,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = T>,
    {
        let (worker, durable) = match &self.backend {
            Backend::Sqlite { worker, durable } => (worker, durable),
            #[cfg(feature = "postgres")]
            Backend::Postgres { .. } => {
                return Err(StoreError::Worker(
                    "a write session needs a SQLite store".to_owned(),
                ));
            }
        };
        let session = Session::new(durable);
        let output = session.scope(call).await;
        let keep = keep(&output);
        let (answer, answered) = oneshot::channel();
        let end = End {
            keep,
            answer: Box::new(move |kept| {
                let _ = answer.send(kept);
            }),
        };
        if worker.send(Message::End(session.id, end)).is_err() {
            return Err(StoreError::Worker(
                "the store thread has stopped".to_owned(),
            ));
        }
        answered.await.map_err(|_| {
            StoreError::Worker("the store's work panicked; nothing was kept".to_owned())
        })??;
        session.committed();
        Ok(output)
    }
}

/// Holds `announce` back until the transaction of the call running on this
/// task commits (dropped if it rolls back), when the call has one (a write:
/// a session on SQLite, a held connection on PostgreSQL); otherwise hands
/// it back to be sent now.
pub fn after_commit(announce: BoxFuture<'static, ()>) -> Option<BoxFuture<'static, ()>> {
    // A PostgreSQL write's held connection first: `None` once it holds it.
    #[cfg(feature = "postgres")]
    let announce = held::hold_until_commit(announce)?;
    session::hold(announce)
}

/// A piece of a session's work: in a savepoint of its own (undone alone if
/// it fails), or, once the session was rolled back, not run at all.
fn piece<R, F>(work: F, answer: impl FnOnce(Result<R, StoreError>) + Send + 'static) -> SessionWork
where
    R: Send + 'static,
    F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
{
    Box::new(move |connection, Undone(undone)| {
        let result = if undone {
            Err(work::rolled_back())
        } else {
            in_transaction(connection, work)
        };
        Box::new(move |synced: Result<(), &std::io::Error>| {
            answer(synced.map_err(not_durable).and(result));
        }) as Deliver
    })
}

/// `work` in a transaction of its own, or in a savepoint inside one already
/// open: kept if it succeeds, undone alone if it fails.
fn in_transaction<R>(
    connection: &mut Connection,
    work: impl FnOnce(&mut Connection) -> Result<R, StoreError>,
) -> Result<R, StoreError> {
    connection.begin()?;
    let result = work(connection);
    let ended = connection.end(result.is_ok());
    result.and_then(|value| ended.map(|()| value).map_err(StoreError::from))
}

/// Runs `work` on a task of its own and waits for it, so it goes to its end
/// even when its caller goes away (a client that hangs up drops its
/// request's future at whatever await it had reached). For work that pairs
/// a commit with what must follow it (launching a job, telling subscribers),
/// which must never stop in between.
pub async fn detached<T, E>(
    work: impl Future<Output = Result<T, E>> + Send + 'static,
) -> Result<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    tokio::spawn(session::carried(work))
        .await
        .unwrap_or_else(|error| Err(StoreError::Worker(error.to_string()).into()))
}

/// A commit whose fsync failed: it may not survive a crash, so nobody is
/// told it is done.
fn not_durable(error: &std::io::Error) -> StoreError {
    StoreError::Worker(format!("the write could not be made durable: {error}"))
}

/// The runtime's schema first, then the application's (a repeated component
/// is migrated once).
fn with_runtime(schemas: &[Schema]) -> Vec<Schema> {
    let mut all = vec![RUNTIME_SCHEMA];
    for schema in schemas {
        if !all.iter().any(|known| known.component == schema.component) {
            all.push(*schema);
        }
    }
    all
}

fn configure(connection: &Connection) -> Result<(), StoreError> {
    let Some(sqlite) = connection.as_sqlite() else {
        return Ok(());
    };
    sqlite.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: each migration's commit is fsynced. Serving switches to group
    // syncs (worker.rs), which keep "done" meaning durable.
    sqlite.pragma_update(None, "synchronous", "FULL")?;
    sqlite.pragma_update(None, "foreign_keys", "ON")?;
    sqlite.busy_timeout(std::time::Duration::from_secs(5))?;
    // Hot statements are compiled once (`prepare_cached`); the runtime's and
    // the domains' together are more than rusqlite's default 16.
    sqlite.set_prepared_statement_cache_capacity(128);
    register_functions(connection)
}

/// The project's SQL functions (PostgreSQL gets its own in
/// `sql::POSTGRES_PRELUDE`): `portos_fold(text)`, Unicode lowercase, for
/// case-insensitive substring search (SQLite's own `lower` folds ASCII
/// only); `portos_random_hex(n)`, `n` random bytes in lowercase hex;
/// `portos_utc_now()`, the time in RFC 3339 UTC seconds.
fn register_functions(connection: &Connection) -> Result<(), StoreError> {
    use rusqlite::functions::FunctionFlags;
    let Some(sqlite) = connection.as_sqlite() else {
        return Ok(());
    };
    sqlite.create_scalar_function(
        "portos_fold",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(ctx.get::<String>(0)?.to_lowercase()),
    )?;
    sqlite.create_scalar_function("portos_random_hex", 1, FunctionFlags::SQLITE_UTF8, |ctx| {
        let count = usize::try_from(ctx.get::<i64>(0)?.clamp(0, 1024)).unwrap_or(0);
        let mut bytes = vec![0_u8; count];
        getrandom::fill(&mut bytes)
            .map_err(|error| rusqlite::Error::UserFunctionError(Box::new(error)))?;
        Ok(hex_lower(&bytes))
    })?;
    sqlite.create_scalar_function("portos_utc_now", 0, FunctionFlags::SQLITE_UTF8, |_| {
        Ok(jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string())
    })?;
    Ok(())
}

fn hex_lower(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn concurrent_writes_are_all_answered_and_kept_and_a_panic_answers_only_its_caller() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
        store
            .run(|connection| {
                connection.execute_batch("CREATE TABLE counted (n INTEGER NOT NULL)")?;
                Ok(())
            })
            .await
            .expect("created");
        let writes: Vec<_> = (0..200)
            .map(|n| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .run(move |connection| {
                            Ok(connection.execute("INSERT INTO counted (n) VALUES (?1)", [n])?)
                        })
                        .await
                })
            })
            .collect();
        let panicked = store
            .run(|_| -> Result<(), StoreError> { panic!("a bug in one piece of work") })
            .await;
        assert!(
            matches!(panicked, Err(StoreError::Worker(_))),
            "{panicked:?}"
        );
        for write in writes {
            assert_eq!(write.await.expect("ran").expect("inserted"), 1);
        }
        let count: i64 = store
            .run(|connection| {
                Ok(connection.query_row("SELECT count(*) FROM counted", [], |row| row.get(0))?)
            })
            .await
            .expect("counted");
        assert_eq!(count, 200);
        // What was answered is in the database file's WAL for another
        // connection (a new process after a crash) to find.
        drop(store);
        let reopened = rusqlite::Connection::open(dir.path().join("test.db")).expect("reopened");
        let count: i64 = reopened
            .query_row("SELECT count(*) FROM counted", [], |row| row.get(0))
            .expect("counted");
        assert_eq!(count, 200);
    }

    #[tokio::test]
    async fn detached_work_goes_to_its_end_when_its_caller_stops_waiting() {
        let (started, has_started) = oneshot::channel();
        let (finished, has_finished) = oneshot::channel();
        let caller = tokio::spawn(detached(async move {
            let _ = started.send(());
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let _ = finished.send(());
            Ok::<(), StoreError>(())
        }));
        has_started.await.expect("started");
        caller.abort();
        has_finished.await.expect("the work went on to its end");
    }

    #[test]
    fn only_a_group_that_commits_is_synced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
        let committed = |store: &Store, sql: &'static str| {
            let durable = match &store.backend {
                Backend::Sqlite { durable, .. } => durable,
                #[cfg(feature = "postgres")]
                Backend::Postgres { .. } => panic!("a SQLite store"),
            };
            let ((), synced) = durable.group(|connection| {
                connection.execute_batch(sql).expect("runs");
            });
            synced.expect("synced");
            durable.committed_since_group()
        };
        assert!(committed(&store, "CREATE TABLE t (n INTEGER)"));
        assert!(committed(&store, "INSERT INTO t (n) VALUES (1)"));
        assert!(!committed(&store, "SELECT n FROM t"));
        let synchronous: i64 = store
            .run_blocking(|connection| {
                Ok(connection.query_row("PRAGMA synchronous", [], |row| row.get(0))?)
            })
            .expect("read");
        assert_eq!(synchronous, 1, "NORMAL: the group syncs, not each commit");
    }
}

//! The embedded store: one SQLite database in the data directory, in WAL mode
//! with `synchronous=FULL`, so a write that was answered as done survives a
//! crash (and a power cut). Migrations are versioned by `PRAGMA user_version`.

pub mod goals;
pub mod health;
pub mod journal;
mod migrations;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags};

/// The database file inside the data directory.
pub const DATABASE_FILE: &str = "portos.db";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "the database is at schema version {found}, newer than this build knows ({known}); use a newer portos"
    )]
    TooNew { found: u32, known: u32 },
    #[error("the store worker stopped: {0}")]
    Worker(String),
}

/// A handle to the store; clones share one connection. Calls run on tokio's
/// blocking pool so SQLite never blocks the async workers.
#[derive(Clone, Debug)]
pub struct Store {
    connection: Arc<Mutex<Connection>>,
    /// Shared, so a clone (one per request in places) allocates nothing.
    path: Option<Arc<Path>>,
}

impl Store {
    /// Opens (creating if needed) the store in `data_dir` and migrates it.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::CreateDir {
            path: data_dir.to_owned(),
            source,
        })?;
        let path = data_dir.join(DATABASE_FILE);
        let mut connection = Connection::open(&path)?;
        configure(&connection)?;
        migrations::apply(&mut connection)?;
        Ok(Store {
            connection: Arc::new(Mutex::new(connection)),
            path: Some(Arc::from(path)),
        })
    }

    /// Opens an existing store read-only (for the CLI's dumps), or `None` when
    /// the data directory has no database yet. Nothing is created.
    pub fn open_existing_read_only(data_dir: &Path) -> Result<Option<Store>, StoreError> {
        let path = data_dir.join(DATABASE_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let connection = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        migrations::check_readable(&connection)?;
        register_functions(&connection)?;
        Ok(Some(Store {
            connection: Arc::new(Mutex::new(connection)),
            path: Some(Arc::from(path)),
        }))
    }

    /// A private in-memory store (tests, benchmarks).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut connection = Connection::open_in_memory()?;
        configure(&connection)?;
        migrations::apply(&mut connection)?;
        Ok(Store {
            connection: Arc::new(Mutex::new(connection)),
            path: None,
        })
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `work` with the connection on the blocking pool.
    pub async fn run<R, F>(&self, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = connection.lock().unwrap_or_else(PoisonError::into_inner);
            work(&mut guard)
        })
        .await
        .map_err(|error| StoreError::Worker(error.to_string()))?
    }

    /// Runs `work` on the calling thread (start-up and CLI paths only).
    pub fn run_blocking<R>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let mut guard = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        work(&mut guard)
    }
}

fn configure(connection: &Connection) -> Result<(), StoreError> {
    connection.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: each commit is fsynced before we answer, so "done" means durable.
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    connection.busy_timeout(std::time::Duration::from_secs(5))?;
    register_functions(connection)
}

/// `portos_fold(text)`: Unicode lowercase, for case-insensitive substring
/// search (SQLite's own `lower` folds ASCII only).
fn register_functions(connection: &Connection) -> Result<(), StoreError> {
    use rusqlite::functions::FunctionFlags;
    connection.create_scalar_function(
        "portos_fold",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(ctx.get::<String>(0)?.to_lowercase()),
    )?;
    Ok(())
}

//! The optional instance password (docs/reference.md#authentication-gate): an
//! Argon2id hash in the store, sessions by cookie or Bearer token, HTTP Basic,
//! and the authentication context the gate (`crate::http::gate`) derives for
//! every request.

mod context;
mod password;
mod sessions;

pub use context::{AuthContext, AuthMethod};
pub use password::PasswordError;
pub(crate) use password::{hash_password, verify_password};
use sessions::LiveSessions;

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::settings;
use crate::store::{Store, StoreError};

/// Settings key of the stored password hash (a PHC string).
pub(crate) const PASSWORD_SETTING: &str = "auth.passwordHash";

/// The authentication state shared by the gate and the auth routes.
#[derive(Clone, Debug)]
pub(crate) struct Auth {
    store: Store,
    /// The stored hash, cached: the gate runs on every request.
    password_hash: Arc<RwLock<Option<String>>>,
    /// Digest of the last Basic password that verified, so Basic clients do
    /// not pay for Argon2 on every request. Cleared when the password changes.
    verified_basic: Arc<Mutex<Option<[u8; 32]>>>,
    /// The sessions known to be live, so the gate need not ask the store.
    live_sessions: Arc<LiveSessions>,
    session_ttl: Duration,
    /// The session cookie's name (`Config::session_cookie`: the
    /// application's, e.g. `portos_session`).
    cookie: Arc<str>,
}

impl Auth {
    pub(crate) fn load(
        store: Store,
        session_ttl: Duration,
        cookie: &str,
    ) -> Result<Auth, StoreError> {
        let hash = store.run_blocking(|connection| read_hash(connection))?;
        Ok(Auth {
            store,
            password_hash: Arc::new(RwLock::new(hash)),
            verified_basic: Arc::new(Mutex::new(None)),
            live_sessions: Arc::new(LiveSessions::default()),
            session_ttl,
            cookie: Arc::from(cookie),
        })
    }

    /// The session cookie's name.
    pub(crate) fn cookie(&self) -> &str {
        &self.cookie
    }

    pub(crate) fn enabled(&self) -> bool {
        self.password_hash
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    pub(crate) fn session_ttl(&self) -> Duration {
        self.session_ttl
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    fn live_sessions(&self) -> &LiveSessions {
        &self.live_sessions
    }

    /// Checks a password against the stored hash (slow on purpose).
    pub(crate) async fn check_password(&self, candidate: &str) -> bool {
        let Some(hash) = self.current_hash() else {
            return false;
        };
        let digest: [u8; 32] = Sha256::digest(candidate.as_bytes()).into();
        if *self
            .verified_basic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            == Some(digest)
        {
            return true;
        }
        let candidate = candidate.to_owned();
        let verified = tokio::task::spawn_blocking(move || verify_password(&candidate, &hash))
            .await
            .unwrap_or(false);
        if verified {
            *self
                .verified_basic
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(digest);
        }
        verified
    }

    fn current_hash(&self) -> Option<String> {
        self.password_hash
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn read_hash(connection: &crate::store::sql::Connection) -> Result<Option<String>, StoreError> {
    Ok(settings::get_json(connection, PASSWORD_SETTING)?
        .and_then(|value| value.as_str().map(str::to_owned)))
}

/// Sets (or with `None`, clears) the instance password in the store and ends
/// every session. Used by the CLI and the environment at start-up.
pub(crate) fn store_password(store: &Store, password: Option<&str>) -> Result<(), PasswordError> {
    let hash = password.map(hash_password).transpose()?;
    store
        .run_blocking(move |connection| {
            let transaction = connection.transaction()?;
            match &hash {
                Some(hash) => settings::set_json(
                    &transaction,
                    PASSWORD_SETTING,
                    &serde_json::Value::from(hash.as_str()),
                )?,
                None => {
                    transaction
                        .execute("DELETE FROM settings WHERE key = ?1", [PASSWORD_SETTING])?;
                }
            }
            transaction.execute("DELETE FROM auth_sessions", [])?;
            transaction.commit()?;
            Ok(())
        })
        .map_err(PasswordError::Store)
}

/// True when `password` already matches the stored hash (so start-up with
/// `PORTOS_PASSWORD` does not end sessions on every restart).
pub(crate) fn password_matches_store(store: &Store, password: &str) -> Result<bool, StoreError> {
    let hash = store.run_blocking(|connection| read_hash(connection))?;
    Ok(hash.is_some_and(|hash| verify_password(password, &hash)))
}

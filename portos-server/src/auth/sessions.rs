//! Login sessions: a random token handed to the client, of which the store
//! keeps only the SHA-256 digest. Sessions expire and logout revokes them.
//!
//! The gate checks a session on every request, so the live sessions this
//! process has seen are also kept in memory ([`LiveSessions`]): a request
//! with a known session costs a map look-up instead of a store query on the
//! blocking pool (which cost a password-protected tool call more CPU than
//! the call itself). The memory is keyed by the token, which every request
//! brings anyway; only the store, which outlives the process, is kept to
//! digests. The store stays the record: a
//! session not in memory is looked up there, and this process is the only
//! writer of sessions while it serves (logout and login go through it; the
//! CLI changes the password with the server stopped, as it does the cached
//! password hash).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::store::sql::{OptionalExtension, params};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::Auth;
use crate::store::StoreError;
use crate::store::changes::{self, Change};

/// A session just created: the token is shown once.
#[derive(Clone, Debug)]
pub(crate) struct Session {
    pub token: String,
    pub expires_at: jiff::Timestamp,
}

type Digest32 = [u8; 32];

fn digest(token: &str) -> Digest32 {
    Sha256::digest(token.as_bytes()).into()
}

/// At most this many sessions are remembered; past it the memory starts
/// over (each session is then looked up in the store once more).
const LIVE_SESSIONS_MAX: usize = 4096;

/// The live sessions this process created or verified: token → expiry
/// (Unix milliseconds).
#[derive(Debug, Default)]
pub(super) struct LiveSessions {
    inner: Mutex<LiveInner>,
}

#[derive(Debug, Default)]
struct LiveInner {
    expiry: HashMap<Box<str>, i64>,
    /// Bumped by every revocation, so a store look-up that began before a
    /// logout cannot put the session back afterwards.
    revocations: u64,
}

impl LiveSessions {
    /// `Some(live)` when the session is known here, `None` when the store
    /// must be asked.
    fn lookup(&self, token: &str, now: i64) -> Option<bool> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let expires_at = *inner.expiry.get(token)?;
        if expires_at > now {
            return Some(true);
        }
        inner.expiry.remove(token);
        Some(false)
    }

    fn revocations(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .revocations
    }

    /// Remembers a live session, unless a revocation happened since
    /// `revocations` was read.
    fn remember(&self, token: &str, expires_at: i64, revocations: u64) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.revocations != revocations {
            return;
        }
        if inner.expiry.len() >= LIVE_SESSIONS_MAX {
            inner.expiry.clear();
        }
        inner.expiry.insert(token.into(), expires_at);
    }

    /// Forgets every session (another server ended one: each is looked up
    /// in the store once more).
    fn forget_all(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.expiry.clear();
        inner.revocations += 1;
    }

    fn forget(&self, token: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.expiry.remove(token);
        inner.revocations += 1;
    }
}

fn hex_lower(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

impl Auth {
    pub(crate) async fn create_session(&self) -> Result<Session, StoreError> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|error| StoreError::Worker(format!("no randomness: {error}")))?;
        let token = URL_SAFE_NO_PAD.encode(bytes);
        let now = jiff::Timestamp::now();
        let ttl = jiff::SignedDuration::try_from(self.session_ttl())
            .unwrap_or(jiff::SignedDuration::from_hours(24));
        let expires_at = now.checked_add(ttl).unwrap_or(now);
        let token_digest = hex_lower(&digest(&token));
        let revocations = self.live_sessions().revocations();
        self.store()
            .run(move |connection| {
                // Expired sessions are swept whenever a new one starts.
                connection.execute("DELETE FROM auth_sessions WHERE expires_at <= ?1", [now.as_millisecond()])?;
                connection.execute(
                    "INSERT INTO auth_sessions (token_digest, created_at, expires_at) VALUES (?1, ?2, ?3)",
                    params![token_digest, now.to_string(), expires_at.as_millisecond()],
                )?;
                Ok(())
            })
            .await?;
        self.live_sessions()
            .remember(&token, expires_at.as_millisecond(), revocations);
        Ok(Session { token, expires_at })
    }

    /// True when this process knows `token` to name a live session (no
    /// store query: the gate's path that does not wait).
    pub(crate) fn session_known_live(&self, token: &str) -> bool {
        !token.is_empty()
            && self
                .live_sessions()
                .lookup(token, jiff::Timestamp::now().as_millisecond())
                == Some(true)
    }

    /// True when `token` names a live session: from memory when this
    /// process knows the session, else from the store.
    pub(crate) async fn session_is_valid(&self, token: &str) -> Result<bool, StoreError> {
        let now = jiff::Timestamp::now().as_millisecond();
        if let Some(live) = self.live_sessions().lookup(token, now) {
            return Ok(live);
        }
        let revocations = self.live_sessions().revocations();
        let token_digest = hex_lower(&digest(token));
        let found = self
            .store()
            .run(move |connection| {
                let found: Option<i64> = connection
                    .query_row(
                        "SELECT expires_at FROM auth_sessions WHERE token_digest = ?1",
                        [token_digest],
                        |row| row.get(0),
                    )
                    .optional()?;
                Ok(found)
            })
            .await?;
        match found {
            Some(expires_at) if expires_at > now => {
                self.live_sessions()
                    .remember(token, expires_at, revocations);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Forgets the sessions this process remembers, so each is checked
    /// against the store again (another server may have ended it).
    pub(crate) fn forget_remembered_sessions(&self) {
        self.live_sessions().forget_all();
    }

    /// Ends the session of `token` (logout). Unknown tokens are fine.
    pub(crate) async fn revoke_session(&self, token: &str) -> Result<(), StoreError> {
        // Forgotten first, so no request is let in on it from here on, and
        // again after the delete, so a look-up that raced it cannot keep it.
        self.live_sessions().forget(token);
        let token_digest = hex_lower(&digest(token));
        self.store()
            .run(move |connection| {
                connection.execute(
                    "DELETE FROM auth_sessions WHERE token_digest = ?1",
                    [token_digest],
                )?;
                // Other servers forget the sessions they remember.
                changes::announce(connection, &Change::Sessions)
            })
            .await?;
        self.live_sessions().forget(token);
        Ok(())
    }
}

//! Login sessions: a random token handed to the client, of which the store
//! keeps only the SHA-256 digest. Sessions expire and logout revokes them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::Auth;
use crate::store::StoreError;

pub const SESSION_COOKIE: &str = "portos_session";

/// A session just created: the token is shown once.
#[derive(Clone, Debug)]
pub struct Session {
    pub token: String,
    pub expires_at: jiff::Timestamp,
}

fn digest(token: &str) -> String {
    hex_lower(&Sha256::digest(token.as_bytes()))
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
    pub async fn create_session(&self) -> Result<Session, StoreError> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|error| StoreError::Worker(format!("no randomness: {error}")))?;
        let token = URL_SAFE_NO_PAD.encode(bytes);
        let now = jiff::Timestamp::now();
        let ttl = jiff::SignedDuration::try_from(self.session_ttl())
            .unwrap_or(jiff::SignedDuration::from_hours(24));
        let expires_at = now.checked_add(ttl).unwrap_or(now);
        let token_digest = digest(&token);
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
        Ok(Session { token, expires_at })
    }

    /// True when `token` names a live session.
    pub async fn session_is_valid(&self, token: &str) -> Result<bool, StoreError> {
        let token_digest = digest(token);
        let now = jiff::Timestamp::now().as_millisecond();
        self.store()
            .run(move |connection| {
                let found: Option<i64> = connection
                    .query_row(
                        "SELECT expires_at FROM auth_sessions WHERE token_digest = ?1",
                        [token_digest],
                        |row| row.get(0),
                    )
                    .optional()?;
                Ok(found.is_some_and(|expires_at| expires_at > now))
            })
            .await
    }

    /// Ends the session of `token` (logout). Unknown tokens are fine.
    pub async fn revoke_session(&self, token: &str) -> Result<(), StoreError> {
        let token_digest = digest(token);
        self.store()
            .run(move |connection| {
                connection.execute(
                    "DELETE FROM auth_sessions WHERE token_digest = ?1",
                    [token_digest],
                )?;
                Ok(())
            })
            .await
    }
}

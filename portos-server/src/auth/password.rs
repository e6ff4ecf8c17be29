//! Argon2id password hashing (PHC strings), with the crate's default cost.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use crate::store::StoreError;

/// The shortest password accepted.
pub(super) const MIN_PASSWORD_CHARS: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("the password must have at least {MIN_PASSWORD_CHARS} characters")]
    TooShort,
    #[error("cannot hash the password: {0}")]
    Hash(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub(crate) fn hash_password(password: &str) -> Result<String, PasswordError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| PasswordError::Hash(error.to_string()))
}

/// Constant-time verification; a malformed stored hash verifies nothing.
pub(crate) fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_refuse() {
        let hash = hash_password("correct horse").expect("hashes");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsE", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert!(matches!(
            hash_password("short"),
            Err(PasswordError::TooShort)
        ));
    }
}

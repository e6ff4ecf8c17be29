//! The idempotency fingerprint (docs/reference.md#fingerprint): SHA-256 over
//! the canonical JSON of `{name, arguments, scope}`. It never holds argument
//! text.

use std::fmt;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical_json;
use crate::contract::Scope;

/// A call's idempotency fingerprint: the SHA-256 of the canonical JSON of
/// `{arguments, name, scope}`. Two calls under one `requestId` are the same
/// call when their fingerprints are equal.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of a call of `canonical_name` with the normalized
    /// `arguments`, by a caller of `scope`.
    pub fn of_call(canonical_name: &str, arguments: &Value, scope: Scope) -> Fingerprint {
        // The canonical JSON of `{name, arguments, scope}`, written directly
        // (its keys are already in sorted order) instead of building a map.
        let mut text = String::with_capacity(96);
        text.push_str("{\"arguments\":");
        canonical_json::write_to(&mut text, arguments);
        text.push_str(",\"name\":");
        canonical_json::write_to(&mut text, &Value::String(canonical_name.to_owned()));
        text.push_str(",\"scope\":\"");
        text.push_str(scope.as_str());
        text.push_str("\"}");
        Fingerprint(Sha256::digest(text.as_bytes()).into())
    }

    /// The fingerprint of a call whose tool adds keys of its own (a saved
    /// recipe's `recipeId` and `revision`, docs/reference.md#fingerprint), in
    /// the same canonical JSON.
    pub fn of_call_with(
        canonical_name: &str,
        arguments: &Value,
        scope: Scope,
        extra: &serde_json::Map<String, Value>,
    ) -> Fingerprint {
        if extra.is_empty() {
            return Fingerprint::of_call(canonical_name, arguments, scope);
        }
        let mut object = extra.clone();
        object.insert("arguments".to_owned(), arguments.clone());
        object.insert("name".to_owned(), Value::from(canonical_name));
        object.insert("scope".to_owned(), Value::from(scope.as_str()));
        let text = canonical_json::to_string(&Value::Object(object));
        Fingerprint(Sha256::digest(text.as_bytes()).into())
    }

    /// Lowercase hex, 64 characters.
    pub fn to_hex(self) -> String {
        hex::encode(self.0)
    }

    /// The fingerprint [`Fingerprint::to_hex`] wrote, or `None` if `text`
    /// is not 64 hex digits (a kept row that was tampered with).
    pub fn from_hex(text: &str) -> Option<Fingerprint> {
        let mut bytes = [0_u8; 32];
        hex::decode_to_slice(text, &mut bytes).ok()?;
        Some(Fingerprint(bytes))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.to_hex())
    }
}

// Tested in tests/words.rs, where a vocabulary names the scopes.

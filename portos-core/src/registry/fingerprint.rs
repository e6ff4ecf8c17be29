//! The idempotency fingerprint (BEHAVIOUR §1.5): SHA-256 over the canonical
//! JSON of `{name, arguments, scope}`. It never holds argument text.

use std::fmt;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical_json;
use crate::contract::Scope;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
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

    /// Lowercase hex, 64 characters.
    pub fn to_hex(self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn is_a_digest_of_sorted_canonical_json() {
        let fp = Fingerprint::of_call(
            "brain.search",
            &json!({"query": "secret words", "limit": 5}),
            Scope::Ui,
        );
        let hex = fp.to_hex();
        assert_eq!(hex.len(), 64);
        assert!(!hex.contains("secret"));
        let expected = Sha256::digest(
            br#"{"arguments":{"limit":5,"query":"secret words"},"name":"brain.search","scope":"ui"}"#,
        );
        assert_eq!(hex, hex::encode(expected));
    }

    #[test]
    fn scope_changes_it() {
        let a = Fingerprint::of_call("t", &json!({}), Scope::Ui);
        let b = Fingerprint::of_call("t", &json!({}), Scope::Agent);
        assert_ne!(a, b);
    }
}

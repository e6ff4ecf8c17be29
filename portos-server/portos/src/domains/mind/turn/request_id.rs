//! The requestId of a call inside a turn (docs/reference.md#turn-budgets):
//! `mind-tool-` and the first 32 hex digits of the SHA-256 of the canonical
//! JSON of `{turnId, providerRequestId}` when the model named the call, else of
//! `{turnId, name, arguments}`, so the same call made twice in a turn is
//! one call (the registry coalesces it).

use portos_core::canonical_json;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

pub fn call_request_id(
    turn_id: &str,
    provider_request_id: Option<&str>,
    name: &str,
    arguments: &Map<String, Value>,
) -> String {
    let basis = match provider_request_id.filter(|id| !id.is_empty()) {
        Some(id) => json!({ "turnId": turn_id, "providerRequestId": id }),
        None => json!({ "turnId": turn_id, "name": name, "arguments": arguments }),
    };
    let digest = Sha256::digest(canonical_json::to_string(&basis).as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("mind-tool-{}", &hex[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_from_the_call() {
        let args: Map<String, Value> = serde_json::from_str(r#"{"b":1,"a":2}"#).expect("map");
        let same: Map<String, Value> = serde_json::from_str(r#"{"a":2,"b":1}"#).expect("map");
        let id = call_request_id("t1", None, "goals.list", &args);
        assert!(id.starts_with("mind-tool-") && id.len() == 10 + 32, "{id}");
        assert_eq!(
            id,
            call_request_id("t1", None, "goals.list", &same),
            "key order does not matter"
        );
        assert_ne!(id, call_request_id("t2", None, "goals.list", &args));
        let named = call_request_id("t1", Some("call_1"), "goals.list", &args);
        assert_eq!(
            named,
            call_request_id("t1", Some("call_1"), "brain.recent", &Map::new())
        );
        assert_ne!(named, id);
        // The digest of the canonical text, checked independently.
        let expected = Sha256::digest(br#"{"providerRequestId":"call_1","turnId":"t1"}"#);
        let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(named, format!("mind-tool-{}", &hex[..32]));
    }
}

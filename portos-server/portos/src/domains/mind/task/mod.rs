//! `cos.create-task` (docs/reference.md#task-creation): the Persistent Mind
//! queues a coding task for a CLI or TUI agent on a managed app. The input is
//! strict and normalized (`input`); after inference every rule is checked again
//! against what is stored now (`checks`); the task id is derived from the
//! turn and the input, so a replay finds the task it queued (`task_id`).

pub mod checks;
pub mod input;
mod tools;

pub use input::CreateTaskArgs;

use portos_core::canonical_json;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sys-mind-` and the first 24 hex digits of the SHA-256 of
/// `cos-persistent-mind:<wakeId>:<fingerprint>`, the fingerprint being the
/// canonical JSON of the normalized input: the same request in the same
/// wake is the same task.
pub fn task_id(wake_id: &str, normalized: &Value) -> String {
    let basis = format!(
        "cos-persistent-mind:{wake_id}:{}",
        canonical_json::to_string(normalized)
    );
    let digest = Sha256::digest(basis.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sys-mind-{}", &hex[..24])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_id_is_the_wake_and_the_input() {
        let input = json!({ "b": 1, "a": "x" });
        let id = task_id("turn-1", &input);
        assert!(id.starts_with("sys-mind-") && id.len() == 9 + 24, "{id}");
        assert_eq!(id, task_id("turn-1", &json!({ "a": "x", "b": 1 })));
        assert_ne!(id, task_id("turn-2", &input));
        assert_ne!(id, task_id("turn-1", &json!({ "a": "y", "b": 1 })));
        let expected = Sha256::digest(br#"cos-persistent-mind:turn-1:{"a":"x","b":1}"#);
        let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(id, format!("sys-mind-{}", &hex[..24]));
    }
}

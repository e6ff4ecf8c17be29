//! Unit tests of the recipe domain against the real registry of every
//! PortOS tool (built once) and a real store.

mod definition;
mod execute;
mod hostile;
mod ops;
mod validate;

use std::sync::{Arc, OnceLock};

use portos_core::Registry;
use portos_server::Config;
use serde_json::{Value, json};

/// The registry of every linked PortOS tool (its `LiveRegistry` bound).
pub fn registry() -> Arc<Registry> {
    static REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let store = crate::store::open_in_memory().expect("store");
            let config = Config {
                data_dir: std::env::temp_dir(),
                ..crate::config()
            };
            // Built alone, and bound to its live handle like a served one.
            crate::build_registry(config, &crate::Options::default(), &store).expect("registry")
        })
        .clone()
}

/// A valid definition: two brain reads, the second fed by the first.
pub fn valid() -> Value {
    json!({
        "schemaVersion": 1,
        "name": "recipe.brain-echo",
        "purpose": "  Search the brain for the latest capture's text.  ",
        "parameters": {
            "type": "object",
            "properties": {
                "limit": { "type": "integer", "description": "How many recent captures" },
                "mood": { "type": "string", "enum": ["calm", "busy"] }
            },
            "required": ["limit"],
            "additionalProperties": false
        },
        "steps": [
            { "id": "recent", "tool": "brain.recent", "arguments": { "limit": { "input": "limit" } } },
            {
                "id": "search",
                "tool": "brain.search",
                "arguments": {
                    "query": { "step": "recent", "path": ["items", 0, "text"] },
                    "limit": { "literal": 3 }
                }
            }
        ],
        "outputs": {
            "latest": { "step": "recent", "path": ["items"] },
            "hits": { "step": "search", "path": ["hits"] },
            "note": { "literal": "done" }
        }
    })
}

/// `valid()` with the value at a JSON pointer replaced (or removed when
/// `None`).
pub fn with(pointer: &str, value: Option<Value>) -> Value {
    let mut definition = valid();
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    let target = definition.pointer_mut(parent).expect("the parent exists");
    match (target, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(key.to_owned(), value);
        }
        (Value::Object(map), None) => {
            map.remove(key);
        }
        (Value::Array(items), Some(value)) => {
            let index: usize = key.parse().expect("an index");
            if index < items.len() {
                items[index] = value;
            } else {
                items.push(value);
            }
        }
        (Value::Array(items), None) => {
            let index: usize = key.parse().expect("an index");
            items.remove(index);
        }
        _ => panic!("not a container at {parent}"),
    }
    definition
}

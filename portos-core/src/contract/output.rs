//! An adapter's output as the JSON text serde wrote it, once.
//!
//! Every caller that answers over the wire (the HTTP call route, MCP, a
//! replay) only needs that text, so the output is written straight from the
//! adapter's typed value into it and copied out as bytes. Building a
//! `serde_json::Value` tree in between (every key allocated and hashed, the
//! tree walked again to write it, and freed when the store evicts it) cost
//! more than the rest of a fresh call's result handling (docs/benchmarks.md,
//! issue 14). The few callers that read fields (recipes, the Mind) get the
//! tree on first use, parsed once from the text and kept.

use std::cell::Cell;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::output_watch::{TopFields, Watched};

/// A tool's output: its JSON text, and its `Value` tree on demand.
pub struct OutputJson {
    text: Box<RawValue>,
    tree: OnceLock<Value>,
    /// The top-level `ok` and `state`, noted while a typed output was
    /// written (normalization's input: see `output_watch`).
    top: TopFields,
}

impl OutputJson {
    /// Writes `output` as JSON (what serde writes for it: a typed struct's
    /// fields in declaration order).
    pub fn to_json<T: Serialize + ?Sized>(output: &T) -> serde_json::Result<OutputJson> {
        let top = Cell::new(TopFields::default());
        let text = serde_json::value::to_raw_value(&Watched {
            value: output,
            fields: &top,
        })?;
        Ok(OutputJson {
            text,
            tree: OnceLock::new(),
            top: top.get(),
        })
    }

    /// From a tree already built: its text is written, and the tree is kept
    /// so reading it costs nothing more.
    pub fn from_value(value: Value) -> serde_json::Result<OutputJson> {
        let text = serde_json::value::to_raw_value(&value)?;
        Ok(OutputJson {
            text,
            tree: OnceLock::from(value),
            top: TopFields::default(),
        })
    }

    /// An output kept as text elsewhere (a shared store), read back as it
    /// was written; the text must be JSON.
    pub fn from_text(text: String) -> serde_json::Result<OutputJson> {
        Ok(OutputJson {
            text: RawValue::from_string(text)?,
            tree: OnceLock::new(),
            top: TopFields::default(),
        })
    }

    /// The JSON text, as written.
    pub fn text(&self) -> &str {
        self.text.get()
    }

    /// The output as a tree, parsed from the text on first use. Text deeper
    /// than serde_json's nesting limit (128) reads as `null`: no adapter
    /// output comes near it, and a reader gets a value, not a panic.
    pub fn value(&self) -> &Value {
        self.tree
            .get_or_init(|| serde_json::from_str(self.text.get()).unwrap_or(Value::Null))
    }

    /// The tree, owned (parsed now unless it already was).
    pub fn into_value(self) -> Value {
        match self.tree.into_inner() {
            Some(tree) => tree,
            None => serde_json::from_str(self.text.get()).unwrap_or(Value::Null),
        }
    }

    /// `Some(failed)` when writing the output settled it (see `output_watch`).
    pub(crate) fn watched_failed(&self) -> Option<bool> {
        self.top.failed()
    }

    /// The tree, if one was kept or has been read.
    pub(crate) fn built_tree(&self) -> Option<&Value> {
        self.tree.get()
    }

    /// Reads the output into a typed value straight from its text.
    pub fn parse<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.text.get())
    }
}

/// `output["key"]`, `output.get(..)`, `output.as_object()`: the tree's API.
impl Deref for OutputJson {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

/// Written as the text itself (serde_json copies it verbatim).
impl Serialize for OutputJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl Clone for OutputJson {
    fn clone(&self) -> OutputJson {
        OutputJson {
            text: self.text.clone(),
            tree: self.tree.clone(),
            top: self.top,
        }
    }
}

/// Equal when the JSON values are equal, whatever their text.
impl PartialEq for OutputJson {
    fn eq(&self, other: &OutputJson) -> bool {
        self.text() == other.text() || self.value() == other.value()
    }
}

impl PartialEq<Value> for OutputJson {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl fmt::Debug for OutputJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OutputJson").field(&self.text()).finish()
    }
}

/// The text.
impl fmt::Display for OutputJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    struct Clock {
        iso: &'static str,
        hour: u8,
        zone: Option<&'static str>,
    }

    #[test]
    fn typed_output_is_written_once_and_read_on_demand() {
        let clock = Clock {
            iso: "2026-12-04T18:00:00Z",
            hour: 18,
            zone: None,
        };
        let output = OutputJson::to_json(&clock).expect("serializes");
        assert_eq!(
            output.text(),
            r#"{"iso":"2026-12-04T18:00:00Z","hour":18,"zone":null}"#
        );
        assert_eq!(output["hour"], 18);
        assert_eq!(
            output,
            json!({"iso": "2026-12-04T18:00:00Z", "hour": 18, "zone": null})
        );
        let envelope = serde_json::to_string(&json!({ "result": &output })).expect("serializes");
        assert_eq!(envelope, format!(r#"{{"result":{}}}"#, output.text()));
    }

    #[test]
    fn a_tree_keeps_its_order_and_serializes_as_written() {
        let output =
            OutputJson::from_value(json!({"z": 1, "a": [true, null]})).expect("serializes");
        assert_eq!(output.text(), r#"{"z":1,"a":[true,null]}"#);
        assert_eq!(
            serde_json::to_string(&output).expect("serializes"),
            output.text()
        );
        assert_eq!(output.into_value(), json!({"z": 1, "a": [true, null]}));
    }

    #[test]
    fn equality_is_by_value() {
        let a = OutputJson::to_json(&json!({"a": 1.0})).expect("serializes");
        let b = OutputJson::from_value(json!({"a": 1.0})).expect("serializes");
        assert_eq!(a, b);
        assert_ne!(
            a,
            OutputJson::to_json(&json!({"a": 2})).expect("serializes")
        );
    }
}

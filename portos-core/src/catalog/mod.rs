//! The catalog layer, above the registry (docs/reference.md#catalog): scope and
//! intent filtering, the formats (the contract's four and the strict provider
//! formats of `schema::strict`), the rendered entries and the served
//! body/ETag memo. HTTP (`GET /api/cos/tools`), MCP `tools/list` and the
//! `--dump-catalog` CLI all read catalogs through one [`Catalogs`] value,
//! so they serve the same bytes.
//!
//! The registry knows nothing of catalogs: [`Catalogs::new`] takes a built
//! registry and the application's [`IntentConfig`].

mod catalogs;
mod dynamic;
mod etag;
mod format;
mod fragments;
mod intent;
mod memo;
mod query;
mod render;

pub use catalogs::{CatalogBuildError, Catalogs};
pub use etag::etag_of;
pub use format::CatalogFormat;
pub use intent::{IntentConfig, IntentFilter, IntentGroup, IntentGroups};
pub use query::{CatalogQuery, ScopeQuery};

use std::sync::Arc;

use serde_json::Value;

/// A catalog body (the exact served bytes) and its strong ETag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    json: String,
    /// The body's strong ETag: `"` + base64url(SHA-256 of its canonical JSON) + `"`.
    pub etag: String,
}

impl Catalog {
    /// The bytes the HTTP endpoint serves and `--dump-catalog` prints.
    pub fn to_json(&self) -> &str {
        &self.json
    }

    /// The served bytes, owned.
    pub fn into_json(self) -> String {
        self.json
    }

    /// The body as a JSON value (for inspection; serving uses [`to_json`](Self::to_json)).
    pub fn body(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }

    /// The body of a shared catalog as bytes that keep it alive, for an HTTP
    /// body that must own its bytes (`Bytes::from_owner`) without copying.
    pub fn shared_bytes(self: &Arc<Catalog>) -> CatalogBytes {
        CatalogBytes(self.clone())
    }
}

/// The body as the renderer writes it, for the documents.
impl schemars::JsonSchema for Catalog {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Catalog".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A catalog in any format: `<format>_tool_catalog`.",
            "type": "object",
            "required": ["type", "schemaVersion", "scope", "tools"],
            "properties": {
                "type": {
                    "type": "string",
                    "enum": CatalogFormat::VALUES.map(|format| format!("{format}_tool_catalog")),
                },
                "schemaVersion": { "type": "integer" },
                "scope": { "type": "string" },
                "tools": {
                    "description": "Native entries (`portos`) or provider projections.",
                    "type": "array",
                    "items": { "type": "object", "additionalProperties": true },
                },
                "projection": {
                    "description": "Strict provider formats only (`openai-strict`, `anthropic-strict`, `gemini`): per listed tool whose projection changed anything, what was dropped or rewritten (JSON Pointer into the tool's full input schema), or why it is offered unconstrained (`strict: false`). The server still validates every call against the full schema.",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["tool", "changes"],
                        "properties": {
                            "tool": { "type": "string" },
                            "strict": { "type": "boolean" },
                            "reason": { "type": "string" },
                            "changes": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "required": ["path", "keyword", "action", "detail"],
                                    "properties": {
                                        "path": { "type": "string" },
                                        "keyword": { "type": "string" },
                                        "action": { "type": "string", "enum": ["dropped", "rewritten", "nullable-added"] },
                                        "detail": { "type": "string" },
                                    },
                                },
                            },
                        },
                    },
                },
                "stats": {
                    "description": "Native format only.",
                    "type": "object",
                    "required": ["total", "read", "write", "granted"],
                    "properties": {
                        "total": { "type": "integer", "minimum": 0 },
                        "read": { "type": "integer", "minimum": 0 },
                        "write": { "type": "integer", "minimum": 0 },
                        "granted": { "type": "integer", "minimum": 0 },
                    },
                },
            },
        })
    }
}

/// The body of a shared [`Catalog`], as owned bytes.
#[derive(Clone, Debug)]
pub struct CatalogBytes(Arc<Catalog>);

impl AsRef<[u8]> for CatalogBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.json.as_bytes()
    }
}

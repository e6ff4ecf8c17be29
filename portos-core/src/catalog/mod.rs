//! Catalogs by scope, intent and format (BEHAVIOUR §2), with their ETag.

mod etag;
mod format;
mod intent;
mod query;

pub use etag::etag_of;
pub use format::CatalogFormat;
pub use intent::{IntentFilter, IntentGroup};
pub use query::CatalogQuery;

use serde_json::{Map, Value, json};

use crate::contract::{Capabilities, CatalogScope, SCHEMA_VERSION};
use crate::registry::{RegisteredTool, Registry};

/// A catalog body and its strong ETag.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalog {
    pub body: Value,
    pub etag: String,
}

impl Catalog {
    /// The bytes the HTTP endpoint serves and `--dump-catalog` prints.
    pub fn to_json(&self) -> String {
        self.body.to_string()
    }
}

impl Registry {
    /// The catalog for `query`. `grants` are the capabilities of the principal
    /// the scope names (used for `granted` at mind and agent scope only).
    pub fn catalog(&self, query: &CatalogQuery, grants: Capabilities) -> Catalog {
        let intent = IntentFilter::new(query.intent.as_deref());
        let scope = query.scope;
        let granted_applies = matches!(scope, CatalogScope::Only(s) if s.is_granted_principal());

        let listed = self
            .tools()
            .iter()
            .filter(|tool| scope.includes(&tool.policy.scopes))
            .filter(|tool| intent.allows(&tool.descriptor.intent))
            .map(|tool| {
                let granted =
                    granted_applies.then(|| grants.has_all(&tool.policy.required_capabilities));
                (tool, granted)
            });

        let body = match query.format {
            CatalogFormat::Portos => {
                let (mut read, mut write, mut granted_count) = (0, 0, 0);
                let tools: Vec<Value> = listed
                    .map(|(tool, granted)| {
                        if tool.policy.side_effect.is_read() {
                            read += 1;
                        } else {
                            write += 1;
                        }
                        if granted == Some(true) {
                            granted_count += 1;
                        }
                        portos_entry(tool, granted)
                    })
                    .collect();
                json!({
                    "type": "portos_tool_catalog",
                    "schemaVersion": SCHEMA_VERSION,
                    "scope": scope.as_str(),
                    "tools": tools,
                    "stats": { "total": read + write, "read": read, "write": write, "granted": granted_count },
                })
            }
            provider => {
                // Provider formats drop only what is known to be ungranted.
                let tools: Vec<Value> = listed
                    .filter(|(_, granted)| *granted != Some(false))
                    .map(|(tool, _)| provider.project(tool))
                    .collect();
                json!({
                    "type": format!("{}_tool_catalog", provider.as_str()),
                    "schemaVersion": SCHEMA_VERSION,
                    "scope": scope.as_str(),
                    "tools": tools,
                })
            }
        };
        let etag = etag_of(&body);
        Catalog { body, etag }
    }
}

/// The native public entry; the internal adapter is never exposed.
fn portos_entry(tool: &RegisteredTool, granted: Option<bool>) -> Value {
    let d = tool.descriptor;
    let mut entry = Map::with_capacity(12);
    entry.insert("type".into(), Value::from("portos_tool"));
    entry.insert("name".into(), Value::from(d.name));
    entry.insert("version".into(), Value::from(d.version));
    entry.insert("providerName".into(), Value::from(d.provider_name));
    entry.insert("aliases".into(), Value::from(d.aliases.to_vec()));
    entry.insert("description".into(), Value::from(d.description));
    entry.insert("input_schema".into(), tool.input_schema.clone());
    entry.insert("output_schema".into(), tool.output_schema.clone());
    entry.insert(
        "policy".into(),
        serde_json::to_value(&tool.policy).unwrap_or(Value::Null),
    );
    // Always true after filtering: `all` lists everything, and a named scope
    // keeps only the tools that carry it.
    entry.insert("availableInScope".into(), Value::Bool(true));
    entry.insert("granted".into(), granted.map_or(Value::Null, Value::Bool));
    Value::Object(entry)
}

//! Catalogs by scope, intent and format (BEHAVIOUR §2), with their ETag.

mod etag;
mod format;
mod fragments;
mod intent;
mod query;

pub use etag::etag_of;
pub use format::CatalogFormat;
pub use intent::{IntentFilter, IntentGroup};
pub use query::CatalogQuery;

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub(crate) use fragments::EntryText;

use crate::contract::{Capabilities, CatalogScope, SCHEMA_VERSION};
use crate::registry::Registry;

/// A catalog body (the exact served bytes) and its strong ETag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    json: String,
    pub etag: String,
}

impl Catalog {
    /// The bytes the HTTP endpoint serves and `--dump-catalog` prints.
    pub fn to_json(&self) -> &str {
        &self.json
    }

    pub fn into_json(self) -> String {
        self.json
    }

    /// The body as a JSON value (for inspection; serving uses [`to_json`](Self::to_json)).
    pub fn body(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }
}

impl Registry {
    /// The catalog for `query`. `grants` are the capabilities of the principal
    /// the scope names (used for `granted` at mind and agent scope only).
    ///
    /// The ETag is the base64url SHA-256 of the body's canonical JSON; both
    /// are assembled from text rendered once per tool and format.
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

        let mut served = String::with_capacity(self.catalog_capacity());
        let mut canonical = Sha256::new();
        let scope_name = scope.as_str();
        match query.format {
            CatalogFormat::Portos => {
                let (mut read, mut write, mut granted_count) = (0_usize, 0_usize, 0_usize);
                let mut canonical_tools = String::with_capacity(self.catalog_capacity());
                let _ = write!(
                    served,
                    "{{\"type\":\"portos_tool_catalog\",\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                );
                for (index, (tool, granted)) in listed.enumerate() {
                    if tool.policy.side_effect.is_read() {
                        read += 1;
                    } else {
                        write += 1;
                    }
                    if granted == Some(true) {
                        granted_count += 1;
                    }
                    let granted = match granted {
                        Some(true) => "true",
                        Some(false) => "false",
                        None => "null",
                    };
                    if index > 0 {
                        served.push(',');
                        canonical_tools.push(',');
                    }
                    let text = tool.native_text();
                    served.push_str(&text.served);
                    served.push_str(granted);
                    served.push('}');
                    canonical_tools.push_str(&text.canonical.0);
                    canonical_tools.push_str(granted);
                    canonical_tools.push_str(&text.canonical.1);
                }
                let total = read + write;
                let _ = write!(
                    served,
                    "],\"stats\":{{\"total\":{total},\"read\":{read},\"write\":{write},\"granted\":{granted_count}}}}}"
                );
                canonical.update(format!(
                    "{{\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"stats\":{{\"granted\":{granted_count},\"read\":{read},\"total\":{total},\"write\":{write}}},\"tools\":["
                ));
                canonical.update(canonical_tools.as_bytes());
                canonical.update(b"],\"type\":\"portos_tool_catalog\"}");
            }
            provider => {
                let kind = provider.as_str();
                let _ = write!(
                    served,
                    "{{\"type\":\"{kind}_tool_catalog\",\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                );
                canonical.update(format!(
                    "{{\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                ));
                // Provider formats drop only what is known to be ungranted.
                let kept = listed.filter(|(_, granted)| *granted != Some(false));
                for (index, (tool, _)) in kept.enumerate() {
                    if index > 0 {
                        served.push(',');
                        canonical.update(b",");
                    }
                    let text = tool.provider_text(provider);
                    served.push_str(&text.served);
                    canonical.update(text.canonical.as_bytes());
                }
                served.push_str("]}");
                canonical.update(format!("],\"type\":\"{kind}_tool_catalog\"}}"));
            }
        }
        Catalog {
            json: served,
            etag: etag::quote(&canonical.finalize()),
        }
    }

    /// A first guess of the catalog's size, to allocate once.
    fn catalog_capacity(&self) -> usize {
        self.tools().len() * 1024 + 256
    }
}

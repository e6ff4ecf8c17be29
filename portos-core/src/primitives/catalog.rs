//! The resources, resource templates and prompts of a catalog scope, as
//! the tool catalog lists tools: every declaration the scope carries (all
//! of them for `all`), each with its listing (MCP's shape), its policy
//! (scopes and required capabilities) and, for a scope that holds grants,
//! whether the grants given cover it. HTTP (`GET {tools}/primitives`) and
//! the `--dump-primitives` CLI serve it.

use serde_json::{Map, Value, json};

use super::registry::{Primitives, Visibility};
use crate::contract::{Capabilities, CatalogScope, SCHEMA_VERSION};

/// The catalog's `type`.
pub const PRIMITIVE_CATALOG_TYPE: &str = "portos_primitive_catalog";

impl Primitives {
    /// The catalog of `scope`; `grants` are the scope's (what `granted`
    /// is told against, for a scope that holds grants).
    pub fn catalog(&self, scope: CatalogScope, grants: Capabilities) -> PrimitiveCatalog {
        let granted_applies = matches!(scope, CatalogScope::Only(s) if s.holds_grants());
        let entry = |listing: Value, visibility: &Visibility| -> Option<Value> {
            if !scope.includes(&visibility.scopes) {
                return None;
            }
            let Value::Object(mut entry) = listing else {
                return None;
            };
            entry.insert("policy".to_owned(), policy(visibility));
            entry.insert(
                "granted".to_owned(),
                if granted_applies {
                    Value::Bool(grants.has_all(&visibility.required_capabilities))
                } else {
                    Value::Null
                },
            );
            Some(Value::Object(entry))
        };
        let (mut resources, mut templates) = (Vec::new(), Vec::new());
        for resource in self.every_resource() {
            if let Some(listed) = entry(resource.listing(), &resource.visibility) {
                if resource.is_template() {
                    templates.push(listed);
                } else {
                    resources.push(listed);
                }
            }
        }
        let prompts: Vec<Value> = self
            .every_prompt()
            .iter()
            .filter_map(|prompt| entry(prompt.listing(), &prompt.visibility))
            .collect();
        PrimitiveCatalog(json!({
            "type": PRIMITIVE_CATALOG_TYPE,
            "schemaVersion": SCHEMA_VERSION,
            "scope": scope.as_str(),
            "resources": resources,
            "resourceTemplates": templates,
            "prompts": prompts,
        }))
    }
}

/// A primitive catalog, as served.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct PrimitiveCatalog(pub Value);

/// The document's shape, for the OpenAPI documents.
impl schemars::JsonSchema for PrimitiveCatalog {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PrimitiveCatalog".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let policy = json!({
            "type": "object",
            "required": ["scopes", "requiredCapabilities"],
            "properties": {
                "scopes": {"type": "array", "items": {"type": "string"}},
                "requiredCapabilities": {"type": "array", "items": {"type": "string"}},
            },
        });
        let entry = |description: &str, key: &str| {
            let mut required = vec![key];
            if key != "name" {
                required.push("name");
            }
            required.extend(["description", "policy", "granted"]);
            json!({
                "type": "array",
                "description": description,
                "items": {
                    "type": "object",
                    "required": required,
                    "properties": {
                        "policy": policy,
                        "granted": {
                            "type": ["boolean", "null"],
                            "description": "Whether the scope's grants cover it (null for a scope that holds no grants, and for `all`)",
                        },
                    },
                    "additionalProperties": true,
                },
            })
        };
        schemars::json_schema!({
            "type": "object",
            "required": ["type", "schemaVersion", "scope", "resources", "resourceTemplates", "prompts"],
            "properties": {
                "type": {"type": "string", "enum": [PRIMITIVE_CATALOG_TYPE]},
                "schemaVersion": {"type": "integer"},
                "scope": {"type": "string"},
                "resources": entry("Fixed resources, as `resources/list` lists them (`uri`, `name`, `title`, `description`, `mimeType`)", "uri"),
                "resourceTemplates": entry("Resource templates, as `resources/templates/list` lists them (`uriTemplate`, …)", "uriTemplate"),
                "prompts": entry("Prompts, as `prompts/list` lists them (`name`, `title`, `description`, `arguments`)", "name"),
            },
        })
    }
}

fn policy(visibility: &Visibility) -> Value {
    let mut policy = Map::new();
    policy.insert(
        "scopes".to_owned(),
        visibility
            .scopes
            .iter()
            .map(|scope| Value::from(scope.as_str()))
            .collect(),
    );
    policy.insert(
        "requiredCapabilities".to_owned(),
        visibility
            .required_capabilities
            .iter()
            .map(|capability| Value::from(capability.as_str()))
            .collect(),
    );
    Value::Object(policy)
}

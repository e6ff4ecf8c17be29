//! The advertised definitions of the context tools: title, description,
//! closed input and output JSON Schemas, and read-only annotations.

use serde_json::{Value, json};

use super::{MAX_QUERY_CHARS, MAX_REF_CHARS, MAX_RESULTS, MAX_SUMMARY_CHARS};

fn scope_schema() -> Value {
    json!({ "type": "string", "enum": ["navigation", "workspaces", "brain", "identity"] })
}

fn item_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ref": { "type": "string", "maxLength": 180 },
            "scope": scope_schema(),
            "kind": { "type": "string", "maxLength": 80 },
            "title": { "type": "string", "maxLength": 160 },
            "summary": { "type": "string", "maxLength": MAX_SUMMARY_CHARS },
            "path": { "type": "string", "maxLength": 300 }
        },
        "required": ["ref", "scope", "kind", "title", "summary"],
        "additionalProperties": false
    })
}

fn nullable(schema: Value) -> Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "anyOf".to_owned(),
        Value::Array(vec![schema, json!({ "type": "null" })]),
    );
    Value::Object(out)
}

fn status_schema() -> Value {
    json!({ "type": "string", "enum": ["fresh", "stale"] })
}

fn object(properties: Value, required: &[&str]) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("type".to_owned(), json!("object"));
    out.insert("properties".to_owned(), properties);
    out.insert("required".to_owned(), json!(required));
    out.insert("additionalProperties".to_owned(), Value::Bool(false));
    Value::Object(out)
}

/// One tool's definition in MCP `tools/list` form.
pub fn definition(name: &str) -> Value {
    let query = json!({ "type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS });
    let limit = json!({ "type": "integer", "minimum": 1, "maximum": MAX_RESULTS });
    let items = json!({ "type": "array", "items": item_schema(), "maxItems": MAX_RESULTS });
    let (title, description, input, output) = match name {
        "search_context" => (
            "Search context",
            "Search the enabled context scopes (case-insensitive). Returns bounded items; private text is never returned under the metadata profile.",
            object(
                json!({
                    "query": query,
                    "scopes": { "type": "array", "items": scope_schema(), "minItems": 1, "maxItems": 4, "uniqueItems": true },
                    "limit": limit
                }),
                &["query"],
            ),
            object(
                json!({
                    "items": items,
                    "total": { "type": "integer", "minimum": 0 },
                    "truncated": { "type": "boolean" },
                    "sourceTruncated": { "type": "boolean" },
                    "sourceStatus": status_schema()
                }),
                &[
                    "items",
                    "total",
                    "truncated",
                    "sourceTruncated",
                    "sourceStatus",
                ],
            ),
        ),
        "get_context" => (
            "Get context item",
            "Read one context item by its ref. A ref of a scope that is not enabled returns item: null.",
            object(
                json!({ "ref": { "type": "string", "minLength": 1, "maxLength": MAX_REF_CHARS } }),
                &["ref"],
            ),
            object(
                json!({
                    "item": nullable(item_schema()),
                    "sourceTruncated": { "type": "boolean" },
                    "sourceStatus": status_schema()
                }),
                &["item", "sourceTruncated", "sourceStatus"],
            ),
        ),
        "list_context" => (
            "List context",
            "List the items of one enabled scope, a page at a time (cursor is an offset).",
            object(
                json!({
                    "scope": scope_schema(),
                    "cursor": { "type": "integer", "minimum": 0 },
                    "limit": limit
                }),
                &["scope"],
            ),
            object(
                json!({
                    "items": items,
                    "total": { "type": "integer", "minimum": 0 },
                    "nextCursor": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }] },
                    "truncated": { "type": "boolean" },
                    "sourceTruncated": { "type": "boolean" },
                    "sourceStatus": status_schema()
                }),
                &[
                    "items",
                    "total",
                    "nextCursor",
                    "truncated",
                    "sourceTruncated",
                    "sourceStatus",
                ],
            ),
        ),
        "resolve_navigation" => (
            "Resolve navigation",
            "Find the PortOS page or document a phrase refers to. Requires the navigation scope.",
            object(json!({ "query": query }), &["query"]),
            object(
                json!({ "match": nullable(item_schema()), "sourceStatus": status_schema() }),
                &["match", "sourceStatus"],
            ),
        ),
        _ => (
            "Context profile",
            "The active profile, enabled scopes, semantic action grants, limits and exclusions. Read it first.",
            object(json!({}), &[]),
            object(
                json!({
                    "profile": { "type": "string", "enum": ["metadata", "summary"] },
                    "scopes": { "type": "array", "items": scope_schema() },
                    "actions": {
                        "type": "object",
                        "properties": {
                            "readPortos": { "type": "boolean" },
                            "writePortos": { "type": "boolean" },
                            "callToolRecipes": { "type": "boolean" },
                            "manageEidoverse": { "type": "boolean" },
                            "visitEidoversePeers": { "type": "boolean" }
                        },
                        "required": ["readPortos", "writePortos", "callToolRecipes", "manageEidoverse", "visitEidoversePeers"],
                        "additionalProperties": false
                    },
                    "limits": {
                        "type": "object",
                        "properties": {
                            "defaultResults": { "type": "integer" },
                            "maxResults": { "type": "integer" },
                            "maxSummaryChars": { "type": "integer" },
                            "maxResponseChars": { "type": "integer" },
                            "maxApproxTokens": { "type": "integer" },
                            "maxSourceItems": { "type": "integer" }
                        },
                        "required": ["defaultResults", "maxResults", "maxSummaryChars", "maxResponseChars", "maxApproxTokens", "maxSourceItems"],
                        "additionalProperties": false
                    },
                    "exclusions": { "type": "array", "items": { "type": "string" } }
                }),
                &["profile", "scopes", "actions", "limits", "exclusions"],
            ),
        ),
    };
    json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input,
        "outputSchema": output,
        "annotations": {
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        }
    })
}

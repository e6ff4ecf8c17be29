//! `tools.min.json` (docs/reference.md#tool-resource): the operations annotated
//! as HTTP tools, each as one provider-neutral record with its HTTP binding and
//! declared failures, small enough for an agent to read whole.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::Inventory;
use crate::descriptor::{HttpToolEffect, RouteIo, RouteSpec, SchemaFn};
use crate::schema::{SchemaError, project_input, project_output};

/// The dialect of every schema in the resource.
const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The status map every HTTP tool may answer with, whatever it declares.
const STANDARD_ERRORS: [(u16, &str); 9] = [
    (400, "BAD_REQUEST"),
    (401, "UNAUTHORIZED"),
    (403, "FORBIDDEN"),
    (404, "NOT_FOUND"),
    (409, "CONFLICT"),
    (422, "VALIDATION_ERROR"),
    (500, "INTERNAL_ERROR"),
    (502, "BAD_GATEWAY"),
    (503, "SERVICE_UNAVAILABLE"),
];

/// An annotated operation whose input cannot be flattened into one object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolsMinError {
    /// A name is both a path or query parameter and a field of the body.
    #[error(
        "HTTP tool `{tool}` ({method} {path}): `{field}` is both a parameter and a body field; rename one"
    )]
    Collision {
        /// The HTTP tool's name.
        tool: &'static str,
        /// The operation's HTTP method.
        method: &'static str,
        /// The operation's path.
        path: &'static str,
        /// The name found in two places.
        field: String,
    },
    /// A schema of the operation cannot be projected for the resource.
    #[error("HTTP tool `{tool}` ({method} {path}): {source}")]
    Schema {
        /// The HTTP tool's name.
        tool: &'static str,
        /// The operation's HTTP method.
        method: &'static str,
        /// The operation's path.
        path: &'static str,
        /// Why the schema was refused.
        source: SchemaError,
    },
}

impl Inventory {
    /// The tools.min.json resource: every operation annotated with `tool(...)`,
    /// independent of what API Access exposes.
    pub fn tools_min(&self, portos_version: &str) -> Result<Value, ToolsMinError> {
        let mut tools = Vec::new();
        let (mut read, mut write) = (0_usize, 0_usize);
        for route in self.routes() {
            let Some(tool) = &route.tool else { continue };
            if tool.side_effect == HttpToolEffect::Read {
                read += 1;
            } else {
                write += 1;
            }
            tools.push(record(route, &self.io(route))?);
        }
        let errors: Vec<Value> = STANDARD_ERRORS
            .iter()
            .map(|(status, code)| json!({ "status": status, "code": code }))
            .collect();
        Ok(json!({
            "type": "portos_tool_resource",
            "schemaVersion": 1,
            "portosVersion": portos_version,
            "source": { "document": "openapi", "version": "3.0.3" },
            "schemaDialect": SCHEMA_DIALECT,
            "tools": tools,
            "errors": errors,
            "stats": { "total": read + write, "read": read, "write": write },
        }))
    }
}

fn record(route: &RouteSpec, io: &RouteIo) -> Result<Value, ToolsMinError> {
    let Some(tool) = &route.tool else {
        return Ok(Value::Null);
    };
    let schema_error = |source: SchemaError| ToolsMinError::Schema {
        tool: tool.name,
        method: route.method.as_str(),
        path: route.path,
        source,
    };
    let description = if route.description.is_empty() {
        route.summary.unwrap_or(tool.name).to_owned()
    } else {
        route.description.to_owned()
    };
    let mut annotation = super::openapi::tool_annotation(tool);
    if let Some(policy) = annotation.get_mut("policy").and_then(Value::as_object_mut) {
        policy.insert(
            "idempotent".to_owned(),
            Value::Bool(tool.side_effect == HttpToolEffect::Read),
        );
    }
    let mut entry = Map::new();
    entry.insert("type".into(), "portos_tool".into());
    entry.insert("name".into(), tool.name.into());
    entry.insert("version".into(), tool.version.into());
    entry.insert(
        "providerName".into(),
        tool.name.replace(['.', '-'], "_").into(),
    );
    entry.insert("description".into(), description.into());
    entry.insert(
        "input_schema".into(),
        input_schema(route, io, tool.name)
            .and_then(|raw| project_input(&raw).map_err(schema_error))?,
    );
    entry.insert("output_schema".into(), output_schema(io.response));
    entry.insert(
        "policy".into(),
        annotation.get("policy").cloned().unwrap_or(Value::Null),
    );
    entry.insert(
        "binding".into(),
        json!({ "protocol": "http", "method": route.method.as_str(), "path": route.path }),
    );
    let mut failures: Vec<(u16, &str)> = io
        .errors
        .iter()
        .map(|error| (error.status, error.code))
        .collect();
    // Ascending by status; codes of one status stay in declaration order.
    failures.sort_by_key(|(status, _)| *status);
    if !failures.is_empty() {
        entry.insert(
            "failures".into(),
            failures
                .iter()
                .map(|(status, code)| json!({ "status": status, "code": code }))
                .collect(),
        );
    }
    Ok(Value::Object(entry))
}

/// A type's schema in draft 2020-12, every subschema inlined.
fn inline_schema(schema: SchemaFn) -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let mut generator = settings.into_generator();
    let mut value = schema(&mut generator).to_value();
    if let Value::Object(map) = &mut value {
        map.remove("title");
        map.remove("$schema");
    }
    value
}

/// Path parameters, query parameters and the body's fields, flattened into
/// one object (a body that is not an object goes under `body`).
fn input_schema(
    route: &RouteSpec,
    io: &RouteIo,
    tool: &'static str,
) -> Result<Value, ToolsMinError> {
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for name in route.path_params() {
        properties.insert(name.to_owned(), json!({ "type": "string" }));
        required.push(name.into());
    }
    if let Some(query) = io.query {
        merge_object(&inline_schema(query), &mut properties, &mut required);
    }
    let mut additional = Value::Bool(false);
    if let Some(request) = io.request {
        let body = inline_schema(request);
        if body.get("type").and_then(Value::as_str) == Some("object") {
            for field in body
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(Map::keys)
            {
                if properties.contains_key(field) {
                    return Err(ToolsMinError::Collision {
                        tool,
                        method: route.method.as_str(),
                        path: route.path,
                        field: field.clone(),
                    });
                }
            }
            if let Some(extra) = body.get("additionalProperties") {
                additional = extra.clone();
            }
            merge_object(&body, &mut properties, &mut required);
        } else {
            if properties.contains_key("body") {
                return Err(ToolsMinError::Collision {
                    tool,
                    method: route.method.as_str(),
                    path: route.path,
                    field: "body".to_owned(),
                });
            }
            properties.insert("body".to_owned(), body);
            required.push("body".into());
        }
    }
    let mut schema = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema["additionalProperties"] = additional;
    Ok(schema)
}

fn merge_object(object: &Value, properties: &mut Map<String, Value>, required: &mut Vec<Value>) {
    if let Some(fields) = object.get("properties").and_then(Value::as_object) {
        for (name, schema) in fields {
            properties.insert(name.clone(), schema.clone());
        }
    }
    if let Some(names) = object.get("required").and_then(Value::as_array) {
        required.extend(names.iter().cloned());
    }
}

/// The JSON 200 schema, or an open object when the answer is not modeled.
fn output_schema(response: Option<SchemaFn>) -> Value {
    match response.map(inline_schema) {
        Some(Value::Bool(true)) | None => json!({ "type": "object" }),
        Some(schema) => project_output(&schema),
    }
}

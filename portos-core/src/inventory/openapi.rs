//! OpenAPI 3.0.3 from the inventory (docs/reference.md#openapi). Request, query
//! and response types are generated with schemars' OpenAPI 3.0 settings into
//! one generator, whose definitions become `components.schemas` (the dropshot
//! way).

use schemars::SchemaGenerator;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::Inventory;
use super::classify::{self, Classifier, title_case};
use crate::descriptor::{Access, RouteIo, RouteSpec};

/// What varies between the internal and the public document.
#[derive(Clone, Debug)]
pub struct OpenApiOptions<'a> {
    /// `info.title`.
    pub title: &'a str,
    /// `info.version`: the application's version.
    pub version: &'a str,
    /// `info.description`.
    pub description: &'a str,
    /// `servers[0].url`, when known (from the request's host).
    pub server_url: Option<String>,
}

/// Where an operation goes in a document: its tag and whether it needs
/// credentials.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The operation's tag.
    pub tag: String,
    /// The tag's description; `None` → `"<Label> API (<n> operations)"`.
    pub tag_description: Option<String>,
    /// Whether the operation takes bearer or basic credentials (`security`);
    /// otherwise it is open.
    pub secured: bool,
}

impl Placement {
    /// The internal document's rule: tagged by domain, secured unless the
    /// operation is always public.
    pub fn by_domain(route: &RouteSpec, classifier: &Classifier) -> Placement {
        Placement {
            tag: classify::domain(route.path),
            tag_description: None,
            secured: classifier.access(route) != Access::AlwaysPublic,
        }
    }
}

impl Inventory {
    /// The OpenAPI 3.0.3 document of the routes `place` keeps, placed where
    /// it says.
    pub fn openapi(
        &self,
        options: &OpenApiOptions<'_>,
        place: impl Fn(&RouteSpec) -> Option<Placement>,
    ) -> Value {
        let mut generator = SchemaSettings::openapi3()
            .with_transform(ExclusiveBoundsAsBooleans)
            .into_generator();
        let mut paths: Map<String, Value> = Map::new();
        let mut tag_counts: std::collections::BTreeMap<String, (usize, Option<String>)> =
            Default::default();
        for route in self.routes() {
            let Some(placement) = place(route) else {
                continue;
            };
            let entry = tag_counts.entry(placement.tag.clone()).or_default();
            entry.0 += 1;
            entry.1.clone_from(&placement.tag_description);
            let io = self.io(route);
            let operation = operation(route, &io, self.access(route), &placement, &mut generator);
            let item = paths
                .entry(route.path.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(item) = item.as_object_mut() {
                item.insert(route.method.lowercase().to_owned(), operation);
            }
        }
        let mut schemas = generator.take_definitions(true);
        schemas.insert("PortosError".to_owned(), portos_error_schema());
        let tags: Vec<Value> = tag_counts
            .iter()
            .map(|(id, (count, description))| {
                let description = description
                    .clone()
                    .unwrap_or_else(|| format!("{} API ({count} operations)", title_case(id)));
                json!({ "name": id, "description": description })
            })
            .collect();
        json!({
            "openapi": "3.0.3",
            "info": {
                "title": options.title,
                "version": options.version,
                "description": options.description,
            },
            "servers": options.server_url.iter().map(|url| json!({ "url": url })).collect::<Vec<_>>(),
            "tags": tags,
            "paths": paths,
            "components": {
                "securitySchemes": {
                    "bearerAuth": { "type": "http", "scheme": "bearer" },
                    "basicAuth": { "type": "http", "scheme": "basic" },
                },
                "schemas": schemas,
            },
        })
    }
}

fn operation(
    route: &RouteSpec,
    io: &RouteIo,
    access: Access,
    placement: &Placement,
    generator: &mut SchemaGenerator,
) -> Value {
    let modeled = io.is_modeled();
    let mut op = Map::new();
    op.insert(
        "operationId".into(),
        classify::operation_id(route.method, route.path).into(),
    );
    op.insert(
        "summary".into(),
        route
            .summary
            .map_or_else(
                || classify::default_summary(route.method, route.path),
                str::to_owned,
            )
            .into(),
    );
    let description = if route.description.is_empty() {
        format!(
            "Declared with #[portos_route]. Source: {}.",
            route.location.file
        )
    } else {
        route.description.to_owned()
    };
    op.insert("description".into(), description.into());
    op.insert("tags".into(), json!([placement.tag]));

    let mut parameters = path_parameters(route, io.path, generator);
    if let Some(query) = io.query {
        parameters.extend(query_parameters(query, generator));
    }
    if !parameters.is_empty() {
        op.insert("parameters".into(), Value::Array(parameters));
    }
    if let Some(request) = io.request {
        op.insert(
            "requestBody".into(),
            json!({ "required": true, "content": { "application/json": { "schema": openapi_schema(request(generator)) } } }),
        );
    }
    op.insert("responses".into(), responses(io, generator));
    let security = if placement.secured {
        json!([{ "bearerAuth": [] }, { "basicAuth": [] }])
    } else {
        json!([])
    };
    op.insert("security".into(), security);
    op.insert(
        "x-portos-contract-status".into(),
        (if modeled { "modeled" } else { "generated" }).into(),
    );
    op.insert(
        "x-portos-mount".into(),
        classify::mount_path(route.path).into(),
    );
    op.insert("x-portos-source".into(), route.location.file.into());
    op.insert(
        "x-portos-access".into(),
        serde_json::to_value(access).unwrap_or(Value::Null),
    );
    op.insert(
        "x-portos-side-effect".into(),
        serde_json::to_value(classify::side_effect(route)).unwrap_or(Value::Null),
    );
    if let Some(tool) = &route.tool {
        op.insert("x-portos-tool".into(), tool_annotation(tool));
    }
    Value::Object(op)
}

/// `x-portos-tool`: `{ name, version, policy: { privacy, sideEffect, async } }`.
pub(super) fn tool_annotation(tool: &super::HttpToolSpec) -> Value {
    json!({
        "name": tool.name,
        "version": tool.version,
        "policy": {
            "privacy": tool.privacy,
            "sideEffect": tool.side_effect,
            "async": tool.is_async,
        },
    })
}

/// The route's `{name}` parameters, each with the schema its extractor
/// declares (a plain string when it declares none).
fn path_parameters(
    route: &RouteSpec,
    path: Option<super::SchemaFn>,
    generator: &mut SchemaGenerator,
) -> Vec<Value> {
    let declared = path.map(|path| inline_schema(path, generator));
    let names: Vec<&str> = route.path_params().collect();
    names
        .iter()
        .map(|&name| {
            let schema = match &declared {
                Some(schema) if schema.get("properties").is_some() => {
                    schema["properties"].get(name).cloned()
                }
                Some(schema) if names.len() == 1 => Some(schema.clone()),
                _ => None,
            };
            let schema = schema.unwrap_or_else(|| json!({ "type": "string" }));
            let mut parameter =
                json!({ "name": name, "in": "path", "required": true, "schema": schema });
            if let Some(description) = parameter["schema"].get("description").cloned() {
                parameter["description"] = description;
            }
            parameter
        })
        .collect()
}

/// `schema`'s JSON with every subschema inlined, so a parameter carries its
/// own rules rather than a reference.
fn inline_schema(schema: super::SchemaFn, generator: &mut SchemaGenerator) -> Value {
    let mut settings = generator.settings().clone();
    settings.inline_subschemas = true;
    let mut transforms = std::mem::take(&mut settings.transforms);
    let mut inline = settings.into_generator();
    let mut schema = schema(&mut inline);
    // A subschema does not get the OpenAPI 3.0 transforms a root schema gets
    // (e.g. `type: [T, null]` → `nullable`), so apply them here.
    for transform in &mut transforms {
        transform.transform(&mut schema);
    }
    schema.to_value()
}

/// A query type's fields as `in: query` parameters (inlined, so each
/// parameter carries its own schema).
fn query_parameters(query: super::SchemaFn, generator: &mut SchemaGenerator) -> Vec<Value> {
    let schema = inline_schema(query, generator);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    let mut parameter = json!({
                        "name": name,
                        "in": "query",
                        "required": required.contains(&name.as_str()),
                        "schema": property,
                    });
                    if let Some(description) = property.get("description") {
                        parameter["description"] = description.clone();
                    }
                    parameter
                })
                .collect()
        })
        .unwrap_or_default()
}

fn responses(io: &RouteIo, generator: &mut SchemaGenerator) -> Value {
    let mut responses = Map::new();
    match io.response {
        Some(response) => {
            responses.insert(
                io.success_status.to_string(),
                json!({
                    "description": "Success",
                    "content": {
                        io.response_media_type.unwrap_or("application/json"): {
                            "schema": openapi_schema(response(generator))
                        }
                    },
                }),
            );
        }
        None if io.is_modeled() => {
            responses.insert(
                io.success_status.to_string(),
                json!({ "description": "Success" }),
            );
        }
        None => {
            responses.insert(
                "default".into(),
                json!({ "description": "Response shape is not yet modeled." }),
            );
        }
    }
    for outcome in &io.outcomes {
        let mut response = json!({ "description": outcome.description });
        if let Some(schema) = outcome.schema {
            response["content"] =
                json!({ "application/json": { "schema": openapi_schema(schema(generator)) } });
        }
        responses.insert(outcome.status.to_string(), response);
    }
    // One response per declared status, listing its codes.
    let mut by_status: std::collections::BTreeMap<u16, Vec<&str>> = Default::default();
    for error in &io.errors {
        by_status.entry(error.status).or_default().push(error.code);
    }
    for (status, codes) in by_status {
        responses.insert(
            status.to_string(),
            json!({
                "description": codes.join(", "),
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PortosError" } } },
                "x-portos-error-codes": codes,
            }),
        );
    }
    Value::Object(responses)
}

/// OpenAPI 3.0 has no boolean schemas: "anything" (`true`, e.g. a
/// `serde_json::Value`) is written `{}`. Definitions get the same treatment
/// from schemars' OpenAPI settings; a top-level subschema does not.
fn openapi_schema(schema: schemars::Schema) -> Value {
    match schema.to_value() {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({ "not": {} }),
        other => other,
    }
}

/// `{ error, code, timestamp, context? }`, the body of every refusal.
fn portos_error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error", "code", "timestamp"],
        "properties": {
            "error": { "type": "string" },
            "code": { "type": "string" },
            "timestamp": { "type": "integer", "description": "Milliseconds since the Unix epoch." },
            "context": { "type": "object", "additionalProperties": true },
        },
    })
}

/// JSON Schema 2020-12's numeric `exclusiveMinimum` / `exclusiveMaximum`
/// (what the request types declare, and what the schema gate enforces) as
/// OpenAPI 3.0 writes them: the bound in `minimum` / `maximum` and the
/// keyword `true`.
#[derive(Clone, Debug)]
struct ExclusiveBoundsAsBooleans;

impl schemars::transform::Transform for ExclusiveBoundsAsBooleans {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        schemars::transform::transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        for (exclusive, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if let Some(value) = object.get(exclusive).filter(|v| v.is_number()).cloned() {
                object.insert(bound.to_owned(), value);
                object.insert(exclusive.to_owned(), Value::Bool(true));
            }
        }
    }
}

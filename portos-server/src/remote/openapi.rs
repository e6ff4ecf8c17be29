//! Remote mode in the internal OpenAPI document: the protected resource
//! metadata's paths, the access token as a security scheme, and on every
//! operation of the remote surface its requirement and the challenges it
//! answers (401, 403, 503 with `WWW-Authenticate` or `Retry-After`). Added
//! only when remote mode is on, so the document is unchanged when it is off.

use serde_json::{Map, Value, json};

use super::{RemoteConfig, Surface, metadata};

/// The security scheme's name in `components.securitySchemes`.
const SCHEME: &str = "remoteAccessToken";

/// What the document says about remote mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RemoteDocs {
    issuer: String,
    resource: String,
    scopes: Vec<String>,
    location: metadata::Location,
}

impl RemoteDocs {
    pub(crate) fn new(config: &RemoteConfig) -> RemoteDocs {
        // A resource that is not a URL was refused when it was configured.
        let location = metadata::location(&config.resource).unwrap_or_default();
        RemoteDocs {
            issuer: config.issuer.clone(),
            resource: config.resource.clone(),
            scopes: config.scopes.scopes().map(str::to_owned).collect(),
            location,
        }
    }

    /// Adds remote mode to an OpenAPI 3.0.3 `document` whose MCP endpoint
    /// and tool routes are at `surface`.
    pub(crate) fn annotate(&self, document: &mut Value, surface: Surface) {
        self.add_scheme(document);
        if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
            for (path, item) in paths.iter_mut() {
                if !surface.covers(path) {
                    continue;
                }
                let Some(operations) = item.as_object_mut() else {
                    continue;
                };
                for (method, operation) in operations.iter_mut() {
                    let denial = match (path.as_str(), method.as_str()) {
                        (endpoint, "post") if endpoint == surface.mcp => Some("INSUFFICIENT_SCOPE"),
                        (call, "post") if call.strip_prefix(surface.tools) == Some("/call") => {
                            Some("TOOL_CAPABILITY_DENIED")
                        }
                        _ => None,
                    };
                    self.annotate_operation(operation, denial);
                }
            }
            for (index, path) in self.location.paths.iter().enumerate() {
                paths.insert(path.clone(), self.metadata_operation(index));
            }
        }
    }

    /// Adds the `subject` of a remote caller's tool-call event (named
    /// `called_event`) to the AsyncAPI document and the event inventory: the
    /// field a server in remote mode may send.
    pub(crate) fn annotate_events(
        &self,
        asyncapi: Option<&mut Value>,
        events: Option<&mut Value>,
        called_event: &str,
    ) {
        if let Some(schema) =
            asyncapi.and_then(|document| document.pointer_mut("/components/schemas/ToolCalled"))
        {
            add_subject(schema);
        }
        if let Some(list) = events
            .and_then(|document| document.get_mut("events"))
            .and_then(Value::as_array_mut)
        {
            for event in list
                .iter_mut()
                .filter(|event| event["event"] == called_event)
            {
                if let Some(schema) = event.pointer_mut("/payloadSchemas/server-to-client") {
                    add_subject(schema);
                }
            }
        }
    }

    fn add_scheme(&self, document: &mut Value) {
        let Some(root) = document.as_object_mut() else {
            return;
        };
        let components = root
            .entry("components")
            .or_insert_with(|| json!({}))
            .as_object_mut();
        let Some(components) = components else {
            return;
        };
        let schemes = components
            .entry("securitySchemes")
            .or_insert_with(|| json!({}));
        if let Some(schemes) = schemes.as_object_mut() {
            schemes.insert(
                SCHEME.to_owned(),
                json!({
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": format!(
                        "Remote mode: an access token (RFC 9068 JWT) from {}, issued for {} (`aud`), with the scopes the call needs ({}). Clients find the issuer in the protected resource metadata: {}",
                        self.issuer,
                        self.resource,
                        self.scopes.join(", "),
                        self.location.url
                    ),
                }),
            );
        }
    }

    fn annotate_operation(&self, operation: &mut Value, denial: Option<&'static str>) {
        let Some(operation) = operation.as_object_mut() else {
            return;
        };
        operation.insert("security".to_owned(), json!([{ SCHEME: [] }]));
        let responses = operation
            .entry("responses")
            .or_insert_with(|| json!({}))
            .as_object_mut();
        let Some(responses) = responses else {
            return;
        };
        challenge(
            responses,
            "401",
            "AUTH_REQUIRED",
            "Remote mode: no access token (the challenge names the protected resource metadata and the scopes), or a refused one (`error=\"invalid_token\"`)",
        );
        if let Some(code) = denial {
            challenge(
                responses,
                "403",
                code,
                "Remote mode: the access token lacks scopes the tool needs (`error=\"insufficient_scope\"`, `scope` naming them)",
            );
        }
        challenge(
            responses,
            "400",
            "INVALID_AUTHORIZATION",
            "Remote mode: a token in the query string, or an Authorization header that is not one Bearer token (`error=\"invalid_request\"`)",
        );
        responses.entry("503").or_insert_with(|| {
            json!({
                "description": "Remote mode: the authorization server's keys cannot be fetched (`AUTHORIZATION_UNAVAILABLE`); try again after `Retry-After`",
                "headers": { "Retry-After": { "schema": { "type": "integer" } } },
                "content": error_content(),
                "x-portos-error-codes": ["AUTHORIZATION_UNAVAILABLE"],
            })
        });
    }

    fn metadata_operation(&self, index: usize) -> Value {
        json!({
            "get": {
                "operationId": format!("get_oauth_protected_resource_{index}"),
                "summary": "Protected resource metadata (RFC 9728)",
                "description": "Remote mode: which resource this is, which authorization server issues its tokens, the scopes it knows and how tokens are presented. Served without credentials; every challenge's `resource_metadata` names it.",
                "tags": ["oauth"],
                "security": [],
                "responses": {
                    "200": {
                        "description": "The metadata",
                        "content": { "application/json": { "schema": metadata_schema() } },
                    }
                },
            }
        })
    }
}

/// Adds a challenge to `responses[status]` (creating it with the contract's
/// error body when the operation had none): the `WWW-Authenticate` header,
/// the code, and a sentence.
fn challenge(responses: &mut Map<String, Value>, status: &str, code: &str, description: &str) {
    let response = responses.entry(status).or_insert_with(|| {
        json!({
            "description": code,
            "content": error_content(),
            "x-portos-error-codes": [],
        })
    });
    let Some(response) = response.as_object_mut() else {
        return;
    };
    let sentence = response
        .get("description")
        .and_then(Value::as_str)
        .map_or_else(
            || description.to_owned(),
            |before| format!("{before}. {description}"),
        );
    response.insert("description".to_owned(), Value::String(sentence));
    let headers = response.entry("headers").or_insert_with(|| json!({}));
    if let Some(headers) = headers.as_object_mut() {
        headers.insert(
            "WWW-Authenticate".to_owned(),
            json!({
                "description": "A Bearer challenge (RFC 6750, RFC 9728): `resource_metadata`, and `scope`, `error`, `error_description` as they apply",
                "schema": { "type": "string" },
            }),
        );
    }
    if let Some(codes) = response
        .get_mut("x-portos-error-codes")
        .and_then(Value::as_array_mut)
        && !codes.iter().any(|known| known == code)
    {
        codes.push(Value::String(code.to_owned()));
    }
}

/// The optional `subject` property of a tool-call event's payload.
fn add_subject(schema: &mut Value) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert(
            "subject".to_owned(),
            json!({
                "type": "string",
                "description": "Remote mode: whom the caller's access token names (its `sub`); absent for a local caller",
            }),
        );
    }
}

fn error_content() -> Value {
    json!({ "application/json": { "schema": { "$ref": "#/components/schemas/PortosError" } } })
}

fn metadata_schema() -> Value {
    let list = json!({ "type": "array", "items": { "type": "string" } });
    json!({
        "type": "object",
        "required": ["resource", "authorization_servers", "scopes_supported", "bearer_methods_supported"],
        "properties": {
            "resource": { "type": "string", "description": "This server's resource identifier (RFC 8707)" },
            "authorization_servers": list,
            "scopes_supported": list,
            "bearer_methods_supported": list,
            "resource_name": { "type": "string" },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::RemoteSettings;

    #[test]
    fn only_the_surface_is_annotated() {
        let config = RemoteSettings {
            issuer: Some("https://as.example".to_owned()),
            resource: Some("https://tools.example/mcp".to_owned()),
            scopes: Some("r=readPortos".to_owned()),
            clock_skew_seconds: None,
        }
        .resolve()
        .expect("valid")
        .expect("on");
        let mut document = json!({
            "openapi": "3.0.3",
            "paths": {
                "/mcp": { "post": { "responses": { "403": { "description": "MCP_LOCAL_ONLY", "x-portos-error-codes": ["MCP_LOCAL_ONLY"] } } } },
                "/api/tools/call": { "post": { "responses": {} } },
                "/api/toolsmith": { "get": { "responses": {} } },
                "/api/settings/mcp": { "get": { "responses": {} } },
            },
        });
        RemoteDocs::new(&config).annotate(
            &mut document,
            Surface {
                mcp: "/mcp",
                tools: "/api/tools",
            },
        );
        let paths = &document["paths"];
        assert_eq!(paths["/mcp"]["post"]["security"], json!([{ SCHEME: [] }]));
        assert_eq!(
            paths["/mcp"]["post"]["responses"]["403"]["x-portos-error-codes"],
            json!(["MCP_LOCAL_ONLY", "INSUFFICIENT_SCOPE"])
        );
        assert_eq!(
            paths["/api/tools/call"]["post"]["responses"]["403"]["x-portos-error-codes"],
            json!(["TOOL_CAPABILITY_DENIED"])
        );
        assert!(
            paths["/api/tools/call"]["post"]["responses"]["401"]["headers"]["WWW-Authenticate"]
                .is_object()
        );
        assert!(paths["/api/toolsmith"]["get"].get("security").is_none());
        assert!(paths["/api/settings/mcp"]["get"].get("security").is_none());
        assert!(paths["/.well-known/oauth-protected-resource/mcp"]["get"].is_object());
        assert!(paths["/.well-known/oauth-protected-resource"]["get"].is_object());
        assert_eq!(
            document["components"]["securitySchemes"][SCHEME]["bearerFormat"],
            "JWT"
        );
    }
}

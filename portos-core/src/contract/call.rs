//! The strict `portos_tool_call` envelope (docs/reference.md#call-envelope).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ErrorCode, SCHEMA_VERSION, ToolError};

/// The longest `requestId`, in characters after trimming
/// (docs/reference.md#call-envelope).
pub const REQUEST_ID_MAX_CHARS: usize = 200;
const NAME_MAX_CHARS: usize = 100;
const KNOWN_KEYS: [&str; 5] = ["type", "requestId", "name", "version", "arguments"];

/// A parsed, trimmed, checked call. Nothing in it names a scope, principal or
/// capability: those are derived by the server from where the call came in.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// `requestId`, trimmed: names the call for replays and lookups.
    pub request_id: String,
    /// `name`, trimmed: the tool as the caller named it (canonical, provider
    /// name or alias).
    pub name: String,
    /// `version`: always [`SCHEMA_VERSION`](super::SCHEMA_VERSION), the only one
    /// accepted.
    pub version: u32,
    /// `arguments`: the tool's input object (`{}` when absent), not yet checked
    /// against its schema.
    pub arguments: Map<String, Value>,
}

/// One field that failed the envelope rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldIssue {
    /// The key at fault (`requestId`, `name`, ...); empty for the envelope itself.
    pub path: String,
    /// What is wrong, worded as the contract's validation messages are.
    pub message: String,
}

impl FieldIssue {
    fn new(path: &str, message: impl Into<String>) -> FieldIssue {
        FieldIssue {
            path: path.to_owned(),
            message: message.into(),
        }
    }
}

/// The envelope did not parse; every issue is listed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("Validation failed")]
pub struct ValidationFailure {
    /// One issue per broken rule, answered as the error's `details`.
    pub details: Vec<FieldIssue>,
}

impl From<ValidationFailure> for ToolError {
    /// The generic PortOS `VALIDATION_ERROR` with `details`, as the HTTP route answers it.
    fn from(error: ValidationFailure) -> ToolError {
        let details = serde_json::to_value(&error.details).unwrap_or(Value::Null);
        ToolError::new(ErrorCode::ValidationError, "Validation failed")
            .with_context("details", details)
    }
}

impl ToolCall {
    /// A call built by the server itself (MCP, Persistent Mind, recipe children).
    pub fn new(
        request_id: impl Into<String>,
        name: impl Into<String>,
        arguments: Map<String, Value>,
    ) -> ToolCall {
        ToolCall {
            request_id: request_id.into(),
            name: name.into(),
            version: SCHEMA_VERSION,
            arguments,
        }
    }

    /// Parses a request body strictly, collecting every issue.
    pub fn parse(body: &Value) -> Result<ToolCall, ValidationFailure> {
        let Some(object) = body.as_object() else {
            return Err(ValidationFailure {
                details: vec![FieldIssue::new(
                    "",
                    format!("Expected object, received {}", json_type(body)),
                )],
            });
        };
        let mut details = Vec::new();

        let unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|key| !KNOWN_KEYS.contains(key))
            .collect();
        if !unknown.is_empty() {
            let keys = unknown
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ");
            details.push(FieldIssue::new(
                "",
                format!("Unrecognized key(s) in object: {keys}"),
            ));
        }

        match object.get("type") {
            None => {}
            Some(Value::String(t)) if t == "portos_tool_call" => {}
            Some(_) => details.push(FieldIssue::new(
                "type",
                "Invalid literal value, expected \"portos_tool_call\"",
            )),
        }

        let request_id = match object.get("requestId") {
            Some(value) => match check_request_id(value) {
                Ok(id) => Some(id),
                Err(issue) => {
                    details.push(issue);
                    None
                }
            },
            None => {
                details.push(FieldIssue::new("requestId", "Required"));
                None
            }
        };

        let name = match object.get("name") {
            Some(Value::String(raw)) => match name_of(raw) {
                Ok(name) => Some(name),
                Err(issue) => {
                    details.push(issue);
                    None
                }
            },
            Some(other) => {
                details.push(FieldIssue::new(
                    "name",
                    format!("Expected string, received {}", json_type(other)),
                ));
                None
            }
            None => {
                details.push(FieldIssue::new("name", "Required"));
                None
            }
        };

        match object.get("version") {
            None => {}
            Some(Value::Number(n)) if n.as_f64() == Some(f64::from(SCHEMA_VERSION)) => {}
            Some(_) => details.push(FieldIssue::new(
                "version",
                format!(
                    "Invalid literal value, expected {SCHEMA_VERSION}; future versions are rejected"
                ),
            )),
        }

        let arguments = match object.get("arguments") {
            None => Some(Map::new()),
            Some(Value::Object(map)) => Some(map.clone()),
            Some(other) => {
                details.push(FieldIssue::new(
                    "arguments",
                    format!("Expected object, received {}", json_type(other)),
                ));
                None
            }
        };

        match (request_id, name, arguments) {
            (Some(request_id), Some(name), Some(arguments)) if details.is_empty() => Ok(ToolCall {
                request_id,
                name,
                version: SCHEMA_VERSION,
                arguments,
            }),
            _ => Err(ValidationFailure { details }),
        }
    }
}

/// Why a request body is not a call: not JSON at all, or JSON that breaks
/// the envelope's rules.
#[derive(Debug, thiserror::Error)]
pub enum BodyRefusal {
    /// The body is not JSON.
    #[error("malformed JSON: {0}")]
    Malformed(#[from] serde_json::Error),
    /// The body is JSON but not a valid envelope.
    #[error(transparent)]
    Invalid(#[from] ValidationFailure),
}

/// The envelope of the common case, read in place from the body: every key
/// known (any other is an error), each of the right JSON type. A body that
/// does not fit it exactly goes the long way, [`ToolCall::parse`] of the
/// parsed JSON, which lists every issue.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    // `present` keeps a `null` from reading as "absent": `null` is an error
    // for every one of these keys, so it must fail here too.
    #[serde(rename = "type", default, borrow, deserialize_with = "present")]
    kind: Option<&'a str>,
    #[serde(rename = "requestId", borrow)]
    request_id: &'a str,
    #[serde(borrow)]
    name: &'a str,
    #[serde(default, deserialize_with = "present")]
    version: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    arguments: Option<Map<String, Value>>,
}

fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

impl ToolCall {
    /// Parses a request body's bytes: exactly the answer of
    /// [`ToolCall::parse`] on the JSON they hold (malformed JSON is
    /// [`BodyRefusal::Malformed`]). A valid envelope is read straight into
    /// its fields, without building a JSON tree for it first (what a tool
    /// call over HTTP costs, profiled, was largely such trees); anything
    /// else, escapes in a string included, takes the tree path, so every
    /// refusal is worded and listed as before.
    pub fn parse_slice(body: &[u8]) -> Result<ToolCall, BodyRefusal> {
        if let Some(call) = Self::parse_common(body) {
            return Ok(call);
        }
        let value: Value = serde_json::from_slice(body)?;
        Ok(ToolCall::parse(&value)?)
    }

    /// The common case, or `None` when the body needs the full rules.
    fn parse_common(body: &[u8]) -> Option<ToolCall> {
        // serde reads a struct from an array too; the envelope is an object.
        if body.trim_ascii_start().first() != Some(&b'{') {
            return None;
        }
        let envelope: Envelope<'_> = serde_json::from_slice(body).ok()?;
        if envelope.kind.is_some_and(|kind| kind != "portos_tool_call")
            || envelope
                .version
                .is_some_and(|version| version != f64::from(SCHEMA_VERSION))
        {
            return None;
        }
        let request_id = request_id_of(envelope.request_id).ok()?;
        let name = name_of(envelope.name).ok()?;
        Some(ToolCall {
            request_id,
            name,
            version: SCHEMA_VERSION,
            arguments: envelope.arguments.unwrap_or_default(),
        })
    }
}

/// The `name` rule: trimmed, then 1..=100 characters of letters, digits,
/// `.`, `_` and `-`.
fn name_of(raw: &str) -> Result<String, FieldIssue> {
    let name = raw.trim();
    if name.is_empty() {
        Err(FieldIssue::new(
            "name",
            "String must contain at least 1 character(s)",
        ))
    } else if name.chars().count() > NAME_MAX_CHARS {
        Err(FieldIssue::new(
            "name",
            format!("String must contain at most {NAME_MAX_CHARS} character(s)"),
        ))
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        Err(FieldIssue::new(
            "name",
            "name contains unsupported characters",
        ))
    } else {
        Ok(name.to_owned())
    }
}

/// The `requestId` rule, shared with `GET /calls/:requestId`: trimmed, then
/// 1..=200 characters of letters, digits, `.`, `_`, `:` and `-`.
pub fn check_request_id(value: &Value) -> Result<String, FieldIssue> {
    let Value::String(raw) = value else {
        return Err(FieldIssue::new(
            "requestId",
            format!("Expected string, received {}", json_type(value)),
        ));
    };
    request_id_of(raw)
}

/// [`check_request_id`] of a string.
fn request_id_of(raw: &str) -> Result<String, FieldIssue> {
    let id = raw.trim();
    if id.is_empty() {
        return Err(FieldIssue::new(
            "requestId",
            "String must contain at least 1 character(s)",
        ));
    }
    if id.chars().count() > REQUEST_ID_MAX_CHARS {
        return Err(FieldIssue::new(
            "requestId",
            format!("String must contain at most {REQUEST_ID_MAX_CHARS} character(s)"),
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
    {
        return Err(FieldIssue::new(
            "requestId",
            "requestId contains unsupported characters",
        ));
    }
    Ok(id.to_owned())
}

/// A JSON value's type as the contract's validation messages name it
/// ("Expected object, received array").
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The envelope as it travels, described beside the rules [`ToolCall::parse`]
/// applies (the same limits), for the documents.
impl schemars::JsonSchema for ToolCall {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ToolCall".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The `portos_tool_call` envelope. Unknown keys are refused.",
            "type": "object",
            "required": ["requestId", "name"],
            "properties": {
                "type": {
                    "description": "`\"portos_tool_call\"` (the default).",
                    "type": "string",
                    "enum": ["portos_tool_call"],
                },
                "requestId": {
                    "description": "1–200 of letters, digits, `.`, `_`, `:` and `-` after trimming.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": REQUEST_ID_MAX_CHARS,
                    "pattern": "^\\s*[A-Za-z0-9._:-]+\\s*$",
                },
                "name": {
                    "description": "Canonical name, provider name or alias: 1–100 of `[A-Za-z0-9._-]`.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": NAME_MAX_CHARS,
                    "pattern": "^\\s*[A-Za-z0-9._-]+\\s*$",
                },
                "version": {
                    "description": "Only 1 is accepted (the default).",
                    "type": "integer",
                    "minimum": SCHEMA_VERSION,
                    "maximum": SCHEMA_VERSION,
                },
                "arguments": {
                    "description": "The tool's arguments; `{}` when omitted.",
                    "type": "object",
                    "additionalProperties": true,
                },
            },
            "additionalProperties": false,
        })
    }
}

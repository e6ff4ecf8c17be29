//! Strict JSON-RPC 2.0 messages as the MCP transports accept them
//! (docs/reference.md#mcp-transport step 7): one message per body or line,
//! never a batch; `jsonrpc` exactly `"2.0"`; an `id` that is a string of at
//! most 200 characters or a finite number; a `method` of 1 to 120 characters;
//! `params` an object when present; no other keys.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value, json};

use super::request_meta::RequestMeta;

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;

const MAX_ID_CHARS: usize = 200;
const MAX_METHOD_CHARS: usize = 120;
/// A `tools/call` names its tool in 1 to this many characters.
pub(crate) const MAX_TOOL_NAME_CHARS: usize = 120;

/// One accepted message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Message {
    /// A call that expects an answer.
    Request {
        id: Value,
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// A `tools/call` request whose params are only a valid `name`, an
    /// `arguments` object and a `_meta` object, read straight into them:
    /// the message an agent sends most. It means exactly what the same
    /// `Request` with those params would.
    ToolCall { id: Value, call: CallParams },
    /// A call without an id: nothing is answered.
    Notification { method: String },
    /// An answer from the client to one of this server's requests: its
    /// `result`, or its `error`.
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
}

/// The params of a [`Message::ToolCall`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CallParams {
    /// 1 to [`MAX_TOOL_NAME_CHARS`] characters.
    pub name: String,
    pub arguments: Option<Map<String, Value>>,
    pub meta: Option<RequestMeta>,
}

impl Message {
    /// The message with its params as a map, whatever its method: the
    /// `Request` the general path reads (the tests compare the two paths
    /// through it).
    #[cfg(test)]
    pub(crate) fn into_general(self) -> Message {
        let Message::ToolCall { id, call } = self else {
            return self;
        };
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::String(call.name));
        if let Some(arguments) = call.arguments {
            params.insert("arguments".to_owned(), Value::Object(arguments));
        }
        if let Some(meta) = call.meta {
            params.insert("_meta".to_owned(), Value::Object(meta.into_map()));
        }
        Message::Request {
            id,
            method: "tools/call".to_owned(),
            params: Some(params),
        }
    }
}

/// Why a body is not a message, as the JSON-RPC error to send back (id null).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejected {
    pub code: i64,
    pub message: &'static str,
}

impl Rejected {
    pub(crate) fn to_response(&self) -> Value {
        error_response(&Value::Null, self.code, self.message)
    }
}

/// Parses the bytes of one message.
pub(crate) fn parse(bytes: &[u8]) -> Result<Message, Rejected> {
    if let Some(request) = parse_request(bytes) {
        return Ok(request);
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|_| Rejected {
        code: PARSE_ERROR,
        message: "Parse error",
    })?;
    classify(value)
}

/// Classifies a parsed value; anything that is not exactly one valid message
/// (batches included) is an invalid request.
pub(crate) fn classify(value: Value) -> Result<Message, Rejected> {
    let invalid = Rejected {
        code: INVALID_REQUEST,
        message: "Invalid JSON-RPC message",
    };
    let Value::Object(mut object) = value else {
        return Err(invalid);
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".to_owned())) {
        return Err(invalid);
    }
    let id = object.remove("id");
    if let Some(id) = &id
        && !valid_id(id)
    {
        return Err(invalid);
    }
    if let Some(method) = object.get("method") {
        let Some(method) = method.as_str() else {
            return Err(invalid);
        };
        let chars = method.chars().count();
        if chars == 0 || chars > MAX_METHOD_CHARS {
            return Err(invalid);
        }
        let method = method.to_owned();
        let params = match object.remove("params") {
            None => None,
            Some(Value::Object(params)) => Some(params),
            Some(_) => return Err(invalid),
        };
        if object.keys().any(|key| key != "jsonrpc" && key != "method") {
            return Err(invalid);
        }
        return Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method },
        });
    }
    // A response: an id, and exactly one of result or error.
    if id.is_none() {
        return Err(invalid);
    }
    let has_result = object.contains_key("result");
    let error_ok = match object.get("error") {
        None => false,
        Some(Value::Object(error)) => {
            error.get("code").is_some_and(Value::is_i64)
                && error.get("message").is_some_and(Value::is_string)
        }
        Some(_) => return Err(invalid),
    };
    if has_result == error_ok
        || object
            .keys()
            .any(|key| !matches!(key.as_str(), "jsonrpc" | "result" | "error"))
    {
        return Err(invalid);
    }
    let (Some(id), outcome) = (
        id,
        match object.remove("result") {
            Some(result) => Ok(result),
            None => Err(object.remove("error").unwrap_or_default()),
        },
    ) else {
        return Err(invalid);
    };
    Ok(Message::Response { id, outcome })
}

/// The usual message, a valid request, read straight into its parts
/// rather than through a tree of the whole body (a fifth of an MCP call's
/// cost went there), and a `tools/call`'s params into theirs, in the same
/// pass. Anything else, or anything unusual (a repeated or unknown key, a
/// `null` where a value must be), is `None`, for the general path to accept
/// or refuse exactly as it always has.
fn parse_request(bytes: &[u8]) -> Option<Message> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Request<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        #[serde(default)]
        id: Present,
        #[serde(borrow)]
        method: Cow<'a, str>,
        #[serde(default)]
        params: PresentParams,
    }
    let request: Request<'_> = serde_json::from_slice(bytes).ok()?;
    let id = request.id.0.filter(valid_id)?;
    let chars = request.method.chars().count();
    if request.jsonrpc != "2.0" || chars == 0 || chars > MAX_METHOD_CHARS {
        return None;
    }
    let params = match (request.method == "tools/call", request.params.0) {
        (
            true,
            Some(Params::Call {
                name: Some(Value::String(name)),
                arguments,
                meta,
            }),
        ) if valid_tool_name(&name) && arguments.as_ref().is_none_or(Value::is_object) => {
            let call = CallParams {
                name,
                arguments: into_object(arguments),
                meta,
            };
            return Some(Message::ToolCall { id, call });
        }
        (_, params) => params.map(Params::into_map),
    };
    Some(Message::Request {
        id,
        method: request.method.into_owned(),
        params,
    })
}

/// `tools/call`'s rule for a tool's name (1 to [`MAX_TOOL_NAME_CHARS`]
/// characters), on both paths.
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME_CHARS).contains(&name.chars().count())
}

fn into_object(value: Option<Value>) -> Option<Map<String, Value>> {
    match value {
        Some(Value::Object(object)) => Some(object),
        _ => None,
    }
}

/// A request's params as the quick path reads them: the keys of a
/// `tools/call` (each at most once) in their places, any other object as a
/// map. Anything but an object (`null` included), or a `_meta` that is not
/// one, fails the quick parse.
enum Params {
    Call {
        name: Option<Value>,
        arguments: Option<Value>,
        meta: Option<RequestMeta>,
    },
    Map(Map<String, Value>),
}

impl Params {
    fn into_map(self) -> Map<String, Value> {
        match self {
            Params::Map(map) => map,
            Params::Call {
                name,
                arguments,
                meta,
            } => {
                let meta = meta.map(|meta| Value::Object(meta.into_map()));
                let mut map = Map::new();
                for (key, value) in [("name", name), ("arguments", arguments), ("_meta", meta)] {
                    if let Some(value) = value {
                        map.insert(key.to_owned(), value);
                    }
                }
                map
            }
        }
    }
}

/// The params when the key is there (`null` fails the quick parse, where
/// `Option` alone would read it as absent).
#[derive(Default)]
struct PresentParams(Option<Params>);

impl<'de> Deserialize<'de> for PresentParams {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<PresentParams, D::Error> {
        deserializer
            .deserialize_map(ParamsVisitor)
            .map(|params| PresentParams(Some(params)))
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Params, A::Error> {
        let (mut name, mut arguments, mut meta) = (None, None, None);
        while let Some(key) = access.next_key::<ParamsKey>()? {
            match key {
                ParamsKey::Name if name.is_none() => name = Some(access.next_value()?),
                ParamsKey::Arguments if arguments.is_none() => {
                    arguments = Some(access.next_value()?);
                }
                ParamsKey::Meta if meta.is_none() => meta = Some(access.next_value()?),
                key => {
                    return read_as_map(
                        access,
                        key,
                        Params::Call {
                            name,
                            arguments,
                            meta,
                        },
                    );
                }
            }
        }
        Ok(Params::Call {
            name,
            arguments,
            meta,
        })
    }
}

/// Another key, or one repeated: the rest of the params is read as any
/// object is (a repeated key's last value wins).
fn read_as_map<'de, A: MapAccess<'de>>(
    mut access: A,
    key: ParamsKey,
    read: Params,
) -> Result<Params, A::Error> {
    let mut map = read.into_map();
    map.insert(key.into_string(), access.next_value()?);
    while let Some((key, value)) = access.next_entry()? {
        map.insert(key, value);
    }
    Ok(Params::Map(map))
}

/// A key of the params, the keys of a `tools/call` known without copying.
enum ParamsKey {
    Name,
    Arguments,
    Meta,
    Other(String),
}

impl ParamsKey {
    fn into_string(self) -> String {
        match self {
            ParamsKey::Name => "name".to_owned(),
            ParamsKey::Arguments => "arguments".to_owned(),
            ParamsKey::Meta => "_meta".to_owned(),
            ParamsKey::Other(key) => key,
        }
    }
}

impl<'de> Deserialize<'de> for ParamsKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ParamsKey, D::Error> {
        deserializer.deserialize_str(ParamsKeyVisitor)
    }
}

struct ParamsKeyVisitor;

impl Visitor<'_> for ParamsKeyVisitor {
    type Value = ParamsKey;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<ParamsKey, E> {
        Ok(match key {
            "name" => ParamsKey::Name,
            "arguments" => ParamsKey::Arguments,
            "_meta" => ParamsKey::Meta,
            other => ParamsKey::Other(other.to_owned()),
        })
    }
}

/// A key's value when the key is there, `null` included (`Option` alone
/// would read `null` as absent).
#[derive(Default)]
struct Present(Option<Value>);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Present, D::Error> {
        Value::deserialize(deserializer).map(|value| Present(Some(value)))
    }
}

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(text) => text.chars().count() <= MAX_ID_CHARS,
        // serde_json numbers are always finite.
        Value::Number(_) => true,
        _ => false,
    }
}

pub(crate) fn result_response(id: &Value, result: Value) -> Value {
    let mut out = Map::new();
    out.insert("jsonrpc".to_owned(), json!("2.0"));
    out.insert("id".to_owned(), id.clone());
    out.insert("result".to_owned(), result);
    Value::Object(out)
}

pub(crate) fn error_response(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_value(value: &Value) -> Result<Message, Rejected> {
        parse(value.to_string().as_bytes())
    }

    #[test]
    fn requests_notifications_and_responses() {
        assert!(matches!(
            parse_value(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            parse_value(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Ok(Message::Notification { .. })
        ));
        assert_eq!(
            parse_value(&json!({"jsonrpc": "2.0", "id": "a", "result": {}})),
            Ok(Message::Response {
                id: json!("a"),
                outcome: Ok(json!({}))
            })
        );
        assert_eq!(
            parse_value(
                &json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}})
            ),
            Ok(Message::Response {
                id: json!("a"),
                outcome: Err(json!({"code": -1, "message": "x"}))
            })
        );
    }

    #[test]
    fn the_quick_path_reads_a_request_as_the_general_path_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"time_now","arguments":{}}}"#,
            r#"{"params":{"a":[1,{"b":null}]},"method":"ping","id":"x\"y","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":-1.5e3,"method":"m\u00e9thode"}"#,
            r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"_meta":{"v":"x"},"arguments":{"a":[1]},"name":"t\u00e9"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#,
            // Left to the general path's reading of the params.
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","name":"y"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"name":"x"}}"#,
        ] {
            let quick = parse_request(text.as_bytes()).expect("a request");
            let value: Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(Ok(quick.into_general()), classify(value), "{text}");
        }
        // What it leaves to the general path, which answers as it always did.
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#,
        ] {
            assert!(parse_request(text.as_bytes()).is_none(), "{text}");
        }
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#),
            Ok(Message::Request { method, .. }) if method == "b"
        ));
    }

    /// Exactly the valid, plain `tools/call` params are read into their
    /// parts; the rest is a general request, for the method to judge.
    #[test]
    fn a_tool_call_is_read_into_its_params_only_when_they_are_valid() {
        let call = |params: &str| {
            parse(
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
                    .as_bytes(),
            )
            .expect("a message")
        };
        assert_eq!(
            call(r#"{"name":"time_now","arguments":{"a":1},"_meta":{}}"#),
            Message::ToolCall {
                id: json!(1),
                call: CallParams {
                    name: "time_now".to_owned(),
                    arguments: json!({"a": 1}).as_object().cloned(),
                    meta: Some(RequestMeta::Other(Map::new())),
                },
            }
        );
        let long = format!(r#"{{"name":"{}"}}"#, "n".repeat(MAX_TOOL_NAME_CHARS));
        assert!(matches!(call(&long), Message::ToolCall { .. }));
        let too_long = format!(r#"{{"name":"{}"}}"#, "n".repeat(MAX_TOOL_NAME_CHARS + 1));
        for general in [
            too_long.as_str(),
            r#"{"name":""}"#,
            r#"{"name":1}"#,
            r#"{"arguments":{}}"#,
            r#"{"name":"x","arguments":[]}"#,
            r#"{"name":"x","arguments":null}"#,
            r#"{"name":"x","_meta":null}"#,
            r#"{"name":"x","task":{}}"#,
            r#"{"name":"x","other":1}"#,
        ] {
            assert!(
                matches!(call(general), Message::Request { .. }),
                "{general}"
            );
        }
    }

    #[test]
    fn refuses_everything_else() {
        for bad in [
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
            json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
            json!({"id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": true, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": "x".repeat(201), "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": ""}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "m".repeat(121)}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "extra": 1}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
            json!({"jsonrpc": "2.0", "result": {}}),
            json!("ping"),
        ] {
            assert_eq!(
                parse_value(&bad).map_err(|r| r.code),
                Err(INVALID_REQUEST),
                "{bad}"
            );
        }
        assert_eq!(parse(b"{not json").map_err(|r| r.code), Err(PARSE_ERROR));
    }
}

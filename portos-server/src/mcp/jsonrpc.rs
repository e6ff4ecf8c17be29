//! Strict JSON-RPC 2.0 messages as the MCP transports accept them
//! (docs/reference.md#mcp-transport step 7): one message per body or line,
//! never a batch; `jsonrpc` exactly `"2.0"`; an `id` that is a string of at
//! most 200 characters or a finite number; a `method` of 1 to 120 characters;
//! `params` an object when present; no other keys.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

const MAX_ID_CHARS: usize = 200;
const MAX_METHOD_CHARS: usize = 120;

/// One accepted message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A call that expects an answer.
    Request {
        id: Value,
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// A call without an id: nothing is answered.
    Notification { method: String },
    /// An answer from the client (we never ask, so it is only acknowledged).
    Response,
}

/// Why a body is not a message, as the JSON-RPC error to send back (id null).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub code: i64,
    pub message: &'static str,
}

impl Rejected {
    pub fn to_response(&self) -> Value {
        error_response(&Value::Null, self.code, self.message)
    }
}

/// Parses the bytes of one message.
pub fn parse(bytes: &[u8]) -> Result<Message, Rejected> {
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
pub fn classify(value: Value) -> Result<Message, Rejected> {
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
    Ok(Message::Response)
}

/// The usual message, a valid request, read straight into its parts
/// rather than through a tree of the whole body (a fifth of an MCP call's
/// cost went there). Anything else, or anything unusual (a repeated or
/// unknown key, a `null` where a value must be), is `None`, for the
/// general path to accept or refuse exactly as it always has.
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
        params: Present,
    }
    let request: Request<'_> = serde_json::from_slice(bytes).ok()?;
    let id = request.id.0.filter(valid_id)?;
    let chars = request.method.chars().count();
    if request.jsonrpc != "2.0" || chars == 0 || chars > MAX_METHOD_CHARS {
        return None;
    }
    let params = match request.params.0 {
        None => None,
        Some(Value::Object(params)) => Some(params),
        Some(_) => return None,
    };
    Some(Message::Request {
        id,
        method: request.method.into_owned(),
        params,
    })
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

pub fn result_response(id: &Value, result: Value) -> Value {
    let mut out = Map::new();
    out.insert("jsonrpc".to_owned(), json!("2.0"));
    out.insert("id".to_owned(), id.clone());
    out.insert("result".to_owned(), result);
    Value::Object(out)
}

pub fn error_response(id: &Value, code: i64, message: &str) -> Value {
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
            Ok(Message::Response)
        );
        assert_eq!(
            parse_value(
                &json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}})
            ),
            Ok(Message::Response)
        );
    }

    #[test]
    fn the_quick_path_reads_a_request_as_the_general_path_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"time_now","arguments":{}}}"#,
            r#"{"params":{"a":[1,{"b":null}]},"method":"ping","id":"x\"y","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":-1.5e3,"method":"m\u00e9thode"}"#,
        ] {
            let quick = parse_request(text.as_bytes()).expect("a request");
            let value: Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(Ok(quick), classify(value), "{text}");
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

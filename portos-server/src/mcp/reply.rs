//! A `tools/call` result written as its JSON-RPC response
//! (docs/reference.md#mcp-results).
//!
//! A tool's output is kept as the JSON text it was written as once: the
//! response carries it twice, as the `content` text (escaped as a JSON
//! string) and as `structuredContent`. Building a `Value` tree to write it
//! twice cost more than the call it reports, and escaping it byte by byte
//! cost more than the rest of the response (see docs/benchmarks.md, "What an
//! MCP call adds").

use portos_core::{InputKind, ToolResult};
use serde::Serialize;
use serde_json::Value;

use super::context_tools::cap;

/// Error texts are cut to this many characters.
const MAX_ERROR_CHARS: usize = 500;

/// What a `tools/call` answers, before it is written.
#[derive(Debug)]
pub(crate) enum ToolReply {
    /// `output` is a JSON object's text, as serde_json wrote it.
    Structured { output: Vec<u8>, is_error: bool },
    /// A tool whose output is content items (`ToolContent`): they are the
    /// `content`, and the envelope (`output`) the structured content.
    Content { items: Vec<u8>, output: Vec<u8> },
    /// A refusal: only a text, always `isError`.
    Refused(String),
    /// The tool needs the client to answer questions of these kinds, and
    /// it did not declare it can: a JSON-RPC error (-32021), nothing ran.
    MissingCapability(Vec<InputKind>),
    /// The tool's job must be followed as a task (`requires_client =
    /// ["tasks"]`) and the request did not ask for one: -32021 naming the
    /// tasks extension at 2026-07-28, -32601 at the 2025 revisions (whose
    /// tasks a client asks for per call); nothing ran.
    TaskRequired,
}

/// The request needs a client capability it did not declare (SEP-2575).
pub(crate) const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// The error of a call whose client lacks `missing`: its code, message and
/// `data.requiredCapabilities`.
pub(super) fn missing_capability_error(missing: &[InputKind]) -> (i64, String, Value) {
    let mut required = serde_json::Map::new();
    for kind in missing {
        required.insert(
            kind.as_str().to_owned(),
            Value::Object(serde_json::Map::new()),
        );
    }
    missing_required(Value::Object(required))
}

/// The 2026-07-28 error of a call to a tool whose job must be followed, from
/// a request that did not declare the tasks extension.
pub(super) fn task_required_error() -> (i64, String, Value) {
    missing_required(serde_json::json!({
        "extensions": { super::tasks::TASKS_EXTENSION: {} }
    }))
}

fn missing_required(required: Value) -> (i64, String, Value) {
    let mut data = serde_json::Map::new();
    data.insert("requiredCapabilities".to_owned(), required);
    (
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability".to_owned(),
        Value::Object(data),
    )
}

impl ToolReply {
    /// The JSON-RPC error this reply is instead of a result, at 2026-07-28
    /// (`modern`) or the 2025 revisions: its code, message and data.
    pub(crate) fn as_error(&self, modern: bool) -> Option<(i64, String, Option<Value>)> {
        match self {
            ToolReply::MissingCapability(missing) => {
                let (code, message, data) = missing_capability_error(missing);
                Some((code, message, Some(data)))
            }
            ToolReply::TaskRequired if modern => {
                let (code, message, data) = task_required_error();
                Some((code, message, Some(data)))
            }
            ToolReply::TaskRequired => Some((
                super::jsonrpc::METHOD_NOT_FOUND,
                "This tool must be called as a task".to_owned(),
                None,
            )),
            _ => None,
        }
    }
}

/// The `_meta` of a 2026-07-28 result: who answers (see
/// [`super::modern::SERVER_INFO_KEY`]). Typed, as it is written on every
/// call: building it as a `Value` and writing that cost more than the
/// rest of the response.
#[derive(Debug, Default, Serialize)]
pub(crate) struct ResultMeta<'a> {
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<ServerInfo<'a>>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ServerInfo<'a> {
    pub name: &'a str,
    pub version: &'a str,
}

/// A refusal as a tool result, its text cut to [`MAX_ERROR_CHARS`].
pub(super) fn error_result(message: &str) -> ToolReply {
    ToolReply::Refused(cap(message, MAX_ERROR_CHARS))
}

/// The first allocation for a result envelope's JSON text: a `time.now`
/// envelope is about 380 bytes (growing from serde_json's default 128
/// bytes copied it three times).
const ENVELOPE_BYTES: usize = 512;

impl ToolReply {
    /// `output` written as the structured content.
    pub(super) fn structured(output: &impl Serialize, is_error: bool) -> ToolReply {
        let mut text = Vec::with_capacity(ENVELOPE_BYTES);
        match serde_json::to_writer(&mut text, output) {
            Ok(()) => ToolReply::Structured {
                output: text,
                is_error,
            },
            Err(error) => error_result(&format!("The result could not be written: {error}")),
        }
    }

    /// A tool's result (`envelope` is how it is written: the result, or a
    /// replay's answer around it): content items when the tool answers
    /// them (`content_output`) and completed, else the envelope as text.
    pub(super) fn of_result(
        envelope: &impl Serialize,
        result: &ToolResult,
        content_output: bool,
    ) -> ToolReply {
        let items = result
            .result
            .as_ref()
            .filter(|_| content_output && result.is_completed())
            .and_then(|output| output.value().get("content"))
            .filter(|items| items.is_array())
            .and_then(|items| serde_json::to_vec(items).ok());
        match (
            items,
            ToolReply::structured(envelope, !result.is_completed()),
        ) {
            (Some(items), ToolReply::Structured { output, .. }) => {
                ToolReply::Content { items, output }
            }
            (_, reply) => reply,
        }
    }

    /// The JSON-RPC response carrying this result, as JSON text. `modern`
    /// is the 2026-07-28 result's `_meta` (that revision also names the
    /// kind of result, `resultType`); `None` writes the 2025 form.
    pub(crate) fn into_response(self, id: &Value, modern: Option<&ResultMeta<'_>>) -> String {
        if let Some((code, message, data)) = self.as_error(modern.is_some()) {
            let mut error = serde_json::json!({ "code": code, "message": message });
            if let Some(data) = data {
                error["data"] = data;
            }
            return serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string();
        }
        let (text, is_error, structured) = match &self {
            ToolReply::Structured { output, is_error } => {
                (output.as_slice(), *is_error, Some(output))
            }
            ToolReply::Content { items, output } => (items.as_slice(), false, Some(output)),
            ToolReply::Refused(message) => (message.as_bytes(), true, None),
            ToolReply::MissingCapability(_) | ToolReply::TaskRequired => (&b""[..], true, None),
        };
        let mut out = Vec::with_capacity(
            escaped_capacity(text)
                + structured.map_or(0, Vec::len)
                + FRAMING
                + modern.map_or(0, |_| MODERN_FRAMING),
        );
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        write_value(&mut out, id);
        out.extend_from_slice(br#","result":{"#);
        if modern.is_some() {
            out.extend_from_slice(br#""resultType":"complete","#);
        }
        if is_error {
            out.extend_from_slice(br#""isError":true,"#);
        }
        if let ToolReply::Content { items, .. } = &self {
            out.extend_from_slice(br#""content":"#);
            out.extend_from_slice(items);
        } else {
            out.extend_from_slice(br#""content":[{"type":"text","text":"#);
            push_json_string(&mut out, text);
            out.extend_from_slice(b"}]");
        }
        if let Some(structured) = structured {
            out.extend_from_slice(br#","structuredContent":"#);
            out.extend_from_slice(structured);
        }
        if let Some(meta) = modern {
            out.extend_from_slice(br#","_meta":"#);
            if serde_json::to_writer(&mut out, meta).is_err() {
                out.extend_from_slice(b"{}");
            }
        }
        out.extend_from_slice(b"}}");
        // Only whole UTF-8 texts (serde_json's and the refusal's) and ASCII
        // were written, so this always holds; the check is a fast ASCII
        // scan.
        String::from_utf8(out)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
    }
}

/// Writes a JSON value's text (a `Value` always serializes).
fn write_value(out: &mut Vec<u8>, value: &Value) {
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// The room a result's text usually takes escaped (about one byte in six
/// is a quote), so that the response is allocated once. Not more: a small
/// result's response then stays within the allocator's per-thread cache
/// (glibc's serves up to 1,032 bytes), and a larger allocation cost more
/// than all the escaping.
fn escaped_capacity(text: &[u8]) -> usize {
    text.len() + text.len() / 6 + 2
}

/// The room of the response around the text and the structured content
/// (the id, the keys).
const FRAMING: usize = 160;

/// What a 2026-07-28 result adds: `resultType` and the server's `_meta`
/// (growing the response for them cost more than the allocator's slower
/// path for a larger first buffer).
const MODERN_FRAMING: usize = 160;

/// Writes `bytes` (a UTF-8 text) to `out` as a JSON string, byte for byte
/// as serde_json would write the text.
///
/// Eight bytes at a time: each word is appended whole, and a word with no
/// byte to escape (`"`, `\\`, a control character) is kept as it is;
/// otherwise it is kept up to that byte, which is written escaped. The text
/// content of a result is its structured content's JSON text, so the bytes
/// to escape are its strings' quotes, about one in six: a loop per byte, or
/// a copy per run between them, spent more on the loop or the copies than
/// on the text.
fn push_json_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let mut read = 0;
    while let Some(word) = bytes.get(read..).and_then(<[u8]>::first_chunk::<8>) {
        out.extend_from_slice(word);
        let to_escape = bytes_to_escape(u64::from_le_bytes(*word));
        if to_escape == 0 {
            read += 8;
            continue;
        }
        // The lowest flagged byte is always one to escape (see below).
        let clean = (to_escape.trailing_zeros() / 8) as usize;
        out.truncate(out.len() - 8 + clean);
        read += clean;
        push_escape(out, bytes[read]);
        read += 1;
    }
    for &byte in &bytes[read..] {
        if JSON_ESCAPES[usize::from(byte)] == 0 {
            out.push(byte);
        } else {
            push_escape(out, byte);
        }
    }
    out.push(b'"');
}

/// The high bit of each byte of `word` that may need escaping. The lowest
/// flagged byte always does: each test is exact up to its first hit, and
/// only a borrow from a hit can flag a byte above it wrongly.
fn bytes_to_escape(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zero_byte = |value: u64| value.wrapping_sub(ONES) & !value;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    // A byte below 0x20 wraps when 0x20 is taken from it, and had no high
    // bit (bytes of 0xa0 and above have one, so they are not flagged).
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (quote | backslash | control) & HIGHS
}

/// Appends the escape of `byte` (one [`JSON_ESCAPES`] names).
fn push_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match JSON_ESCAPES[usize::from(byte)] {
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
        letter => out.extend_from_slice(&[b'\\', letter]),
    }
}

/// For each byte: 0 when JSON keeps it as it is, else the letter of its
/// escape (`u`: `\\u00XX`).
static JSON_ESCAPES: [u8; 256] = {
    let mut table = [0_u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        push_json_string(&mut out, text.as_bytes());
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn a_text_is_written_as_serde_json_writes_it() {
        let mut every_control: String = (0_u8..0x20).map(char::from).collect();
        every_control.push_str("\u{7f} é 😀 \u{2028}");
        for text in [
            "",
            "plain",
            "exactly8",
            r#"{"ok":true,"summary":"a \"quoted\" word, a back\\slash"}"#,
            every_control.as_str(),
        ] {
            assert_eq!(
                escaped(text),
                serde_json::to_string(text).expect("a string"),
                "{text:?}"
            );
        }
    }

    /// Every byte to escape at every place in a word, beside every other
    /// kind of byte (the word test flags the lowest exactly, whatever is
    /// above it).
    #[test]
    fn every_escape_is_found_at_every_place_in_a_word() {
        let neighbours = [
            "a", "\u{7f}", "é", "😀", "\u{a0}", "\u{1}", "\"", "\\", " ", "!",
        ];
        let specials: Vec<char> = (0_u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '!', '#', '[', ']'])
            .collect();
        for special in specials {
            for neighbour in neighbours {
                for place in 0..17 {
                    let mut text = neighbour.repeat(place);
                    text.push(special);
                    text.push_str(&neighbour.repeat(9));
                    assert_eq!(
                        escaped(&text),
                        serde_json::to_string(&text).expect("a string"),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_response_carries_the_output_as_text_and_structured_content() {
        let output = json!({"type": "portos_tool_result", "result": {"summary": "a \"b\"\n"}});
        let reply = ToolReply::structured(&output, false);
        let response: Value =
            serde_json::from_str(&reply.into_response(&json!("7"), None)).expect("JSON");
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": "7", "result": {
                "content": [{"type": "text", "text": output.to_string()}],
                "structuredContent": output,
            }})
        );
        let meta = ResultMeta {
            server_info: Some(ServerInfo {
                name: "n",
                version: "1",
            }),
        };
        let refused = error_result("no \u{1} way").into_response(&json!(3), Some(&meta));
        assert_eq!(
            serde_json::from_str::<Value>(&refused).expect("JSON"),
            json!({"jsonrpc": "2.0", "id": 3, "result": {
                "resultType": "complete",
                "isError": true,
                "content": [{"type": "text", "text": "no \u{1} way"}],
                "_meta": {super::super::modern::SERVER_INFO_KEY: {"name": "n", "version": "1"}},
            }})
        );
    }
}

//! The strict `portos_tool_call` envelope (docs/reference.md#call-envelope) on
//! any bytes: a parse is accepted or refused with field issues, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use portos_core::ToolCall;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = ToolCall::parse(&value);
    }
});

//! The Agent Tools MCP JSON-RPC message parser (docs/reference.md#mcp-transport
//! step 7) on any body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use portos_server::mcp::jsonrpc;

fuzz_target!(|data: &[u8]| {
    if let Err(rejected) = jsonrpc::parse(data) {
        let _ = rejected.to_response();
    }
});

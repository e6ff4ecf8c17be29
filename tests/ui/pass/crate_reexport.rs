// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
// A crate that re-exports portos-core names the path it is reached by with
// `crate = ...`; the generated code goes through it.
mod my_sdk {
    pub use portos_core;
}

use my_sdk::portos_core::{portos_event, portos_tool, AdapterError};
use serde::Serialize;

/// Answer through the re-export.
#[portos_tool(
    crate = my_sdk::portos_core,
    name = "demo.sdk-ping",
    scopes = ["ui"],
    side_effect = "read",
)]
async fn sdk_ping() -> Result<serde_json::Value, AdapterError> {
    Ok(serde_json::json!({ "ok": true, "summary": "pong" }))
}

/// Announced through the re-export.
#[derive(Serialize, schemars::JsonSchema)]
#[portos_event(crate = crate::my_sdk::portos_core, name = "demo:sdk", direction = "server-to-client")]
struct SdkEvent {
    ok: bool,
}

fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.sdk-ping")
        .expect("the tool is in the link-time list");
    portos_core::Registry::builder()
        .descriptors([tool])
        .build()
        .expect("the registry accepts the tool");
    let event = portos_core::linked::events()
        .find(|event| event.name == "demo:sdk")
        .expect("the event is in the link-time list");
    assert!(event.payload.is_some());
    assert_eq!(<SdkEvent as portos_core::inventory::PortosEvent>::NAME, "demo:sdk");
    let _ = SdkEvent { ok: true };
}

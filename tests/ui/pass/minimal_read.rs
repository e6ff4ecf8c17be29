// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, Authority, Registry, ToolCall};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Pong {
    ok: bool,
    summary: String,
}

/// Report that the tool framework is up.
#[portos_tool(name = "demo.ping", scopes = ["ui"], side_effect = "read")]
async fn ping() -> Result<Pong, AdapterError> {
    Ok(Pong { ok: true, summary: "pong".to_owned() })
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.ping")
        .expect("the tool is in the link-time list");
    assert_eq!(tool.provider_name, "demo_ping");
    assert_eq!(tool.aliases, ["demo_ping"]);
    assert_eq!(tool.description, "Report that the tool framework is up.");

    let registry = Registry::builder()
        .descriptors([tool])
        .build()
        .expect("the registry accepts the tool");
    let call = ToolCall::parse(&serde_json::json!({
        "requestId": "ui-1", "name": "demo.ping", "arguments": {}
    }))
    .expect("a valid envelope");
    let result = registry.call(&portos_words::principal::ui(false), call).await.expect("allowed");
    assert_eq!(result.result.expect("a result")["summary"], "pong");
}

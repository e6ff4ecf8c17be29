// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, Confirmation, ToolContext};
use serde_json::{json, Value};

/// Echo the request id back.
#[portos_tool(
    name = "demo.request-id",
    scopes = ["ui"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
async fn request_id(ctx: ToolContext) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "requestId": ctx.request_id() }))
}

fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.request-id")
        .expect("the tool is in the link-time list");
    portos_core::Registry::builder()
        .descriptors([tool])
        .build()
        .expect("the registry accepts the tool");
    // The defaults of a write.
    assert_eq!(tool.provider_name, "demo_request_id");
    assert!(!tool.policy.idempotent);
    assert!(matches!(tool.policy.confirmation, Confirmation::CapabilityGrant));
}

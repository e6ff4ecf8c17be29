// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, Authority, Registry, ToolCall, ToolContext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GreetArgs {
    who: String,
}

#[derive(Serialize, JsonSchema)]
struct Greeting {
    ok: bool,
    summary: String,
}

/// Greet someone by name.
#[portos_tool(
    name = "demo.greet",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn greet(ctx: &ToolContext, args: GreetArgs) -> Result<Greeting, AdapterError> {
    Ok(Greeting {
        ok: true,
        summary: format!("{}: hello {}", ctx.request_id(), args.who),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.greet")
        .expect("the tool is in the link-time list");
    // The schemas come from the types, not from a fallback.
    let input = (tool.input_schema)();
    assert!(input["properties"]["who"].is_object(), "{input}");
    let output = (tool.output_schema)();
    assert!(output["properties"]["summary"].is_object(), "{output}");

    let registry = Registry::builder()
        .descriptors([tool])
        .build()
        .expect("the registry accepts the tool");
    let call = ToolCall::parse(&serde_json::json!({
        "requestId": "ui-1", "name": "demo_greet", "arguments": {"who": "Ada"}
    }))
    .expect("a valid envelope");
    let result = registry.call(&portos_words::principal::ui(false), call).await.expect("allowed");
    assert_eq!(result.result.expect("a result")["summary"], "ui-1: hello Ada");
}

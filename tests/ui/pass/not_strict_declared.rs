// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetArgs {
    /// Free-form settings: no strict provider subset can list their keys.
    settings: Map<String, Value>,
}

/// Store free-form settings.
#[portos_tool(
    name = "demo.settings.set",
    scopes = ["ui"],
    capabilities = ["writePortos"],
    side_effect = "write",
    not_strict = "the settings are a free-form map",
)]
async fn set(args: SetArgs) -> Result<Value, AdapterError> {
    Ok(serde_json::json!({ "ok": true, "summary": format!("{} settings", args.settings.len()) }))
}

fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.settings.set")
        .expect("the tool is in the link-time list");
    assert_eq!(tool.not_strict, Some("the settings are a free-form map"));
    // Declared, so the registry takes it (it would refuse it without).
    portos_core::Registry::builder()
        .descriptors([tool])
        .build()
        .expect("the registry accepts the declared tool");
}

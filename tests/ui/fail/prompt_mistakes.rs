use portos_core::{portos_prompt, AdapterError, PromptMessage, ToolContext};
use portos_core::primitives::CompletionRequest;

async fn suggest(_ctx: &ToolContext, _request: CompletionRequest) -> Vec<String> {
    Vec::new()
}

/// A bad name, a key of resources, an argument completed twice.
#[portos_prompt(
    name = "has space",
    uri = "a://x",
    scopes = ["agent"],
    complete(topic = suggest, topic = suggest),
)]
async fn bad() -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(Vec::new())
}

/// Not async, and a text is not messages.
#[portos_prompt(scopes = ["agent"])]
fn sync() -> Result<String, AdapterError> {
    Ok(String::new())
}

fn main() {}

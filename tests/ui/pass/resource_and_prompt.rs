// PortOS's capabilities and scopes, which these use.
portos_core::use_vocabulary!(portos_words);
use portos_core::primitives::CompletionRequest;
use portos_core::{
    portos_prompt, portos_resource, portos_tool, AdapterError, Content, PromptMessage,
    ToolContent, ToolContext,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The shopping list.
#[portos_resource(uri = "lists://shopping", mime_type = "text/plain", scopes = ["agent"])]
async fn shopping() -> Result<String, AdapterError> {
    Ok("milk".to_owned())
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListVars {
    list: String,
}

/// Any list, by name.
#[portos_resource(
    uri_template = "lists://{list}",
    name = "list",
    scopes = ["agent"],
    capabilities = ["readPortos"],
    complete(list = list_names),
)]
async fn list(_ctx: &ToolContext, vars: ListVars) -> Result<String, AdapterError> {
    Ok(vars.list)
}

async fn list_names(_ctx: &ToolContext, request: CompletionRequest) -> Vec<String> {
    vec![request.value]
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanArgs {
    /// What to plan.
    goal: String,
}

/// Plan a goal.
#[portos_prompt(scopes = ["agent"], capabilities = ["readPortos"])]
async fn plan(args: PlanArgs) -> Result<Vec<PromptMessage>, AdapterError> {
    Ok(vec![PromptMessage::user(Content::text(args.goal))])
}

/// A picture.
#[portos_tool(name = "demo.picture", scopes = ["agent"], side_effect = "read")]
async fn picture() -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::image(b"\x89PNG", "image/png")]))
}

fn main() {
    let registry = portos_core::Registry::builder()
        .build()
        .expect("the declarations are valid");
    let resources: Vec<_> = portos_core::linked::resources().map(|r| r.uri).collect();
    assert_eq!(resources.len(), 2);
    assert!(resources.contains(&"lists://{list}"));
    assert_eq!(portos_core::linked::prompts().next().map(|p| p.name), Some("plan"));
    assert!(registry.resolve("demo.picture").is_some_and(|tool| tool.content_output));
}

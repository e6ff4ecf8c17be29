//! The suite's fixture tools and prompt that ask the client something: a
//! person's answers (elicitation), a model's completion (sampling), its
//! roots, once or over several rounds, and a tool that cannot run without
//! the client's sampling. Each asks through its context
//! (`ToolContext::ask`, `ToolContext::elicit`), whatever the revision: the
//! runtime sends the question on the call's stream (2025) or ends the
//! round with it (2026-07-28).

use portos_core::{
    AdapterError, Content, InputKind, InputRequest, PromptMessage, ToolContent, ToolContext,
    portos_prompt, portos_tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

fn text(text: impl Into<String>) -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::text(text)]))
}

/// The text of a sampling answer.
fn sampled(answer: &Value) -> String {
    answer["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn ask_name(message: &str) -> InputRequest {
    InputRequest::elicitation(
        message,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
}

fn capital_of_france() -> InputRequest {
    InputRequest::sampling(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100,
    }))
}

/// Needs the client's sampling: refused for a client that did not declare
/// it.
#[portos_tool(
    name = "test_missing_capability",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    requires_client = ["sampling"],
)]
pub async fn missing_capability() -> Result<ToolContent, AdapterError> {
    text("Success")
}

/// Answers at once, asking nothing (a stream carries no request of the
/// server).
#[portos_tool(
    name = "test_streaming_elicitation",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn streaming_elicitation() -> Result<ToolContent, AdapterError> {
    text("Nothing to ask")
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PromptArgs {
    /// What to ask the model.
    #[schemars(length(min = 1, max = 4000))]
    pub prompt: String,
}

/// Asks the client's model to complete `prompt`.
#[portos_tool(
    name = "test_sampling",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    requires_client = ["sampling"],
)]
pub async fn sampling(ctx: &ToolContext, args: PromptArgs) -> Result<ToolContent, AdapterError> {
    let answer = ctx
        .ask(
            "sample",
            InputRequest::sampling(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": args.prompt}}],
                "maxTokens": 100,
            })),
        )
        .await?;
    text(format!("LLM response: {}", sampled(&answer)))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageArgs {
    /// What to tell the person.
    #[schemars(length(min = 1, max = 4000))]
    pub message: String,
}

/// Asks a person for a username and an email.
#[portos_tool(
    name = "test_elicitation",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    requires_client = ["elicitation"],
)]
pub async fn elicitation(
    ctx: &ToolContext,
    args: MessageArgs,
) -> Result<ToolContent, AdapterError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "Your username"},
            "email": {"type": "string", "description": "Your email address"},
        },
        "required": ["username", "email"],
    });
    let answer = ctx.elicit("user", &args.message, schema).await?;
    text(format!(
        "User response: action={}, content={}",
        answer.action,
        Value::Object(answer.content)
    ))
}

/// A form whose fields have defaults (SEP-1034).
#[portos_tool(
    name = "test_elicitation_sep1034_defaults",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    requires_client = ["elicitation"],
)]
pub async fn elicitation_defaults(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    });
    let answer = ctx
        .elicit(
            "profile",
            "Please review and update the form fields with defaults",
            schema,
        )
        .await?;
    text(format!("Elicitation completed: action={}", answer.action))
}

/// A form with every kind of enum (SEP-1330).
#[portos_tool(
    name = "test_elicitation_sep1330_enums",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    requires_client = ["elicitation"],
)]
pub async fn elicitation_enums(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let titled = |titles: [&str; 3]| {
        json!([
            {"const": "value1", "title": titles[0]},
            {"const": "value2", "title": titles[1]},
            {"const": "value3", "title": titles[2]},
        ])
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Choose an option",
                               "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Choose a titled option",
                             "oneOf": titled(["First Option", "Second Option", "Third Option"])},
            "legacyEnum": {"type": "string", "description": "Choose a legacy option",
                           "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Choose options",
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Choose titled options",
                            "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"])}},
        },
        "required": [],
    });
    let answer = ctx
        .elicit("choices", "Please select options", schema)
        .await?;
    text(format!("Elicitation completed: action={}", answer.action))
}

/// One question, answered in a second round (key `user_name`).
#[portos_tool(
    name = "test_input_required_result_elicitation",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_elicitation(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let answer = ctx.ask("user_name", ask_name("What is your name?")).await?;
    let name = answer["content"]["name"].as_str().unwrap_or("stranger");
    text(format!("Hello, {name}!"))
}

/// One sampling question.
#[portos_tool(
    name = "test_input_required_result_sampling",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_sampling(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let answer = ctx.ask("sample_request", capital_of_france()).await?;
    text(format!("The model said: {}", sampled(&answer)))
}

/// Asks for the client's roots.
#[portos_tool(
    name = "test_input_required_result_list_roots",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_list_roots(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let answer = ctx.ask("roots_request", InputRequest::roots()).await?;
    let count = answer["roots"].as_array().map_or(0, Vec::len);
    text(format!("The client has {count} roots"))
}

/// A confirmation carried across rounds in the sealed request state.
#[portos_tool(
    name = "test_input_required_result_request_state",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_request_state(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    confirmed(ctx).await
}

/// The same, to see a changed state refused.
#[portos_tool(
    name = "test_input_required_result_tampered_state",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_tampered_state(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    confirmed(ctx).await
}

async fn confirmed(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let answer = ctx.elicit("confirm", "Please confirm", schema).await?;
    text(format!(
        "state-ok: confirmed={}",
        answer
            .content
            .get("ok")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    ))
}

/// Three questions at once, of each kind.
#[portos_tool(
    name = "test_input_required_result_multiple_inputs",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_multiple_inputs(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let (name, sample, roots) = futures::join!(
        ctx.ask("user_name", ask_name("What is your name?")),
        ctx.ask("sample_request", capital_of_france()),
        ctx.ask("roots_request", InputRequest::roots()),
    );
    let (name, sample, roots) = (name?, sample?, roots?);
    text(format!(
        "name={}, model={}, roots={}",
        name["content"]["name"].as_str().unwrap_or_default(),
        sampled(&sample),
        roots["roots"].as_array().map_or(0, Vec::len)
    ))
}

/// A question, then another that follows from it: three rounds.
#[portos_tool(
    name = "test_input_required_result_multi_round",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_multi_round(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let name = ctx
        .ask("step1", ask_name("Step 1: What is your name?"))
        .await?;
    let color = ctx
        .ask(
            "step2",
            InputRequest::elicitation(
                "Step 2: What is your favorite color?",
                json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
            ),
        )
        .await?;
    text(format!(
        "{} likes {}",
        name["content"]["name"].as_str().unwrap_or_default(),
        color["content"]["color"].as_str().unwrap_or_default()
    ))
}

/// Asks only what the client declared it answers.
#[portos_tool(
    name = "test_input_required_result_capabilities",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn irr_capabilities(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    let mut heard = Vec::new();
    if ctx.can_ask(InputKind::Sampling) {
        heard.push(sampled(
            &ctx.ask("sample_request", capital_of_france()).await?,
        ));
    }
    if ctx.can_ask(InputKind::Elicitation) {
        let answer = ctx.ask("user_name", ask_name("What is your name?")).await?;
        heard.push(
            answer["content"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    text(format!("Heard: {}", heard.join(", ")))
}

/// A prompt that asks for its context first.
#[portos_prompt(scopes = ["client"], capabilities = ["readFixtures"])]
pub async fn test_input_required_result_prompt(
    ctx: &ToolContext,
) -> Result<Vec<PromptMessage>, AdapterError> {
    let answer = ctx
        .elicit(
            "user_context",
            "What context should the prompt use?",
            json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}),
        )
        .await?;
    let context = answer
        .content
        .get("context")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(vec![PromptMessage::user(Content::text(format!(
        "Use this context: {context}"
    )))])
}

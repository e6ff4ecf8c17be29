//! The fixture tools, as the suite's scenario descriptions define them.

use std::time::Duration;

use portos_core::{
    AdapterError, Content, InputError, InputRequest, ToolContent, ToolContext, portos_tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GreetArgs {
    /// Whom to greet.
    #[schemars(length(min = 1, max = 200))]
    pub name: String,
}

/// Greets `name`: `Hello, {name}!`, as the call's one text item.
#[portos_tool(
    name = "greet",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn greet(_ctx: &ToolContext, args: GreetArgs) -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::text(format!(
        "Hello, {}!",
        args.name
    ))]))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputeArgs {
    /// How long the work takes, in seconds (0 to 600).
    #[serde(default)]
    #[schemars(range(min = 0, max = 600))]
    pub seconds: u32,
    /// A label echoed in the result.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub label: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Computed {
    pub label: String,
    pub seconds: u32,
}

/// Works for `seconds` seconds, then answers; a cancelled job stops at once.
#[portos_tool(
    name = "slow-compute",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
)]
pub async fn slow_compute(ctx: &ToolContext, args: ComputeArgs) -> Result<Computed, AdapterError> {
    ctx.report_progress(0.0, Some(f64::from(args.seconds)), Some("Computing"));
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(u64::from(args.seconds))) => {}
        () = ctx.cancellation().cancelled() => {
            return Err(AdapterError::new("Cancelled"));
        }
    }
    Ok(Computed {
        label: args.label,
        seconds: args.seconds,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Never {
    pub ok: bool,
}

/// Fails after about a second, as a tool (not the protocol) fails; only
/// ever as a task (`taskSupport: "required"`).
#[portos_tool(
    name = "failing-job",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
    requires_client = ["tasks"],
)]
pub async fn failing_job(_ctx: &ToolContext, _args: NoArgs) -> Result<Never, AdapterError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(AdapterError::new(
        "The job failed, as this fixture always does",
    ))
}

/// Crashes inside its job: the server, not the tool, fails it (a task
/// that ends `failed` with an error, no result).
#[portos_tool(
    name = "protocol-error-job",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
)]
pub async fn protocol_error_job(_ctx: &ToolContext, _args: NoArgs) -> Result<Never, AdapterError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("protocol_error_job crashes, as this fixture always does");
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Gathered {
    pub first: String,
    pub second: String,
}

/// Asks two questions at once inside its job, and answers once both are.
#[portos_tool(
    name = "multi-input",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
)]
pub async fn multi_input(ctx: &ToolContext, _args: NoArgs) -> Result<Gathered, AdapterError> {
    let form = || {
        serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name"},
                "confirm": {"type": "boolean", "title": "Confirm"}
            },
            "required": ["name", "confirm"]
        })
    };
    let (first, second) = futures::join!(
        ctx.elicit("first", "First: your name, and confirm", form()),
        ctx.elicit("second", "Second: your name, and confirm", form()),
    );
    let name = |answer: portos_core::Elicited| {
        answer
            .content
            .get("name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(Gathered {
        first: name(first?),
        second: name(second?),
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// The file to delete (nothing is: this is a fixture).
    #[schemars(length(min = 1, max = 200))]
    pub filename: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub deleted: String,
}

/// A destructive call an agent's job parks until it is confirmed.
#[portos_tool(
    name = "confirm-delete",
    scopes = ["client"],
    capabilities = ["writeFixtures"],
    side_effect = "destructive",
    idempotent = true,
    long_running,
    confirmation = "capability-grant",
)]
pub async fn confirm_delete(_ctx: &ToolContext, args: DeleteArgs) -> Result<Deleted, AdapterError> {
    Ok(Deleted {
        deleted: args.filename,
    })
}

/// The question `test_tool_with_task` asks before its task begins.
fn whose_name() -> InputRequest {
    InputRequest::elicitation(
        "Whose task is this? Your name, please.",
        serde_json::json!({
            "type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}},
            "required": ["name"]
        }),
    )
}

async fn ask_whose_name(ctx: &ToolContext) -> Result<(), InputError> {
    ctx.ask("user_name", whose_name()).await.map(drop)
}

/// Asks whose task it is in the call itself, then works as a task
/// (taskSupport=required): its job starts with the answer.
#[portos_tool(
    name = "test_tool_with_task",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
    requires_client = ["tasks"],
    ask_first = ask_whose_name,
)]
pub async fn tool_with_task(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    // Answered before the job began: at once.
    let answer = ctx.ask("user_name", whose_name()).await?;
    let name = answer["content"]["name"].as_str().unwrap_or("nobody");
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(ToolContent::new(vec![Content::text(format!(
        "Task done for {name}"
    ))]))
}

//! The fixture tools, as the suite's scenario descriptions define them.

use std::time::Duration;

use portos_core::{AdapterError, Content, ToolContent, ToolContext, portos_tool};
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

/// Fails after about a second, as a tool (not the protocol) fails.
#[portos_tool(
    name = "failing-job",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
    long_running,
)]
pub async fn failing_job(_ctx: &ToolContext, _args: NoArgs) -> Result<Never, AdapterError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(AdapterError::new(
        "The job failed, as this fixture always does",
    ))
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

//! The suite's fixture tools that report while they run: progress, and log
//! messages at the level the client asked for.

use std::time::Duration;

use portos_core::{AdapterError, Content, LogLevel, ToolContent, ToolContext, portos_tool};

/// Reports 0, 50 and 100 of 100, about 50 ms apart, then answers.
#[portos_tool(
    name = "test_tool_with_progress",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn with_progress(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.report_progress(done, Some(100.0), Some(&format!("Step {}", step + 1)));
    }
    Ok(ToolContent::new(vec![Content::text(
        "Progress test completed",
    )]))
}

/// Logs three `info` messages, about 50 ms apart, then answers.
#[portos_tool(
    name = "test_tool_with_logging",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn with_logging(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    for (step, message) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.log(LogLevel::Info, message);
    }
    Ok(ToolContent::new(vec![Content::text(
        "Logging test completed",
    )]))
}

/// Logs one `info` message (heard only by a client that asked for logs).
#[portos_tool(
    name = "test_logging_tool",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn logging_tool(ctx: &ToolContext) -> Result<ToolContent, AdapterError> {
    ctx.log(LogLevel::Info, "test_logging_tool ran");
    Ok(ToolContent::new(vec![Content::text("Logged")]))
}

//! The suite's fixture tools that make the server announce a change of its
//! lists, which clients listening (`subscriptions/listen`) hear of.

use portos_core::{AdapterError, Content, Shared, ToolContent, portos_tool};
use portos_server::events::Events;

/// Announces that the tool list may have changed.
#[portos_tool(
    name = "test_trigger_tool_change",
    scopes = ["client"],
    capabilities = ["writeFixtures"],
    side_effect = "write",
)]
pub async fn trigger_tool_change(events: Shared<Events>) -> Result<ToolContent, AdapterError> {
    events.catalog_changed("fixtures.tools").await;
    Ok(ToolContent::new(vec![Content::text("Tool list changed")]))
}

/// Announces that the prompt list may have changed.
#[portos_tool(
    name = "test_trigger_prompt_change",
    scopes = ["client"],
    capabilities = ["writeFixtures"],
    side_effect = "write",
)]
pub async fn trigger_prompt_change(events: Shared<Events>) -> Result<ToolContent, AdapterError> {
    events.catalog_changed("fixtures.prompts").await;
    Ok(ToolContent::new(vec![Content::text("Prompt list changed")]))
}

//! The brain inbox as an MCP prompt: its newest captures, embedded as a
//! resource, with the owner's request to sort them. Governed like the
//! inbox's read tools (the agent scope, `readPortos`).

use portos_core::{
    AdapterError, Content, PromptMessage, PromptMessages, ResourceContents, Shared, portos_prompt,
};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ops;

/// How many captures the review embeds.
const REVIEWED: usize = 20;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewArgs {
    /// What to look for first (e.g. "errands"); every capture otherwise.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub focus: Option<String>,
}

/// Review the brain inbox: the newest captures, and what to do with each.
#[portos_prompt(
    name = "brain.review",
    title = "Review the brain inbox",
    scopes = ["agent"],
    capabilities = ["readPortos"],
)]
pub async fn review(
    args: ReviewArgs,
    store: Shared<Store>,
) -> Result<PromptMessages, AdapterError> {
    let captures = ops::recent(&store, REVIEWED).await?;
    let listed: Vec<serde_json::Value> = captures
        .iter()
        .map(|capture| serde_json::json!({ "date": capture.date, "text": capture.text }))
        .collect();
    let focus = args
        .focus
        .map(|focus| format!(" Look at what concerns {focus} first."))
        .unwrap_or_default();
    let ask = if captures.is_empty() {
        "My brain inbox is empty: suggest what I could capture there.".to_owned()
    } else {
        format!(
            "These are the {} newest captures of my brain inbox. For each, say whether to act on it, file it as a goal or journal entry, or let it go, in one line.{focus}",
            captures.len()
        )
    };
    Ok(PromptMessages {
        description: Some(format!("{} captures to review", captures.len())),
        messages: vec![
            PromptMessage::user(Content::resource(
                ResourceContents::text("portos-brain://recent", serde_json::to_string(&listed)?)
                    .with_mime_type("application/json"),
            )),
            PromptMessage::user(Content::text(ask)),
        ],
    })
}

//! Tools defined in their own crate, only ever reached through the link-time
//! list. The tests count them, so a tool can never be lost silently.

use portos_core::{AdapterError, ToolContext, portos_tool};

// The words these tools name are PortOS's.
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many tools this crate defines; the tests compare it with the registry.
pub const TOOL_COUNT: usize = 2;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShoutArgs {
    /// The words to shout.
    pub text: String,
    /// How many exclamation marks.
    #[serde(default = "default_marks")]
    pub marks: u8,
}

fn default_marks() -> u8 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Shouted {
    pub ok: bool,
    pub text: String,
    pub summary: String,
}

/// Shout the text back in capitals.
#[portos_tool(
    name = "extra.shout",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn shout(args: ShoutArgs) -> Result<Shouted, AdapterError> {
    let text = format!(
        "{}{}",
        args.text.to_uppercase(),
        "!".repeat(usize::from(args.marks))
    );
    Ok(Shouted {
        ok: true,
        summary: format!("Shouted {} characters.", text.chars().count()),
        text,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Counted {
    pub ok: bool,
    pub calls: u64,
    pub summary: String,
}

/// Count how many times this tool ran in this process (a write, so replays
/// show whether the adapter ran again).
#[portos_tool(
    name = "extra.count-runs",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
pub async fn count_runs(ctx: &ToolContext) -> Result<Counted, AdapterError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let calls = RUNS.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(Counted {
        ok: true,
        calls,
        summary: format!("Run {calls} for {}.", ctx.request_id()),
    })
}

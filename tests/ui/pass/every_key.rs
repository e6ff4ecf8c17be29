// PortOS's capabilities and scopes, which this tool uses.
portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, Confirmation, SideEffect, Shared, StateMap, ToolContext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PurgeArgs {
    older_than_days: u32,
}

struct Feeds;

#[derive(Serialize, JsonSchema)]
struct Purged {
    ok: bool,
    summary: String,
}

/// This doc comment is replaced by `description`.
#[portos_tool(
    name = "demo.feeds.purge",
    version = 1,
    description = "Queue a purge of   old feed items.",
    provider_name = "purge_feeds",
    aliases = ["feeds.purge", "purge_feeds"],
    scopes = ["agent", "voice"],
    capabilities = ["writePortos", "createTasks"],
    side_effect = "supervised-write",
    idempotent = false,
    async,
    long_running,
    confirmation = "none",
    open_world = true,
    intent_group = "feeds",
    suppress_on_form_fill,
)]
async fn purge(_ctx: &ToolContext, args: PurgeArgs, _feeds: Shared<Feeds>) -> Result<Purged, AdapterError> {
    Ok(Purged {
        ok: true,
        summary: format!("Queued a purge of items older than {} days.", args.older_than_days),
    })
}

fn main() {
    let tool = portos_core::linked::tools()
        .find(|tool| tool.name == "demo.feeds.purge")
        .expect("the tool is in the link-time list");
    let mut state = StateMap::new();
    state.insert(Feeds);
    portos_core::Registry::builder()
        .descriptors([tool])
        .state(state)
        .build()
        .expect("the registry accepts the tool");
    assert!((tool.input_schema)()["properties"]["older_than_days"].is_object());
    assert_eq!(tool.version, 1);
    assert_eq!(tool.description, "Queue a purge of old feed items.");
    assert_eq!(tool.provider_name, "purge_feeds");
    assert_eq!(tool.aliases, ["feeds.purge", "purge_feeds"]);
    assert_eq!(tool.policy.scopes.len(), 2);
    assert_eq!(tool.policy.capabilities.len(), 2);
    assert!(matches!(tool.policy.side_effect, SideEffect::SupervisedWrite));
    assert!(!tool.policy.idempotent);
    assert!(tool.policy.is_async);
    assert!(tool.policy.long_running);
    assert!(matches!(tool.policy.confirmation, Confirmation::None));
    assert!(tool.policy.open_world);
    assert_eq!(tool.intent.group, Some("feeds"));
    assert!(tool.intent.suppress_on_form_fill);
    assert_eq!(tool.state.len(), 1);
}

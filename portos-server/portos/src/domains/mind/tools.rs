//! The Persistent Mind's self-management tools
//! (docs/reference.md#tool-families, the Mind-only family): clean up, protect
//! memories and choose a name (`manageMind`), request a thinking preset
//! (`chooseThinkingPreset`), adjust the local context window
//! (`adjustLocalContext`). Thin: arguments → the operations in `ops` → result.
//! Arguments the schema refuses are `TOOL_VALIDATION_ERROR`; a valid request
//! that is not allowed answers `{ok: false, error}` and changes nothing.

use jiff::Timestamp;
use portos_core::{AdapterError, Shared, ToolContext, portos_tool};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::answer::Answer;
use super::cleanup::{CleanedUp, CleanupScope};
use super::local_context::{NUM_CTX_MAX, NUM_CTX_MIN};
use super::memory::{NAME_PATTERN, Protection};
use super::ops::local_context::{self as context_ops, Adjusted, LocalContextRead};
use super::ops::memory::{self as memory_ops, Named, Protected};
use super::ops::thinking::{self as thinking_ops, Catalog, Requested};
use super::thinking::ID_ARGUMENT_PATTERN;
use crate::shared::trimmed::{trimmed, trimmed_option};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CleanupArgs {
    /// What to clean up: `context`, `history`, `memories` (1 to 3, each once).
    #[schemars(length(min = 1, max = 3), extend("uniqueItems" = true))]
    pub scopes: Vec<CleanupScope>,
    /// Why (1..300 characters, trimmed).
    #[serde(
        default,
        deserialize_with = "trimmed_option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(min = 1, max = 300), regex(pattern = r"\S"))]
    pub reason: Option<String>,
}

/// Archive only unprotected Persistent Mind-owned memories, or clear trajectory history and derived context. Core identity and important memories always survive. Protect critical knowledge using mind.protect-memory before cleanup.
#[portos_tool(
    name = "mind.cleanup",
    scopes = ["mind"],
    capabilities = ["manageMind"],
    side_effect = "destructive",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn cleanup(
    args: CleanupArgs,
    store: Shared<Store>,
) -> Result<Answer<CleanedUp>, AdapterError> {
    Ok(memory_ops::cleanup(&store, args.scopes, args.reason, Timestamp::now()).await?)
}

/// The protection a memory can be given (`standard` is what it has
/// until then, never a level to ask for).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProtectionLevel {
    Important,
    CoreIdentity,
}

impl From<ProtectionLevel> for Protection {
    fn from(level: ProtectionLevel) -> Protection {
        match level {
            ProtectionLevel::Important => Protection::Important,
            ProtectionLevel::CoreIdentity => Protection::CoreIdentity,
        }
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProtectMemoryArgs {
    /// The memory's id (at most 128 characters).
    #[serde(deserialize_with = "trimmed")]
    #[schemars(length(min = 1, max = 128), regex(pattern = r"\S"))]
    pub memory_id: String,
    /// `important` or `core-identity`.
    pub protection: ProtectionLevel,
}

/// Protect an existing active mind-owned memory as core identity or important knowledge before cleanup. Use its id from curated context. Cannot remove protection or demote core identity. Protected memories survive both manual and self-triggered bulk cleanup.
#[portos_tool(
    name = "mind.protect-memory",
    scopes = ["mind"],
    capabilities = ["manageMind"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn protect_memory(
    args: ProtectMemoryArgs,
    store: Shared<Store>,
) -> Result<Answer<Protected>, AdapterError> {
    Ok(memory_ops::protect(
        &store,
        args.memory_id,
        args.protection.into(),
        Timestamp::now(),
    )
    .await?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChooseNameArgs {
    /// 1 to 64 characters (trimmed): a letter or number first, then letters, marks, numbers, spaces or `. _ ' ’ · -`.
    #[serde(deserialize_with = "trimmed")]
    #[schemars(length(min = 1, max = 64), regex(pattern = NAME_PATTERN))]
    pub name: String,
}

/// Choose or change your own display name. Saves one protected machine-local identity memory; preserves your stable mindId and trajectory. The successful result is authoritative over older names.
#[portos_tool(
    name = "mind.choose-name",
    scopes = ["mind"],
    capabilities = ["manageMind"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn choose_name(
    args: ChooseNameArgs,
    store: Shared<Store>,
) -> Result<Answer<Named>, AdapterError> {
    Ok(memory_ops::choose_name(&store, args.name, Timestamp::now()).await?)
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThinkingPresetsArgs {}

/// List exact approved local thinking presets, current/default route and switching limits.
#[portos_tool(
    name = "mind.thinking-presets",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["chooseThinkingPreset"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn thinking_presets(
    _args: ThinkingPresetsArgs,
    store: Shared<Store>,
) -> Result<Catalog, AdapterError> {
    Ok(thinking_ops::catalog(&store, Timestamp::now()).await?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RequestThinkingPresetArgs {
    /// An approved preset's id (1..64 characters, trimmed: letters, digits, `_` and `-`, starting with a letter or digit).
    #[serde(deserialize_with = "trimmed")]
    #[schemars(length(min = 1, max = 64), regex(pattern = ID_ARGUMENT_PATTERN))]
    pub preset_id: String,
    /// Why (1..200 characters, trimmed).
    #[serde(deserialize_with = "trimmed")]
    #[schemars(length(min = 1, max = 200), regex(pattern = r"\S"))]
    pub reason: String,
}

/// Request one approved local preset for the next self-directed wake, without changing this turn or the default.
#[portos_tool(
    name = "mind.request-thinking-preset",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["chooseThinkingPreset"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn request_thinking_preset(
    ctx: &ToolContext,
    args: RequestThinkingPresetArgs,
    store: Shared<Store>,
) -> Result<Answer<Requested>, AdapterError> {
    Ok(thinking_ops::request(
        &store,
        ctx.request_id().to_owned(),
        args.preset_id,
        args.reason,
        Timestamp::now(),
    )
    .await?)
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocalContextArgs {}

/// Inspect this mind's local provider numCtx and the RAM safety ceiling for adjustments.
#[portos_tool(
    name = "mind.local-context",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["adjustLocalContext"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn local_context(
    _args: LocalContextArgs,
    store: Shared<Store>,
) -> Result<LocalContextRead, AdapterError> {
    Ok(context_ops::read_for_mind(&store).await?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AdjustLocalContextArgs {
    /// The new context window in tokens (512 to 131072; at most this machine's safe ceiling).
    #[schemars(range(min = NUM_CTX_MIN, max = NUM_CTX_MAX))]
    pub num_ctx: i64,
    /// Why (1..240 characters, trimmed).
    #[serde(deserialize_with = "trimmed")]
    #[schemars(length(min = 1, max = 240), regex(pattern = r"\S"))]
    pub reason: String,
}

/// Adjust this mind's own local provider numCtx within this machine's memory ceiling. Refused when it would risk running PortOS out of memory.
#[portos_tool(
    name = "mind.adjust-local-context",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["adjustLocalContext"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn adjust_local_context(
    args: AdjustLocalContextArgs,
    store: Shared<Store>,
) -> Result<Answer<Adjusted>, AdapterError> {
    Ok(context_ops::adjust(&store, args.num_ctx, args.reason, Timestamp::now()).await?)
}

//! The six `mind.recipes.*` tools (docs/reference.md#tool-families, the
//! Mind-only family): the Persistent Mind writes, reads, archives and restores
//! its saved read recipes. `manageToolRecipes`, scope `mind` only, confirmation
//! `capability-grant`. Thin: arguments → `ops` → answer. Arguments the
//! schema refuses are `TOOL_VALIDATION_ERROR`; a request the library
//! refuses answers `{ok: false, state: "failed", code, error}` and changes
//! nothing.

use std::sync::Arc;

use portos_core::{AdapterError, Registry, Shared, ToolContext, portos_tool};
use portos_server::LiveRegistry;
use portos_server::events::Events;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::{Answer, answer};
use super::error::RecipeError;
use super::events::{self as recipe_events, RecipeEvent};
use super::model::{Author, DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, RecipePage, RecipeRead, Written};
use super::ops;

pub use super::store::CATALOG_CHANGE;

/// A recipe id: a UUID.
pub const ID_PATTERN: &str =
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// The recipe definition: {schemaVersion: 1, name: "recipe.<slug>", purpose, parameters, steps (1 to 5 read tool calls with bound arguments), outputs}.
    pub definition: Value,
}

/// Save a new read recipe: up to five read tool calls in order, with arguments bound to literals, the recipe's inputs or earlier steps' results, and named outputs. Checked against the current catalog before it is saved.
#[portos_tool(
    name = "mind.recipes.create",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
    not_strict = "the definition is a program in the recipe language, checked by its own validator with the field and step of every refusal; no provider schema subset can express it",
)]
pub async fn create(
    ctx: &ToolContext,
    args: CreateArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
) -> Result<Answer<Written>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(answer(
        announced(
            ctx,
            &events,
            &store,
            ops::create(&store, registry, args.definition, Author::Mind).await,
        )
        .await,
    )?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// How many recipes (1 to 20, default 10).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: usize,
    /// How many to skip (0 to 100000, default 0).
    #[serde(default)]
    #[schemars(range(max = MAX_OFFSET))]
    pub offset: usize,
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

/// List saved read recipes by name with their active revision, definition and whether each can be called now.
#[portos_tool(
    name = "mind.recipes.list",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn list(
    args: ListArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
) -> Result<Answer<RecipePage>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(Answer::done(
        ops::list(&store, &registry, args.limit, args.offset).await?,
    ))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The recipe's id.
    #[schemars(regex(pattern = ID_PATTERN))]
    pub id: String,
    /// How many revisions (1 to 20, default 10), newest first.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: usize,
    /// How many revisions to skip (0 to 100000, default 0).
    #[serde(default)]
    #[schemars(range(max = MAX_OFFSET))]
    pub offset: usize,
}

/// Read one saved recipe with its revision history, newest first.
#[portos_tool(
    name = "mind.recipes.read",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn read(
    args: ReadArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
) -> Result<Answer<RecipeRead>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(answer(
        ops::read(&store, &registry, args.id, args.limit, args.offset).await,
    )?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UpdateArgs {
    /// The recipe's id.
    #[schemars(regex(pattern = ID_PATTERN))]
    pub id: String,
    /// The whole new definition.
    pub definition: Value,
    /// The active revision this change is made against (from list or read).
    #[schemars(range(min = 1))]
    pub expected_revision: i64,
}

/// Replace a saved recipe's definition as a new revision. Refused, with nothing changed, when the definition is invalid or the recipe moved past expectedRevision.
#[portos_tool(
    name = "mind.recipes.update",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
    not_strict = "the definition is a program in the recipe language, checked by its own validator with the field and step of every refusal; no provider schema subset can express it",
)]
pub async fn update(
    ctx: &ToolContext,
    args: UpdateArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
) -> Result<Answer<Written>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(answer(
        announced(
            ctx,
            &events,
            &store,
            ops::update(
                &store,
                registry,
                args.id,
                args.definition,
                args.expected_revision,
                Author::Mind,
            )
            .await,
        )
        .await,
    )?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArchiveArgs {
    /// The recipe's id.
    #[schemars(regex(pattern = ID_PATTERN))]
    pub id: String,
    /// The active revision this change is made against.
    #[schemars(range(min = 1))]
    pub expected_revision: i64,
}

/// Archive a saved recipe as a new revision: it can no longer be called until restored. Its history is kept.
#[portos_tool(
    name = "mind.recipes.archive",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn archive(
    ctx: &ToolContext,
    args: ArchiveArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
) -> Result<Answer<Written>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(answer(
        announced(
            ctx,
            &events,
            &store,
            ops::archive(
                &store,
                registry,
                args.id,
                args.expected_revision,
                Author::Mind,
            )
            .await,
        )
        .await,
    )?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RestoreArgs {
    /// The recipe's id.
    #[schemars(regex(pattern = ID_PATTERN))]
    pub id: String,
    /// The earlier revision whose definition becomes active again.
    #[schemars(range(min = 1))]
    pub revision: i64,
    /// The active revision this change is made against.
    #[schemars(range(min = 1))]
    pub expected_revision: i64,
}

/// Make an earlier revision of a saved recipe active again (and not archived), as a new revision, after checking it against the current catalog.
#[portos_tool(
    name = "mind.recipes.restore",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["manageToolRecipes"],
    side_effect = "write",
    idempotent,
    confirmation = "capability-grant",
)]
pub async fn restore(
    ctx: &ToolContext,
    args: RestoreArgs,
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
) -> Result<Answer<Written>, AdapterError> {
    let registry = library(&live_registry)?;
    Ok(answer(
        announced(
            ctx,
            &events,
            &store,
            ops::restore(
                &store,
                registry,
                args.id,
                args.revision,
                args.expected_revision,
                Author::Mind,
            )
            .await,
        )
        .await,
    )?)
}

/// A write that changed the library changes the mind and agent catalogs:
/// their subscribers are told to read them again. Every write the Mind
/// makes is a capability event.
async fn announced(
    ctx: &ToolContext,
    events: &Events,
    store: &Store,
    outcome: Result<Written, RecipeError>,
) -> Result<Written, RecipeError> {
    if let Ok(written) = &outcome {
        announce_if(events, written.changed).await;
        let state = if written.changed {
            "changed"
        } else {
            "unchanged"
        };
        let mut event = RecipeEvent::new(
            format!("recipe-definition:{}", ctx.request_id()),
            "definition",
            state,
        );
        event.recipe_id = Some(written.recipe.id.clone());
        event.revision = Some(written.recipe.active_revision);
        event.detail = Some(written.summary.clone());
        recipe_events::record(store, event).await;
    }
    outcome
}

/// A write that changed the library changes the mind and agent catalogs:
/// their Socket.IO subscribers are told to read them again.
pub async fn announce_if(events: &Events, changed: bool) {
    if changed {
        events.catalog_changed(CATALOG_CHANGE).await;
    }
}

/// The registry the tool is served in.
fn library(live: &LiveRegistry) -> Result<Arc<Registry>, AdapterError> {
    live.get().ok_or_else(|| {
        AdapterError::new("The tool catalog is not available to check recipes against")
    })
}

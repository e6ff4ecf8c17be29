//! `/api/cos/mind/*` for people: the Mind's memories (read, add) and
//! chosen name (read), and the owner's configuration of its thinking
//! presets and local context memory estimate. The Mind itself changes its
//! state only through its tools.

use crate::ledger::Source;
use axum::Json;
use portos_core::Shared;
use portos_server::http::{Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::local_context::MemoryEstimate;
use super::memory::{Memory, MindIdentity, NewMemory};
use super::ops::local_context::{self as context_ops, LocalContext, LocalContextError};
use super::ops::memory as memory_ops;
use super::ops::thinking::{self as thinking_ops, PresetsView};
use super::store::memories::Listed;
use super::thinking::PresetList;

/// Which memories to list.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryState {
    /// Not archived (the default).
    #[default]
    Active,
    Archived,
    All,
}

/// The memory listing's filter.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoriesQuery {
    /// `active` (default), `archived` or `all`.
    pub state: Option<MemoryState>,
}

/// The Mind's memories, oldest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MemoryList {
    pub memories: Vec<Memory>,
}

/// The Mind's memories: active ones unless `state` says otherwise.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/memories",
    summary = "Persistent Mind memories"
)]
async fn memories(
    store: Shared<Store>,
    Query(query): Query<MemoriesQuery>,
) -> Result<Json<MemoryList>, StoreError> {
    let which = match query.state.unwrap_or_default() {
        MemoryState::Active => Listed::Active,
        MemoryState::Archived => Listed::Archived,
        MemoryState::All => Listed::All,
    };
    let memories = memory_ops::list(&store, which).await?;
    Ok(Json(MemoryList { memories }))
}

/// Adds a memory for the Mind: `text` (1..2000 characters) and an optional
/// `protection`.
#[portos_route(
    method = "POST",
    path = "/api/cos/mind/memories",
    summary = "Add a Persistent Mind memory"
)]
async fn add_memory(
    store: Shared<Store>,
    Body(new): Body<NewMemory>,
) -> Result<Created<Memory>, InputError> {
    let memory = memory_ops::add(&store, new).await?.map_err(Invalid)?;
    Ok(Created(memory))
}

/// The Mind's chosen name (`null` until it chooses one).
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/identity",
    summary = "Persistent Mind identity"
)]
async fn identity(store: Shared<Store>) -> Result<Json<MindIdentity>, StoreError> {
    Ok(Json(memory_ops::identity(&store).await?))
}

/// The approved thinking presets, with the Mind's pending and recent
/// requests.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/thinking-presets",
    summary = "Persistent Mind thinking presets"
)]
async fn thinking_presets(store: Shared<Store>) -> Result<Json<PresetsView>, StoreError> {
    Ok(Json(thinking_ops::view(&store).await?))
}

/// Replaces the approved thinking presets (at most 20, unique ids). A
/// request already pending for a preset that changes is dropped when the
/// next wake takes it.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/thinking-presets",
    summary = "Set Persistent Mind thinking presets"
)]
async fn set_thinking_presets(
    store: Shared<Store>,
    Body(list): Body<PresetList>,
) -> Result<Json<PresetsView>, InputError> {
    let list = list.checked().map_err(Invalid)?;
    let route = Source::http("PUT", "/api/cos/mind/thinking-presets");
    Ok(Json(thinking_ops::set_presets(&store, list, route).await?))
}

/// Why the local context could not be read: the server's own faults.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum LocalContextFault {
    /// This machine's memory could not be read.
    #[error("{0}")]
    #[route_error(internal)]
    Host(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<LocalContextError> for LocalContextFault {
    fn from(error: LocalContextError) -> LocalContextFault {
        match error {
            LocalContextError::Host(message) => LocalContextFault::Host(message),
            LocalContextError::Store(error) => LocalContextFault::Store(error),
        }
    }
}

/// Why a memory estimate was not stored.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum EstimateRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Fault(#[from] LocalContextFault),
}

impl From<LocalContextError> for EstimateRefusal {
    fn from(error: LocalContextError) -> EstimateRefusal {
        EstimateRefusal::Fault(error.into())
    }
}

/// The Mind's local context window, this machine's ceiling and the memory
/// estimate it is computed from.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/local-context",
    summary = "Persistent Mind local context"
)]
async fn local_context(store: Shared<Store>) -> Result<Json<LocalContext>, LocalContextFault> {
    Ok(Json(context_ops::read(&store).await?))
}

/// Sets the memory estimate the ceiling is computed from:
/// `kvBytesPerToken`, `modelBytes`, `reservedBytes`.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/local-context",
    summary = "Set the Persistent Mind local context memory estimate"
)]
async fn set_local_context(
    store: Shared<Store>,
    Body(estimate): Body<MemoryEstimate>,
) -> Result<Json<LocalContext>, EstimateRefusal> {
    let estimate = estimate.checked().map_err(Invalid)?;
    let route = Source::http("PUT", "/api/cos/mind/local-context");
    Ok(Json(
        context_ops::set_estimate(&store, estimate, route).await?,
    ))
}

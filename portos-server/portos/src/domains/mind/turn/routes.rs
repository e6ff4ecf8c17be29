//! `/api/cos/mind/turns`: run a Persistent Mind turn and read the turns.
//!
//! `POST` answers `202 Accepted` with the turn as it stands: it waits for
//! the turn to end for up to `waitSeconds` (default 30), so a quick turn
//! comes back `completed` or `failed` in the same answer and a slow one
//! `running`; then follow it with `GET /api/cos/mind/turns/{id}` or the
//! `cos:mind:turn-*` events. The turn runs on whether or not anyone waits.

use std::time::Duration;

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::events::Events;
use portos_server::http::{Accepted, Body, InputError, Invalid, Query, RouteErrors};
use portos_server::store::{Store, StoreError};
use portos_server::{LiveCatalogs, portos_route};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::config::MindModel;
use super::ops::{self, StartRefusal};
use super::record::{TurnRecord, TurnSummary};
use super::store::{self, LIST_DEFAULT, LIST_MAX};
use super::wake::Wakes;
use crate::domains::apps::RemoteCache;
use crate::shared::rest::{CatalogsUnavailable, served_catalogs};

pub const WAIT_DEFAULT_SECS: u64 = 30;
pub const WAIT_MAX_SECS: u64 = 120;

/// A turn to run.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TurnRequest {
    /// What to wake the Mind with, at most 12,000 characters (default: a
    /// self-directed wake).
    pub prompt: Option<String>,
    /// How long to wait for the turn to end before answering: 0 to 120
    /// seconds (default 30).
    #[schemars(range(max = 120))]
    pub wait_seconds: Option<u64>,
}

/// Which turns to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnsQuery {
    /// 1 to 100 (default 20).
    #[schemars(range(min = 1, max = LIST_MAX))]
    pub limit: Option<i64>,
    /// Turns to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TurnList {
    /// Newest first, without their conversations.
    pub turns: Vec<TurnSummary>,
}

/// Why no turn was started.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum TurnRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0}")]
    #[route_error(status = 503, code = "MIND_MODEL_NOT_CONFIGURED")]
    NotConfigured(String),
    #[error("{0}")]
    #[route_error(status = 409, code = "MIND_TURN_RUNNING")]
    Busy(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
    /// Stored when it started, and not found after: the store's fault.
    #[error("the turn {0} is no longer stored")]
    #[route_error(internal)]
    Lost(String),
    /// A server put together without binding its catalogs.
    #[error(transparent)]
    #[route_error(internal)]
    Unavailable(#[from] CatalogsUnavailable),
}

impl From<StartRefusal> for TurnRefusal {
    fn from(refusal: StartRefusal) -> TurnRefusal {
        match refusal {
            StartRefusal::Invalid(message) => TurnRefusal::Invalid(Invalid(message)),
            StartRefusal::NotConfigured => TurnRefusal::NotConfigured(refusal.to_string()),
            StartRefusal::Busy(_) => TurnRefusal::Busy(refusal.to_string()),
            StartRefusal::Store(error) => TurnRefusal::Store(error),
        }
    }
}

/// A turn that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum TurnMissing {
    #[error("Persistent Mind turn not found")]
    #[route_error(status = 404, code = "MIND_TURN_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Runs one Persistent Mind turn against the configured model: 202 with
/// the turn after waiting up to `waitSeconds` for it to end.
#[portos_route(
    method = "POST",
    path = "/api/cos/mind/turns",
    summary = "Run a Persistent Mind turn"
)]
async fn run_turn(
    catalogs: Shared<LiveCatalogs>,
    model: Shared<MindModel>,
    wakes: Shared<Wakes>,
    remotes: Shared<RemoteCache>,
    store: Shared<Store>,
    events: Shared<Events>,
    Body(request): Body<TurnRequest>,
) -> Result<Accepted<TurnRecord>, TurnRefusal> {
    let wait = request.wait_seconds.unwrap_or(WAIT_DEFAULT_SECS);
    if wait > WAIT_MAX_SECS {
        return Err(Invalid(format!(
            "waitSeconds must be 0 to {WAIT_MAX_SECS} (got {wait})"
        ))
        .into());
    }
    let resources = ops::TurnResources {
        model,
        wakes,
        remotes,
        store: store.clone(),
        events,
    };
    let catalogs = served_catalogs(&catalogs)?;
    let started = ops::start(catalogs, resources, request.prompt.as_deref()).await?;
    let id = started.id.clone();
    if let Ok(Ok(turn)) = tokio::time::timeout(Duration::from_secs(wait), started.done).await {
        return Ok(Accepted(turn));
    }
    // Still running (or its task stopped): what is stored.
    let read = id.clone();
    let turn = store
        .run(move |connection| store::get(connection, &read))
        .await?;
    turn.map(Accepted).ok_or(TurnRefusal::Lost(id))
}

/// The Persistent Mind's turns, newest first.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/turns",
    summary = "Persistent Mind turns"
)]
async fn list_turns(
    store: Shared<Store>,
    Query(query): Query<TurnsQuery>,
) -> Result<Json<TurnList>, InputError> {
    let limit = match query.limit {
        None => LIST_DEFAULT,
        Some(n) if (1..=LIST_MAX as i64).contains(&n) => usize::try_from(n).unwrap_or(LIST_MAX),
        Some(_) => return Err(Invalid(format!("limit must be between 1 and {LIST_MAX}")).into()),
    };
    let offset = match query.offset {
        None => 0,
        Some(n) => {
            usize::try_from(n).map_err(|_| Invalid("offset must be 0 or more".to_owned()))?
        }
    };
    let turns = store
        .run(move |connection| store::list(connection, limit, offset))
        .await?;
    Ok(Json(TurnList { turns }))
}

/// One turn: its conversation, calls, budget and outcome.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/turns/{id}",
    summary = "Persistent Mind turn"
)]
async fn read_turn(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<TurnRecord>, TurnMissing> {
    let turn = store
        .run(move |connection| store::get(connection, &id))
        .await?;
    turn.map(Json).ok_or(TurnMissing::NotFound)
}

//! `/api/public/brain/*`: the brain inbox as the API group `brain` that
//! Settings → API Access can expose to other devices. Each operation is also
//! an HTTP tool (tools.min.json) and runs the brain's own tool as the owner
//! (see `crate::shared::public_api`).

use axum::Json;
use portos_core::Shared;
use portos_server::LiveRegistry;
use portos_server::http::{Body, Created, Query};
use portos_server::portos_route;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::tools::{Captured, RecentResult};
use crate::shared::public_api::{OwnerCallError, OwnerWriteError, run_as_owner};

/// What to capture.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublicCapture {
    /// The thought, as said (trimmed; must not be empty).
    #[schemars(regex(pattern = r"\S"))]
    pub text: String,
}

/// How many captures to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentQuery {
    /// How many (default 5): below 1 reads as 5, above 10 as 10.
    pub limit: Option<i64>,
}

/// Capture a thought into the brain inbox from another device.
#[portos_route(
    method = "POST",
    path = "/api/public/brain/captures",
    summary = "Capture into the brain inbox",
    tool(name = "inbox.capture", privacy = "personal", side_effect = "write")
)]
async fn capture(
    live_registry: Shared<LiveRegistry>,
    Body(PublicCapture { text }): Body<PublicCapture>,
) -> Result<Created<Captured>, OwnerWriteError> {
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), Value::String(text));
    let captured = run_as_owner(&live_registry, "brain.capture", arguments).await?;
    Ok(Created(captured))
}

/// The latest captures of the brain inbox.
#[portos_route(
    method = "GET",
    path = "/api/public/brain/captures",
    summary = "Latest brain captures",
    tool(name = "inbox.recent", privacy = "personal", side_effect = "read")
)]
async fn recent(
    live_registry: Shared<LiveRegistry>,
    Query(RecentQuery { limit }): Query<RecentQuery>,
) -> Result<Json<RecentResult>, OwnerCallError> {
    let mut arguments = Map::new();
    if let Some(limit) = limit {
        arguments.insert("limit".to_owned(), Value::from(limit));
    }
    Ok(Json(
        run_as_owner(&live_registry, "brain.recent", arguments).await?,
    ))
}

//! `/api/feeds/*`: feed subscriptions and their items, the data behind
//! `feeds.digest` and `feeds.mark-read`.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{AlreadySubscribed, Feed, FeedItem, ITEM_WINDOW, RefreshOutcome};
use super::ops::{self, RefreshError};
use super::store;
use crate::app::App;
use crate::shared::subscriptions::{SourceBody, validation};

/// Every subscription.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedList {
    pub feeds: Vec<Feed>,
}

/// Items, newest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ItemList {
    pub items: Vec<FeedItem>,
}

/// Which items to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemsQuery {
    /// `true`: unread items only.
    pub unread: Option<bool>,
    /// A feed id: that feed's items only.
    pub feed: Option<String>,
}

/// The feed subscriptions, with unread counts.
#[portos_route(
    method = "GET",
    path = "/api/feeds",
    summary = "Feed subscriptions",
    response = FeedList,
)]
async fn list(State(app): State<App>) -> Result<Json<FeedList>, ApiError> {
    let feeds = app.store.run(|connection| store::list(connection)).await?;
    Ok(Json(FeedList { feeds }))
}

/// Subscribes to an RSS/Atom feed by URL or file path. Nothing is fetched
/// yet: refresh it to read its items.
#[portos_route(
    method = "POST",
    path = "/api/feeds",
    summary = "Subscribe to a feed",
    request = SourceBody,
    response = Feed,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (409, "ALREADY_SUBSCRIBED"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn subscribe(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Feed>), ApiError> {
    let (location, title) = body
        .into_typed::<SourceBody>()?
        .checked()
        .map_err(validation)?;
    let outcome = ops::subscribe(&app.store, &location, title).await?;
    match outcome {
        Ok(feed) => Ok((StatusCode::CREATED, Json(feed))),
        Err(AlreadySubscribed(feed)) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "ALREADY_SUBSCRIBED",
            format!("Already subscribed to {} (feed {})", feed.source, feed.id),
        )),
    }
}

/// Unsubscribes and forgets the feed's items.
#[portos_route(
    method = "DELETE",
    path = "/api/feeds/{id}",
    summary = "Unsubscribe from a feed",
    status = 204,
    errors = [(404, "FEED_NOT_FOUND")],
)]
async fn unsubscribe(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let removed = app
        .store
        .run(move |connection| store::unsubscribe(connection, &id))
        .await?;
    if removed {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(feed_not_found())
    }
}

/// Fetches and parses the feed, adding the items not seen before. A fetch
/// or parse failure changes nothing.
#[portos_route(
    method = "POST",
    path = "/api/feeds/{id}/refresh",
    summary = "Refresh a feed",
    response = RefreshOutcome,
    errors = [
        (404, "FEED_NOT_FOUND"),
        (422, "SOURCE_UNREADABLE"),
        (422, "FEED_PARSE_ERROR"),
        (502, "SOURCE_UNREACHABLE"),
    ],
)]
async fn refresh(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<RefreshOutcome>, ApiError> {
    match ops::refresh(&app.store, id).await {
        Ok(outcome) => Ok(Json(outcome)),
        Err(RefreshError::NotFound) => Err(feed_not_found()),
        Err(RefreshError::Load(failure)) => Err(failure.into()),
        Err(RefreshError::Parse(message)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "FEED_PARSE_ERROR",
            message,
        )),
        Err(RefreshError::Store(error)) => Err(ApiError::from(error)),
    }
}

/// Feed items, newest first (at most 500).
#[portos_route(
    method = "GET",
    path = "/api/feeds/items",
    summary = "Feed items",
    query = ItemsQuery,
    response = ItemList,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn items(
    State(app): State<App>,
    query: Result<Query<ItemsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<ItemList>, ApiError> {
    let Query(ItemsQuery { unread, feed }) =
        query.map_err(|rejection| validation(rejection.body_text()))?;
    let items = ops::items(&app.store, unread == Some(true), feed, ITEM_WINDOW).await?;
    Ok(Json(ItemList { items }))
}

/// Marks one item read.
#[portos_route(
    method = "POST",
    path = "/api/feeds/items/{id}/read",
    summary = "Mark a feed item read",
    response = FeedItem,
    errors = [(404, "FEED_ITEM_NOT_FOUND")],
)]
async fn mark_read(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<FeedItem>, ApiError> {
    ops::mark_read(&app.store, id)
        .await?
        .map(Json)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "FEED_ITEM_NOT_FOUND",
                "No feed item with that id",
            )
        })
}

fn feed_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "FEED_NOT_FOUND",
        "No feed with that id",
    )
}

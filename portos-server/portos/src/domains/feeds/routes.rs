//! `/api/feeds/*`: feed subscriptions and their items, the data behind
//! `feeds.digest` and `feeds.mark-read`.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::http::{Body, Created, Invalid, NoContent, Query, RouteErrors};
use portos_server::outbound::OutboundPolicy;
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{AlreadySubscribed, Feed, FeedItem, ITEM_WINDOW, RefreshOutcome};
use super::ops::{self, RefreshError};
use super::store;
use crate::shared::subscriptions::{LoadFailure, SourceBody};

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
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemsQuery {
    /// `true`: unread items only.
    pub unread: Option<bool>,
    /// A feed id: that feed's items only.
    pub feed: Option<String>,
}

/// Why a subscription was not added: it breaks a rule, or it exists.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum SubscribeRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("Already subscribed to {} (feed {})", .0.0.source, .0.0.id)]
    #[route_error(status = 409, code = "ALREADY_SUBSCRIBED")]
    AlreadySubscribed(AlreadySubscribed),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// A feed that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum FeedMissing {
    #[error("No feed with that id")]
    #[route_error(status = 404, code = "FEED_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a refresh changed nothing.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum RefreshRefusal {
    #[error("No feed with that id")]
    #[route_error(status = 404, code = "FEED_NOT_FOUND")]
    NotFound,
    /// The source cannot be read (422) or its server failed (502).
    #[error(transparent)]
    #[route_error(transparent)]
    Load(LoadFailure),
    /// The document is not a feed; the message names the source.
    #[error("{0}")]
    #[route_error(status = 422, code = "FEED_PARSE_ERROR")]
    Parse(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<RefreshError> for RefreshRefusal {
    fn from(error: RefreshError) -> RefreshRefusal {
        match error {
            RefreshError::NotFound => RefreshRefusal::NotFound,
            RefreshError::Load(failure) => RefreshRefusal::Load(failure),
            RefreshError::Parse(message) => RefreshRefusal::Parse(message),
            RefreshError::Store(error) => RefreshRefusal::Store(error),
        }
    }
}

/// A feed item that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum ItemMissing {
    #[error("No feed item with that id")]
    #[route_error(status = 404, code = "FEED_ITEM_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// The feed subscriptions, with unread counts.
#[portos_route(method = "GET", path = "/api/feeds", summary = "Feed subscriptions")]
async fn list(store: Shared<Store>) -> Result<Json<FeedList>, StoreError> {
    let feeds = store.run(|connection| store::list(connection)).await?;
    Ok(Json(FeedList { feeds }))
}

/// Subscribes to an RSS/Atom feed by URL or file path. Nothing is fetched
/// yet: refresh it to read its items.
#[portos_route(method = "POST", path = "/api/feeds", summary = "Subscribe to a feed")]
async fn subscribe(
    store: Shared<Store>,
    outbound: Shared<OutboundPolicy>,
    Body(body): Body<SourceBody>,
) -> Result<Created<Feed>, SubscribeRefusal> {
    let (location, title) = body.checked(&outbound).map_err(Invalid)?;
    let subscribed = ops::subscribe(&store, &location, title).await?;
    subscribed
        .map(Created)
        .map_err(SubscribeRefusal::AlreadySubscribed)
}

/// Unsubscribes and forgets the feed's items.
#[portos_route(
    method = "DELETE",
    path = "/api/feeds/{id}",
    summary = "Unsubscribe from a feed"
)]
async fn unsubscribe(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<NoContent, FeedMissing> {
    let removed = store
        .run(move |connection| store::unsubscribe(connection, &id))
        .await?;
    if removed {
        Ok(NoContent)
    } else {
        Err(FeedMissing::NotFound)
    }
}

/// Fetches and parses the feed, adding the items not seen before. A fetch
/// or parse failure changes nothing.
#[portos_route(
    method = "POST",
    path = "/api/feeds/{id}/refresh",
    summary = "Refresh a feed"
)]
async fn refresh(
    store: Shared<Store>,
    outbound: Shared<OutboundPolicy>,
    Path(id): Path<String>,
) -> Result<Json<RefreshOutcome>, RefreshRefusal> {
    Ok(Json(ops::refresh(&store, &outbound, id).await?))
}

/// Feed items, newest first (at most 500).
#[portos_route(method = "GET", path = "/api/feeds/items", summary = "Feed items")]
async fn items(
    store: Shared<Store>,
    Query(ItemsQuery { unread, feed }): Query<ItemsQuery>,
) -> Result<Json<ItemList>, StoreError> {
    let items = ops::items(&store, unread == Some(true), feed, ITEM_WINDOW).await?;
    Ok(Json(ItemList { items }))
}

/// Marks one item read.
#[portos_route(
    method = "POST",
    path = "/api/feeds/items/{id}/read",
    summary = "Mark a feed item read"
)]
async fn mark_read(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<FeedItem>, ItemMissing> {
    ops::mark_read(&store, id)
        .await?
        .map(Json)
        .ok_or(ItemMissing::NotFound)
}

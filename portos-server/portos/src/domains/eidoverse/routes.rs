//! `/api/eidoverse/*` for people: the world, its chat, the peer worlds and
//! whether this world takes guests. The guest routes other worlds call are in
//! `guest_routes.rs`.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chat::{self, Message, Page};
use super::entities::Entity;
use super::guests;
use super::ops::{self, SayError, Speaker};
use super::peers::{self, NewPeer, Peer};
use super::store::{peers as stored_peers, world};
use super::world::Status;
use crate::app::App;

/// The most entities the world view lists.
const WORLD_VIEW_ENTITIES: i64 = 500;

// By value so it fits `.map_err(…)`.

fn unprocessable(message: impl Into<String>) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "VALIDATION_ERROR",
        message,
    )
}

/// The world's status and its first entities.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorldView {
    #[serde(flatten)]
    pub status: Status,
    /// The first 500 entities, oldest first.
    pub entities: Vec<Entity>,
}

/// The local Eidoverse world: identity, setup, presence, counts, entities.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/world",
    summary = "Eidoverse world",
    response = WorldView,
)]
async fn read_world(State(app): State<App>) -> Result<Json<WorldView>, ApiError> {
    let (status, entities) = ops::view(&app.store, WORLD_VIEW_ENTITIES).await?;
    Ok(Json(WorldView { status, entities }))
}

/// Where to read the chat from.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatQuery {
    /// Messages after this cursor (default -1: from the start).
    #[schemars(range(min = -1))]
    pub after: Option<i64>,
}

/// Turns a query rejection or an out-of-range cursor into 400.
pub(super) fn chat_cursor(
    query: Result<Query<ChatQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<i64, ApiError> {
    let Query(ChatQuery { after }) = query.map_err(|rejection| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
            rejection.body_text(),
        )
    })?;
    chat::checked_cursor(after)
        .map_err(|message| ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message))
}

/// The world chat after a cursor, at most 50 messages.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/chat",
    summary = "Eidoverse chat",
    query = ChatQuery,
    response = Page,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn read_chat(
    State(app): State<App>,
    query: Result<Query<ChatQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Page>, ApiError> {
    let after = chat_cursor(query)?;
    let page = ops::read_chat(&app.store, after).await?;
    Ok(Json(page))
}

/// A line the owner says in the world.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnerLine {
    /// 1..2000 characters, trimmed.
    pub text: String,
}

/// Say something in the world as its owner.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/chat",
    summary = "Post to Eidoverse chat",
    request = OwnerLine,
    response = Message,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE"), (422, "VALIDATION_ERROR")],
)]
async fn post_chat(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Message>), ApiError> {
    let OwnerLine { text } = body.into_typed()?;
    let message =
        ops::say(&app.store, Speaker::Owner, &text)
            .await
            .map_err(|error| match error {
                SayError::Invalid(message) => unprocessable(message),
                SayError::Store(error) => ApiError::from(error),
            })?;
    Ok((StatusCode::CREATED, Json(message)))
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PeerList {
    pub peers: Vec<Peer>,
}

/// The peer worlds this world's presence may visit.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/peers",
    summary = "Eidoverse peers",
    response = PeerList,
)]
async fn list_peers(State(app): State<App>) -> Result<Json<PeerList>, ApiError> {
    let peers = app
        .store
        .run(|connection| stored_peers::list(connection))
        .await?;
    Ok(Json(PeerList { peers }))
}

/// Adds a peer world by URL (or changes the one with that id).
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/peers",
    summary = "Add Eidoverse peer",
    request = NewPeer,
    response = Peer,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE"), (422, "VALIDATION_ERROR")],
)]
async fn add_peer(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Peer>), ApiError> {
    let new_peer: NewPeer = body.into_typed()?;
    let peer = new_peer.checked().map_err(unprocessable)?;
    let stored = peer.clone();
    app.store
        .run(move |connection| stored_peers::upsert(connection, &stored))
        .await?
        .map_err(unprocessable)?;
    Ok((StatusCode::CREATED, Json(peer)))
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PeerRemoved {
    pub id: String,
    pub removed: bool,
}

/// Forgets a peer world.
#[portos_route(
    method = "DELETE",
    path = "/api/eidoverse/peers/{id}",
    summary = "Remove Eidoverse peer",
    response = PeerRemoved,
    errors = [(400, "VALIDATION_ERROR"), (404, "PEER_NOT_FOUND")],
)]
async fn remove_peer(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<PeerRemoved>, ApiError> {
    if !peers::is_peer_id(&id) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
            "a peer id is 1..80 characters of letters, digits, '_' and '-'",
        ));
    }
    let key = id.clone();
    let removed = app
        .store
        .run(move |connection| stored_peers::remove(connection, &key))
        .await?;
    if !removed {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "PEER_NOT_FOUND",
            format!("There is no peer '{id}'"),
        ));
    }
    Ok(Json(PeerRemoved { id, removed }))
}

/// Whether other worlds' presences may visit this one.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EidoverseSettings {
    pub accept_guests: bool,
}

/// This world's travel settings.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/settings",
    summary = "Eidoverse settings",
    response = EidoverseSettings,
)]
async fn read_settings(State(app): State<App>) -> Result<Json<EidoverseSettings>, ApiError> {
    let accept_guests = app
        .store
        .run(|connection| guests::accepting(connection))
        .await?;
    Ok(Json(EidoverseSettings { accept_guests }))
}

/// Opens or closes this world to guests from peer worlds.
#[portos_route(
    method = "PUT",
    path = "/api/eidoverse/settings",
    summary = "Change Eidoverse settings",
    request = EidoverseSettings,
    response = EidoverseSettings,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn change_settings(
    State(app): State<App>,
    body: JsonBody,
) -> Result<Json<EidoverseSettings>, ApiError> {
    let settings: EidoverseSettings = body.into_typed()?;
    let accept = settings.accept_guests;
    app.store
        .run(move |connection| world::set_accept_guests(connection, accept))
        .await?;
    Ok(Json(settings))
}

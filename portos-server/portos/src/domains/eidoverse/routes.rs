//! `/api/eidoverse/*` for people: the world, its chat, the peer worlds and
//! whether this world takes guests. The guest routes other worlds call are in
//! `guest_routes.rs`.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::http::{Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::outbound::OutboundPolicy;
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chat::{self, Message, Page};
use super::entities::Entity;
use super::guests;
use super::ops::{self, SayError, Speaker};
use super::peers::{self, NewPeer, Peer};
use super::store::{peers as stored_peers, world};
use super::world::Status;
use crate::shared::doc_rules::NOT_BLANK;

/// The most entities the world view lists.
const WORLD_VIEW_ENTITIES: i64 = 500;

/// A well-formed request the world will not take: what it says breaks a
/// rule of the world (an empty line, a peer URL that is not http(s), one
/// peer too many). 400 `VALIDATION_ERROR`, the one status of validation
/// failures across the API.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum WorldRuleBroken {
    #[error("{0}")]
    #[route_error(status = 400, code = "VALIDATION_ERROR")]
    Rule(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<SayError> for WorldRuleBroken {
    fn from(error: SayError) -> WorldRuleBroken {
        match error {
            SayError::Invalid(message) => WorldRuleBroken::Rule(message),
            SayError::Store(error) => WorldRuleBroken::Store(error),
        }
    }
}

/// A peer that cannot be forgotten: the id cannot be one, or no peer has it.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum PeerMissing {
    #[error("a peer id is 1..80 characters of letters, digits, '_' and '-'")]
    #[route_error(status = 400, code = "VALIDATION_ERROR")]
    BadId,
    #[error("There is no peer '{0}'")]
    #[route_error(status = 404, code = "PEER_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
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
    summary = "Eidoverse world"
)]
async fn read_world(store: Shared<Store>) -> Result<Json<WorldView>, StoreError> {
    let (status, entities) = ops::view(&store, WORLD_VIEW_ENTITIES).await?;
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

/// The world chat after a cursor, at most 50 messages.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/chat",
    summary = "Eidoverse chat"
)]
async fn read_chat(
    store: Shared<Store>,
    Query(ChatQuery { after }): Query<ChatQuery>,
) -> Result<Json<Page>, InputError> {
    let after = chat::checked_cursor(after).map_err(Invalid)?;
    let page = ops::read_chat(&store, after).await?;
    Ok(Json(page))
}

/// A line the owner says in the world.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OwnerLine {
    /// 1..2000 characters, trimmed.
    #[schemars(length(max = 2000), regex(pattern = NOT_BLANK))]
    pub text: String,
}

/// Say something in the world as its owner.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/chat",
    summary = "Post to Eidoverse chat"
)]
async fn post_chat(
    store: Shared<Store>,
    Body(OwnerLine { text }): Body<OwnerLine>,
) -> Result<Created<Message>, WorldRuleBroken> {
    let message = ops::say(&store, Speaker::Owner, &text).await?;
    Ok(Created(message))
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PeerList {
    pub peers: Vec<Peer>,
}

/// The peer worlds this world's presence may visit.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/peers",
    summary = "Eidoverse peers"
)]
async fn list_peers(store: Shared<Store>) -> Result<Json<PeerList>, StoreError> {
    let peers = store
        .run(|connection| stored_peers::list(connection))
        .await?;
    Ok(Json(PeerList { peers }))
}

/// Adds a peer world by URL (or changes the one with that id).
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/peers",
    summary = "Add Eidoverse peer"
)]
async fn add_peer(
    store: Shared<Store>,
    outbound: Shared<OutboundPolicy>,
    Body(new_peer): Body<NewPeer>,
) -> Result<Created<Peer>, WorldRuleBroken> {
    let peer = new_peer.checked(&outbound).map_err(WorldRuleBroken::Rule)?;
    let stored = peer.clone();
    store
        .run(move |connection| stored_peers::upsert(connection, &stored))
        .await?
        .map_err(WorldRuleBroken::Rule)?;
    Ok(Created(peer))
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
    summary = "Remove Eidoverse peer"
)]
async fn remove_peer(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<PeerRemoved>, PeerMissing> {
    if !peers::is_peer_id(&id) {
        return Err(PeerMissing::BadId);
    }
    let key = id.clone();
    let removed = store
        .run(move |connection| stored_peers::remove(connection, &key))
        .await?;
    if !removed {
        return Err(PeerMissing::NotFound(id));
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
    summary = "Eidoverse settings"
)]
async fn read_settings(store: Shared<Store>) -> Result<Json<EidoverseSettings>, StoreError> {
    let accept_guests = store
        .run(|connection| guests::accepting(connection))
        .await?;
    Ok(Json(EidoverseSettings { accept_guests }))
}

/// Opens or closes this world to guests from peer worlds.
#[portos_route(
    method = "PUT",
    path = "/api/eidoverse/settings",
    summary = "Change Eidoverse settings"
)]
async fn change_settings(
    store: Shared<Store>,
    Body(settings): Body<EidoverseSettings>,
) -> Result<Json<EidoverseSettings>, StoreError> {
    let accept = settings.accept_guests;
    store
        .run(move |connection| world::set_accept_guests(connection, accept))
        .await?;
    Ok(Json(settings))
}

//! The eidoverse tools (docs/reference.md#tool-families), thin: arguments → the
//! world's operations (`ops`, `augment`, `projection`, `travel`) → result.

use portos_core::{AdapterError, Shared, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::augment::{self, AugmentArgs, Augmented};
use super::chat::{self, Message, Page, page_summary};
use super::ops::{self, SayError, Speaker};
use super::peer_client::PeerClient;
use super::projection::{self, Projected};
use super::travel::{self, Destinations, Left, VisitChat, Visiting};
use super::world::Status;
use crate::store::Store;

impl From<SayError> for AdapterError {
    fn from(error: SayError) -> AdapterError {
        match error {
            SayError::Invalid(message) => AdapterError::new(message),
            SayError::Store(error) => error.into(),
        }
    }
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// Read the private Eidoverse world's identity, recipe, presence and setup.
#[portos_tool(
    name = "eidoverse.status",
    aliases = ["eidoverse_status"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn eidoverse_status(
    _args: StatusArgs,
    store: Shared<Store>,
) -> Result<Status, AdapterError> {
    Ok(ops::status(&store).await?)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SayArgs {
    /// What the Chief of Staff says in the world (1..2000 characters, trimmed).
    #[schemars(length(min = 1, max = 2000), regex(pattern = r"\S"))]
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Said {
    pub ok: bool,
    pub message: Message,
    pub summary: String,
}

/// Say something in the Eidoverse world as the Chief of Staff's presence.
#[portos_tool(
    name = "eidoverse.say",
    aliases = ["eidoverse_say"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["manageEidoverse"],
    side_effect = "write",
    idempotent = false,
)]
pub async fn eidoverse_say(args: SayArgs, store: Shared<Store>) -> Result<Said, AdapterError> {
    let message = ops::say(&store, Speaker::Presence, &args.text).await?;
    Ok(Said {
        ok: true,
        summary: format!(
            "{} said \"{}\" (message {}).",
            message.author,
            super::preview(&message.text),
            message.cursor
        ),
        message,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatArgs {
    /// Read messages after this cursor (default -1: from the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -1))]
    pub after: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatRead {
    pub ok: bool,
    #[serde(flatten)]
    pub page: Page,
    pub summary: String,
}

/// Read the Eidoverse world's chat since a cursor.
#[portos_tool(
    name = "eidoverse.chat",
    aliases = ["eidoverse_chat"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn eidoverse_chat(
    args: ChatArgs,
    store: Shared<Store>,
) -> Result<ChatRead, AdapterError> {
    let after = chat::checked_cursor(args.after).map_err(AdapterError::new)?;
    let page = ops::read_chat(&store, after).await?;
    Ok(ChatRead {
        ok: true,
        summary: page_summary(&page),
        page,
    })
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectArgs {}

/// Synchronize PortOS resources (brain captures, peer worlds) into the Eidoverse world.
#[portos_tool(
    name = "eidoverse.project",
    aliases = ["eidoverse_project"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos", "manageEidoverse"],
    side_effect = "write",
    idempotent = true,
)]
pub async fn eidoverse_project(
    _args: ProjectArgs,
    store: Shared<Store>,
) -> Result<Projected, AdapterError> {
    Ok(projection::project(&store).await?)
}

/// Apply bounded construction operations to the Eidoverse world.
#[portos_tool(
    name = "eidoverse.augment",
    aliases = ["eidoverse_augment"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["manageEidoverse"],
    side_effect = "write",
    idempotent = false,
    // docs/reference.md#tool-families makes `args` a free-form object whose
    // keys the verb names, checked per operation so one bad operation is
    // refused alone; a typed per-verb schema would refuse the whole call
    // instead, and `comp` values are any JSON.
    not_strict = "each operation's `args` is a free-form object (keys ≤ 80 characters) whose keys depend on the verb and are checked per operation, and `comp` values are any JSON: no strict subset can list them",
)]
pub async fn eidoverse_augment(
    args: AugmentArgs,
    store: Shared<Store>,
) -> Result<Augmented, AdapterError> {
    augment::check_sizes(&args.operations).map_err(AdapterError::new)?;
    Ok(augment::augment(&store, args.operations).await?)
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DestinationsArgs {}

/// List the peer worlds configured for this PortOS and which accept guest visits.
#[portos_tool(
    name = "eidoverse.destinations",
    aliases = ["eidoverse_destinations"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["visitEidoversePeers"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn eidoverse_destinations(
    _args: DestinationsArgs,
    store: Shared<Store>,
    peers: Shared<PeerClient>,
) -> Result<Destinations, AdapterError> {
    travel::destinations(&store, &peers).await
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VisitArgs {
    /// The configured peer to visit.
    #[schemars(length(min = 1, max = 80), regex(pattern = r"^[a-zA-Z0-9_-]+$"))]
    pub peer_id: String,
}

/// Visit a peer Eidoverse world as a guest.
#[portos_tool(
    name = "eidoverse.visit",
    aliases = ["eidoverse_visit"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["visitEidoversePeers"],
    side_effect = "write",
    idempotent = false,
)]
pub async fn eidoverse_visit(
    args: VisitArgs,
    store: Shared<Store>,
    peers: Shared<PeerClient>,
) -> Result<Visiting, AdapterError> {
    travel::visit(&store, &peers, args.peer_id).await
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VisitChatArgs {
    /// The open visit (48 lowercase hex characters).
    #[schemars(regex(pattern = r"^[a-f0-9]{48}$"))]
    pub visit_id: String,
    /// Read the host's chat after this cursor (default -1: from the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -1))]
    pub after: Option<i64>,
    /// Say this in the host world first (1..2000 characters, trimmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 2000), regex(pattern = r"\S"))]
    pub text: Option<String>,
}

/// Say something in and read the chat of the peer world being visited.
#[portos_tool(
    name = "eidoverse.visit-chat",
    aliases = ["eidoverse_visit_chat"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["visitEidoversePeers"],
    side_effect = "write",
    idempotent = false,
)]
pub async fn eidoverse_visit_chat(
    args: VisitChatArgs,
    store: Shared<Store>,
    peers: Shared<PeerClient>,
) -> Result<VisitChat, AdapterError> {
    travel::visit_chat(&store, &peers, args.visit_id, args.after, args.text).await
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LeaveArgs {
    /// The open visit (48 lowercase hex characters).
    #[schemars(regex(pattern = r"^[a-f0-9]{48}$"))]
    pub visit_id: String,
}

/// Leave the peer world being visited.
#[portos_tool(
    name = "eidoverse.leave",
    aliases = ["eidoverse_leave"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["visitEidoversePeers"],
    side_effect = "write",
    idempotent = false,
)]
pub async fn eidoverse_leave(
    args: LeaveArgs,
    store: Shared<Store>,
    peers: Shared<PeerClient>,
) -> Result<Left, AdapterError> {
    travel::leave(&store, &peers, args.visit_id).await
}

//! The guest side of travel: `eidoverse.destinations`, `.visit`,
//! `.visit-chat` and `.leave`. Each is a real HTTP exchange with the peer's
//! guest routes (`peer_client`); this world remembers its open visits so a
//! visit id it never opened is refused before anything is sent.

use portos_core::{AdapterError, ToolContext, portos_tool};
use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chat::{self, Message, Page};
use super::peer_client::{PeerError, PeerLink};
use super::peers;
use super::protocol::{Arrival, GuestLine, HostWorld};
use super::world;
use crate::store::{Store, StoreError};

/// An open visit of this world's presence to a peer.
#[derive(Clone, Debug)]
struct OutgoingVisit {
    peer_id: String,
    link: PeerLink,
}

fn open_visit(
    connection: &Connection,
    visit_id: &str,
) -> Result<Option<OutgoingVisit>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT peer_id, peer_url, world_name FROM eidoverse_outgoing_visits
             WHERE visit_id = ?1 AND left_at IS NULL",
            [visit_id],
            |row| {
                Ok(OutgoingVisit {
                    peer_id: row.get(0)?,
                    link: PeerLink {
                        url: row.get(1)?,
                        name: row.get(2)?,
                    },
                })
            },
        )
        .optional()?)
}

async fn require_open_visit(store: &Store, visit_id: &str) -> Result<OutgoingVisit, AdapterError> {
    let id = visit_id.to_owned();
    store
        .run(move |connection| open_visit(connection, &id))
        .await?
        .ok_or_else(|| {
            AdapterError::new(format!(
                "There is no open visit {visit_id}; start one with eidoverse.visit."
            ))
        })
}

fn failed(error: &PeerError) -> AdapterError {
    AdapterError::new(format!("{error}."))
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DestinationsArgs {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DoorState {
    /// The peer takes guests now.
    Open,
    /// The peer answered but does not take guests.
    Closed,
    /// The peer did not answer, or answered something unusable.
    Unreachable,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Destination {
    pub peer_id: String,
    pub name: String,
    pub url: String,
    pub door: DoorState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<HostWorld>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Destinations {
    pub ok: bool,
    /// Every configured peer, with whether it takes guests now.
    pub destinations: Vec<Destination>,
    pub accepting: usize,
    pub summary: String,
}

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
    ctx: &ToolContext,
    _args: DestinationsArgs,
) -> Result<Destinations, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let peers = store.run(|connection| peers::list(connection)).await?;
    // Every peer is asked at once, so one slow peer costs 10 s, not 10 s each.
    let mut probes = tokio::task::JoinSet::new();
    for (index, peer) in peers.iter().enumerate() {
        let link = PeerLink::from(peer);
        probes.spawn(async move { (index, link.door().await) });
    }
    let mut answers: Vec<Option<Result<_, PeerError>>> = (0..peers.len()).map(|_| None).collect();
    while let Some(joined) = probes.join_next().await {
        let (index, answer) = joined.map_err(|error| AdapterError::new(error.to_string()))?;
        answers[index] = Some(answer);
    }
    let destinations: Vec<Destination> = peers
        .into_iter()
        .zip(answers)
        .map(|(peer, answer)| {
            let (door, world, reason) = match answer {
                Some(Ok(door)) if door.accept_guests => (DoorState::Open, Some(door.world), None),
                Some(Ok(door)) => (
                    DoorState::Closed,
                    Some(door.world),
                    Some("it does not accept guests".to_owned()),
                ),
                Some(Err(error @ PeerError::Refused { status: 403, .. })) => {
                    (DoorState::Closed, None, Some(error.to_string()))
                }
                Some(Err(error)) => (DoorState::Unreachable, None, Some(error.to_string())),
                None => (DoorState::Unreachable, None, Some("not asked".to_owned())),
            };
            Destination {
                peer_id: peer.id,
                name: peer.name,
                url: peer.url,
                door,
                world,
                reason,
            }
        })
        .collect();
    let open: Vec<&str> = destinations
        .iter()
        .filter(|d| d.door == DoorState::Open)
        .map(|d| d.name.as_str())
        .collect();
    let summary = if destinations.is_empty() {
        "No peer worlds are configured; add one with POST /api/eidoverse/peers.".to_owned()
    } else if open.is_empty() {
        format!(
            "None of the {} peer worlds accepts guests right now.",
            destinations.len()
        )
    } else {
        format!(
            "{} of {} peer worlds accept guests: {}.",
            open.len(),
            destinations.len(),
            open.join(", ")
        )
    };
    Ok(Destinations {
        ok: true,
        accepting: open.len(),
        destinations,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VisitArgs {
    /// The configured peer to visit.
    #[schemars(length(min = 1, max = 80), regex(pattern = r"^[a-zA-Z0-9_-]+$"))]
    pub peer_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Visiting {
    pub ok: bool,
    pub visit_id: String,
    pub peer_id: String,
    pub world: HostWorld,
    /// Who hosts the visit.
    pub host: String,
    pub summary: String,
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
pub async fn eidoverse_visit(ctx: &ToolContext, args: VisitArgs) -> Result<Visiting, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let peer_id = args.peer_id.clone();
    let (peer, home) = store
        .run(move |connection| Ok((peers::get(connection, &peer_id)?, world::load(connection)?)))
        .await?;
    let Some(peer) = peer else {
        return Err(AdapterError::new(format!(
            "There is no peer '{}'; add it with POST /api/eidoverse/peers, or list them with eidoverse.destinations.",
            args.peer_id
        )));
    };
    let link = PeerLink::from(&peer);
    let arrival = Arrival {
        guest_name: home.presence.name,
        from_world: home.identity.name,
    };
    let welcome = link
        .arrive(&arrival)
        .await
        .map_err(|error| failed(&error))?;
    let record = (welcome.visit_id.clone(), peer.clone());
    store
        .run(move |connection| {
            let (visit_id, peer) = record;
            connection.execute(
                "INSERT INTO eidoverse_outgoing_visits (visit_id, peer_id, peer_url, world_name, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![visit_id, peer.id, peer.url, peer.name, jiff::Timestamp::now().to_string()],
            )?;
            Ok(())
        })
        .await?;
    Ok(Visiting {
        ok: true,
        summary: format!(
            "Arrived in {} ({}), hosted by {}; visit {}.",
            welcome.world.name, peer.name, welcome.host, welcome.visit_id
        ),
        visit_id: welcome.visit_id,
        peer_id: peer.id,
        world: welcome.world,
        host: welcome.host,
    })
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

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitChat {
    pub ok: bool,
    pub visit_id: String,
    /// The line said, when `text` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub posted: Option<Message>,
    #[serde(flatten)]
    pub page: Page,
    pub summary: String,
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
    ctx: &ToolContext,
    args: VisitChatArgs,
) -> Result<VisitChat, AdapterError> {
    let text = match args.text.as_deref() {
        Some(text) => Some(chat::checked_text(text).map_err(AdapterError::new)?),
        None => None,
    };
    let store = ctx.state::<Store>()?.clone();
    let visit = require_open_visit(&store, &args.visit_id).await?;
    let posted = match text {
        Some(text) => Some(
            visit
                .link
                .say(&args.visit_id, &GuestLine { text })
                .await
                .map_err(|error| failed(&error))?,
        ),
        None => None,
    };
    let page = visit
        .link
        .read(&args.visit_id, args.after.unwrap_or(-1))
        .await
        .map_err(|error| failed(&error))?;
    let heard = chat::page_summary(&page);
    let summary = match &posted {
        Some(message) => format!(
            "Said \"{}\" in {} (message {}). {heard}",
            super::preview(&message.text),
            visit.link.name,
            message.cursor
        ),
        None => format!("In {}: {heard}", visit.link.name),
    };
    Ok(VisitChat {
        ok: true,
        visit_id: args.visit_id,
        posted,
        page,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LeaveArgs {
    /// The open visit (48 lowercase hex characters).
    #[schemars(regex(pattern = r"^[a-f0-9]{48}$"))]
    pub visit_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Left {
    pub ok: bool,
    pub visit_id: String,
    pub peer_id: String,
    pub summary: String,
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
pub async fn eidoverse_leave(ctx: &ToolContext, args: LeaveArgs) -> Result<Left, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let visit = require_open_visit(&store, &args.visit_id).await?;
    let note = match visit.link.leave(&args.visit_id).await {
        Ok(_) => String::new(),
        // The host no longer knows the visit: it is over there already.
        Err(error) if error.status() == Some(404) => " (the host had already closed it)".to_owned(),
        Err(error) => return Err(failed(&error)),
    };
    let visit_id = args.visit_id.clone();
    store
        .run(move |connection| {
            connection.execute(
                "UPDATE eidoverse_outgoing_visits SET left_at = ?2 WHERE visit_id = ?1",
                params![visit_id, jiff::Timestamp::now().to_string()],
            )?;
            Ok(())
        })
        .await?;
    Ok(Left {
        ok: true,
        summary: format!("Left {}{note}.", visit.link.name),
        visit_id: args.visit_id,
        peer_id: visit.peer_id,
    })
}

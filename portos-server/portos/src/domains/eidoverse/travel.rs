//! The guest side of travel, behind `eidoverse.destinations`, `.visit`,
//! `.visit-chat` and `.leave`. Each is a real HTTP exchange with the peer's
//! guest routes (`peer_client`); this world remembers its open visits so a
//! visit id it never opened is refused before anything is sent. Failures
//! are told in words the caller can act on.

use portos_core::AdapterError;
use schemars::JsonSchema;
use serde::Serialize;

use super::chat::{self, Message, Page};
use super::peer_client::{PeerClient, PeerError, PeerLink};
use super::protocol::{Arrival, GuestLine, HostWorld};
use super::store::{peers, visits, world};
use crate::store::Store;

/// An open visit of this world's presence to a peer.
#[derive(Clone, Debug)]
struct OutgoingVisit {
    peer_id: String,
    link: PeerLink,
}

async fn require_open_visit(
    store: &Store,
    peers: &PeerClient,
    visit_id: &str,
) -> Result<OutgoingVisit, AdapterError> {
    let id = visit_id.to_owned();
    store
        .run(move |connection| visits::open_outgoing(connection, &id))
        .await?
        .map(|visit| OutgoingVisit {
            peer_id: visit.peer_id,
            link: peers.link(visit.world_name, visit.peer_url),
        })
        .ok_or_else(|| {
            AdapterError::new(format!(
                "There is no open visit {visit_id}; start one with eidoverse.visit."
            ))
        })
}

fn failed(error: &PeerError) -> AdapterError {
    AdapterError::new(format!("{error}."))
}

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

/// Every configured peer, each asked whether it takes guests now.
pub async fn destinations(
    store: &Store,
    client: &PeerClient,
) -> Result<Destinations, AdapterError> {
    let peers = store.run(|connection| peers::list(connection)).await?;
    // Every peer is asked at once, so one slow peer costs 10 s, not 10 s each.
    let mut probes = tokio::task::JoinSet::new();
    for (index, peer) in peers.iter().enumerate() {
        let link = client.to(peer);
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

/// Visits peer `peer_id` as this world's presence and remembers the visit.
pub async fn visit(
    store: &Store,
    client: &PeerClient,
    peer_id: String,
) -> Result<Visiting, AdapterError> {
    let wanted = peer_id.clone();
    let (peer, home) = store
        .run(move |connection| Ok((peers::get(connection, &wanted)?, world::load(connection)?)))
        .await?;
    let Some(peer) = peer else {
        return Err(AdapterError::new(format!(
            "There is no peer '{peer_id}'; add it with POST /api/eidoverse/peers, or list them with eidoverse.destinations."
        )));
    };
    let link = client.to(&peer);
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
            visits::record_outgoing(connection, &visit_id, &peer)
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

/// In open visit `visit_id`: says `text` first when given, then reads the
/// host's chat after cursor `after`.
pub async fn visit_chat(
    store: &Store,
    client: &PeerClient,
    visit_id: String,
    after: Option<i64>,
    text: Option<String>,
) -> Result<VisitChat, AdapterError> {
    let text = match text.as_deref() {
        Some(text) => Some(chat::checked_text(text).map_err(AdapterError::new)?),
        None => None,
    };
    let after = chat::checked_cursor(after).map_err(AdapterError::new)?;
    let visit = require_open_visit(store, client, &visit_id).await?;
    let posted = match text {
        Some(text) => Some(
            visit
                .link
                .say(&visit_id, &GuestLine { text })
                .await
                .map_err(|error| failed(&error))?,
        ),
        None => None,
    };
    let page = visit
        .link
        .read(&visit_id, after)
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
        visit_id,
        posted,
        page,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Left {
    pub ok: bool,
    pub visit_id: String,
    pub peer_id: String,
    pub summary: String,
}

/// Leaves open visit `visit_id` (and forgets it here).
pub async fn leave(
    store: &Store,
    client: &PeerClient,
    visit_id: String,
) -> Result<Left, AdapterError> {
    let visit = require_open_visit(store, client, &visit_id).await?;
    let note = match visit.link.leave(&visit_id).await {
        Ok(_) => String::new(),
        // The host no longer knows the visit: it is over there already.
        Err(error) if error.status() == Some(404) => " (the host had already closed it)".to_owned(),
        Err(error) => return Err(failed(&error)),
    };
    let key = visit_id.clone();
    store
        .run(move |connection| visits::end_outgoing(connection, &key))
        .await?;
    Ok(Left {
        ok: true,
        summary: format!("Left {}{note}.", visit.link.name),
        visit_id,
        peer_id: visit.peer_id,
    })
}

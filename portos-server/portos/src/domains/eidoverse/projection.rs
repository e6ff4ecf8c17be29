//! `eidoverse.project`: mirrors PortOS resources into the world — each brain
//! capture becomes an object on a spiral around the origin, each configured
//! peer world a portal on the rim. Idempotent: an entity is rewritten only
//! when what it mirrors changed (a digest of the projected form), so a second
//! run with nothing new changes nothing.

use std::collections::{BTreeMap, HashSet};

use portos_server::store::sql::Connection;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, json};
use sha2::{Digest, Sha256};

use super::entities::{Entity, HALF_EXTENT};
use super::store::{brain, entities, peers};
use crate::store::{Store, StoreError};

const BRAIN: &str = "brain";
const PEER: &str = "peer";
/// Radius of the ring of portals, inside the world's extent.
const PORTAL_RING: f64 = 400.0;

/// What one run did to the mirrors of one kind of resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
    pub unchanged: usize,
    /// Entity ids already taken by something else (left alone).
    pub conflicts: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Projected {
    pub ok: bool,
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    pub unchanged: usize,
    /// Per resource kind (`brain`, `peer`).
    pub sources: BTreeMap<String, Changes>,
    pub summary: String,
}

/// Brings every mirror in line with what it mirrors, in one transaction.
pub async fn project(store: &Store) -> Result<Projected, StoreError> {
    let sources = store
        .run(|connection| {
            let transaction = connection.transaction()?;
            let mut sources = BTreeMap::new();
            sources.insert(
                BRAIN.to_owned(),
                sync(&transaction, BRAIN, &brain_mirrors(&transaction)?)?,
            );
            sources.insert(
                PEER.to_owned(),
                sync(&transaction, PEER, &peer_mirrors(&transaction)?)?,
            );
            transaction.commit()?;
            Ok(sources)
        })
        .await?;
    let total = |field: fn(&Changes) -> usize| sources.values().map(field).sum::<usize>();
    let added = total(|c| c.added.len());
    let updated = total(|c| c.updated.len());
    let removed = total(|c| c.removed.len());
    let unchanged = total(|c| c.unchanged);
    let conflicts = total(|c| c.conflicts.len());
    let mut summary = if added + updated + removed == 0 {
        format!("The world is already in sync ({unchanged} mirrored resources unchanged).")
    } else {
        format!(
            "Projected PortOS into the world: {added} added, {updated} updated, {removed} removed, {unchanged} unchanged."
        )
    };
    if conflicts > 0 {
        summary.push_str(&format!(
            " {conflicts} skipped: their entity ids are taken by built entities."
        ));
    }
    Ok(Projected {
        ok: true,
        added,
        updated,
        removed,
        unchanged,
        sources,
        summary,
    })
}

/// The entity a resource should be, keyed by the resource's id.
fn brain_mirrors(connection: &Connection) -> Result<Vec<(String, Entity)>, StoreError> {
    let mut mirrors = Vec::new();
    for capture in brain::captures(connection)? {
        let brain::Capture {
            id,
            text,
            captured_at,
            local_date: date,
            seq,
        } = capture;
        let mut components = Map::new();
        components.insert(
            "capture".to_owned(),
            json!({ "text": text, "capturedAt": captured_at, "date": date }),
        );
        mirrors.push((
            id.clone(),
            Entity {
                id: format!("brain-{id}"),
                kind: "brain-capture".to_owned(),
                label: super::preview(&text),
                position: spiral(seq),
                components,
                source: BRAIN.to_owned(),
                source_key: Some(id),
            },
        ));
    }
    Ok(mirrors)
}

fn peer_mirrors(connection: &Connection) -> Result<Vec<(String, Entity)>, StoreError> {
    let peers = peers::list(connection)?;
    let count = peers.len().max(1) as f64;
    Ok(peers
        .into_iter()
        .enumerate()
        .map(|(index, peer)| {
            let angle = std::f64::consts::TAU * index as f64 / count;
            let mut components = Map::new();
            components.insert(
                "portal".to_owned(),
                json!({ "peerId": peer.id, "url": peer.url }),
            );
            (
                peer.id.clone(),
                Entity {
                    id: format!("portal-{}", peer.id),
                    kind: "portal".to_owned(),
                    label: peer.name,
                    position: [
                        round(PORTAL_RING * angle.cos()),
                        0.0,
                        round(PORTAL_RING * angle.sin()),
                    ],
                    components,
                    source: PEER.to_owned(),
                    source_key: Some(peer.id),
                },
            )
        })
        .collect())
}

/// A stable spot for the n-th capture: a golden-angle spiral.
fn spiral(seq: i64) -> [f64; 3] {
    let n = seq.max(0) as f64;
    let angle = n * 2.399_963;
    let radius = (4.0 + 1.5 * n.sqrt()).min(HALF_EXTENT - 100.0);
    [
        round(radius * angle.cos()),
        0.0,
        round(radius * angle.sin()),
    ]
}

fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn digest(entity: &Entity) -> String {
    let form = json!({
        "kind": entity.kind,
        "label": entity.label,
        "position": entity.position,
        "components": entity.components,
    });
    let hash = Sha256::digest(form.to_string().as_bytes());
    hash.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Brings the mirrors of `source` in line with `wanted`.
fn sync(
    connection: &Connection,
    source: &str,
    wanted: &[(String, Entity)],
) -> Result<Changes, StoreError> {
    let mut changes = Changes::default();
    let existing = entities::of_source(connection, source)?;
    let wanted_keys: HashSet<&str> = wanted.iter().map(|(key, _)| key.as_str()).collect();
    for stored in &existing {
        let key = stored.entity.source_key.as_deref().unwrap_or("");
        if !wanted_keys.contains(key) {
            entities::delete(connection, &stored.entity.id)?;
            changes.removed.push(stored.entity.id.clone());
        }
    }
    for (key, entity) in wanted {
        let digest = digest(entity);
        let current = existing
            .iter()
            .find(|stored| stored.entity.source_key.as_deref() == Some(key.as_str()));
        match current {
            Some(stored) if stored.digest.as_deref() == Some(digest.as_str()) => {
                changes.unchanged += 1;
            }
            Some(stored) => {
                // The resource changed: its mirror follows (a move by hand is reset).
                entities::update(connection, entity, Some(&digest))?;
                changes.updated.push(stored.entity.id.clone());
            }
            None if entities::get(connection, &entity.id)?.is_some() => {
                changes.conflicts.push(entity.id.clone());
            }
            None => {
                entities::insert(connection, entity, Some(&digest))?;
                changes.added.push(entity.id.clone());
            }
        }
    }
    Ok(changes)
}

//! Persistent Mind capability grants (docs/reference.md#capability-keys,
//! docs/reference.md#grant-storage): read and change them. A change is
//! announced on Socket.IO so catalog readers refresh, and recorded in the
//! user-actions ledger (`settings.update`).
//!
//! These are the runtime's defaults: the grants alone. An application with
//! more to say about its Mind (PortOS: allowlists, a schema version)
//! declares the same two operations and they replace these.

use axum::Json;
use axum::extract::State;
use portos_core::{Capabilities, portos_route};

use super::{Body, RouteErrors};
use crate::app::App;
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use crate::settings;
use crate::store::changes::{self, Change};
use crate::store::{StoreError, detached};

/// Why the grants were not stored.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum GrantsError {
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
    #[error("the grants could not be encoded: {0}")]
    #[route_error(internal)]
    Encode(#[from] serde_json::Error),
}

/// The Persistent Mind's stored capability grants.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/capabilities",
    summary = "Persistent Mind capabilities",
    replaceable
)]
async fn read(State(app): State<App>) -> Json<Capabilities> {
    Json(app.grants.current().mind)
}

/// Replaces the Persistent Mind's grants: keys left out are off. Unknown keys
/// and non-boolean values are refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/capabilities",
    summary = "Set Persistent Mind capabilities",
    replaceable
)]
async fn replace(
    State(app): State<App>,
    Body(grants): Body<Capabilities>,
) -> Result<Json<Capabilities>, GrantsError> {
    let stored = serde_json::to_value(grants)?;
    let cache = app.grants.clone();
    let (store, events) = (app.store.clone(), app.events.clone());
    // Subscribers hear of every change that committed, even if the caller
    // hangs up in between.
    detached(async move {
        store
            .run(move |connection| {
                // The grants and their ledger row commit together; the cache
                // is refreshed from what committed.
                let transaction = connection.transaction()?;
                // The ledger names what changed since the previous commit on any
                // server.
                settings::lock_for_change(&transaction, settings::MIND_CAPABILITIES)?;
                let before = settings::get_json(&transaction, settings::MIND_CAPABILITIES)?
                    .map(|value| Capabilities::from_json(&value))
                    .unwrap_or_default();
                settings::set_json(&transaction, settings::MIND_CAPABILITIES, &stored)?;
                ledger::record(&transaction, &grants_changed(before, grants))?;
                changes::announce(&transaction, &Change::Grants)?;
                transaction.commit()?;
                cache.refresh(connection)
            })
            .await?;
        events.catalog_changed(settings::MIND_CAPABILITIES).await;
        Ok::<(), GrantsError>(())
    })
    .await?;
    Ok(Json(grants))
}

/// The ledger row of a grants change: which grants were given and taken.
fn grants_changed(before: Capabilities, after: Capabilities) -> NewAction {
    let names = |from: Capabilities, to: Capabilities| -> Vec<&'static str> {
        to.iter()
            .filter(|capability| !from.has(*capability))
            .map(|capability| capability.as_str())
            .collect()
    };
    let granted = names(before, after);
    let revoked = names(after, before);
    let mut parts = Vec::new();
    if !granted.is_empty() {
        parts.push(format!("granted {}", granted.join(", ")));
    }
    if !revoked.is_empty() {
        parts.push(format!("revoked {}", revoked.join(", ")));
    }
    let summary = if parts.is_empty() {
        "Saved the Persistent Mind capabilities (no change)".to_owned()
    } else {
        format!("Persistent Mind capabilities: {}", parts.join("; "))
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target(
            settings::MIND_CAPABILITIES,
            Some("Persistent Mind capabilities".to_owned()),
        )
        .payload(serde_json::json!({ "granted": granted, "revoked": revoked }))
        .source(Source::http("PUT", "/api/cos/mind/capabilities"))
}

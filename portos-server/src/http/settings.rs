//! `/api/settings/*`: Settings → API Access, which decides the API groups
//! under `/api/public/` that answer and what the public OpenAPI lists. A
//! change is recorded in the user-actions ledger (`settings.update`).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use portos_core::portos_route;

use super::{Body, Invalid, RouteErrors};
use crate::api_access::{API_ACCESS, ApiAccess, ApiAccessView, Exposure};
use crate::app::App;
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use crate::settings;
use crate::store::StoreError;
use crate::store::changes::{self, Change};

/// Why the switches were not changed.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum AccessError {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// The API groups other devices may reach, and whether each is exposed.
#[portos_route(
    method = "GET",
    path = "/api/settings/api-access",
    summary = "API Access"
)]
async fn read(State(app): State<App>) -> Json<ApiAccessView> {
    Json(app.api_access.current().describe())
}

/// Changes the switches of the groups named in the body (the others keep
/// theirs). Unknown groups, unknown keys and non-boolean values are refused
/// and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/settings/api-access",
    summary = "Change API Access"
)]
async fn change(
    State(app): State<App>,
    Body(changes): Body<BTreeMap<String, Exposure>>,
) -> Result<Json<ApiAccessView>, AccessError> {
    let (cache, groups) = (app.api_access.clone(), app.exposable_apis.clone());
    let outcome = app
        .store
        .run(move |connection| {
            // Read-modify-write of the stored switches (not of this server's
            // copy, which another server may just have changed), under a
            // lock, so two changes made at once on any servers both land.
            let transaction = connection.transaction()?;
            settings::lock_for_change(&transaction, API_ACCESS)?;
            let next = match ApiAccess::load(&transaction, groups.clone())?.with_changes(&changes) {
                Ok(next) => next,
                Err(message) => return Ok(Err(message)),
            };
            let described = next.describe();
            // The switches and their ledger row commit together; the cache
            // is then read from the database, which holds this change and
            // any another server committed since.
            ledger::record(&transaction, &access_changed(&changes))?;
            settings::set_json(&transaction, API_ACCESS, &next.to_stored())?;
            changes::announce(&transaction, &Change::ApiAccess)?;
            transaction.commit()?;
            cache.reload(connection, groups)?;
            Ok(Ok(described))
        })
        .await?;
    Ok(Json(outcome.map_err(Invalid)?))
}

/// The ledger row of an API Access change: each group's new switches.
fn access_changed(changes: &BTreeMap<String, Exposure>) -> NewAction {
    let described: Vec<String> = changes
        .iter()
        .map(|(id, exposure)| {
            format!(
                "{id} {}{}",
                if exposure.exposed {
                    "exposed"
                } else {
                    "not exposed"
                },
                if exposure.require_auth {
                    ", sign-in required"
                } else {
                    ""
                }
            )
        })
        .collect();
    let summary = if described.is_empty() {
        "Saved API Access (no change)".to_owned()
    } else {
        format!("API Access: {}", described.join("; "))
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target("apiAccess", Some("API Access".to_owned()))
        .payload(serde_json::json!({ "changes": changes }))
        .source(Source::http("PUT", "/api/settings/api-access"))
}

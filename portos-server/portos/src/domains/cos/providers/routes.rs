//! `/api/cos/providers`: the coding providers tasks may be queued for, read
//! and replaced by the owner (recorded as `settings.update`).

use axum::Json;
use portos_core::Shared;
use portos_server::http::{Body, InputError, Invalid};
use portos_server::portos_route;
use portos_server::store::Store;

use super::model::Providers;
use super::store;
use crate::ledger::Source;
use crate::store::StoreError;

/// The configured coding providers (none until the owner adds some).
#[portos_route(
    method = "GET",
    path = "/api/cos/providers",
    summary = "Coding providers"
)]
async fn read(store: Shared<Store>) -> Result<Json<Providers>, StoreError> {
    Ok(Json(store.run(|connection| store::get(connection)).await?))
}

/// Replaces the coding providers. Ids are unique; a list that breaks a rule
/// is refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/cos/providers",
    summary = "Set coding providers"
)]
async fn replace(
    store: Shared<Store>,
    Body(providers): Body<Providers>,
) -> Result<Json<Providers>, InputError> {
    let providers = providers.checked().map_err(Invalid)?;
    let stored = providers.clone();
    store
        .run(move |connection| {
            store::replace(
                connection,
                &stored,
                Source::http("PUT", "/api/cos/providers"),
            )
        })
        .await?;
    Ok(Json(providers))
}

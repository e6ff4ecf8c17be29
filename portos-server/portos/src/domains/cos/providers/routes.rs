//! `/api/cos/providers`: the coding providers tasks may be queued for, read
//! and replaced by the owner (recorded as `settings.update`).

use axum::Json;
use axum::extract::State;
use portos_server::http::{Body, InputError, Invalid};
use portos_server::portos_route;

use super::model::Providers;
use super::store;
use crate::app::App;
use crate::ledger::Source;
use crate::store::StoreError;

/// The configured coding providers (none until the owner adds some).
#[portos_route(
    method = "GET",
    path = "/api/cos/providers",
    summary = "Coding providers"
)]
async fn read(State(app): State<App>) -> Result<Json<Providers>, StoreError> {
    Ok(Json(
        app.store.run(|connection| store::get(connection)).await?,
    ))
}

/// Replaces the coding providers. Ids are unique; a list that breaks a rule
/// is refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/cos/providers",
    summary = "Set coding providers"
)]
async fn replace(
    State(app): State<App>,
    Body(providers): Body<Providers>,
) -> Result<Json<Providers>, InputError> {
    let providers = providers.checked().map_err(Invalid)?;
    let stored = providers.clone();
    app.store
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

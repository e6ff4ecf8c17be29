//! `/api/settings/location`: the user's location, which `weather.now` uses
//! when a call names no coordinates.

use crate::ledger::Source;
use axum::Json;
use portos_core::Shared;
use portos_server::http::{Body, InputError, Invalid, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};

use super::model::Location;
use super::ops;

/// No location stored yet.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum LocationMissing {
    #[error(
        "No location is set; the weather uses San Francisco until one is (PUT /api/settings/location)"
    )]
    #[route_error(status = 404, code = "LOCATION_NOT_SET")]
    NotSet,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// The stored location; 404 while none is set (the weather then uses San
/// Francisco).
#[portos_route(method = "GET", path = "/api/settings/location", summary = "Location")]
async fn read(store: Shared<Store>) -> Result<Json<Location>, LocationMissing> {
    ops::saved_location(&store)
        .await?
        .map(Json)
        .ok_or(LocationMissing::NotSet)
}

/// Stores the location: `lat` (-90..90), `lon` (-180..180) and an optional
/// `name`. Anything else is refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/settings/location",
    summary = "Set location"
)]
async fn replace(
    store: Shared<Store>,
    Body(location): Body<Location>,
) -> Result<Json<Location>, InputError> {
    let location = location.checked().map_err(Invalid)?;
    let route = Source::http("PUT", "/api/settings/location");
    ops::set_location(&store, location.clone(), route).await?;
    Ok(Json(location))
}

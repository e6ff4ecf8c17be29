//! `/api/settings/location`: the user's location, which `weather.now` uses
//! when a call names no coordinates.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use portos_server::http::query::invalid;
use portos_server::ledger::Source;

use super::model::Location;
use super::ops;

/// The stored location; 404 while none is set (the weather then uses San
/// Francisco).
#[portos_route(
    method = "GET",
    path = "/api/settings/location",
    summary = "Location",
    response = Location,
    errors = [(404, "LOCATION_NOT_SET")],
)]
async fn read(State(app): State<App>) -> Result<Json<Location>, ApiError> {
    ops::saved_location(&app.store)
        .await?
        .map(Json)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "LOCATION_NOT_SET",
                "No location is set; the weather uses San Francisco until one is (PUT /api/settings/location)",
            )
        })
}

/// Stores the location: `lat` (-90..90), `lon` (-180..180) and an optional
/// `name`. Anything else is refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/settings/location",
    summary = "Set location",
    request = Location,
    response = Location,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn replace(State(app): State<App>, body: JsonBody) -> Result<Json<Location>, ApiError> {
    let location = body.into_typed::<Location>()?.checked().map_err(invalid)?;
    let route = Source::http("PUT", "/api/settings/location");
    ops::set_location(&app.store, location.clone(), route).await?;
    Ok(Json(location))
}

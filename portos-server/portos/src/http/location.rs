//! `/api/settings/location`: the user's location, which `weather.now` uses
//! when a call names no coordinates.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use portos_core::portos_route;

use super::ApiError;
use super::body::JsonBody;
use crate::app::App;
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use crate::location::{self, Location};

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
    app.store
        .run(|connection| location::load(connection))
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?
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
    let location = body
        .into_typed::<Location>()?
        .checked()
        .map_err(|message| ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message))?;
    let stored = location.clone();
    app.store
        .run(move |connection| {
            // The setting and its ledger row commit together.
            let transaction = connection.transaction()?;
            location::store(&transaction, &stored)?;
            ledger::record(&transaction, &location_changed(&stored))?;
            Ok(transaction.commit()?)
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    Ok(Json(location))
}

/// The ledger row of a location change (`settings.update`). The coordinates
/// stay out of it: the ledger is readable by agents, a home address is not
/// theirs to learn from it.
fn location_changed(location: &Location) -> NewAction {
    let summary = match &location.name {
        Some(name) => format!("Set the location to {name}"),
        None => "Set the location".to_owned(),
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target(location::LOCATION, Some("Location".to_owned()))
        .source(Source::http("PUT", "/api/settings/location"))
}

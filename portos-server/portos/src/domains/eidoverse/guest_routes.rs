//! `/api/eidoverse/travel/guest/*`: the routes another PortOS calls when its
//! presence visits this world. They are always public (a peer does not hold
//! this instance's password), so each refuses with 403 unless the owner turned
//! guests on, and everything a guest sends is checked strictly: closed bodies
//! with bounded strings, visit ids of exactly 48 lowercase hex characters.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;

use super::chat::{self, Page};
use super::guests::{self, Refused};
use super::protocol::{Arrival, Door, Farewell, GuestLine, Posted, Welcome, is_visit_id};
use super::routes::{ChatQuery, chat_cursor};
use crate::app::App;

fn refused(refusal: &Refused) -> ApiError {
    match refusal {
        Refused::NotAccepting => ApiError::new(
            StatusCode::FORBIDDEN,
            "GUESTS_NOT_ACCEPTED",
            "This world does not accept guests",
        ),
        Refused::Full => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "WORLD_FULL",
            format!(
                "This world already hosts {} guests; try again later",
                guests::MAX_ACTIVE_GUESTS
            ),
        ),
        Refused::UnknownVisit => ApiError::new(
            StatusCode::NOT_FOUND,
            "VISIT_NOT_FOUND",
            "There is no open visit with that id",
        ),
    }
}

// By value so it fits `.map_err(…)`.

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
}

fn checked_visit_id(visit_id: &str) -> Result<(), ApiError> {
    if is_visit_id(visit_id) {
        Ok(())
    } else {
        Err(invalid("a visit id is exactly 48 lowercase hex characters"))
    }
}

/// This world as a guest sees it, and whether it takes guests (403 when not).
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/travel/guest/world",
    summary = "Eidoverse guest door",
    response = Door,
    errors = [(403, "GUESTS_NOT_ACCEPTED")],
)]
async fn door(State(app): State<App>) -> Result<Json<Door>, ApiError> {
    app.store
        .run(|connection| guests::door(connection))
        .await?
        .map(Json)
        .map_err(|refusal| refused(&refusal))
}

/// A guest from another world arrives; the answer holds the visit id.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/travel/guest/visits",
    summary = "Eidoverse guest arrival",
    request = Arrival,
    response = Welcome,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (403, "GUESTS_NOT_ACCEPTED"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
        (503, "WORLD_FULL"),
    ],
)]
async fn arrive(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Welcome>), ApiError> {
    let arrival = body.into_typed::<Arrival>()?.checked().map_err(invalid)?;
    let welcome = app
        .store
        .run(move |connection| guests::arrive(connection, &arrival))
        .await?
        .map_err(|refusal| refused(&refusal))?;
    Ok((StatusCode::CREATED, Json(welcome)))
}

/// The host world's chat, for a guest of an open visit.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/travel/guest/visits/{visitId}/chat",
    summary = "Eidoverse guest chat",
    query = ChatQuery,
    response = Page,
    errors = [(400, "VALIDATION_ERROR"), (403, "GUESTS_NOT_ACCEPTED"), (404, "VISIT_NOT_FOUND")],
)]
async fn read_chat(
    State(app): State<App>,
    Path(visit_id): Path<String>,
    query: Result<Query<ChatQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Page>, ApiError> {
    checked_visit_id(&visit_id)?;
    let after = chat_cursor(query)?;
    let page = app
        .store
        .run(move |connection| guests::read(connection, &visit_id, after))
        .await?
        .map_err(|refusal| refused(&refusal))?;
    Ok(Json(page))
}

/// A guest of an open visit says something in the host world's chat.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/travel/guest/visits/{visitId}/chat",
    summary = "Eidoverse guest says",
    request = GuestLine,
    response = Posted,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (403, "GUESTS_NOT_ACCEPTED"),
        (404, "VISIT_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn say(
    State(app): State<App>,
    Path(visit_id): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Posted>), ApiError> {
    checked_visit_id(&visit_id)?;
    let GuestLine { text } = body.into_typed()?;
    let text = chat::checked_text(&text).map_err(invalid)?;
    let message = app
        .store
        .run(move |connection| guests::say(connection, &visit_id, &text))
        .await?
        .map_err(|refusal| refused(&refusal))?;
    Ok((StatusCode::CREATED, Json(message)))
}

/// A guest leaves (allowed even after the owner closed the world).
#[portos_route(
    method = "DELETE",
    path = "/api/eidoverse/travel/guest/visits/{visitId}",
    summary = "Eidoverse guest leaves",
    response = Farewell,
    errors = [(400, "VALIDATION_ERROR"), (404, "VISIT_NOT_FOUND")],
)]
async fn leave(
    State(app): State<App>,
    Path(visit_id): Path<String>,
) -> Result<Json<Farewell>, ApiError> {
    checked_visit_id(&visit_id)?;
    let key = visit_id.clone();
    app.store
        .run(move |connection| guests::leave(connection, &key))
        .await?
        .map_err(|refusal| refused(&refusal))?;
    Ok(Json(Farewell {
        visit_id,
        left: true,
    }))
}

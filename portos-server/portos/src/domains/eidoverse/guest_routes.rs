//! `/api/eidoverse/travel/guest/*`: the routes another PortOS calls when its
//! presence visits this world. They are always public (a peer does not hold
//! this instance's password), so each refuses with 403 unless the owner turned
//! guests on, and everything a guest sends is checked strictly: closed bodies
//! with bounded strings, visit ids of exactly 48 lowercase hex characters.

use axum::Json;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use portos_core::Shared;
use portos_core::inventory::RouteIo;
use portos_server::http::body::JsonBody;
use portos_server::http::{Body, Created, Invalid, Query, RouteErrors, RouteInput};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};

use super::chat::{self, Page};
use super::guests::{self, ArrivalRefused, Closed, VisitRefused};
use super::protocol::{Arrival, Door, Farewell, GuestLine, Posted, Welcome, is_visit_id};
use super::routes::ChatQuery;

/// The `{visitId}` of a guest route: exactly 48 lowercase hex characters
/// (400 `VALIDATION_ERROR` otherwise), checked before the query is read.
struct VisitId(String);

impl<S: Send + Sync> FromRequestParts<S> for VisitId {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<VisitId, Response> {
        let Path(visit_id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        checked_visit_id(&visit_id).map_err(IntoResponse::into_response)?;
        Ok(VisitId(visit_id))
    }
}

impl RouteInput for VisitId {
    fn describe(io: &mut RouteIo) {
        Path::<VisitIdText>::describe(io);
        io.error(400, "VALIDATION_ERROR");
    }
}

// The `{visitId}` as the documents state it (`is_visit_id`'s rule).
/// The visit's id: 48 lowercase hex characters.
#[derive(schemars::JsonSchema)]
#[allow(dead_code, reason = "only its schema is used")]
struct VisitIdText(#[schemars(regex(pattern = r"^[0-9a-f]{48}$"))] String);

fn checked_visit_id(visit_id: &str) -> Result<(), Invalid> {
    if is_visit_id(visit_id) {
        Ok(())
    } else {
        Err(Invalid::new(
            "a visit id is exactly 48 lowercase hex characters",
        ))
    }
}

/// A guest's line and the visit it is said in, checked in this order: the
/// body is JSON (415, 413, malformed 400), the `{visitId}` a visit id, the
/// body a [`GuestLine`] (400 `VALIDATION_ERROR` each).
struct GuestSays {
    visit_id: String,
    line: GuestLine,
}

impl<S: Send + Sync> FromRequest<S> for GuestSays {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<GuestSays, Response> {
        let (mut parts, body) = request.into_parts();
        let Path(visit_id) = Path::<String>::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let json = JsonBody::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(IntoResponse::into_response)?;
        checked_visit_id(&visit_id).map_err(IntoResponse::into_response)?;
        let line = json.into_typed().map_err(IntoResponse::into_response)?;
        Ok(GuestSays { visit_id, line })
    }
}

impl RouteInput for GuestSays {
    fn describe(io: &mut RouteIo) {
        Path::<VisitIdText>::describe(io);
        Body::<GuestLine>::describe(io);
    }
}

/// The door is shut: the owner has not opened the world to guests.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum DoorShut {
    #[error("This world does not accept guests")]
    #[route_error(status = 403, code = "GUESTS_NOT_ACCEPTED")]
    NotAccepting,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<Closed> for DoorShut {
    fn from(Closed: Closed) -> DoorShut {
        DoorShut::NotAccepting
    }
}

/// Why a guest is not let in.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum ArrivalRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("This world does not accept guests")]
    #[route_error(status = 403, code = "GUESTS_NOT_ACCEPTED")]
    NotAccepting,
    #[error(
        "This world already hosts {max} guests; try again later",
        max = guests::MAX_ACTIVE_GUESTS
    )]
    #[route_error(status = 503, code = "WORLD_FULL")]
    Full,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<ArrivalRefused> for ArrivalRefusal {
    fn from(refused: ArrivalRefused) -> ArrivalRefusal {
        match refused {
            ArrivalRefused::Closed => ArrivalRefusal::NotAccepting,
            ArrivalRefused::Full => ArrivalRefusal::Full,
        }
    }
}

/// Why a guest's request about an open visit is turned away.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum VisitRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("This world does not accept guests")]
    #[route_error(status = 403, code = "GUESTS_NOT_ACCEPTED")]
    NotAccepting,
    #[error("There is no open visit with that id")]
    #[route_error(status = 404, code = "VISIT_NOT_FOUND")]
    UnknownVisit,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<VisitRefused> for VisitRefusal {
    fn from(refused: VisitRefused) -> VisitRefusal {
        match refused {
            VisitRefused::Closed => VisitRefusal::NotAccepting,
            VisitRefused::UnknownVisit => VisitRefusal::UnknownVisit,
        }
    }
}

/// A visit that is not open (leaving needs no open door).
#[derive(Debug, thiserror::Error, RouteErrors)]
enum VisitMissing {
    #[error("There is no open visit with that id")]
    #[route_error(status = 404, code = "VISIT_NOT_FOUND")]
    UnknownVisit,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// This world as a guest sees it, and whether it takes guests (403 when not).
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/travel/guest/world",
    summary = "Eidoverse guest door"
)]
async fn door(store: Shared<Store>) -> Result<Json<Door>, DoorShut> {
    let door = store.run(|connection| guests::door(connection)).await??;
    Ok(Json(door))
}

/// A guest from another world arrives; the answer holds the visit id.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/travel/guest/visits",
    summary = "Eidoverse guest arrival"
)]
async fn arrive(
    store: Shared<Store>,
    Body(arrival): Body<Arrival>,
) -> Result<Created<Welcome>, ArrivalRefusal> {
    let arrival = arrival.checked().map_err(Invalid)?;
    let welcome = store
        .run(move |connection| guests::arrive(connection, &arrival))
        .await??;
    Ok(Created(welcome))
}

/// The host world's chat, for a guest of an open visit.
#[portos_route(
    method = "GET",
    path = "/api/eidoverse/travel/guest/visits/{visitId}/chat",
    summary = "Eidoverse guest chat"
)]
async fn read_chat(
    store: Shared<Store>,
    VisitId(visit_id): VisitId,
    Query(ChatQuery { after }): Query<ChatQuery>,
) -> Result<Json<Page>, VisitRefusal> {
    let after = chat::checked_cursor(after).map_err(Invalid)?;
    let page = store
        .run(move |connection| guests::read(connection, &visit_id, after))
        .await??;
    Ok(Json(page))
}

/// A guest of an open visit says something in the host world's chat.
#[portos_route(
    method = "POST",
    path = "/api/eidoverse/travel/guest/visits/{visitId}/chat",
    summary = "Eidoverse guest says"
)]
async fn say(
    store: Shared<Store>,
    GuestSays {
        visit_id,
        line: GuestLine { text },
    }: GuestSays,
) -> Result<Created<Posted>, VisitRefusal> {
    let text = chat::checked_text(&text).map_err(Invalid)?;
    let message = store
        .run(move |connection| guests::say(connection, &visit_id, &text))
        .await??;
    Ok(Created(message))
}

/// A guest leaves (allowed even after the owner closed the world).
#[portos_route(
    method = "DELETE",
    path = "/api/eidoverse/travel/guest/visits/{visitId}",
    summary = "Eidoverse guest leaves"
)]
async fn leave(
    store: Shared<Store>,
    VisitId(visit_id): VisitId,
) -> Result<Json<Farewell>, VisitMissing> {
    let key = visit_id.clone();
    let left = store
        .run(move |connection| guests::leave(connection, &key))
        .await?;
    if !left {
        return Err(VisitMissing::UnknownVisit);
    }
    Ok(Json(Farewell {
        visit_id,
        left: true,
    }))
}

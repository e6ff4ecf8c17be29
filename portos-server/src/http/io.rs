//! How a handler's signature becomes its documentation. `#[portos_route]`
//! asks every parameter type ([`RouteInput`]) and the return type
//! ([`RouteOutput`], and through `Result` the error type's [`RouteErrors`])
//! what they add to the operation: a query or body schema, the success
//! type and status, the failures they can answer. What is documented is
//! therefore what the handler's types do, and a type that cannot say is a
//! compile error at the route, not a silent gap in the OpenAPI document.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, Extension, OriginalUri, Path, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use portos_core::contract::ValidationFailure;
use portos_core::inventory::{RouteIo, SchemaFn};
use schemars::{JsonSchema, SchemaGenerator};

use super::ApiError;
use crate::store::StoreError;

/// What a handler parameter (an axum extractor) adds to its operation's
/// description: a query or body schema, the refusals it answers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say what it adds to the route's documents",
    label = "a #[portos_route] handler parameter must implement `portos_server::http::RouteInput`",
    note = "use the runtime's typed extractors (`Body<T>`, `Query<T>`, `State`, `Path`, `Extension`, …) or implement `RouteInput` for your extractor"
)]
pub trait RouteInput {
    /// Adds what this extractor reads and refuses (nothing by default: state,
    /// path parameters, extensions).
    fn describe(io: &mut RouteIo) {
        let _ = io;
    }
}

/// What a handler's return type says about a successful answer.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say what the route answers",
    label = "a #[portos_route] handler must return a type implementing `portos_server::http::RouteOutput`",
    note = "return `Json<T>`, `Created<T>`, `Accepted<T>`, `NoContent` or `Response`, or `Result<_, E>` with `E: RouteErrors`; a status chosen at run time (`(StatusCode, Json<T>)`) cannot be documented"
)]
pub trait RouteOutput {
    fn describe(io: &mut RouteIo);
}

/// The failures an error type answers, each a `(status, code)`, and how it
/// becomes the contract's error body. Derive it on an enum of a route
/// family's failures with `#[derive(RouteErrors)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not declare the failures it answers",
    label = "a #[portos_route] handler's error type must implement `portos_server::http::RouteErrors`",
    note = "derive it on an enum of the family's failures: `#[derive(Debug, thiserror::Error, RouteErrors)]` with `#[route_error(status = 404, code = \"…\")]` per variant"
)]
pub trait RouteErrors: Into<ApiError> {
    fn describe(io: &mut RouteIo);
}

/// The schema function of `T`, in the document's shared generator.
pub fn schema_of<T: JsonSchema>() -> SchemaFn {
    SchemaGenerator::subschema_for::<T>
}

// Extractors that read state or the raw request add nothing; path
// parameters are named by the declared path.
impl<S> RouteInput for State<S> {}
/// The path parameters' schema: `Path<String>` is a plain string, a
/// newtype (or a struct of the parameters) says its rules.
impl<T: JsonSchema> RouteInput for Path<T> {
    fn describe(io: &mut RouteIo) {
        io.path = Some(schema_of::<T>());
    }
}
impl<T> RouteInput for Extension<T> {}
impl RouteInput for ConnectInfo<SocketAddr> {}
impl RouteInput for Request {}
impl RouteInput for Uri {}
impl RouteInput for OriginalUri {}
impl RouteInput for Method {}
impl RouteInput for HeaderMap {}

/// A successful JSON answer with status 200.
impl<T: JsonSchema> RouteOutput for Json<T> {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<T>());
        io.success_status = 200;
    }
}

/// A response built by hand: its shape is not documented ("generated").
impl RouteOutput for Response {
    fn describe(_: &mut RouteIo) {}
}

/// Headers set beside the answer (a cookie, an ETag) change nothing in the
/// document.
impl<H, O: RouteOutput, const N: usize> RouteOutput for ([H; N], O) {
    fn describe(io: &mut RouteIo) {
        O::describe(io);
    }
}

impl<O: RouteOutput, E: RouteErrors> RouteOutput for Result<O, E> {
    fn describe(io: &mut RouteIo) {
        O::describe(io);
        E::describe(io);
    }
}

/// `201 Created` with the created resource as JSON.
#[derive(Debug)]
pub struct Created<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Created<T> {
    fn into_response(self) -> Response {
        (StatusCode::CREATED, Json(self.0)).into_response()
    }
}

impl<T: JsonSchema> RouteOutput for Created<T> {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<T>());
        io.success_status = 201;
    }
}

/// `202 Accepted` with the accepted work as JSON, as it stands (work that
/// goes on after the answer: the body says how far it got).
#[derive(Debug)]
pub struct Accepted<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Accepted<T> {
    fn into_response(self) -> Response {
        (StatusCode::ACCEPTED, Json(self.0)).into_response()
    }
}

impl<T: JsonSchema> RouteOutput for Accepted<T> {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<T>());
        io.success_status = 202;
    }
}

/// `204 No Content`.
#[derive(Clone, Copy, Debug)]
pub struct NoContent;

impl IntoResponse for NoContent {
    fn into_response(self) -> Response {
        StatusCode::NO_CONTENT.into_response()
    }
}

impl RouteOutput for NoContent {
    fn describe(io: &mut RouteIo) {
        io.success_status = 204;
        io.modeled = true;
    }
}

/// A handler that cannot fail declares nothing.
impl RouteErrors for Infallible {
    fn describe(_: &mut RouteIo) {}
}

impl From<Infallible> for ApiError {
    fn from(never: Infallible) -> ApiError {
        match never {}
    }
}

/// A request that broke the contract's rules: 400 `VALIDATION_ERROR` with
/// every issue in `context.details`.
impl RouteErrors for ValidationFailure {
    fn describe(io: &mut RouteIo) {
        io.error(400, "VALIDATION_ERROR");
    }
}

/// A store fault is the server's (500, logged): not a documented answer.
impl RouteErrors for StoreError {
    fn describe(_: &mut RouteIo) {}
}

impl IntoResponse for StoreError {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// `400 VALIDATION_ERROR` with a message: a rule of the domain that the
/// request's shape could not express (a date in the past, an empty title).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl Invalid {
    pub fn new(message: impl Into<String>) -> Invalid {
        Invalid(message.into())
    }
}

impl From<Invalid> for ApiError {
    fn from(Invalid(message): Invalid) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
    }
}

impl RouteErrors for Invalid {
    fn describe(io: &mut RouteIo) {
        io.error(400, "VALIDATION_ERROR");
    }
}

impl IntoResponse for Invalid {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// The failures of a route whose one refusal is a broken domain rule (400
/// `VALIDATION_ERROR`); a store fault is the server's.
#[derive(Debug, thiserror::Error, crate::http::RouteErrors)]
pub enum InputError {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

//! [`Shared`] as a route extractor: a handler names the server state it
//! takes in its signature, and the server refuses to start when it was not
//! given a value of that type (see [`super::route::missing_state`]), so no
//! request ever finds it missing.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use portos_core::inventory::RouteIo;
use portos_core::{ServerState, Shared, StateNeed};

use super::{ApiError, RouteInput};
use crate::app::App;

impl<T: ServerState> FromRequestParts<App> for Shared<T> {
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, app: &App) -> Result<Shared<T>, ApiError> {
        // Only an `App` put together without the start-up check gets here.
        app.registry
            .state()
            .shared::<T>()
            .map_err(|missing| ApiError::internal(missing.to_string()))
    }
}

impl<T: ServerState> RouteInput for Shared<T> {
    fn describe(io: &mut RouteIo) {
        io.state.push(StateNeed::of::<T>());
    }
}

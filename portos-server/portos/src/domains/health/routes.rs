//! `/api/health/*`: the health logs the `health.*` tools write, for a
//! person or UI to read, add to and correct. Logging runs the same rules
//! as the tools (presets, ranges, units), so both agree on what is stored.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use portos_server::http::query::invalid;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{
    DayEntries, Drink, LogDrinkArgs, LogNicotineArgs, LogWeightArgs, LogWorkoutArgs, Nicotine,
    Weight, Workout,
};
use super::ops::{self, LogError};
use crate::shared::local_date;
use crate::shared::rest::{Deleted, query_error};

/// Which day to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DayQuery {
    /// `YYYY-MM-DD` in the user's time zone (default today).
    pub date: Option<String>,
}

/// Today's alcohol and nicotine next to the daily averages of the 7 days before.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodayView {
    pub date: String,
    pub standard_drinks: f64,
    pub average_standard_drinks: f64,
    pub nicotine_mg: f64,
    pub average_nicotine_mg: f64,
}

/// Every health entry of one day (drinks, nicotine, weights, workouts).
#[portos_route(
    method = "GET",
    path = "/api/health/entries",
    summary = "Health entries of a day",
    query = DayQuery,
    response = DayEntries,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn entries(
    State(app): State<App>,
    query: Result<Query<DayQuery>, QueryRejection>,
) -> Result<Json<DayEntries>, ApiError> {
    let Query(DayQuery { date }) = query.map_err(query_error)?;
    let date = local_date::date_or_today(&app.clock, date.as_deref())
        .map_err(invalid)?
        .to_string();
    let day = ops::entries_on(&app.store, date).await?;
    Ok(Json(day))
}

/// Today's alcohol and nicotine against the 7-day averages.
#[portos_route(
    method = "GET",
    path = "/api/health/today",
    summary = "Today's health summary",
    response = TodayView,
)]
async fn today(State(app): State<App>) -> Result<Json<TodayView>, ApiError> {
    let today = ops::today(&app.store, &app.clock).await?;
    Ok(Json(TodayView {
        date: today.date,
        standard_drinks: today.standard_drinks,
        average_standard_drinks: today.average_standard_drinks,
        nicotine_mg: today.nicotine_mg,
        average_nicotine_mg: today.average_nicotine_mg,
    }))
}

/// Logs a drink for today (presets by name: beer, wine, whiskey, shot, cocktail).
#[portos_route(
    method = "POST",
    path = "/api/health/drinks",
    summary = "Log a drink",
    request = LogDrinkArgs,
    response = Drink,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn log_drink(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Drink>), ApiError> {
    let args: LogDrinkArgs = body.into_typed()?;
    let logged = ops::log_drink(&app.store, &app.clock, &args)
        .await
        .map_err(log_error)?;
    Ok((StatusCode::CREATED, Json(logged.entry)))
}

/// Logs nicotine for today (presets: cigarette, vape, pouch).
#[portos_route(
    method = "POST",
    path = "/api/health/nicotine",
    summary = "Log nicotine",
    request = LogNicotineArgs,
    response = Nicotine,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn log_nicotine(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Nicotine>), ApiError> {
    let args: LogNicotineArgs = body.into_typed()?;
    let logged = ops::log_nicotine(&app.store, &app.clock, &args)
        .await
        .map_err(log_error)?;
    Ok((StatusCode::CREATED, Json(logged.entry)))
}

/// Logs a body weight in pounds or kilograms (kept in pounds).
#[portos_route(
    method = "POST",
    path = "/api/health/weight",
    summary = "Log a weight",
    request = LogWeightArgs,
    response = Weight,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn log_weight(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Weight>), ApiError> {
    let args: LogWeightArgs = body.into_typed()?;
    let entry = ops::log_weight(&app.store, &app.clock, &args)
        .await
        .map_err(log_error)?;
    Ok((StatusCode::CREATED, Json(entry)))
}

/// Logs a workout.
#[portos_route(
    method = "POST",
    path = "/api/health/workouts",
    summary = "Log a workout",
    request = LogWorkoutArgs,
    response = Workout,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn log_workout(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Workout>), ApiError> {
    let args: LogWorkoutArgs = body.into_typed()?;
    let entry = ops::log_workout(&app.store, &app.clock, &args)
        .await
        .map_err(log_error)?;
    Ok((StatusCode::CREATED, Json(entry)))
}

/// Deletes a health entry of any kind (to correct a mistaken log).
#[portos_route(
    method = "DELETE",
    path = "/api/health/entries/{id}",
    summary = "Delete a health entry",
    response = Deleted,
    errors = [(404, "HEALTH_ENTRY_NOT_FOUND")],
)]
async fn delete_entry(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, ApiError> {
    let deleted = ops::delete_entry(&app.store, id.clone()).await?;
    if !deleted {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "HEALTH_ENTRY_NOT_FOUND",
            format!("No health entry has the id \"{id}\""),
        ));
    }
    Ok(Json(Deleted { ok: true, id }))
}

fn log_error(error: LogError) -> ApiError {
    match error {
        LogError::Invalid(message) => invalid(message),
        LogError::Store(error) => ApiError::from(error),
    }
}

//! `/api/health/*`: the health logs the `health.*` tools write, for a
//! person or UI to read, add to and correct. Logging runs the same rules
//! as the tools (presets, ranges, units), so both agree on what is stored.

use std::borrow::Cow;

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::model::{
    DayEntries, Drink, LogDrinkArgs, LogNicotineArgs, LogWeightArgs, LogWorkoutArgs, Nicotine,
    Weight, Workout,
};
use super::ops::{self, LogError};
use crate::shared::doc_rules::{NOT_BLANK, date_or_blank, with_rules};
use crate::shared::local_date;
use crate::shared::rest::Deleted;

/// Which day to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DayQuery {
    /// `YYYY-MM-DD` in the user's time zone (default today).
    #[schemars(extend("anyOf" = [{ "format": "date" }, { "maxLength": 0 }]))]
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

/// A health entry that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum EntryMissing {
    #[error("No health entry has the id \"{0}\"")]
    #[route_error(status = 404, code = "HEALTH_ENTRY_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<LogError> for InputError {
    fn from(error: LogError) -> InputError {
        match error {
            LogError::Invalid(message) => InputError::Invalid(Invalid(message)),
            LogError::Store(error) => InputError::Store(error),
        }
    }
}

/// Every health entry of one day (drinks, nicotine, weights, workouts).
#[portos_route(
    method = "GET",
    path = "/api/health/entries",
    summary = "Health entries of a day"
)]
async fn entries(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Query(DayQuery { date }): Query<DayQuery>,
) -> Result<Json<DayEntries>, InputError> {
    let date = local_date::date_or_today(&clock, date.as_deref())
        .map_err(Invalid)?
        .to_string();
    let day = ops::entries_on(&store, date).await?;
    Ok(Json(day))
}

/// Today's alcohol and nicotine against the 7-day averages.
#[portos_route(
    method = "GET",
    path = "/api/health/today",
    summary = "Today's health summary"
)]
async fn today(
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<Json<TodayView>, StoreError> {
    let today = ops::today(&store, &clock).await?;
    Ok(Json(TodayView {
        date: today.date,
        standard_drinks: today.standard_drinks,
        average_standard_drinks: today.average_standard_drinks,
        nicotine_mg: today.nicotine_mg,
        average_nicotine_mg: today.average_nicotine_mg,
    }))
}

/// Logs a drink for today (presets by name: beer, wine, whiskey, shot, cocktail).
#[portos_route(method = "POST", path = "/api/health/drinks", summary = "Log a drink")]
async fn log_drink(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(DrinkBody(args)): Body<DrinkBody>,
) -> Result<Created<Drink>, InputError> {
    let logged = ops::log_drink(&store, &clock, &args).await?;
    Ok(Created(logged.entry))
}

/// Logs nicotine for today (presets: cigarette, vape, pouch).
#[portos_route(
    method = "POST",
    path = "/api/health/nicotine",
    summary = "Log nicotine"
)]
async fn log_nicotine(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(NicotineBody(args)): Body<NicotineBody>,
) -> Result<Created<Nicotine>, InputError> {
    let logged = ops::log_nicotine(&store, &clock, &args).await?;
    Ok(Created(logged.entry))
}

/// Logs a body weight in pounds or kilograms (kept in pounds).
#[portos_route(method = "POST", path = "/api/health/weight", summary = "Log a weight")]
async fn log_weight(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(WeightBody(args)): Body<WeightBody>,
) -> Result<Created<Weight>, InputError> {
    let entry = ops::log_weight(&store, &clock, &args).await?;
    Ok(Created(entry))
}

/// Logs a workout.
#[portos_route(
    method = "POST",
    path = "/api/health/workouts",
    summary = "Log a workout"
)]
async fn log_workout(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(WorkoutBody(args)): Body<WorkoutBody>,
) -> Result<Created<Workout>, InputError> {
    let entry = ops::log_workout(&store, &clock, &args).await?;
    Ok(Created(entry))
}

/// Deletes a health entry of any kind (to correct a mistaken log).
#[portos_route(
    method = "DELETE",
    path = "/api/health/entries/{id}",
    summary = "Delete a health entry"
)]
async fn delete_entry(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, EntryMissing> {
    if !ops::delete_entry(&store, id.clone()).await? {
        return Err(EntryMissing::NotFound(id));
    }
    Ok(Json(Deleted { ok: true, id }))
}

// The health tools' argument types are also the routes' bodies. The tools'
// schemas give only the fields' types: a value out of range is the
// adapter's failed result (docs/reference.md#semantic-adapters). Over HTTP the
// same ranges are the body's rules, so each body is its tool's type with the
// ranges the adapter applies stated (and, through `Body`, enforced before it
// runs).

/// [`LogDrinkArgs`] as a request body, with the adapter's ranges.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct DrinkBody(LogDrinkArgs);

impl JsonSchema for DrinkBody {
    fn schema_name() -> Cow<'static, str> {
        "DrinkBody".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        with_rules(
            LogDrinkArgs::json_schema(generator),
            &[
                ("name", json!({ "pattern": NOT_BLANK })),
                ("count", json!({ "exclusiveMinimum": 0, "maximum": 50 })),
                ("oz", json!({ "exclusiveMinimum": 0, "maximum": 128 })),
                ("abv", json!({ "minimum": 0, "maximum": 100 })),
            ],
        )
    }
}

/// [`LogNicotineArgs`] as a request body, with the adapter's ranges.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct NicotineBody(LogNicotineArgs);

impl JsonSchema for NicotineBody {
    fn schema_name() -> Cow<'static, str> {
        "NicotineBody".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        with_rules(
            LogNicotineArgs::json_schema(generator),
            &[
                ("product", json!({ "pattern": NOT_BLANK })),
                ("count", json!({ "exclusiveMinimum": 0, "maximum": 100 })),
                ("mgPerUnit", json!({ "minimum": 0, "maximum": 200 })),
            ],
        )
    }
}

/// [`LogWeightArgs`] as a request body. The upper bound depends on the unit
/// (800 lb), so only the lower one is a schema rule.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct WeightBody(LogWeightArgs);

impl JsonSchema for WeightBody {
    fn schema_name() -> Cow<'static, str> {
        "WeightBody".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        with_rules(
            LogWeightArgs::json_schema(generator),
            &[
                ("weight", json!({ "exclusiveMinimum": 0 })),
                ("date", date_or_blank()),
            ],
        )
    }
}

/// [`LogWorkoutArgs`] as a request body, with the adapter's ranges.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct WorkoutBody(LogWorkoutArgs);

impl JsonSchema for WorkoutBody {
    fn schema_name() -> Cow<'static, str> {
        "WorkoutBody".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        with_rules(
            LogWorkoutArgs::json_schema(generator),
            &[
                ("type", json!({ "pattern": NOT_BLANK })),
                (
                    "durationMinutes",
                    json!({ "exclusiveMinimum": 0, "maximum": 1440 }),
                ),
                ("date", date_or_blank()),
            ],
        )
    }
}

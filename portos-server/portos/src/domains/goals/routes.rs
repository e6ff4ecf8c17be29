//! `/api/goals/*`: create, read, edit and delete goals and add notes to
//! them. The `goals.*` tools only list, update progress and add notes, so
//! this is where goals come from.

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

use super::model::{self, Goal, GoalChanges, GoalNote, GoalStatus, NewGoal};
use super::ops::{self, GoalError};
use crate::shared::local_date;
use crate::shared::rest::{Deleted, query_error};

/// Which goals to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalsQuery {
    /// Only goals with this status (default: every goal).
    pub status: Option<GoalStatus>,
}

/// Goals, most urgent first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GoalsView {
    pub goals: Vec<Goal>,
}

/// A goal with its notes, oldest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GoalDetail {
    #[serde(flatten)]
    pub goal: Goal,
    pub notes: Vec<GoalNote>,
}

/// A note to attach to a goal.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewNote {
    /// Must not be empty.
    pub note: String,
    /// Time spent, more than 0 and at most 1440 minutes.
    pub duration_minutes: Option<f64>,
    /// `YYYY-MM-DD` (default today in the user's time zone).
    pub date: Option<String>,
}

/// Every goal (or those with one status), most urgent first.
#[portos_route(
    method = "GET",
    path = "/api/goals",
    summary = "Goals",
    query = GoalsQuery,
    response = GoalsView,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list(
    State(app): State<App>,
    query: Result<Query<GoalsQuery>, QueryRejection>,
) -> Result<Json<GoalsView>, ApiError> {
    let Query(GoalsQuery { status }) = query.map_err(query_error)?;
    let goals = ops::goals(&app.store, status).await?;
    Ok(Json(GoalsView { goals }))
}

/// Creates an active goal.
#[portos_route(
    method = "POST",
    path = "/api/goals",
    summary = "Create a goal",
    request = NewGoal,
    response = Goal,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn create(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Goal>), ApiError> {
    let new: NewGoal = body.into_typed()?;
    let goal = ops::create(&app.store, new).await.map_err(goal_error)?;
    Ok((StatusCode::CREATED, Json(goal)))
}

/// One goal with its notes.
#[portos_route(
    method = "GET",
    path = "/api/goals/{id}",
    summary = "A goal",
    response = GoalDetail,
    errors = [(404, "GOAL_NOT_FOUND")],
)]
async fn read(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<GoalDetail>, ApiError> {
    let found = ops::goal_with_notes(&app.store, id.clone()).await?;
    found
        .map(|(goal, notes)| Json(GoalDetail { goal, notes }))
        .ok_or_else(|| not_found(&id))
}

/// Changes the fields given; the others keep their value.
#[portos_route(
    method = "PUT",
    path = "/api/goals/{id}",
    summary = "Change a goal",
    request = GoalChanges,
    response = Goal,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "GOAL_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn change(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<Goal>, ApiError> {
    let changes: GoalChanges = body.into_typed()?;
    let updated = ops::change(&app.store, id.clone(), changes)
        .await
        .map_err(goal_error)?;
    updated.map(Json).ok_or_else(|| not_found(&id))
}

/// Deletes a goal and its notes.
#[portos_route(
    method = "DELETE",
    path = "/api/goals/{id}",
    summary = "Delete a goal",
    response = Deleted,
    errors = [(404, "GOAL_NOT_FOUND")],
)]
async fn delete(State(app): State<App>, Path(id): Path<String>) -> Result<Json<Deleted>, ApiError> {
    let deleted = ops::delete(&app.store, id.clone()).await?;
    if !deleted {
        return Err(not_found(&id));
    }
    Ok(Json(Deleted { ok: true, id }))
}

/// Attaches a dated note to a goal.
#[portos_route(
    method = "POST",
    path = "/api/goals/{id}/notes",
    summary = "Add a note to a goal",
    request = NewNote,
    response = GoalNote,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "GOAL_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn add_note(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<GoalNote>), ApiError> {
    let new: NewNote = body.into_typed()?;
    let draft = model::note_draft(&new.note, new.duration_minutes).map_err(invalid)?;
    let date = local_date::date_or_today(&app.clock, new.date.as_deref()).map_err(invalid)?;
    let note = ops::add_note(&app.store, id.clone(), draft, date).await?;
    let note = note.ok_or_else(|| not_found(&id))?;
    Ok((StatusCode::CREATED, Json(note)))
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "GOAL_NOT_FOUND",
        format!("No goal has the id \"{id}\""),
    )
}

fn goal_error(error: GoalError) -> ApiError {
    match error {
        GoalError::Invalid(message) => invalid(message),
        GoalError::Store(error) => ApiError::from(error),
    }
}

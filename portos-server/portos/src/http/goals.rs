//! `/api/goals/*`: create, read, edit and delete goals and add notes to
//! them. The `goals.*` tools only list, update progress and add notes, so
//! this is where goals come from.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ApiError;
use super::body::JsonBody;
use super::health::{Deleted, query_error, store_error, validation};
use crate::app::App;
use crate::shared::local_date;
use crate::store::goals::{self, Goal, GoalNote};

const DEFAULT_URGENCY: f64 = 0.5;
const MAX_NOTE_MINUTES: f64 = 1440.0;

/// Where a goal stands.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GoalStatus {
    Active,
    Completed,
    Archived,
}

impl GoalStatus {
    fn as_str(self) -> &'static str {
        match self {
            GoalStatus::Active => "active",
            GoalStatus::Completed => "completed",
            GoalStatus::Archived => "archived",
        }
    }
}

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

/// A new goal.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGoal {
    /// Must not be empty.
    pub title: String,
    /// e.g. `1-year`, `5-year`, `lifetime` (default empty).
    pub horizon: Option<String>,
    /// e.g. `health`, `career` (default empty).
    pub category: Option<String>,
    /// 0 (whenever) to 1 (now); default 0.5.
    pub urgency: Option<f64>,
    /// Percent, 0 to 100 (default 0).
    pub progress: Option<i64>,
}

/// Changes to a goal; fields left out keep their value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalChanges {
    pub title: Option<String>,
    pub horizon: Option<String>,
    pub category: Option<String>,
    pub urgency: Option<f64>,
    pub progress: Option<i64>,
    pub status: Option<GoalStatus>,
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
    let goals = app
        .store
        .run(move |connection| goals::goals(connection, status.map(GoalStatus::as_str)))
        .await
        .map_err(store_error)?;
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
    let now = jiff::Timestamp::now().to_string();
    let goal = Goal {
        id: uuid::Uuid::new_v4().to_string(),
        title: title(&new.title)?,
        horizon: trimmed(new.horizon.as_deref()),
        category: trimmed(new.category.as_deref()),
        urgency: urgency(new.urgency.unwrap_or(DEFAULT_URGENCY))?,
        progress: progress(new.progress.unwrap_or(0))?,
        status: GoalStatus::Active.as_str().to_owned(),
        created_at: now.clone(),
        updated_at: now,
    };
    let stored = goal.clone();
    app.store
        .run(move |connection| goals::insert_goal(connection, &stored))
        .await
        .map_err(store_error)?;
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
    let target = id.clone();
    let found = app
        .store
        .run(move |connection| {
            let Some(goal) = goals::goal(connection, &target)? else {
                return Ok(None);
            };
            let notes = goals::notes(connection, &target)?;
            Ok(Some(GoalDetail { goal, notes }))
        })
        .await
        .map_err(store_error)?;
    found.map(Json).ok_or_else(|| not_found(&id))
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
    // Checked before reading, so a bad body changes nothing.
    let new_title = changes.title.as_deref().map(title).transpose()?;
    let new_urgency = changes.urgency.map(urgency).transpose()?;
    let new_progress = changes.progress.map(progress).transpose()?;
    let target = id.clone();
    let updated = app
        .store
        .run(move |connection| {
            let Some(mut goal) = goals::goal(connection, &target)? else {
                return Ok(None);
            };
            if let Some(title) = new_title {
                goal.title = title;
            }
            if let Some(horizon) = changes.horizon {
                goal.horizon = horizon.trim().to_owned();
            }
            if let Some(category) = changes.category {
                goal.category = category.trim().to_owned();
            }
            if let Some(urgency) = new_urgency {
                goal.urgency = urgency;
            }
            if let Some(progress) = new_progress {
                goal.progress = progress;
            }
            if let Some(status) = changes.status {
                goal.status = status.as_str().to_owned();
            }
            goal.updated_at = jiff::Timestamp::now().to_string();
            goals::update_goal(connection, &goal)?;
            Ok(Some(goal))
        })
        .await
        .map_err(store_error)?;
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
    let target = id.clone();
    let deleted = app
        .store
        .run(move |connection| goals::delete_goal(connection, &target))
        .await
        .map_err(store_error)?;
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
    let text = new.note.trim();
    if text.is_empty() {
        return Err(validation("note must not be empty"));
    }
    if let Some(minutes) = new.duration_minutes
        && !(minutes.is_finite() && minutes > 0.0 && minutes <= MAX_NOTE_MINUTES)
    {
        return Err(validation(format!(
            "durationMinutes must be more than 0 and at most 1440 (got {minutes})"
        )));
    }
    let date = local_date::date_or_today(&app.clock, new.date.as_deref()).map_err(validation)?;
    let note = GoalNote {
        id: uuid::Uuid::new_v4().to_string(),
        goal_id: id.clone(),
        date: date.to_string(),
        note: text.to_owned(),
        duration_minutes: new.duration_minutes,
        created_at: jiff::Timestamp::now().to_string(),
    };
    let stored = note.clone();
    let found = app
        .store
        .run(move |connection| {
            if goals::goal(connection, &stored.goal_id)?.is_none() {
                return Ok(false);
            }
            goals::insert_note(connection, &stored)?;
            Ok(true)
        })
        .await
        .map_err(store_error)?;
    if !found {
        return Err(not_found(&id));
    }
    Ok((StatusCode::CREATED, Json(note)))
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "GOAL_NOT_FOUND",
        format!("No goal has the id \"{id}\""),
    )
}

fn title(raw: &str) -> Result<String, ApiError> {
    let title = raw.trim();
    if title.is_empty() {
        return Err(validation("title must not be empty"));
    }
    Ok(title.to_owned())
}

fn trimmed(text: Option<&str>) -> String {
    text.map(str::trim).unwrap_or_default().to_owned()
}

fn urgency(value: f64) -> Result<f64, ApiError> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(validation(format!(
            "urgency must be between 0 and 1 (got {value})"
        )))
    }
}

fn progress(value: i64) -> Result<i64, ApiError> {
    if (0..=100).contains(&value) {
        Ok(value)
    } else {
        Err(validation(format!(
            "progress must be between 0 and 100 percent (got {value})"
        )))
    }
}

//! `/api/goals/*`: create, read, edit and delete goals and add notes to
//! them. The `goals.*` tools only list, update progress and add notes, so
//! this is where goals come from.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{self, Goal, GoalChanges, GoalNote, GoalStatus, NewGoal};
use super::ops::{self, GoalError};
use crate::shared::doc_rules::NOT_BLANK;
use crate::shared::local_date;
use crate::shared::rest::Deleted;

/// Which goals to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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
    #[schemars(regex(pattern = NOT_BLANK))]
    pub note: String,
    /// Time spent, more than 0 and at most 1440 minutes.
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 1440))]
    pub duration_minutes: Option<f64>,
    /// `YYYY-MM-DD` (default today in the user's time zone).
    /// Blank: today.
    #[schemars(extend("anyOf" = [{ "type": "string", "format": "date" }, { "type": "string", "pattern": "^\\s*$" }, { "type": "null" }]))]
    pub date: Option<String>,
}

/// A goal that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum GoalMissing {
    #[error("No goal has the id \"{0}\"")]
    #[route_error(status = 404, code = "GOAL_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// A change refused: the goal is not there, or the change breaks a rule.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum GoalRefusal {
    #[error("No goal has the id \"{0}\"")]
    #[route_error(status = 404, code = "GOAL_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<GoalError> for GoalRefusal {
    fn from(error: GoalError) -> GoalRefusal {
        match error {
            GoalError::Invalid(message) => GoalRefusal::Invalid(Invalid(message)),
            GoalError::Store(error) => GoalRefusal::Store(error),
        }
    }
}

impl From<GoalError> for InputError {
    fn from(error: GoalError) -> InputError {
        match error {
            GoalError::Invalid(message) => InputError::Invalid(Invalid(message)),
            GoalError::Store(error) => InputError::Store(error),
        }
    }
}

/// Every goal (or those with one status), most urgent first.
#[portos_route(method = "GET", path = "/api/goals", summary = "Goals")]
async fn list(
    store: Shared<Store>,
    Query(GoalsQuery { status }): Query<GoalsQuery>,
) -> Result<Json<GoalsView>, StoreError> {
    let goals = ops::goals(&store, status).await?;
    Ok(Json(GoalsView { goals }))
}

/// Creates an active goal.
#[portos_route(method = "POST", path = "/api/goals", summary = "Create a goal")]
async fn create(
    store: Shared<Store>,
    Body(new): Body<NewGoal>,
) -> Result<Created<Goal>, InputError> {
    let goal = ops::create(&store, new).await?;
    Ok(Created(goal))
}

/// One goal with its notes.
#[portos_route(method = "GET", path = "/api/goals/{id}", summary = "A goal")]
async fn read(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<GoalDetail>, GoalMissing> {
    let found = ops::goal_with_notes(&store, id.clone()).await?;
    found
        .map(|(goal, notes)| Json(GoalDetail { goal, notes }))
        .ok_or(GoalMissing::NotFound(id))
}

/// Changes the fields given; the others keep their value.
#[portos_route(method = "PUT", path = "/api/goals/{id}", summary = "Change a goal")]
async fn change(
    store: Shared<Store>,
    Path(id): Path<String>,
    Body(changes): Body<GoalChanges>,
) -> Result<Json<Goal>, GoalRefusal> {
    let updated = ops::change(&store, id.clone(), changes).await?;
    updated.map(Json).ok_or(GoalRefusal::NotFound(id))
}

/// Deletes a goal and its notes.
#[portos_route(method = "DELETE", path = "/api/goals/{id}", summary = "Delete a goal")]
async fn delete(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, GoalMissing> {
    if !ops::delete(&store, id.clone()).await? {
        return Err(GoalMissing::NotFound(id));
    }
    Ok(Json(Deleted { ok: true, id }))
}

/// Attaches a dated note to a goal.
#[portos_route(
    method = "POST",
    path = "/api/goals/{id}/notes",
    summary = "Add a note to a goal"
)]
async fn add_note(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Path(id): Path<String>,
    Body(new): Body<NewNote>,
) -> Result<Created<GoalNote>, GoalRefusal> {
    let draft = model::note_draft(&new.note, new.duration_minutes).map_err(Invalid)?;
    let date = local_date::date_or_today(&clock, new.date.as_deref()).map_err(Invalid)?;
    let note = ops::add_note(&store, id.clone(), draft, date).await?;
    note.map(Created).ok_or(GoalRefusal::NotFound(id))
}

//! `/api/journal/*`: the daily journal the `journal.*` tools write, by day;
//! an append follows the same rules as `journal.append` (`ops::append`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use portos_server::http::query::invalid;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Segment, join};
use super::ops::{self, JournalError};
use crate::shared::local_date;
use crate::shared::rest::Deleted;

/// One day of the journal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JournalDay {
    pub date: String,
    /// The segments' text, separated by blank lines (empty when none).
    pub content: String,
    pub segments: Vec<Segment>,
}

/// Text to append to a day.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSegment {
    /// Must not be empty.
    pub text: String,
}

/// A day of the journal (`YYYY-MM-DD`, the user's local day).
#[portos_route(
    method = "GET",
    path = "/api/journal/{date}",
    summary = "A journal day",
    response = JournalDay,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn day(
    State(app): State<App>,
    Path(date): Path<String>,
) -> Result<Json<JournalDay>, ApiError> {
    let day = local_date::parse_date(&date).map_err(invalid)?;
    let segments = ops::day(&app.store, day).await?;
    Ok(Json(JournalDay {
        content: join(&segments),
        date: day.to_string(),
        segments,
    }))
}

/// Appends a segment to a day.
#[portos_route(
    method = "POST",
    path = "/api/journal/{date}/segments",
    summary = "Append to a journal day",
    request = NewSegment,
    response = Segment,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn append(
    State(app): State<App>,
    Path(date): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Segment>), ApiError> {
    let new: NewSegment = body.into_typed()?;
    // The path's date must be a real date: never "today" by omission here.
    local_date::parse_date(&date).map_err(invalid)?;
    let (segment, _) = ops::append(&app.store, &app.clock, &new.text, Some(&date))
        .await
        .map_err(|error| match error {
            JournalError::Invalid(message) => invalid(message),
            JournalError::Store(error) => ApiError::from(error),
        })?;
    Ok((StatusCode::CREATED, Json(segment)))
}

/// Deletes one segment (to correct a day).
#[portos_route(
    method = "DELETE",
    path = "/api/journal/segments/{id}",
    summary = "Delete a journal segment",
    response = Deleted,
    errors = [(404, "JOURNAL_SEGMENT_NOT_FOUND")],
)]
async fn delete(State(app): State<App>, Path(id): Path<String>) -> Result<Json<Deleted>, ApiError> {
    let deleted = ops::delete(&app.store, id.clone()).await?;
    if !deleted {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "JOURNAL_SEGMENT_NOT_FOUND",
            format!("No journal segment has the id \"{id}\""),
        ));
    }
    Ok(Json(Deleted { ok: true, id }))
}

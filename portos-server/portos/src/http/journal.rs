//! `/api/journal/*`: the daily journal the `journal.*` tools write, by day.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ApiError;
use super::body::JsonBody;
use super::health::{Deleted, store_error, validation};
use crate::adapters::journal as journal_tools;
use crate::app::App;
use crate::shared::local_date;
use crate::store::journal::{self, Segment};

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
    let date = local_date::parse_date(&date)
        .map_err(validation)?
        .to_string();
    let day = date.clone();
    let segments = app
        .store
        .run(move |connection| journal::day(connection, &day))
        .await
        .map_err(store_error)?;
    Ok(Json(JournalDay {
        content: journal_tools::join(&segments),
        date,
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
    local_date::parse_date(&date).map_err(validation)?;
    let segment =
        journal_tools::new_segment(&app.clock, &new.text, Some(&date)).map_err(validation)?;
    let stored = segment.clone();
    app.store
        .run(move |connection| journal::append(connection, &stored))
        .await
        .map_err(store_error)?;
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
    let target = id.clone();
    let deleted = app
        .store
        .run(move |connection| journal::delete(connection, &target))
        .await
        .map_err(store_error)?;
    if !deleted {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "JOURNAL_SEGMENT_NOT_FOUND",
            format!("No journal segment has the id \"{id}\""),
        ));
    }
    Ok(Json(Deleted { ok: true, id }))
}

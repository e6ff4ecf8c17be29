//! `/api/journal/*`: the daily journal the `journal.*` tools write, by day;
//! an append follows the same rules as `journal.append` (`ops::append`).

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{Body, Created, InputError, Invalid, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Segment, join};
use super::ops::{self, JournalError};
use crate::shared::doc_rules::{DateText, NOT_BLANK};
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
    #[schemars(regex(pattern = NOT_BLANK))]
    pub text: String,
}

/// A journal segment that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum SegmentMissing {
    #[error("No journal segment has the id \"{0}\"")]
    #[route_error(status = 404, code = "JOURNAL_SEGMENT_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<JournalError> for InputError {
    fn from(error: JournalError) -> InputError {
        match error {
            JournalError::Invalid(message) => InputError::Invalid(Invalid(message)),
            JournalError::Store(error) => InputError::Store(error),
        }
    }
}

/// A day of the journal (`YYYY-MM-DD`, the user's local day).
#[portos_route(
    method = "GET",
    path = "/api/journal/{date}",
    summary = "A journal day"
)]
async fn day(
    store: Shared<Store>,
    Path(DateText(date)): Path<DateText>,
) -> Result<Json<JournalDay>, InputError> {
    let day = local_date::parse_date(&date).map_err(Invalid)?;
    let segments = ops::day(&store, day).await?;
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
    summary = "Append to a journal day"
)]
async fn append(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Path(DateText(date)): Path<DateText>,
    Body(new): Body<NewSegment>,
) -> Result<Created<Segment>, InputError> {
    // The path's date must be a real date: never "today" by omission here.
    local_date::parse_date(&date).map_err(Invalid)?;
    let (segment, _) = ops::append(&store, &clock, &new.text, Some(&date)).await?;
    Ok(Created(segment))
}

/// Deletes one segment (to correct a day).
#[portos_route(
    method = "DELETE",
    path = "/api/journal/segments/{id}",
    summary = "Delete a journal segment"
)]
async fn delete(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, SegmentMissing> {
    if !ops::delete(&store, id.clone()).await? {
        return Err(SegmentMissing::NotFound(id));
    }
    Ok(Json(Deleted { ok: true, id }))
}

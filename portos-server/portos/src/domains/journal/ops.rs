//! The journal's operations, for its tools and routes: append a segment to
//! a day (today unless a date is given), read a day, delete a segment.

use jiff::civil::Date;
use portos_server::clock::UserClock;
use portos_server::store::{Store, StoreError};

use super::model::{self, Segment};
use super::store;
use crate::shared::local_date;

/// Why a segment was not appended.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The input does not fit; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Appends `text` to the day `date` (today in the user's zone when `None`);
/// answers the segment and how many segments its day has now.
pub async fn append(
    store: &Store,
    clock: &UserClock,
    text: &str,
    date: Option<&str>,
) -> Result<(Segment, usize), JournalError> {
    let text = model::segment_text(text).map_err(JournalError::Invalid)?;
    let date = local_date::date_or_today(clock, date).map_err(JournalError::Invalid)?;
    let segment = Segment {
        id: uuid::Uuid::new_v4().to_string(),
        date: date.to_string(),
        text,
        created_at: jiff::Timestamp::now().to_string(),
    };
    let stored = segment.clone();
    let segments = store
        .run(move |connection| store::append(connection, &stored))
        .await?;
    Ok((segment, segments))
}

/// The segments of the day `date`, in the order they were appended.
pub async fn day(store: &Store, date: Date) -> Result<Vec<Segment>, StoreError> {
    let date = date.to_string();
    store
        .run(move |connection| store::day(connection, &date))
        .await
}

/// Deletes one segment (to correct a day); `false` when there was none.
pub async fn delete(store: &Store, id: String) -> Result<bool, StoreError> {
    store
        .run(move |connection| store::delete(connection, &id))
        .await
}

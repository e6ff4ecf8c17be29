//! Calendar: ICS sources (files or URLs) and events added through the API,
//! expanded (repeating events included) into the occurrences of a window in
//! the user's time zone. `calendar.today`, `calendar.next` and the
//! `/api/calendar` routes read the same windows through the same
//! operations (`ops`).

pub mod ics;
pub mod model;
pub mod ops;
pub mod recurrence;
mod routes;
pub mod store;
mod tools;

pub use model::{AlreadyAdded, EventTime, NewEvent, Occurrence, RefreshOutcome, Source};

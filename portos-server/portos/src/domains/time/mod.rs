//! The time: `time.now` and the public clock (`/api/public/clock/now`), the
//! current date and time in the user's zone, said the way a person says it.

pub mod model;
mod routes;
pub mod tools;

pub use model::TimeNow;

//! Feeds: RSS/Atom subscriptions by URL or file, their items and read
//! state. `feeds.digest` and `feeds.mark-read` and the `/api/feeds` routes
//! call the same operations (`ops`).

pub mod model;
pub mod ops;
pub mod parse;
mod routes;
pub mod store;
mod tools;

pub use model::{AlreadySubscribed, Feed, FeedItem, RefreshOutcome};

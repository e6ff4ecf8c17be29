//! The brain inbox's operations, for its tools and routes: a capture (with
//! its ledger row), a search, the latest captures and a page of them.

use crate::ledger::{self, ActionType, NewAction};
use portos_core::Scope;
use portos_server::clock::UserClock;
use portos_server::store::changes::{self, Change};
use portos_server::store::{Store, StoreError};

use super::model::{self, Capture};
use super::store;

/// Stores the checked `text` as a capture by a caller of `scope`, dated
/// today in the user's zone. The capture and its ledger row
/// (`brain.capture`) commit together, or neither does.
pub async fn capture(
    store: &Store,
    clock: &UserClock,
    scope: Scope,
    subject: Option<&str>,
    text: String,
) -> Result<Capture, StoreError> {
    let now = jiff::Timestamp::now();
    let capture = Capture {
        id: uuid::Uuid::new_v4().to_string(),
        date: clock.local_date(now),
        captured_at: now.to_string(),
        text,
    };
    let action = NewAction::new(
        ActionType::BrainCapture,
        crate::shared::actor_of(scope),
        model::captured_summary(&capture.text),
    )
    .target(capture.id.clone(), Some(model::preview(&capture.text)))
    .payload(serde_json::json!({
        "scope": scope.as_str(),
        "chars": capture.text.chars().count(),
    }))
    .subject(subject);
    let stored = capture.clone();
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            store::insert(&transaction, &stored)?;
            ledger::record(&transaction, &action)?;
            // MCP subscribers of the brain's context resource on the other
            // servers hear of it (this server's, from the tool).
            changes::announce(
                &transaction,
                &Change::resource(&crate::shared::context_uri::scope_uri(portos_words::BRAIN)),
            )?;
            transaction.commit()?;
            Ok(())
        })
        .await?;
    Ok(capture)
}

/// At most `limit` captures containing `query` (case-insensitive), newest first.
pub async fn search(store: &Store, query: &str, limit: usize) -> Result<Vec<Capture>, StoreError> {
    let needle = query.to_lowercase();
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    store
        .run(move |connection| store::search(connection, &needle, limit))
        .await
}

/// The `limit` newest captures.
pub async fn recent(store: &Store, limit: usize) -> Result<Vec<Capture>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    store
        .run(move |connection| store::latest(connection, limit, 0))
        .await
}

/// A page of captures, newest first, and how many there are in all.
pub async fn page(
    store: &Store,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Capture>, i64), StoreError> {
    store
        .run(move |connection| {
            let total = store::count(connection)?;
            Ok((store::latest(connection, limit, offset)?, total))
        })
        .await
}

//! The recipe capability events (docs/reference.md#recipe-execution step 9):
//! what a recipe did with the authority it was given, kept for review. One row
//! per child call (`recipe-step:<childRequestId>`, never the child's result),
//! one per failed or stopped run (`recipe-failure:<requestId>`) and one per
//! library change the Mind made (`recipe-definition:<requestId>`). Ids are
//! derived from requestIds, so a replayed call records nothing twice.

use jiff::Timestamp;
use portos_server::store::sql::{Connection, params};
use portos_server::store::{Schema, Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

portos_server::store_schema!(
    /// What saved recipes did with the authority they were given.
    RECIPE_EVENTS = Schema {
        component: "recipe-events",
        migrations: &["
            CREATE TABLE IF NOT EXISTS recipe_events (
                seq        INTEGER PRIMARY KEY AUTOINCREMENT,
                id         TEXT NOT NULL UNIQUE,
                kind       TEXT NOT NULL CHECK (kind IN ('step', 'failure', 'definition')),
                recipe_id  TEXT,
                revision   INTEGER,
                step       TEXT,
                state      TEXT NOT NULL,
                detail     TEXT,
                at         TEXT NOT NULL
            );
        "],
    }
);

/// Events a listing returns at most.
pub const LIST_MAX: usize = 200;
/// The longest detail kept (an error text, a summary).
const DETAIL_CHARS: usize = 500;

/// One capability event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipeEvent {
    /// `recipe-step:…`, `recipe-failure:…` or `recipe-definition:…`.
    pub id: String,
    /// `step`, `failure` or `definition`.
    pub kind: String,
    pub recipe_id: Option<String>,
    pub revision: Option<i64>,
    /// The step id (`step`), the failing step (`failure`).
    pub step: Option<String>,
    /// How it ended: a child's `completed`/`failed`, a run's
    /// `partial`/`failed`/`aborted`, a change's `changed`/`unchanged`.
    pub state: String,
    /// An error or a summary, at most 500 characters; never a child's result.
    pub detail: Option<String>,
    pub at: String,
}

impl RecipeEvent {
    pub fn new(id: String, kind: &str, state: &str) -> RecipeEvent {
        RecipeEvent {
            id,
            kind: kind.to_owned(),
            recipe_id: None,
            revision: None,
            step: None,
            state: state.to_owned(),
            detail: None,
            at: Timestamp::now().to_string(),
        }
    }
}

/// Keeps `event` (once: a replay's id is already there). A failure to keep
/// it is logged, never the caller's failure: the call it describes stands.
pub async fn record(store: &Store, mut event: RecipeEvent) {
    event.detail = event
        .detail
        .map(|detail| detail.chars().take(DETAIL_CHARS).collect());
    let id = event.id.clone();
    if let Err(error) = store
        .run(move |connection| insert(connection, &event))
        .await
    {
        tracing::warn!(%error, event = %id, "cannot keep a recipe capability event");
    }
}

fn insert(connection: &Connection, event: &RecipeEvent) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO recipe_events
             (id, kind, recipe_id, revision, step, state, detail, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT DO NOTHING",
        params![
            event.id,
            event.kind,
            event.recipe_id,
            event.revision,
            event.step,
            event.state,
            event.detail,
            event.at
        ],
    )?;
    Ok(())
}

/// The newest `limit` events, newest first.
pub fn recent(connection: &Connection, limit: usize) -> Result<Vec<RecipeEvent>, StoreError> {
    let limit = i64::try_from(limit.min(LIST_MAX)).unwrap_or(0);
    let mut statement = connection.prepare_cached(
        "SELECT id, kind, recipe_id, revision, step, state, detail, at
         FROM recipe_events ORDER BY seq DESC LIMIT ?1",
    )?;
    let rows = statement.query_map([limit], |row| {
        Ok(RecipeEvent {
            id: row.get(0)?,
            kind: row.get(1)?,
            recipe_id: row.get(2)?,
            revision: row.get(3)?,
            step: row.get(4)?,
            state: row.get(5)?,
            detail: row.get(6)?,
            at: row.get(7)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

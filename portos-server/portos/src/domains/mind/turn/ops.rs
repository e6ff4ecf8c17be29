//! Starting a turn, for the REST route and the command line alike: one at
//! a time, with its lock taken (so a later start-up knows it is alive),
//! its thinking preset and context window settled, stored as running
//! before the model is asked, then run on a task of its own (a client that
//! goes away does not stop it).

use std::sync::Arc;

use portos_core::{Catalogs, MissingState, Shared, StateMap};
use portos_server::events::Events;
use portos_server::store::{Store, StoreError};
use tokio::task::JoinHandle;

use tracing::Instrument;

use super::config::MindModel;
use super::events::TurnStarted;
use super::record::TurnRecord;
use super::recovery::{TurnLock, lock_dir};
use super::run::{self, TurnDeps, WAKE_PROMPT};
use super::store;
use super::telemetry;
use super::tuning;
use super::wake::Wakes;
use crate::domains::apps::RemoteCache;

pub const PROMPT_MAX_CHARS: usize = 12_000;

/// Why no turn was started.
#[derive(Debug, thiserror::Error)]
pub enum StartRefusal {
    #[error("{0}")]
    Invalid(String),
    #[error(
        "The Persistent Mind has no model: start the server with --mind-provider-url and --mind-model"
    )]
    NotConfigured,
    /// The id of the turn running now.
    #[error("A Persistent Mind turn is running ({0}); wait for it to finish")]
    Busy(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The server's values a turn starts with: the route takes them as
/// `Shared<T>` parameters (checked at start-up), the command line reads
/// them from the built server.
#[derive(Debug)]
pub struct TurnResources {
    pub model: Shared<MindModel>,
    pub wakes: Shared<Wakes>,
    pub remotes: Shared<RemoteCache>,
    pub store: Shared<Store>,
    pub events: Shared<Events>,
}

impl TurnResources {
    /// Read from the server's state (for code outside a handler).
    pub fn of(state: &StateMap) -> Result<TurnResources, MissingState> {
        Ok(TurnResources {
            model: state.shared()?,
            wakes: state.shared()?,
            remotes: state.shared()?,
            store: state.shared()?,
            events: state.shared()?,
        })
    }
}

/// A started turn: its id, and its stored record when it ends.
#[derive(Debug)]
pub struct Started {
    pub id: String,
    pub done: JoinHandle<TurnRecord>,
}

/// The prompt of a turn: trimmed, at most 12,000 characters; none or blank
/// is a self-directed wake.
pub fn prompt(raw: Option<&str>) -> Result<String, String> {
    let text = raw.map(str::trim).unwrap_or_default();
    if text.is_empty() {
        return Ok(WAKE_PROMPT.to_owned());
    }
    let count = text.chars().count();
    if count > PROMPT_MAX_CHARS {
        return Err(format!(
            "prompt must be at most {PROMPT_MAX_CHARS} characters (got {count})"
        ));
    }
    Ok(text.to_owned())
}

/// Whether a turn with `raw` as its prompt is a self-directed wake.
pub fn self_directed(raw: Option<&str>) -> bool {
    raw.is_none_or(|text| text.trim().is_empty())
}

/// Stores a new turn as running and starts it; it offers the mind catalog
/// of `catalogs` and runs its calls in their registry.
pub async fn start(
    catalogs: Arc<Catalogs>,
    resources: TurnResources,
    raw_prompt: Option<&str>,
) -> Result<Started, StartRefusal> {
    let prompt = prompt(raw_prompt).map_err(StartRefusal::Invalid)?;
    let TurnResources {
        model,
        wakes,
        remotes,
        store,
        events,
    } = resources;
    let wakes = Wakes::clone(&wakes);
    let remotes = RemoteCache::clone(&remotes);
    let mut provider = model
        .provider()
        .cloned()
        .ok_or(StartRefusal::NotConfigured)?;
    let id = uuid::Uuid::new_v4().to_string();
    let running = model.claim(&id).map_err(StartRefusal::Busy)?;
    // Taken before the row is written: a start-up that sees the row running
    // also sees the lock held.
    let lock = lock_dir(&store).and_then(|dir| match TurnLock::acquire(&dir, &id) {
        Ok(lock) => Some(lock),
        Err(error) => {
            tracing::warn!(turn = %id, %error, "cannot lock the Persistent Mind turn: a restart meanwhile would end it");
            None
        }
    });
    let tuned = tuning::for_turn(
        &store,
        &provider,
        self_directed(raw_prompt),
        jiff::Timestamp::now(),
    )
    .await?;
    provider.model = tuned.model;
    let mut turn = TurnRecord::start(id.clone(), prompt, provider.model.clone());
    turn.thinking_preset = tuned.preset;
    turn.reasoning_effort = tuned.extras.reasoning_effort.map(str::to_owned);
    turn.num_ctx = tuned.extras.num_ctx;
    let stored = turn.clone();
    store
        .run(move |connection| store::insert(connection, &stored))
        .await?;
    events
        .emit(&TurnStarted {
            turn_id: id.clone(),
            model: provider.model.clone(),
        })
        .await;
    let deps = TurnDeps {
        registry: catalogs.registry().clone(),
        catalogs,
        store: Store::clone(&store),
        events: Events::clone(&events),
        wakes,
        client: model.client().clone(),
        provider,
        extras: tuned.extras,
        remotes,
        metrics: model.metrics().clone(),
    };
    let span = telemetry::turn_span(&turn);
    let done = tokio::spawn(
        async move {
            // The slot and the lock are held until the turn is stored as ended.
            let _running = running;
            let _lock = lock;
            run::run(&deps, turn).await
        }
        .instrument(span),
    );
    Ok(Started { id, done })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts() {
        assert_eq!(prompt(None).as_deref(), Ok(WAKE_PROMPT));
        assert_eq!(prompt(Some("  ")).as_deref(), Ok(WAKE_PROMPT));
        assert_eq!(prompt(Some(" Plan my day ")).as_deref(), Ok("Plan my day"));
        assert!(prompt(Some(&"x".repeat(12_001))).is_err());
        assert!(self_directed(None) && self_directed(Some(" \n")));
        assert!(!self_directed(Some("Plan my day")));
    }
}

//! The Mind's local context window: read with the machine's ceiling
//! (tools and REST), changed by the Mind within it (tool), and the owner's
//! memory estimate behind the ceiling (REST).

use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use jiff::Timestamp;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

use super::stamp;
use crate::domains::mind::answer::Answer;
use crate::domains::mind::local_context::{
    self, HostMemory, MemoryEstimate, NUM_CTX_MAX, NUM_CTX_MIN, SETTINGS_KEY,
};
use crate::domains::mind::store::live_settings;
use crate::domains::mind::store::local_context::{self as stored, ContextChange};

/// The refusal of `mind.adjust-local-context` once the grant is off.
pub const LOCAL_CONTEXT_OFF: &str = "Persistent mind local context access is disabled";
/// How many past changes a view lists.
const RECENT: usize = 10;

/// Why the window could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum LocalContextError {
    /// This machine's memory could not be read.
    #[error("{0}")]
    Host(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The window, the ceiling and what the ceiling was computed from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalContext {
    /// The Mind's local provider context size; `null`: the provider's default.
    pub num_ctx: Option<i64>,
    /// The largest window this machine can safely hold (may be below `min`:
    /// then none can).
    pub ceiling: i64,
    /// The smallest and largest window the tool accepts.
    pub min: i64,
    pub max: i64,
    pub estimate: MemoryEstimate,
    pub host: HostMemory,
    /// The newest changes, newest first.
    pub recent: Vec<ContextChange>,
}

/// What `mind.local-context` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LocalContextRead {
    pub ok: bool,
    #[serde(flatten)]
    pub context: LocalContext,
    pub explanation: String,
    pub summary: String,
}

/// A window changed (or already at the value asked for).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Adjusted {
    pub ok: bool,
    pub previous_num_ctx: Option<i64>,
    pub num_ctx: i64,
    pub ceiling: i64,
    pub summary: String,
}

async fn host_memory() -> Result<HostMemory, LocalContextError> {
    tokio::task::spawn_blocking(HostMemory::read)
        .await
        .map_err(|error| {
            LocalContextError::Host(format!("cannot read this machine's memory: {error}"))
        })?
        .map_err(LocalContextError::Host)
}

fn context_of(
    connection: &portos_server::store::sql::Connection,
    host: HostMemory,
) -> Result<LocalContext, StoreError> {
    let estimate = stored::estimate(connection)?;
    Ok(LocalContext {
        num_ctx: stored::current(connection)?,
        ceiling: local_context::ceiling(&host, &estimate),
        min: NUM_CTX_MIN,
        max: NUM_CTX_MAX,
        estimate,
        host,
        recent: stored::recent(connection, RECENT)?,
    })
}

/// The window and this machine's ceiling.
pub async fn read(store: &Store) -> Result<LocalContext, LocalContextError> {
    let host = host_memory().await?;
    Ok(store
        .run(move |connection| context_of(connection, host))
        .await?)
}

/// [`read`], as the Mind reads it.
pub async fn read_for_mind(store: &Store) -> Result<LocalContextRead, LocalContextError> {
    let context = read(store).await?;
    let current = context
        .num_ctx
        .map_or("the provider's default".to_owned(), |n| n.to_string());
    let summary = if context.ceiling < NUM_CTX_MIN {
        format!(
            "numCtx is {current}; this machine cannot safely hold any larger local window (ceiling {}).",
            context.ceiling
        )
    } else {
        format!(
            "numCtx is {current}; it may be set from {NUM_CTX_MIN} to {} on this machine.",
            context.ceiling
        )
    };
    Ok(LocalContextRead {
        ok: true,
        context,
        explanation: "The ceiling is this machine's memory (RAM, or PortOS's cgroup limit if lower) less what PortOS, the OS and the model weights need, divided by the key/value cache one token of context takes. A window above it risks running out of memory.".to_owned(),
        summary,
    })
}

/// Sets the window to `num_ctx` when it is within this machine's ceiling.
pub async fn adjust(
    store: &Store,
    num_ctx: i64,
    reason: String,
    now: Timestamp,
) -> Result<Answer<Adjusted>, StoreError> {
    // An unreadable machine is no ceiling: refuse rather than guess.
    let host = match host_memory().await {
        Ok(host) => host,
        Err(error) => return Ok(Answer::refused(format!("{error}; numCtx was not changed"))),
    };
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if !live_settings(&transaction)?.adjust_local_context {
                return Ok(Answer::refused(LOCAL_CONTEXT_OFF));
            }
            let estimate = stored::estimate(&transaction)?;
            let ceiling = local_context::ceiling(&host, &estimate);
            if let Some(refusal) = local_context::refusal(num_ctx, ceiling) {
                return Ok(Answer::refused(refusal));
            }
            let previous = stored::current(&transaction)?;
            let summary = if previous == Some(num_ctx) {
                format!("numCtx is already {num_ctx} (safe ceiling {ceiling}).")
            } else {
                stored::record(
                    &transaction,
                    &ContextChange {
                        previous_num_ctx: previous,
                        num_ctx,
                        ceiling,
                        reason,
                        at: stamp(now),
                    },
                )?;
                let from = previous.map_or("the provider's default".to_owned(), |n| n.to_string());
                format!("numCtx changed from {from} to {num_ctx} (safe ceiling {ceiling}).")
            };
            transaction.commit()?;
            Ok(Answer::Done(Adjusted {
                ok: true,
                previous_num_ctx: previous,
                num_ctx,
                ceiling,
                summary,
            }))
        })
        .await
}

/// Replaces the owner's memory estimate (already checked); the setting and
/// its ledger row (`settings.update`, by the user over `route`) commit
/// together. Answers the window under the new estimate.
pub async fn set_estimate(
    store: &Store,
    estimate: MemoryEstimate,
    route: Source,
) -> Result<LocalContext, LocalContextError> {
    let host = host_memory().await?;
    Ok(store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            stored::save_estimate(&transaction, &estimate)?;
            let action = NewAction::new(
                ActionType::SettingsUpdate,
                Actor::User,
                "Persistent Mind local context memory estimate",
            )
            .target(
                SETTINGS_KEY,
                Some("Persistent Mind local context".to_owned()),
            )
            .payload(serde_json::to_value(estimate).unwrap_or_default())
            .source(route);
            ledger::record(&transaction, &action)?;
            transaction.commit()?;
            context_of(connection, host)
        })
        .await?)
}

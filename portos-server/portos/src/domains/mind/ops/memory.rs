//! Memories and identity: people list and add memories; the Mind protects
//! them, chooses its name and cleans up what it owns.

use jiff::Timestamp;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

use super::stamp;
use crate::domains::mind::answer::Answer;
use crate::domains::mind::cleanup::{self, CleanedUp, CleanupScope, Counts};
use crate::domains::mind::memory::{
    Memory, MemoryKind, MindIdentity, NewMemory, Protection, identity_text,
};
use crate::domains::mind::store::memories::{self, Listed};
use crate::domains::mind::store::{live_settings, trajectory};

/// The refusal of every `manageMind` tool once the grant is off.
pub const SELF_MANAGEMENT_OFF: &str = "Persistent mind self-management access is disabled";

/// A memory protected (or already protected at least as well).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Protected {
    pub ok: bool,
    pub success: bool,
    pub memory_id: String,
    /// The level now: the higher of the one asked for and the one it had.
    pub protection: Protection,
    pub previous_protection: Protection,
    pub summary: String,
}

/// A name chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub ok: bool,
    pub success: bool,
    pub name: String,
    /// `null` when the Mind had no name.
    pub previous_name: Option<String>,
    /// The core-identity memory that holds the name.
    pub memory_id: String,
    pub summary: String,
}

/// Memories, oldest first.
pub async fn list(store: &Store, which: Listed) -> Result<Vec<Memory>, StoreError> {
    store
        .run(move |connection| memories::list(connection, which))
        .await
}

/// Adds a memory for the Mind (people, over REST); `Err(message)` when the
/// input breaks a rule.
pub async fn add(store: &Store, new: NewMemory) -> Result<Result<Memory, String>, StoreError> {
    let (text, protection) = match new.checked() {
        Ok(checked) => checked,
        Err(message) => return Ok(Err(message)),
    };
    let now = stamp(Timestamp::now());
    let memory = Memory {
        id: uuid::Uuid::new_v4().to_string(),
        text,
        kind: MemoryKind::Note,
        protection,
        archived: false,
        archived_at: None,
        created_at: now.clone(),
        updated_at: now,
    };
    let stored = memory.clone();
    store
        .run(move |connection| memories::insert(connection, &stored))
        .await?;
    Ok(Ok(memory))
}

/// The Mind's chosen name.
pub async fn identity(store: &Store) -> Result<MindIdentity, StoreError> {
    store.run(|connection| memories::identity(connection)).await
}

/// Raises the protection of the active memory `memory_id` to `wanted`
/// (never lowers it).
pub async fn protect(
    store: &Store,
    memory_id: String,
    wanted: Protection,
    now: Timestamp,
) -> Result<Answer<Protected>, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if !live_settings(&transaction)?.manage_mind {
                return Ok(Answer::refused(SELF_MANAGEMENT_OFF));
            }
            // Another server's change of it commits before or after this one.
            transaction.lock_rows("mind_memories", "id", &memory_id)?;
            let memory = match memories::get(&transaction, &memory_id)? {
                Some(memory) if !memory.archived => memory,
                _ => {
                    return Ok(Answer::refused(format!(
                        "Active mind-owned memory \"{memory_id}\" not found"
                    )));
                }
            };
            let previous = memory.protection;
            let level = previous.raised_to(wanted);
            let summary = if level == previous && wanted < previous {
                format!(
                    "Memory {memory_id} stays {}: protection is never lowered.",
                    level.as_str()
                )
            } else if level == previous {
                format!("Memory {memory_id} was already {}.", level.as_str())
            } else {
                memories::set_protection(&transaction, &memory_id, level, &stamp(now))?;
                format!("Memory {memory_id} is now {}.", level.as_str())
            };
            transaction.commit()?;
            Ok(Answer::Done(Protected {
                ok: true,
                success: true,
                memory_id,
                protection: level,
                previous_protection: previous,
                summary,
            }))
        })
        .await
}

/// Stores `name` (already checked) as the Mind's chosen name in its one
/// core-identity memory.
pub async fn choose_name(
    store: &Store,
    name: String,
    now: Timestamp,
) -> Result<Answer<Named>, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if !live_settings(&transaction)?.manage_mind {
                return Ok(Answer::refused(SELF_MANAGEMENT_OFF));
            }
            let at = stamp(now);
            let identity = memories::identity(&transaction)?;
            let previous_name = identity.name.clone();
            let existing = match &identity.memory_id {
                Some(id) => memories::get(&transaction, id)?,
                None => None,
            };
            let memory_id = match existing {
                Some(memory) if previous_name.as_deref() == Some(name.as_str()) => memory.id,
                Some(memory) => {
                    memories::set_text(&transaction, &memory.id, &identity_text(&name), &at)?;
                    memories::save_identity(&transaction, &name, &memory.id, &at)?;
                    memory.id
                }
                None => {
                    let memory = Memory {
                        id: uuid::Uuid::new_v4().to_string(),
                        text: identity_text(&name),
                        kind: MemoryKind::Identity,
                        protection: Protection::CoreIdentity,
                        archived: false,
                        archived_at: None,
                        created_at: at.clone(),
                        updated_at: at.clone(),
                    };
                    memories::insert(&transaction, &memory)?;
                    memories::save_identity(&transaction, &name, &memory.id, &at)?;
                    memory.id
                }
            };
            transaction.commit()?;
            let summary = match previous_name.as_deref() {
                Some(previous) if previous == name => format!("Kept the name {name}."),
                Some(previous) => format!("Chose the name {name} (was {previous})."),
                None => format!("Chose the name {name}."),
            };
            Ok(Answer::Done(Named {
                ok: true,
                success: true,
                name,
                previous_name,
                memory_id,
                summary,
            }))
        })
        .await
}

/// Archives unprotected memories, clears the history and the derived
/// context, as `scopes` says, all in one transaction.
pub async fn cleanup(
    store: &Store,
    scopes: Vec<CleanupScope>,
    reason: Option<String>,
    now: Timestamp,
) -> Result<Answer<CleanedUp>, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if !live_settings(&transaction)?.manage_mind {
                return Ok(Answer::refused(SELF_MANAGEMENT_OFF));
            }
            let (memories_on, history_on, context_on) = cleanup::selected(&scopes);
            let mut counts = Counts::default();
            if memories_on {
                counts.memories_archived =
                    memories::archive_unprotected(&transaction, &stamp(now))?;
                counts.memories_preserved = memories::count_active_protected(&transaction)?;
            }
            if history_on {
                counts.history_turns_cleared = trajectory::clear_history(&transaction)?;
            }
            if context_on {
                counts.context_entries_cleared = trajectory::clear_context(&transaction)?;
            }
            transaction.commit()?;
            Ok(Answer::Done(CleanedUp::new(scopes, reason, counts)))
        })
        .await
}

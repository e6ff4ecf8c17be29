//! The Persistent Mind's own tables and every SQL statement on them: its
//! memories and chosen name (`memories`), its trajectory history and the
//! context derived from it (`trajectory`), its thinking preset requests
//! (`thinking`) and its local context window (`local_context`). The
//! owner's configuration (presets, memory estimate) and the grants are
//! settings of the runtime's settings table.

pub mod local_context;
pub mod memories;
pub mod thinking;
pub mod trajectory;

use portos_server::settings;
use portos_server::store::sql::Connection;
use portos_server::store::{Schema, StoreError};

use super::MindSettings;

portos_server::store_schema!(
    /// The Persistent Mind's memories, identity, trajectory, derived
    /// context, thinking preset requests and local context window.
    MIND = Schema {
        component: "mind",
        migrations: &[
            // 1
            "CREATE TABLE mind_memories (
                id          TEXT PRIMARY KEY,
                text        TEXT NOT NULL,
                kind        TEXT NOT NULL CHECK (kind IN ('note', 'identity')),
                protection  TEXT NOT NULL
                            CHECK (protection IN ('standard', 'important', 'core-identity')),
                archived    INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
                archived_at TEXT,
                created_at  TEXT NOT NULL,
                updated_at  TEXT NOT NULL,
                -- The identity memory is who the Mind is: never archived.
                CHECK (kind = 'note' OR (protection = 'core-identity' AND archived = 0))
            );
            CREATE UNIQUE INDEX mind_one_identity_memory ON mind_memories (kind)
                WHERE kind = 'identity';
            CREATE TABLE mind_identity (
                slot       INTEGER PRIMARY KEY CHECK (slot = 1),
                name       TEXT NOT NULL,
                memory_id  TEXT NOT NULL REFERENCES mind_memories (id),
                chosen_at  TEXT NOT NULL
            );
            CREATE TABLE mind_history (
                seq     INTEGER PRIMARY KEY AUTOINCREMENT,
                turn_id TEXT NOT NULL,
                summary TEXT NOT NULL,
                at      TEXT NOT NULL
            );
            CREATE TABLE mind_context (
                key        TEXT PRIMARY KEY,
                text       TEXT NOT NULL,
                derived_at TEXT NOT NULL
            );
            CREATE TABLE mind_thinking_requests (
                request_id      TEXT PRIMARY KEY,
                preset_id       TEXT NOT NULL,
                label           TEXT NOT NULL,
                model           TEXT NOT NULL,
                effort          TEXT NOT NULL,
                reason          TEXT NOT NULL,
                requested_at    TEXT NOT NULL,
                requested_at_ms INTEGER NOT NULL,
                state           TEXT NOT NULL CHECK (state IN ('pending', 'used', 'cancelled')),
                settled_at      TEXT
            );
            -- One request waits for the next self-directed wake at most.
            CREATE UNIQUE INDEX mind_one_pending_request ON mind_thinking_requests (state)
                WHERE state = 'pending';
            CREATE INDEX mind_requests_by_time ON mind_thinking_requests (requested_at_ms);
            CREATE TABLE mind_local_context_changes (
                seq      INTEGER PRIMARY KEY AUTOINCREMENT,
                previous INTEGER,
                num_ctx  INTEGER NOT NULL,
                ceiling  INTEGER NOT NULL,
                reason   TEXT NOT NULL,
                at       TEXT NOT NULL
            );",
        ],
    }
);

/// The Mind's capabilities as stored now: a tool re-reads them when it
/// writes, so a grant revoked during a turn stops the next write.
pub fn live_settings(connection: &Connection) -> Result<MindSettings, StoreError> {
    Ok(MindSettings::from_stored(
        settings::get_json(connection, crate::MIND_GRANTS_KEY)?.as_ref(),
    ))
}

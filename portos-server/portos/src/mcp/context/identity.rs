//! The identity scope: which sections a local identity export of this
//! server would contain, and whether each has data. Raw records are never
//! returned; credentials (the password hash, sessions) are not a section.

use rusqlite::OptionalExtension;

use super::item::{Entry, Snapshot};
use crate::mcp::config::ContextScope;
use crate::store::{Store, StoreError};

/// (key, label, SQL answering whether the section has data).
const SECTIONS: &[(&str, &str, &str)] = &[
    (
        "brain-inbox",
        "Brain inbox",
        "SELECT 1 FROM brain_captures LIMIT 1",
    ),
    (
        "agent-tools-settings",
        "Agent Tools settings",
        "SELECT 1 FROM settings WHERE key = 'agentContext'",
    ),
    (
        "persistent-mind-grants",
        "Persistent Mind grants",
        "SELECT 1 FROM settings WHERE key = 'persistentMindCapabilities'",
    ),
    (
        "api-access",
        "API Access settings",
        "SELECT 1 FROM settings WHERE key = 'apiAccess'",
    ),
];

pub async fn snapshot(store: &Store) -> Result<Snapshot, StoreError> {
    let present: Vec<bool> = store
        .run(|connection| {
            SECTIONS
                .iter()
                .map(|(_, _, sql)| {
                    Ok(connection
                        .query_row(sql, [], |_| Ok(()))
                        .optional()?
                        .is_some())
                })
                .collect::<Result<Vec<bool>, StoreError>>()
        })
        .await?;
    let entries = SECTIONS
        .iter()
        .zip(present)
        .map(|((key, label, _), present)| {
            let summary = if present {
                "Present in the local identity export; raw records are excluded."
            } else {
                "No local identity-export data is present for this section."
            };
            Entry::new(
                ContextScope::Identity,
                &format!("identity:section:{key}"),
                "identity-export-section",
                label,
                summary,
                Some("/digital-twin/time-capsule"),
                &[*key, *label, "identity export"],
            )
        })
        .collect();
    Ok(Snapshot::capped(entries, false))
}

//! The identity scope: which sections a local identity export of this
//! server would contain, and whether each has data. Raw records are never
//! returned; credentials (the password hash, sessions) are not a section.

use super::item::{Entry, Snapshot};
use super::store::{self, Evidence};
use crate::store::{Store, StoreError};

/// (key, label, what shows the section has data).
const SECTIONS: &[(&str, &str, Evidence)] = &[
    ("brain-inbox", "Brain inbox", Evidence::BrainCaptures),
    (
        "agent-tools-settings",
        "Agent Tools settings",
        Evidence::Setting("agentContext"),
    ),
    (
        "persistent-mind-grants",
        "Persistent Mind grants",
        Evidence::Setting("persistentMindCapabilities"),
    ),
    (
        "api-access",
        "API Access settings",
        Evidence::Setting("apiAccess"),
    ),
];

pub async fn snapshot(store: &Store) -> Result<Snapshot, StoreError> {
    let present: Vec<bool> = store
        .run(|connection| {
            SECTIONS
                .iter()
                .map(|(_, _, evidence)| store::has_data(connection, *evidence))
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
                portos_words::IDENTITY,
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

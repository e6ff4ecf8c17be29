//! The brain scope: the records of the brain inbox (`brain_captures`).

use portos_server::mcp::Profile;

use super::item::{Entry, Snapshot, hashed_ref};
use super::redact::redact;
use super::store;
use crate::store::{Store, StoreError};

/// The one record type this server keeps.
const RECORD_TYPE: &str = "inbox";

/// The newest records first; one more than the cap is read so the scope
/// knows whether it was truncated.
pub async fn snapshot(store: &Store, profile: Profile) -> Result<Snapshot, StoreError> {
    let limit = super::MAX_SOURCE_ITEMS + 1;
    let rows = store
        .run(move |connection| store::newest_captures(connection, limit))
        .await?;
    let entries = rows
        .iter()
        .map(|(id, text)| {
            let (title, summary) = match profile {
                Profile::Summary => (redact(text), redact(text)),
                Profile::Metadata => (
                    format!("{RECORD_TYPE} record"),
                    format!("Read-only {RECORD_TYPE} record metadata."),
                ),
            };
            Entry::new(
                portos_words::BRAIN,
                &hashed_ref(&format!("brain:{RECORD_TYPE}:"), id),
                RECORD_TYPE,
                &title,
                &summary,
                Some(&format!("/brain/{RECORD_TYPE}")),
                &[text.as_str(), RECORD_TYPE],
            )
        })
        .collect();
    Ok(Snapshot::capped(entries, false))
}

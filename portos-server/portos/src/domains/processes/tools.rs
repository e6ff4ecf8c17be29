//! `system.processes.status` (docs/reference.md#semantic-adapters row 12): this
//! machine's processes, or the configured watch list (see `model` for what each
//! field means here).

use portos_core::{AdapterError, Shared, portos_tool};

use super::model::{ProcessWatch, ProcessesStatus};
use super::ops;

/// Report which processes (or watched services) are running and which are not.
#[portos_tool(
    name = "system.processes.status",
    aliases = ["pm2_status", "system_processes_status"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "system",
)]
pub async fn status(watch: Shared<ProcessWatch>) -> Result<ProcessesStatus, AdapterError> {
    ops::status(&watch).await.map_err(AdapterError::new)
}

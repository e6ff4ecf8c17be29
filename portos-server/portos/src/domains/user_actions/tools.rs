//! `user-actions.query` (docs/reference.md#user-actions): what the user, the
//! mind, schedules and the system changed, read from the ledger.

use crate::ledger::ActionPage;
use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::clock::UserClock;
use portos_server::store::Store;

use super::model::{QueryArgs, filter_of};
use super::ops;

/// List the user's recent actions in PortOS (captures, settings and task
/// changes…), newest first.
#[portos_tool(
    name = "user-actions.query",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn query(
    args: QueryArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<ActionPage, AdapterError> {
    let filter = filter_of(&args, &clock).map_err(AdapterError::new)?;
    Ok(ops::query(&store, &clock, filter).await?)
}

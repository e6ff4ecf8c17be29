//! Reading the user-actions ledger (kept by the runtime) with a checked
//! filter, for `user-actions.query` and `GET /api/user-actions`.

use crate::ledger::{self, ActionFilter, ActionPage};
use portos_server::clock::UserClock;
use portos_server::store::{Store, StoreError};

/// The actions `filter` selects, newest first, times in the user's zone.
pub async fn query(
    store: &Store,
    clock: &UserClock,
    filter: ActionFilter,
) -> Result<ActionPage, StoreError> {
    let zone = clock.zone().clone();
    store
        .run(move |connection| ledger::query(connection, &filter, &zone))
        .await
}

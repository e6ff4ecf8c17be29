//! `time.now` (docs/reference.md#semantic-adapters row 17): the current time in
//! the user's zone.

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::clock::UserClock;

use super::model::{TimeNow, describe};

/// Tell the current date and time in the user's time zone.
#[portos_tool(
    name = "time.now",
    aliases = ["time_now"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn now(clock: Shared<UserClock>) -> Result<TimeNow, AdapterError> {
    Ok(describe(&clock.now(), clock.zone_name()))
}

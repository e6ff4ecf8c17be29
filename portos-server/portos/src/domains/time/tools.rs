//! `time.now` (docs/reference.md#semantic-adapters row 17): the current time in
//! the user's zone.

use portos_core::{AdapterError, ToolContext, portos_tool};
use portos_server::clock::UserClock;

use super::model::{TimeNow, describe};

/// Tell the current date and time in the user's time zone.
#[portos_tool(
    name = "time.now",
    aliases = ["time_now"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    state = [UserClock],
)]
pub async fn now(ctx: &ToolContext) -> Result<TimeNow, AdapterError> {
    let clock = ctx.state::<UserClock>()?;
    Ok(describe(&clock.now(), clock.zone_name()))
}

//! `time.now` (BEHAVIOUR §3 row 17): the current time in the user's zone.

use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::clock::UserClock;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeNow {
    pub ok: bool,
    /// RFC 3339 with the user's offset.
    pub iso: String,
    /// IANA zone name.
    pub timezone: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    pub day_of_week: String,
    /// 12-hour clock, e.g. `4:05 PM`.
    pub time: String,
    pub summary: String,
}

/// Tell the current date and time in the user's time zone.
#[portos_tool(
    name = "time.now",
    aliases = ["time_now"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn now(ctx: &ToolContext) -> Result<TimeNow, AdapterError> {
    let clock = ctx.state::<UserClock>()?;
    let now = clock.now();
    let time = now.strftime("%-I:%M %p").to_string();
    let day_of_week = now.strftime("%A").to_string();
    let summary = format!(
        "It is {time} on {day_of_week}, {} ({}).",
        now.strftime("%B %-d, %Y"),
        clock.zone_name()
    );
    Ok(TimeNow {
        ok: true,
        iso: now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        timezone: clock.zone_name().to_owned(),
        date: now.strftime("%Y-%m-%d").to_string(),
        day_of_week,
        time,
        summary,
    })
}

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
    Ok(describe(&clock.now(), clock.zone_name()))
}

/// The result for the instant `now` in the zone named `zone_name`.
fn describe(now: &jiff::ZonedDateTime, zone_name: &str) -> TimeNow {
    // Written field by field: this tool is the one a voice assistant calls
    // most, and a format string is parsed again on every strftime call.
    let (year, month, day) = (now.year(), now.month(), now.day());
    let (hour, minute, second) = (now.hour(), now.minute(), now.second());
    let day_of_week = WEEKDAYS[usize::try_from(now.weekday().to_monday_zero_offset()).unwrap_or(0)];
    let month_name = MONTHS[usize::try_from(month - 1).unwrap_or(0)];
    let hour12 = match hour % 12 {
        0 => 12,
        h => h,
    };
    let meridiem = if hour < 12 { "AM" } else { "PM" };
    let time = format!("{hour12}:{minute:02} {meridiem}");
    let offset = now.offset().seconds();
    let sign = if offset < 0 { '-' } else { '+' };
    let (offset_hours, offset_minutes) = (offset.abs() / 3600, offset.abs() % 3600 / 60);
    let date = format!("{year:04}-{month:02}-{day:02}");
    TimeNow {
        ok: true,
        iso: format!(
            "{date}T{hour:02}:{minute:02}:{second:02}{sign}{offset_hours:02}:{offset_minutes:02}"
        ),
        summary: format!(
            "It is {time} on {day_of_week}, {month_name} {day}, {year} ({zone_name})."
        ),
        timezone: zone_name.to_owned(),
        date,
        day_of_week: day_of_week.to_owned(),
        time,
    }
}

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

#[cfg(test)]
mod tests {
    use jiff::tz::TimeZone;

    use super::describe;

    /// The hand-written formatting says what strftime says, at every hour of
    /// two days (midnight and noon included) in zones with odd offsets.
    #[test]
    fn matches_strftime() {
        let start: jiff::Timestamp = "2026-02-28T00:17:05Z".parse().expect("instant");
        for zone in [
            "UTC",
            "Asia/Kolkata",
            "America/St_Johns",
            "Pacific/Kiritimati",
        ] {
            let tz = TimeZone::get(zone).expect("zone");
            for hour in 0..48 {
                let at = start
                    .checked_add(jiff::SignedDuration::from_hours(hour))
                    .expect("in range")
                    .to_zoned_datetime(tz.clone());
                let got = describe(&at, zone);
                assert_eq!(got.iso, at.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string());
                assert_eq!(got.date, at.strftime("%Y-%m-%d").to_string());
                assert_eq!(got.day_of_week, at.strftime("%A").to_string());
                assert_eq!(got.time, at.strftime("%-I:%M %p").to_string());
                assert_eq!(
                    got.summary,
                    format!(
                        "It is {} on {}, {} ({zone}).",
                        at.strftime("%-I:%M %p"),
                        at.strftime("%A"),
                        at.strftime("%B %-d, %Y")
                    )
                );
            }
        }
    }
}

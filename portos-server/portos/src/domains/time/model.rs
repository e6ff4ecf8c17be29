//! The current time as `time.now` says it: ISO with the user's offset, the
//! date, the weekday, a 12-hour clock and a sentence.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
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

/// The result for the instant `now` in the zone named `zone_name`.
pub fn describe(now: &jiff::ZonedDateTime, zone_name: &str) -> TimeNow {
    // Assembled by hand: this is the tool a voice assistant calls most, and
    // both strftime and `format!` padding cost several times more (callgrind).
    let (year, month, day) = (now.year(), now.month(), now.day());
    let (hour, minute, second) = (now.hour(), now.minute(), now.second());
    let day_of_week = WEEKDAYS[usize::try_from(now.weekday().to_monday_zero_offset()).unwrap_or(0)];
    let month_name = MONTHS[usize::try_from(month - 1).unwrap_or(0)];

    let mut date = String::with_capacity(10);
    push_number(&mut date, i32::from(year), 4);
    date.push('-');
    push_number(&mut date, i32::from(month), 2);
    date.push('-');
    push_number(&mut date, i32::from(day), 2);

    let mut iso = String::with_capacity(25);
    iso.push_str(&date);
    for (separator, value) in [('T', hour), (':', minute), (':', second)] {
        iso.push(separator);
        push_number(&mut iso, i32::from(value), 2);
    }
    let offset = now.offset().seconds();
    iso.push(if offset < 0 { '-' } else { '+' });
    push_number(&mut iso, offset.abs() / 3600, 2);
    iso.push(':');
    push_number(&mut iso, offset.abs() % 3600 / 60, 2);

    let mut time = String::with_capacity(8);
    push_number(
        &mut time,
        match hour % 12 {
            0 => 12,
            h => i32::from(h),
        },
        1,
    );
    time.push(':');
    push_number(&mut time, i32::from(minute), 2);
    time.push_str(if hour < 12 { " AM" } else { " PM" });

    let mut summary = String::with_capacity(64 + zone_name.len());
    for part in ["It is ", &time, " on ", day_of_week, ", ", month_name, " "] {
        summary.push_str(part);
    }
    push_number(&mut summary, i32::from(day), 1);
    summary.push_str(", ");
    push_number(&mut summary, i32::from(year), 4);
    for part in [" (", zone_name, ")."] {
        summary.push_str(part);
    }

    TimeNow {
        ok: true,
        iso,
        timezone: zone_name.to_owned(),
        date,
        day_of_week: day_of_week.to_owned(),
        time,
        summary,
    }
}

/// Appends a non-negative `value` with at least `width` digits, zero-padded.
fn push_number(out: &mut String, value: i32, width: usize) {
    let mut digits = [0_u8; 10];
    let mut rest = value.unsigned_abs();
    let mut len = 0;
    while rest > 0 || len < width {
        // `rest % 10` is a single digit, so the cast cannot truncate.
        digits[len] = b'0' + (rest % 10) as u8;
        rest /= 10;
        len += 1;
    }
    out.extend(digits[..len].iter().rev().map(|&digit| char::from(digit)));
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

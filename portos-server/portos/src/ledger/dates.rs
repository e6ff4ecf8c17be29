//! The `from`/`to` bounds of a ledger query. Accepted, in this order:
//! an RFC 3339 timestamp with an offset (`2026-03-01T09:30:00Z`,
//! `2026-03-01T09:30:00+01:00`); a local date and time without an offset
//! (`2026-03-01T09:30`, `2026-03-01 09:30:00`), read in the user's zone; a
//! date `YYYY-MM-DD`, the whole day in the user's zone (`from` = its first
//! instant, `to` = its last).

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// Which end of the range a bound is; a bare date covers its whole day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateBound {
    From,
    To,
}

/// The bound as Unix milliseconds (both ends inclusive), or `None` when the
/// text is not a date or timestamp this server reads.
pub fn parse_bound(text: &str, zone: &TimeZone, bound: DateBound) -> Option<i64> {
    let text = text.trim();
    if let Ok(instant) = text.parse::<Timestamp>() {
        return Some(instant.as_millisecond());
    }
    // A bare date is exactly `YYYY-MM-DD`; anything longer is a date-time.
    if text.len() == 10
        && let Ok(date) = text.parse::<Date>()
    {
        let start = date.to_zoned_datetime(zone.clone()).ok()?;
        return match bound {
            DateBound::From => Some(start.timestamp().as_millisecond()),
            DateBound::To => {
                let next = start.tomorrow().ok()?;
                Some(next.timestamp().as_millisecond() - 1)
            }
        };
    }
    let local = text.parse::<DateTime>().ok()?;
    Some(
        local
            .to_zoned_datetime(zone.clone())
            .ok()?
            .timestamp()
            .as_millisecond(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> i64 {
        text.parse::<Timestamp>().expect("instant").as_millisecond()
    }

    #[test]
    fn reads_timestamps_local_times_and_whole_days() {
        let paris = TimeZone::get("Europe/Paris").expect("zone");
        assert_eq!(
            parse_bound("2026-03-01T09:30:00Z", &paris, DateBound::From),
            Some(ms("2026-03-01T09:30:00Z"))
        );
        assert_eq!(
            parse_bound(" 2026-03-01T09:30 ", &paris, DateBound::To),
            Some(ms("2026-03-01T08:30:00Z"))
        );
        assert_eq!(
            parse_bound("2026-03-01", &paris, DateBound::From),
            Some(ms("2026-02-28T23:00:00Z"))
        );
        assert_eq!(
            parse_bound("2026-03-01", &paris, DateBound::To),
            Some(ms("2026-03-01T23:00:00Z") - 1)
        );
    }

    #[test]
    fn refuses_what_is_not_a_date() {
        for text in [
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "",
            "1700000000",
            "03/01/2026",
        ] {
            assert_eq!(
                parse_bound(text, &TimeZone::UTC, DateBound::From),
                None,
                "{text}"
            );
        }
    }
}

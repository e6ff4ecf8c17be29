//! Dates as the user says them: `YYYY-MM-DD`, in the user's own time zone
//! (the server's clock never decides which day it is for the user).

use jiff::civil::Date;

use crate::clock::UserClock;

/// Today in the user's time zone.
pub fn today(clock: &UserClock) -> Date {
    clock.now().date()
}

/// The calendar date `raw` names, or the user's today when it is absent or
/// blank (a voice model often sends `""` for an optional field). Anything
/// but a real `YYYY-MM-DD` date is refused with a message saying so.
pub fn date_or_today(clock: &UserClock, raw: Option<&str>) -> Result<Date, String> {
    match raw.map(str::trim).filter(|raw| !raw.is_empty()) {
        None => Ok(today(clock)),
        Some(raw) => parse_date(raw),
    }
}

/// A strict `YYYY-MM-DD` calendar date (jiff alone would also take a full
/// timestamp and drop its time).
pub fn parse_date(raw: &str) -> Result<Date, String> {
    let bytes = raw.as_bytes();
    let shaped = bytes.len() == 10
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            4 | 7 => *byte == b'-',
            _ => byte.is_ascii_digit(),
        });
    let parsed = if shaped {
        raw.parse::<Date>().ok()
    } else {
        None
    };
    parsed.ok_or_else(|| {
        format!("date \"{raw}\" is not a calendar date: write it as YYYY-MM-DD, e.g. 2026-03-14")
    })
}

#[cfg(test)]
mod tests {
    use super::parse_date;

    #[test]
    fn only_real_dates_in_the_short_form_parse() {
        assert_eq!(
            parse_date("2024-02-29").map(|d| d.to_string()),
            Ok("2024-02-29".to_owned())
        );
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01T10:00:00",
            "tomorrow",
            "2024-1-1",
        ] {
            let error = parse_date(bad).expect_err(bad);
            assert!(error.contains("YYYY-MM-DD"), "{error}");
        }
    }
}

//! The RRULE subset this server expands (RFC 5545 §3.3.10): FREQ
//! DAILY/WEEKLY/MONTHLY/YEARLY with INTERVAL, COUNT, UNTIL, and BYDAY (plain
//! weekdays) for WEEKLY. Other parts are refused, so an event is never shown
//! on days its calendar did not mean. Expansion runs on civil (wall-clock)
//! times: a weekly 9:00 meeting stays at 9:00 across a DST change.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Weekday};

/// Iterations after which an expansion stops (a daily rule over 100+ years).
const MAX_STEPS: usize = 50_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frequency {
    Daily,
    Weekly,
    Monthly,
    Yearly,
}

/// The last allowed start, in the form the rule gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    Date(Date),
    Civil(DateTime),
    Instant(Timestamp),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub frequency: Frequency,
    pub interval: i64,
    pub count: Option<u32>,
    pub until: Option<Until>,
    /// Weekdays of a WEEKLY rule, Monday first; empty: DTSTART's weekday.
    pub by_day: Vec<Weekday>,
}

impl Rule {
    /// Parses an RRULE value (`FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10`).
    pub fn parse(text: &str) -> Result<Rule, String> {
        let mut frequency = None;
        let mut interval = 1;
        let mut count = None;
        let mut until = None;
        let mut by_day = Vec::new();
        for part in text.trim().split(';').filter(|part| !part.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("RRULE part `{part}` has no value"))?;
            match key.trim().to_ascii_uppercase().as_str() {
                "FREQ" => {
                    frequency = Some(match value.trim().to_ascii_uppercase().as_str() {
                        "DAILY" => Frequency::Daily,
                        "WEEKLY" => Frequency::Weekly,
                        "MONTHLY" => Frequency::Monthly,
                        "YEARLY" => Frequency::Yearly,
                        other => return Err(format!("RRULE FREQ={other} is not supported")),
                    });
                }
                "INTERVAL" => {
                    interval = value
                        .trim()
                        .parse::<i64>()
                        .ok()
                        .filter(|n| (1..=10_000).contains(n))
                        .ok_or_else(|| {
                            format!("RRULE INTERVAL `{value}` is not a positive number")
                        })?;
                }
                "COUNT" => {
                    count = Some(
                        value
                            .trim()
                            .parse::<u32>()
                            .map_err(|_| format!("RRULE COUNT `{value}` is not a number"))?,
                    );
                }
                "UNTIL" => until = Some(parse_until(value.trim())?),
                "BYDAY" => {
                    for day in value.split(',') {
                        by_day.push(parse_weekday(day.trim())?);
                    }
                }
                // The week start only matters with BYDAY and an interval
                // above one; Monday (the default) is what we compute with.
                "WKST" if value.trim().eq_ignore_ascii_case("MO") => {}
                other => return Err(format!("RRULE part {other} is not supported")),
            }
        }
        let frequency = frequency.ok_or("RRULE has no FREQ")?;
        if !by_day.is_empty() && frequency != Frequency::Weekly {
            return Err("RRULE BYDAY is supported with FREQ=WEEKLY only".into());
        }
        by_day.sort_by_key(|day| day.to_monday_zero_offset());
        by_day.dedup();
        Ok(Rule {
            frequency,
            interval,
            count,
            until,
            by_day,
        })
    }

    /// The starts of the series from `first` (DTSTART, always the first
    /// occurrence) whose instant is before `stop`, keeping those at or after
    /// `keep_from`. `instant` places a civil start on the time line.
    pub fn expand(
        &self,
        first: DateTime,
        instant: impl Fn(DateTime) -> Option<Timestamp>,
        keep_from: Timestamp,
        stop: Timestamp,
    ) -> Vec<DateTime> {
        let mut kept = Vec::new();
        let mut produced: u32 = 0;
        let mut step: i64 = 0;
        // Step 0: DTSTART, then the rest of its week for a weekly BYDAY rule.
        let mut candidates = vec![first];
        candidates.extend(self.first_week_rest(first));
        for _ in 0..MAX_STEPS {
            for candidate in candidates.drain(..) {
                if step > 0 && candidate <= first {
                    continue;
                }
                let Some(at) = instant(candidate) else {
                    continue;
                };
                if self.past_until(candidate, at) || at >= stop {
                    return kept;
                }
                if self.count.is_some_and(|count| produced >= count) {
                    return kept;
                }
                produced += 1;
                if at >= keep_from {
                    kept.push(candidate);
                }
            }
            step += 1;
            candidates = self.period(first, step);
        }
        kept
    }

    fn past_until(&self, candidate: DateTime, at: Timestamp) -> bool {
        match self.until {
            None => false,
            Some(Until::Date(date)) => candidate.date() > date,
            Some(Until::Civil(civil)) => candidate > civil,
            Some(Until::Instant(until)) => at > until,
        }
    }

    /// The candidate starts of the `step`-th period after the first, in order.
    fn period(&self, first: DateTime, step: i64) -> Vec<DateTime> {
        let n = step * self.interval;
        let time = first.time();
        match self.frequency {
            Frequency::Daily => add_days(first.date(), n)
                .map(|d| d.to_datetime(time))
                .into_iter()
                .collect(),
            Frequency::Weekly if self.by_day.is_empty() => add_days(first.date(), n * 7)
                .map(|d| d.to_datetime(time))
                .into_iter()
                .collect(),
            Frequency::Weekly => {
                let offset = i64::from(first.date().weekday().to_monday_zero_offset());
                // The candidates of step 0 are the rest of DTSTART's week.
                let monday = add_days(first.date(), n * 7 - offset);
                self.by_day
                    .iter()
                    .filter_map(|day| add_days(monday?, i64::from(day.to_monday_zero_offset())))
                    .map(|d| d.to_datetime(time))
                    .collect()
            }
            Frequency::Monthly => month_day(first.date(), n)
                .map(|d| d.to_datetime(time))
                .into_iter()
                .collect(),
            Frequency::Yearly => month_day(first.date(), n * 12)
                .map(|d| d.to_datetime(time))
                .into_iter()
                .collect(),
        }
    }
}

impl Rule {
    /// The BYDAY days after DTSTART in DTSTART's own week.
    fn first_week_rest(&self, first: DateTime) -> Vec<DateTime> {
        if self.frequency == Frequency::Weekly && !self.by_day.is_empty() {
            self.period(first, 0)
                .into_iter()
                .filter(|candidate| *candidate > first)
                .collect()
        } else {
            Vec::new()
        }
    }
}

fn add_days(date: Date, days: i64) -> Option<Date> {
    date.checked_add(jiff::Span::new().try_days(days).ok()?)
        .ok()
}

/// The same day of the month `months` later; `None` when that month has no
/// such day (RFC 5545: such occurrences are skipped, not moved).
fn month_day(date: Date, months: i64) -> Option<Date> {
    let index = i64::from(date.year()) * 12 + i64::from(date.month() - 1) + months;
    let year = i16::try_from(index.div_euclid(12)).ok()?;
    let month = i8::try_from(index.rem_euclid(12) + 1).ok()?;
    Date::new(year, month, date.day()).ok()
}

fn parse_weekday(text: &str) -> Result<Weekday, String> {
    Ok(match text.to_ascii_uppercase().as_str() {
        "MO" => Weekday::Monday,
        "TU" => Weekday::Tuesday,
        "WE" => Weekday::Wednesday,
        "TH" => Weekday::Thursday,
        "FR" => Weekday::Friday,
        "SA" => Weekday::Saturday,
        "SU" => Weekday::Sunday,
        other => {
            return Err(format!(
                "RRULE BYDAY value `{other}` is not supported (plain weekdays only)"
            ));
        }
    })
}

/// `20261231`, `20261231T235959` (floating) or `20261231T235959Z`.
fn parse_until(text: &str) -> Result<Until, String> {
    let bad = || format!("RRULE UNTIL `{text}` is not a date or date-time");
    if let Some(utc) = text.strip_suffix('Z').or_else(|| text.strip_suffix('z')) {
        let civil = parse_basic_datetime(utc).ok_or_else(bad)?;
        let at = civil
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .map_err(|_| bad())?;
        return Ok(Until::Instant(at.timestamp()));
    }
    if text.len() == 8 {
        return parse_basic_date(text).map(Until::Date).ok_or_else(bad);
    }
    parse_basic_datetime(text).map(Until::Civil).ok_or_else(bad)
}

/// iCalendar's basic date form, `YYYYMMDD`.
pub fn parse_basic_date(text: &str) -> Option<Date> {
    if text.len() != 8 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Date::new(
        text[..4].parse().ok()?,
        text[4..6].parse().ok()?,
        text[6..].parse().ok()?,
    )
    .ok()
}

/// iCalendar's basic date-time form, `YYYYMMDDTHHMMSS`.
pub fn parse_basic_datetime(text: &str) -> Option<DateTime> {
    let (date, time) = text.split_once(['T', 't'])?;
    let date = parse_basic_date(date)?;
    if time.len() != 6 || !time.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let time = jiff::civil::Time::new(
        time[..2].parse().ok()?,
        time[2..4].parse().ok()?,
        time[4..].parse().ok()?,
        0,
    )
    .ok()?;
    Some(date.to_datetime(time))
}

#[cfg(test)]
mod tests {
    use jiff::civil::{DateTime, date};
    use jiff::tz::TimeZone;

    use super::Rule;

    fn utc(civil: DateTime) -> Option<jiff::Timestamp> {
        civil
            .to_zoned_datetime(TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp())
    }

    fn all(rule: &str, first: DateTime) -> Vec<String> {
        let rule = Rule::parse(rule).expect("rule");
        let far = "2100-01-01T00:00:00Z".parse().expect("instant");
        let early = "1900-01-01T00:00:00Z".parse().expect("instant");
        let starts = rule.expand(first, utc, early, far);
        starts.iter().map(|s| s.date().to_string()).collect()
    }

    #[test]
    fn daily_weekly_monthly_yearly() {
        let first = date(2026, 1, 31).at(9, 0, 0, 0);
        assert_eq!(
            all("FREQ=DAILY;INTERVAL=2;COUNT=3", first),
            ["2026-01-31", "2026-02-02", "2026-02-04"]
        );
        assert_eq!(
            all("FREQ=WEEKLY;UNTIL=20260214", first),
            ["2026-01-31", "2026-02-07", "2026-02-14"]
        );
        // Months without a 31st are skipped.
        assert_eq!(
            all("FREQ=MONTHLY;COUNT=3", first),
            ["2026-01-31", "2026-03-31", "2026-05-31"]
        );
        assert_eq!(
            all("FREQ=YEARLY;COUNT=2", date(2028, 2, 29).at(9, 0, 0, 0)),
            ["2028-02-29", "2032-02-29"]
        );
    }

    #[test]
    fn weekly_by_day() {
        // 2026-12-01 is a Tuesday.
        let first = date(2026, 12, 1).at(18, 0, 0, 0);
        assert_eq!(
            all("FREQ=WEEKLY;BYDAY=TU,TH;COUNT=5", first),
            [
                "2026-12-01",
                "2026-12-03",
                "2026-12-08",
                "2026-12-10",
                "2026-12-15"
            ]
        );
        assert_eq!(
            all(
                "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;UNTIL=20261222T000000Z",
                first
            ),
            ["2026-12-01", "2026-12-04", "2026-12-14", "2026-12-18"]
        );
    }

    #[test]
    fn refuses_what_it_does_not_expand() {
        assert!(Rule::parse("FREQ=HOURLY").is_err());
        assert!(Rule::parse("FREQ=MONTHLY;BYDAY=1MO").is_err());
        assert!(Rule::parse("FREQ=WEEKLY;BYDAY=1MO").is_err());
        assert!(Rule::parse("FREQ=DAILY;BYSETPOS=1").is_err());
        assert!(Rule::parse("INTERVAL=2").is_err());
        assert!(Rule::parse("FREQ=DAILY;INTERVAL=0").is_err());
    }
}

//! iCalendar (`.ics`) documents into events, with the `icalendar` parser.
//! Timed starts keep their TZID; all-day events are dates; RRULEs are kept
//! when this server can expand them (see `recurrence`), and said otherwise.

use chrono::{Datelike, Timelike};
use icalendar::{CalendarComponent, CalendarDateTime, Component, DatePerhapsTime, EventLike};
use jiff::civil::{Date, DateTime};

use super::recurrence::{Rule, parse_basic_date, parse_basic_datetime};
use super::{EventTime, NewEvent};

/// A parsed calendar: its events, and what could not be read as written.
#[derive(Debug, Default)]
pub struct ParsedCalendar {
    pub name: Option<String>,
    pub events: Vec<NewEvent>,
    pub warnings: Vec<String>,
}

pub fn parse(text: &str) -> Result<ParsedCalendar, String> {
    if !text
        .trim_start()
        .to_ascii_uppercase()
        .starts_with("BEGIN:VCALENDAR")
    {
        return Err("not an iCalendar document (it must start with BEGIN:VCALENDAR)".into());
    }
    let calendar: icalendar::Calendar = text
        .parse()
        .map_err(|error: String| format!("not a valid iCalendar document: {}", error.trim()))?;
    let mut parsed = ParsedCalendar {
        name: calendar.get_name().map(str::to_owned),
        ..ParsedCalendar::default()
    };
    for component in &calendar.components {
        let CalendarComponent::Event(event) = component else {
            continue;
        };
        let title = event
            .get_summary()
            .map(str::trim)
            .filter(|summary| !summary.is_empty())
            .unwrap_or("(untitled)")
            .to_owned();
        if event
            .property_value("STATUS")
            .is_some_and(|status| status.eq_ignore_ascii_case("CANCELLED"))
        {
            continue;
        }
        if event.property_value("RECURRENCE-ID").is_some() {
            // A changed instance of a series: the series itself is shown.
            parsed.warnings.push(format!(
                "\"{title}\": a changed instance of a repeating event is not applied"
            ));
            continue;
        }
        let Some(start) = event.get_start() else {
            parsed
                .warnings
                .push(format!("\"{title}\" has no start and is skipped"));
            continue;
        };
        let start = event_time(&start, &title, &mut parsed.warnings);
        let end = event
            .get_end()
            .map(|end| event_time(&end, &title, &mut parsed.warnings))
            .filter(|end| end.is_after(&start));
        let rrule = match event.property_value("RRULE") {
            None => None,
            Some(rule) => match Rule::parse(rule) {
                Ok(_) => Some(rule.trim().to_owned()),
                Err(reason) => {
                    parsed.warnings.push(format!(
                        "\"{title}\": {reason}; only its first date is shown"
                    ));
                    None
                }
            },
        };
        let excluded = match rrule {
            Some(_) => excluded_starts(event, &start),
            None => Vec::new(),
        };
        parsed.events.push(NewEvent {
            uid: event.get_uid().map(str::to_owned),
            title,
            location: event
                .get_location()
                .map(str::trim)
                .filter(|location| !location.is_empty())
                .map(str::to_owned),
            start,
            end,
            rrule,
            excluded,
        });
    }
    Ok(parsed)
}

/// The EXDATE values of a series, as wall-clock starts in the zone of its
/// DTSTART (so they compare with the expanded starts). A value in another
/// zone or in UTC is moved to that zone first.
fn excluded_starts(event: &icalendar::Event, start: &EventTime) -> Vec<DateTime> {
    let start_zone = match start {
        EventTime::Timed {
            zone: Some(name), ..
        } => jiff::tz::TimeZone::get(name).ok(),
        _ => None,
    };
    let Some(properties) = event.multi_properties().get("EXDATE") else {
        return Vec::new();
    };
    let mut excluded = Vec::new();
    for property in properties {
        let value_zone = property
            .params()
            .get("TZID")
            .and_then(|tzid| resolve_zone(tzid.value()))
            .and_then(|name| jiff::tz::TimeZone::get(&name).ok());
        for value in property.value().split(',').map(str::trim) {
            let civil = if let Some(date) = parse_basic_date(value) {
                Some(date.to_datetime(jiff::civil::Time::midnight()))
            } else if let Some(utc) = value.strip_suffix('Z') {
                parse_basic_datetime(utc).map(|civil| {
                    in_zone(civil, Some(&jiff::tz::TimeZone::UTC), start_zone.as_ref())
                })
            } else {
                parse_basic_datetime(value)
                    .map(|civil| in_zone(civil, value_zone.as_ref(), start_zone.as_ref()))
            };
            excluded.extend(civil);
        }
    }
    excluded
}

/// `civil` read in `from`, as a wall-clock time in `to` (unchanged when
/// either zone is unknown: both are then the user's).
fn in_zone(
    civil: DateTime,
    from: Option<&jiff::tz::TimeZone>,
    to: Option<&jiff::tz::TimeZone>,
) -> DateTime {
    match (from, to) {
        (Some(from), Some(to)) => civil
            .to_zoned_datetime(from.clone())
            .map(|at| at.with_time_zone(to.clone()).datetime())
            .unwrap_or(civil),
        _ => civil,
    }
}

fn event_time(value: &DatePerhapsTime, title: &str, warnings: &mut Vec<String>) -> EventTime {
    match value {
        DatePerhapsTime::Date(date) => EventTime::AllDay(civil_date(*date)),
        DatePerhapsTime::DateTime(CalendarDateTime::Floating(naive)) => EventTime::Timed {
            civil: civil_datetime(naive),
            zone: None,
        },
        DatePerhapsTime::DateTime(CalendarDateTime::Utc(at)) => EventTime::Timed {
            civil: civil_datetime(&at.naive_utc()),
            zone: Some("UTC".to_owned()),
        },
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { date_time, tzid }) => {
            let zone = resolve_zone(tzid);
            if zone.is_none() {
                warnings.push(format!(
                    "\"{title}\": unknown time zone `{tzid}`, read in your time zone"
                ));
            }
            EventTime::Timed {
                civil: civil_datetime(date_time),
                zone,
            }
        }
    }
}

/// An IANA name jiff knows; calendar programs sometimes prefix it
/// (`/mozilla.org/20070129_1/Europe/Paris`), so the tail is tried too.
fn resolve_zone(tzid: &str) -> Option<String> {
    let tzid = tzid.trim().trim_matches('"');
    if jiff::tz::TimeZone::get(tzid).is_ok() {
        return Some(tzid.to_owned());
    }
    let parts: Vec<&str> = tzid.split('/').filter(|part| !part.is_empty()).collect();
    (1..parts.len()).rev().find_map(|from| {
        let candidate = parts[parts.len() - from..].join("/");
        jiff::tz::TimeZone::get(&candidate).ok().map(|_| candidate)
    })
}

fn civil_date(date: chrono::NaiveDate) -> Date {
    // chrono's ranges fit jiff's for any date a calendar holds; out of range
    // falls back to the epoch day rather than failing the whole calendar.
    Date::new(
        i16::try_from(date.year()).unwrap_or(1970),
        i8::try_from(date.month()).unwrap_or(1),
        i8::try_from(date.day()).unwrap_or(1),
    )
    .unwrap_or(Date::constant(1970, 1, 1))
}

fn civil_datetime(naive: &chrono::NaiveDateTime) -> DateTime {
    let time = jiff::civil::Time::new(
        i8::try_from(naive.hour()).unwrap_or(0),
        i8::try_from(naive.minute()).unwrap_or(0),
        i8::try_from(naive.second().min(59)).unwrap_or(0),
        0,
    )
    .unwrap_or(jiff::civil::Time::midnight());
    civil_date(naive.date()).to_datetime(time)
}

#[cfg(test)]
mod tests {
    use super::{EventTime, parse};

    #[test]
    fn reads_zones_dates_and_rules() {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
            BEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Late call\r\nDTSTART;TZID=Europe/Paris:20261203T233000\r\n\
            DTEND;TZID=Europe/Paris:20261204T000000\r\nLOCATION:Home\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:b\r\nSUMMARY:Holiday\r\nDTSTART;VALUE=DATE:20261225\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:c\r\nSUMMARY:Standup\r\nDTSTART:20261201T090000Z\r\n\
            RRULE:FREQ=WEEKLY;BYDAY=TU,TH\r\nEXDATE;TZID=Europe/Paris:20261203T100000\r\n\
            EXDATE:20261208T090000Z,20261210T090000Z\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:d\r\nSUMMARY:Odd\r\nDTSTART:20261201T090000Z\r\n\
            RRULE:FREQ=MINUTELY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let parsed = parse(text).expect("calendar");
        assert_eq!(parsed.events.len(), 4);
        let late = &parsed.events[0];
        assert_eq!(late.title, "Late call");
        assert_eq!(late.location.as_deref(), Some("Home"));
        assert!(
            matches!(&late.start, EventTime::Timed { civil, zone: Some(zone) }
            if civil.to_string() == "2026-12-03T23:30:00" && zone == "Europe/Paris")
        );
        assert!(
            matches!(parsed.events[1].start, EventTime::AllDay(date) if date.to_string() == "2026-12-25")
        );
        assert!(
            matches!(&parsed.events[2].start, EventTime::Timed { zone: Some(zone), .. } if zone == "UTC")
        );
        assert_eq!(
            parsed.events[2].rrule.as_deref(),
            Some("FREQ=WEEKLY;BYDAY=TU,TH")
        );
        // 10:00 in Paris is 09:00 UTC, the series' zone.
        let excluded: Vec<String> = parsed.events[2]
            .excluded
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            excluded,
            [
                "2026-12-03T09:00:00",
                "2026-12-08T09:00:00",
                "2026-12-10T09:00:00"
            ]
        );
        assert_eq!(parsed.events[3].rrule, None);
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    }

    #[test]
    fn refuses_what_is_not_a_calendar() {
        assert!(parse("<html></html>").is_err());
        assert!(parse("").is_err());
    }
}

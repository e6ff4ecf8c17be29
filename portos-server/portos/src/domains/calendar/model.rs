//! Calendar events and their occurrences: event times, the expansion of an
//! event (repeating or not) into the occurrences overlapping a window, the
//! windows the tools and routes ask for, reading an event the API is given,
//! and how times are shown and spoken. Pure: no SQL, no HTTP.
//!
//! Events keep civil start times with their zone (`None`: the user's zone),
//! so a repeating event keeps its wall-clock time across DST changes.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, ZonedDateTime};
use schemars::JsonSchema;
use serde::Serialize;

use super::recurrence::Rule;

/// How far ahead the calendar looks: `calendar.next`'s horizon and the
/// default span of the event listing.
pub const LOOK_AHEAD_DAYS: i64 = 30;
/// The widest window one listing may ask for.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// An instant as the calendar shows it: RFC 3339 with the offset of the
/// zone it is in (`2026-12-03T09:30:00+01:00`).
pub fn local_rfc3339(at: &ZonedDateTime) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

/// When an event starts or ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventTime {
    /// A whole day (an end date is exclusive, as in iCalendar).
    AllDay(Date),
    /// A wall-clock time in `zone` (IANA name), or the user's zone if `None`.
    Timed {
        civil: DateTime,
        zone: Option<String>,
    },
}

impl EventTime {
    pub fn is_all_day(&self) -> bool {
        matches!(self, EventTime::AllDay(_))
    }

    /// Whether `self` comes strictly after `start` (same kind required).
    pub fn is_after(&self, start: &EventTime) -> bool {
        match (self, start) {
            (EventTime::AllDay(end), EventTime::AllDay(start)) => end > start,
            (EventTime::Timed { .. }, EventTime::Timed { .. }) => {
                let user = TimeZone::UTC;
                match (self.first_instant(&user), start.first_instant(&user)) {
                    (Some(end), Some(start)) => end > start,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// As the calendar shows it: the date of an all-day time, else the
    /// instant in the `user`'s zone (the civil time when it does not exist).
    pub fn shown(&self, user: &TimeZone) -> String {
        match self {
            EventTime::AllDay(date) => date.to_string(),
            EventTime::Timed { civil, .. } => civil
                .to_zoned_datetime(self.zone(user))
                .map(|at| local_rfc3339(&at.with_time_zone(user.clone())))
                .unwrap_or_else(|_| civil.to_string()),
        }
    }

    fn zone(&self, user: &TimeZone) -> TimeZone {
        match self {
            EventTime::Timed {
                zone: Some(name), ..
            } => TimeZone::get(name).unwrap_or_else(|_| user.clone()),
            _ => user.clone(),
        }
    }

    fn civil(&self) -> DateTime {
        match self {
            EventTime::AllDay(date) => date.to_datetime(jiff::civil::Time::midnight()),
            EventTime::Timed { civil, .. } => *civil,
        }
    }

    fn first_instant(&self, user: &TimeZone) -> Option<Timestamp> {
        self.civil()
            .to_zoned_datetime(self.zone(user))
            .ok()
            .map(|z| z.timestamp())
    }
}

/// An event to store (from an ICS document or the API).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub uid: Option<String>,
    pub title: String,
    pub location: Option<String>,
    pub start: EventTime,
    /// Same kind as `start`, after it; `None`: a point in time, or one day.
    pub end: Option<EventTime>,
    /// An RRULE value `recurrence::Rule` accepts.
    pub rrule: Option<String>,
    /// Starts the series skips (EXDATE), as wall-clock times in the start's
    /// zone (midnight for all-day events).
    pub excluded: Vec<DateTime>,
}

/// A calendar source, with how many events it gave.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub id: String,
    pub title: String,
    /// The URL or file path of the ICS document.
    pub source: String,
    pub created_at: String,
    pub refreshed_at: Option<String>,
    pub events: i64,
}

/// One occurrence of an event, in the user's time zone.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    /// The event's id (shared by every occurrence of a repeating event).
    pub event_id: String,
    /// `null` for events added through the API.
    pub source_id: Option<String>,
    pub title: String,
    pub location: Option<String>,
    pub all_day: bool,
    /// `YYYY-MM-DD` for all-day events, else RFC 3339 with the user's offset.
    pub start: String,
    /// Like `start`; an all-day end is the day after the last day.
    pub end: Option<String>,
    pub recurring: bool,
    #[serde(skip)]
    #[schemars(skip)]
    pub starts_at: ZonedDateTime,
}

/// What a refresh stored.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshOutcome {
    pub source: Source,
    /// Events stored (a repeating event counts once).
    pub events: usize,
    /// Parts of the document that could not be used as written.
    pub warnings: Vec<String>,
}

#[derive(Debug)]
pub struct AlreadyAdded(pub Source);

/// An event as the store keeps it.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    pub id: String,
    pub source_id: Option<String>,
    pub title: String,
    pub location: Option<String>,
    pub start: EventTime,
    pub end: Option<EventTime>,
    pub rrule: Option<String>,
    pub excluded: Vec<DateTime>,
}

/// Start order; all-day events first among those starting together, then
/// by title.
pub fn in_start_order(found: &mut [Occurrence]) {
    found.sort_by(|a, b| {
        a.starts_at
            .timestamp()
            .cmp(&b.starts_at.timestamp())
            .then(b.all_day.cmp(&a.all_day))
            .then(a.title.cmp(&b.title))
    });
}

/// Adds `event`'s occurrences overlapping `[from, to)` to `out`, shown in
/// `user`'s zone.
pub fn expand_into(
    event: &StoredEvent,
    user: &TimeZone,
    from: Timestamp,
    to: Timestamp,
    out: &mut Vec<Occurrence>,
) {
    let zone = event.start.zone(user);
    let first = event.start.civil();
    // How long each occurrence lasts: whole days for all-day events (so a
    // day stays a calendar day in any zone), else a fixed duration.
    let (days, duration) = match (&event.start, &event.end) {
        (EventTime::AllDay(start), Some(EventTime::AllDay(end))) => (
            start.until(*end).map_or(1, |span| span.get_days().max(1)),
            SignedDuration::ZERO,
        ),
        (EventTime::AllDay(_), _) => (1, SignedDuration::ZERO),
        (start, Some(end)) => {
            let gap = match (start.first_instant(user), end.first_instant(user)) {
                (Some(start), Some(end)) => end.duration_since(start).max(SignedDuration::ZERO),
                _ => SignedDuration::ZERO,
            };
            (0, gap)
        }
        (_, None) => (0, SignedDuration::ZERO),
    };
    let reach = duration
        .checked_add(SignedDuration::from_hours(24 * (i64::from(days) + 1)))
        .unwrap_or(SignedDuration::MAX);
    let keep_from = from.checked_sub(reach).unwrap_or(Timestamp::MIN);
    let place = |civil: DateTime| {
        civil
            .to_zoned_datetime(zone.clone())
            .ok()
            .map(|z| z.timestamp())
    };
    let rule = event
        .rrule
        .as_deref()
        .and_then(|text| Rule::parse(text).ok());
    let starts = match &rule {
        Some(rule) => rule.expand(first, place, keep_from, to),
        None => vec![first],
    };
    for civil in starts {
        if event.excluded.contains(&civil) {
            continue;
        }
        let Ok(start) = civil.to_zoned_datetime(zone.clone()) else {
            continue;
        };
        let end = if event.start.is_all_day() {
            civil
                .date()
                .checked_add(jiff::Span::new().days(days))
                .ok()
                .and_then(|date| {
                    date.to_datetime(jiff::civil::Time::midnight())
                        .to_zoned_datetime(zone.clone())
                        .ok()
                })
        } else if event.end.is_some() {
            start.checked_add(duration).ok()
        } else {
            None
        };
        let start_at = start.timestamp();
        let end_at = end.as_ref().map_or(start_at, ZonedDateTime::timestamp);
        let overlaps = start_at < to && (end_at > from || start_at >= from);
        if !overlaps {
            continue;
        }
        let show = |at: &ZonedDateTime| {
            if event.start.is_all_day() {
                at.date().to_string()
            } else {
                local_rfc3339(&at.with_time_zone(user.clone()))
            }
        };
        out.push(Occurrence {
            event_id: event.id.clone(),
            source_id: event.source_id.clone(),
            title: event.title.clone(),
            location: event.location.clone(),
            all_day: event.start.is_all_day(),
            start: show(&start),
            end: end.as_ref().map(show),
            recurring: rule.is_some(),
            starts_at: start.with_time_zone(user.clone()),
        });
    }
}

/// A span of time to list occurrences in: `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: Timestamp,
    pub to: Timestamp,
}

/// Why a requested window cannot be listed.
#[derive(Debug)]
pub enum WindowError {
    /// What the caller should fix.
    Invalid(String),
    /// The clock's time could not be worked with (out of range).
    Time(jiff::Error),
}

impl Window {
    /// The user's day that `now` is in.
    pub fn today(now: &ZonedDateTime) -> Result<Window, jiff::Error> {
        let start = now.start_of_day()?;
        let end = start.tomorrow()?.start_of_day()?;
        Ok(Window {
            from: start.timestamp(),
            to: end.timestamp(),
        })
    }

    /// [`LOOK_AHEAD_DAYS`] days from `start` (calendar days in its zone).
    pub fn look_ahead(start: &ZonedDateTime) -> Result<Window, jiff::Error> {
        let end = start.checked_add(jiff::Span::new().days(LOOK_AHEAD_DAYS))?;
        Ok(Window {
            from: start.timestamp(),
            to: end.timestamp(),
        })
    }

    /// The window a listing asks for: each bound a local date (its start) or
    /// an RFC 3339 instant; from the start of today, and for
    /// [`LOOK_AHEAD_DAYS`] days, by default; at most [`MAX_WINDOW_DAYS`].
    pub fn requested(
        from: Option<&str>,
        to: Option<&str>,
        now: &ZonedDateTime,
    ) -> Result<Window, WindowError> {
        let zone = now.time_zone();
        let from = match from {
            Some(text) => window_bound(text, zone, "from").map_err(WindowError::Invalid)?,
            None => now.start_of_day().map_err(WindowError::Time)?.timestamp(),
        };
        let to = match to {
            Some(text) => window_bound(text, zone, "to").map_err(WindowError::Invalid)?,
            None => {
                Window::look_ahead(&from.to_zoned_datetime(zone.clone()))
                    .map_err(WindowError::Time)?
                    .to
            }
        };
        if to <= from {
            return Err(WindowError::Invalid("`to` must be after `from`".into()));
        }
        if to.duration_since(from) > SignedDuration::from_hours(24 * MAX_WINDOW_DAYS) {
            return Err(WindowError::Invalid(format!(
                "the window may span at most {MAX_WINDOW_DAYS} days"
            )));
        }
        Ok(Window { from, to })
    }
}

/// A window bound: a local date (its start) or an RFC 3339 instant.
fn window_bound(text: &str, zone: &TimeZone, name: &str) -> Result<Timestamp, String> {
    let text = text.trim();
    if let Ok(date) = text.parse::<Date>()
        && !text.contains('T')
    {
        return date
            .to_zoned_datetime(zone.clone())
            .map(|at| at.timestamp())
            .map_err(|error| format!("`{name}`: {error}"));
    }
    text.parse::<Timestamp>().map_err(|_| {
        format!(
            "`{name}` must be a date (YYYY-MM-DD) or an RFC 3339 time with an offset, not `{text}`"
        )
    })
}

/// An event given through the API, as its texts.
#[derive(Clone, Debug)]
pub struct EventInput {
    pub title: String,
    pub start: String,
    pub end: Option<String>,
    pub all_day: Option<bool>,
    pub location: Option<String>,
}

impl EventInput {
    /// The event to store, or what to fix. `end` is the last day of an
    /// all-day event (stored exclusive), else a time after `start`.
    pub fn checked(self) -> Result<NewEvent, String> {
        let title = self.title.trim().to_owned();
        if title.is_empty() {
            return Err("`title` must not be empty".into());
        }
        let start = event_time(&self.start, "start")?;
        if let Some(all_day) = self.all_day
            && all_day != start.is_all_day()
        {
            return Err(if all_day {
                "an all-day event's `start` is a date (YYYY-MM-DD)"
            } else {
                "`allDay` is false, so `start` must be a time, not a date"
            }
            .into());
        }
        let end = match self.end {
            None => None,
            Some(text) => {
                let end = match event_time(&text, "end")? {
                    // The API's end date is the last day; stored exclusive.
                    EventTime::AllDay(date) => EventTime::AllDay(
                        date.tomorrow()
                            .map_err(|_| "`end` is out of range".to_owned())?,
                    ),
                    timed => timed,
                };
                if end.is_all_day() != start.is_all_day() {
                    return Err("`end` must have the same form as `start`".into());
                }
                if !end.is_after(&start) {
                    return Err("`end` must be after `start`".into());
                }
                Some(end)
            }
        };
        let location = self
            .location
            .map(|location| location.trim().to_owned())
            .filter(|location| !location.is_empty());
        Ok(NewEvent {
            uid: None,
            title,
            location,
            start,
            end,
            rrule: None,
            excluded: Vec::new(),
        })
    }
}

/// A date (all day), a zoned time (its zone kept), an RFC 3339 instant
/// (kept in UTC) or a local time (the user's zone).
fn event_time(text: &str, name: &str) -> Result<EventTime, String> {
    let text = text.trim();
    if !text.contains('T') && !text.contains('t') {
        if let Ok(date) = text.parse::<Date>() {
            return Ok(EventTime::AllDay(date));
        }
    } else if text.ends_with(']') {
        if let Ok(zoned) = text.parse::<ZonedDateTime>() {
            // A named zone is kept (wall-clock time); a bare offset is an instant.
            return Ok(match zoned.time_zone().iana_name() {
                Some(name) => EventTime::Timed {
                    civil: zoned.datetime(),
                    zone: Some(name.to_owned()),
                },
                None => EventTime::Timed {
                    civil: zoned
                        .timestamp()
                        .to_zoned_datetime(TimeZone::UTC)
                        .datetime(),
                    zone: Some("UTC".to_owned()),
                },
            });
        }
    } else if let Ok(at) = text.parse::<Timestamp>() {
        return Ok(EventTime::Timed {
            civil: at.to_zoned_datetime(TimeZone::UTC).datetime(),
            zone: Some("UTC".to_owned()),
        });
    } else if let Ok(civil) = text.parse::<DateTime>() {
        return Ok(EventTime::Timed { civil, zone: None });
    }
    Err(format!(
        "`{name}` must be a date (YYYY-MM-DD), an RFC 3339 time, a zoned time \
         (2026-12-03T09:00[Europe/Paris]) or a local time (2026-12-03T09:00), not `{text}`"
    ))
}

/// `9:30 AM` in the user's zone, or `All day`.
pub fn spoken_time(occurrence: &Occurrence) -> String {
    if occurrence.all_day {
        "All day".to_owned()
    } else {
        occurrence.starts_at.strftime("%-I:%M %p").to_string()
    }
}

/// `today at 9:30 AM`, `tomorrow (all day)`, `on Friday, December 4 at …`.
pub fn spoken_when(occurrence: &Occurrence, now: &ZonedDateTime) -> String {
    let date = occurrence.starts_at.date();
    let day = if date == now.date() {
        "today".to_owned()
    } else if now.date().tomorrow().is_ok_and(|tomorrow| tomorrow == date) {
        "tomorrow".to_owned()
    } else {
        format!("on {}", occurrence.starts_at.strftime("%A, %B %-d"))
    };
    if occurrence.all_day {
        format!("{day} (all day)")
    } else {
        format!("{day} at {}", spoken_time(occurrence))
    }
}

//! The user's clock: every date an adapter reports is in this time zone.

use jiff::ZonedDateTime;
use jiff::tz::TimeZone;

#[derive(Clone, Debug)]
pub struct UserClock {
    zone: TimeZone,
    name: String,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown time zone `{0}`: use an IANA name such as `Europe/Paris` or `UTC`")]
pub struct UnknownTimeZone(pub String);

impl UserClock {
    /// `name` is an IANA zone; `None` uses the system zone (UTC if unknown).
    pub fn new(name: Option<&str>) -> Result<UserClock, UnknownTimeZone> {
        match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => {
                let zone = TimeZone::get(name).map_err(|_| UnknownTimeZone(name.to_owned()))?;
                Ok(UserClock {
                    zone,
                    name: name.to_owned(),
                })
            }
            None => {
                let zone = TimeZone::try_system().unwrap_or(TimeZone::UTC);
                let name = zone.iana_name().unwrap_or("UTC").to_owned();
                Ok(UserClock { zone, name })
            }
        }
    }

    pub fn zone_name(&self) -> &str {
        &self.name
    }

    pub fn zone(&self) -> &TimeZone {
        &self.zone
    }

    pub fn now(&self) -> ZonedDateTime {
        jiff::Timestamp::now().to_zoned_datetime(self.zone.clone())
    }

    /// The user's local date of an instant, `YYYY-MM-DD`.
    pub fn local_date(&self, at: jiff::Timestamp) -> String {
        at.to_zoned_datetime(self.zone.clone())
            .strftime("%Y-%m-%d")
            .to_string()
    }
}

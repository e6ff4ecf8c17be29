//! The user's location: where `weather.now` looks when the caller names no
//! coordinates, and the rules of a valid one (ranges, a short name).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the weather is for when nothing else is known (the contract's default).
pub const DEFAULT: Location = Location {
    lat: 37.7749,
    lon: -122.4194,
    name: None,
};
pub const DEFAULT_NAME: &str = "San Francisco";
const NAME_MAX_CHARS: usize = 100;

/// A place on Earth, in decimal degrees.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// Latitude, -90 to 90.
    #[schemars(range(min = -90.0, max = 90.0))]
    pub lat: f64,
    /// Longitude, -180 to 180.
    #[schemars(range(min = -180.0, max = 180.0))]
    pub lon: f64,
    /// What to call the place (at most 100 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 100))]
    pub name: Option<String>,
}

impl Location {
    /// The location with its name trimmed (blank = none), or what is wrong
    /// with it in words a user can act on.
    pub fn checked(self) -> Result<Location, String> {
        check_coordinates(self.lat, self.lon)?;
        let name = match self.name.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) if name.chars().count() > NAME_MAX_CHARS => {
                return Err(format!("name must be at most {NAME_MAX_CHARS} characters"));
            }
            Some(name) => Some(name.to_owned()),
        };
        Ok(Location { name, ..self })
    }
}

/// Where the coordinates came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LocationSource {
    /// The call's own `lat` and `lon`.
    Arguments,
    /// The location stored in the settings.
    Settings,
    /// San Francisco, the default when nothing else is known.
    Default,
}

/// Latitude within ±90 and longitude within ±180, or the reason they are not.
pub fn check_coordinates(lat: f64, lon: f64) -> Result<(), String> {
    if !(-90.0..=90.0).contains(&lat) {
        return Err(format!(
            "Latitude {lat} is out of range: it must be between -90 and 90."
        ));
    }
    if !(-180.0..=180.0).contains(&lon) {
        return Err(format!(
            "Longitude {lon} is out of range: it must be between -180 and 180."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_ranges_and_trims_the_name() {
        let ok = Location {
            lat: -90.0,
            lon: 180.0,
            name: Some("  Pole ".to_owned()),
        };
        assert_eq!(ok.checked().map(|l| l.name), Ok(Some("Pole".to_owned())));
        let blank = Location {
            lat: 0.0,
            lon: 0.0,
            name: Some("  ".to_owned()),
        };
        assert_eq!(blank.checked().map(|l| l.name), Ok(None));
        assert!(check_coordinates(90.5, 0.0).is_err_and(|m| m.contains("Latitude")));
        assert!(check_coordinates(0.0, -180.01).is_err_and(|m| m.contains("Longitude")));
    }
}

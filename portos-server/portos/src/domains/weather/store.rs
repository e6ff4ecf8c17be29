//! The user's location in the runtime's settings table (`settings.location`,
//! as JSON); the weather has no table of its own.

use portos_server::settings;
use portos_server::store::StoreError;
use portos_server::store::sql::Connection;

use super::model::Location;

/// The settings key of the stored location.
pub const LOCATION: &str = "location";

/// The stored location; `None` when none is set or the stored value no
/// longer reads as a valid one.
pub fn load_location(connection: &Connection) -> Result<Option<Location>, StoreError> {
    Ok(settings::get_json(connection, LOCATION)?
        .and_then(|value| serde_json::from_value::<Location>(value).ok())
        .and_then(|location| location.checked().ok()))
}

pub fn save_location(connection: &Connection, location: &Location) -> Result<(), StoreError> {
    let value = serde_json::to_value(location)
        .map_err(|error| StoreError::Worker(format!("cannot encode the location: {error}")))?;
    settings::set_json(connection, LOCATION, &value)
}

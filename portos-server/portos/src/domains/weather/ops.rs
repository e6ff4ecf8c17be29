//! The weather's operations: which place a weather call is for, and the
//! location setting (read, and replaced together with its ledger row).

use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use portos_server::store::{Store, StoreError};

use super::model::{self, Location, LocationSource};
use super::store;

/// The place for a weather call with `lat` and `lon`: both given, that
/// point; neither, the stored location or else San Francisco. `Ok(Err(_))`
/// says why one of them alone is not enough.
pub async fn place(
    store: &Store,
    lat: Option<f64>,
    lon: Option<f64>,
) -> Result<Result<(Location, LocationSource), String>, StoreError> {
    Ok(Ok(match (lat, lon) {
        (Some(lat), Some(lon)) => (
            Location {
                lat,
                lon,
                name: None,
            },
            LocationSource::Arguments,
        ),
        (None, None) => match saved_location(store).await? {
            Some(stored) => (stored, LocationSource::Settings),
            None => (
                Location {
                    name: Some(model::DEFAULT_NAME.to_owned()),
                    ..model::DEFAULT
                },
                LocationSource::Default,
            ),
        },
        _ => {
            return Ok(Err(
                "Give both lat and lon, or neither to use the saved location.".to_owned(),
            ));
        }
    }))
}

/// The stored location, if one is set.
pub async fn saved_location(store: &Store) -> Result<Option<Location>, StoreError> {
    store
        .run(|connection| store::load_location(connection))
        .await
}

/// Stores a checked `location`; the setting and its ledger row
/// (`settings.update`, by the user over `route`) commit together.
pub async fn set_location(
    store: &Store,
    location: Location,
    route: Source,
) -> Result<(), StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            store::save_location(&transaction, &location)?;
            ledger::record(&transaction, &location_changed(&location, route))?;
            Ok(transaction.commit()?)
        })
        .await
}

/// The ledger row of a location change (`settings.update`). The coordinates
/// stay out of it: the ledger is readable by agents, a home address is not
/// theirs to learn from it.
fn location_changed(location: &Location, route: Source) -> NewAction {
    let summary = match &location.name {
        Some(name) => format!("Set the location to {name}"),
        None => "Set the location".to_owned(),
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target(store::LOCATION, Some("Location".to_owned()))
        .source(route)
}

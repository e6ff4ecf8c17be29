//! The provider list in the settings table: read it, and replace it with its
//! ledger row in one transaction.

use portos_server::settings;
use portos_server::store::sql::Connection;
use serde_json::json;

use super::model::{Providers, SETTINGS_KEY};
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use crate::store::StoreError;

/// The configured providers (an unreadable value reads as none).
pub fn get(connection: &Connection) -> Result<Providers, StoreError> {
    Ok(Providers::from_stored(
        settings::get_json(connection, SETTINGS_KEY)?.as_ref(),
    ))
}

/// Replaces the list with a checked one and records `settings.update`.
pub fn replace(
    connection: &mut Connection,
    providers: &Providers,
    source: Source,
) -> Result<(), StoreError> {
    // Strings, booleans and enums: encoding cannot fail.
    let value = serde_json::to_value(providers).unwrap_or_default();
    let ids: Vec<&str> = providers
        .providers
        .iter()
        .map(|provider| provider.id.as_str())
        .collect();
    let summary = if ids.is_empty() {
        "Coding providers: none configured".to_owned()
    } else {
        format!("Coding providers: {}", ids.join(", "))
    };
    let transaction = connection.transaction()?;
    settings::set_json(&transaction, SETTINGS_KEY, &value)?;
    ledger::record(
        &transaction,
        &NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
            .target(SETTINGS_KEY, Some("Coding providers".to_owned()))
            .payload(json!({ "providers": ids }))
            .source(source),
    )?;
    transaction.commit()?;
    Ok(())
}

//! `weather.now` (docs/reference.md#semantic-adapters row 20): current weather
//! from Open-Meteo, for the coordinates given, else the stored location, else
//! San Francisco.

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{LocationSource, check_coordinates};
use super::open_meteo::{self, OpenMeteo};
use super::ops;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeatherArgs {
    /// Latitude in decimal degrees (-90 to 90); give both or neither (the stored location).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    /// Longitude in decimal degrees (-180 to 180).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeatherNow {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
    /// Air temperature 2 m above ground, °F.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature_f: Option<f64>,
    /// WMO weather interpretation code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weather_code: Option<i64>,
    /// The weather code in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<LocationSource>,
    pub summary: String,
}

impl WeatherNow {
    fn failed(lat: Option<f64>, lon: Option<f64>, summary: String) -> WeatherNow {
        WeatherNow {
            ok: false,
            lat,
            lon,
            temperature_f: None,
            weather_code: None,
            conditions: None,
            source: None,
            summary,
        }
    }
}

/// Tell the current weather (temperature and conditions) at a place.
#[portos_tool(
    name = "weather.now",
    aliases = ["weather_now"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "weather",
)]
pub async fn now(
    args: WeatherArgs,
    store: Shared<Store>,
    service: Shared<OpenMeteo>,
) -> Result<WeatherNow, AdapterError> {
    let (place, source) = match ops::place(&store, args.lat, args.lon).await? {
        Ok(found) => found,
        Err(reason) => return Ok(WeatherNow::failed(args.lat, args.lon, reason)),
    };
    if let Err(reason) = check_coordinates(place.lat, place.lon) {
        return Ok(WeatherNow::failed(Some(place.lat), Some(place.lon), reason));
    }
    let current = match service.current(place.lat, place.lon).await {
        Ok(current) => current,
        Err(reason) => {
            return Ok(WeatherNow::failed(Some(place.lat), Some(place.lon), reason));
        }
    };
    let conditions = open_meteo::conditions(current.weather_code);
    let place_words = match &place.name {
        Some(name) => format!("In {name}"),
        None => format!("At {:.2}, {:.2}", place.lat, place.lon),
    };
    let summary = format!(
        "{place_words} it's {:.0}°F, {conditions}.",
        current.temperature_f
    );
    Ok(WeatherNow {
        ok: true,
        lat: Some(place.lat),
        lon: Some(place.lon),
        temperature_f: Some(current.temperature_f),
        weather_code: Some(current.weather_code),
        conditions: Some(conditions),
        source: Some(source),
        summary,
    })
}

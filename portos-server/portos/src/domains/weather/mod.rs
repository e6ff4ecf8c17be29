//! The weather: `weather.now` asks Open-Meteo for the current conditions at
//! a place (the call's coordinates, else the user's location, else San
//! Francisco); the location itself is a setting (`/api/settings/location`).

pub mod model;
pub mod open_meteo;
pub mod ops;
mod routes;
pub mod store;
pub mod tools;

pub use open_meteo::OpenMeteo;

//! The PortOS server: the tool contract served over axum, with real adapters
//! on an embedded SQLite store, and a CLI that dumps every catalog.
//!
//! Tools are collected from the link-time list of `portos_core`, so every
//! `#[portos_tool]` in [`adapters`] is served, governed and listed with no
//! other edit.

// Lets `#[portos_route]` name `::portos_server` from inside this crate too.
extern crate self as portos_server;

pub mod adapters;
pub mod api_access;
pub mod app;
pub mod auth;
pub mod calendar;
pub mod cli;
pub mod clock;
pub mod config;
pub mod contract_facts;
pub mod cos;
pub mod creative_catalog;
pub mod events;
pub mod feeds;
pub mod http;
pub mod ledger;
pub mod location;
pub mod mcp;
pub mod open_meteo;
pub mod outbound;
pub mod processes;
pub mod redact;
pub mod serve;
pub mod settings;
pub mod source_fetch;
pub mod store;
pub mod title_match;

pub use app::App;
pub use config::Config;

/// Used by the code `#[portos_route]` generates; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use axum;
}

//! PortOS as a user meets it: the real `portos` binary on an ephemeral
//! loopback port, over HTTP, MCP (HTTP and stdio), Socket.IO and its command
//! line.
//!
//! One test binary for the group: each module was its own binary before,
//! and each linked the whole server.

mod cli_catalog;
mod crash_durability;
mod eidoverse_visit;
mod forge_issues;
mod http_apps;
mod http_auth;
mod http_cos_ledger;
mod http_cos_providers;
mod http_docs;
mod http_documented_rules;
mod http_feeds_calendar;
mod http_health_goals_journal;
mod http_mind;
mod http_mind_recipes;
mod http_mind_self;
mod http_public;
mod http_strict_bodies;
mod http_tools;
mod http_weather_processes_catalog;
mod mcp_http;
mod mcp_listen;
mod mcp_modern;
mod mcp_resources;
mod mcp_sessions;
mod mcp_stdio;
mod mind_turns;
mod mind_turns_memory;
mod mind_turns_recovery;
mod mind_turns_tuning;
mod postgres_cluster;
mod postgres_store;
mod recipe_execution;
mod scripted_model;
pub(crate) mod socket_events;
mod telemetry;

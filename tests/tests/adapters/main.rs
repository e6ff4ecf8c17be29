//! The PortOS tools, in process: each domain's tools on a real SQLite store
//! in a temporary directory, through the registry.
//!
//! One test binary for the group: each module was its own binary before,
//! and each linked the whole server.

mod brain;
mod calendar;
mod catalog;
mod cos;
mod cos_create_task;
mod eidoverse;
mod feeds;
mod goals;
mod health;
mod issues;
mod journal;
mod mind_self;
mod processes;
mod support;
mod time;
mod user_actions;
mod weather;

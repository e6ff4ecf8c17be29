//! PortOS's domains, one folder each: its model and rules, its store (all of
//! its SQL, with its `store_schema!`), its tools and its routes. Adding a
//! domain is adding a folder and its line here.

pub mod agent_context;
pub mod apps;
pub mod brain;
pub mod calendar;
pub mod cos;
pub mod creative_catalog;
pub mod eidoverse;
pub mod feeds;
pub mod forge;
pub mod goals;
pub mod health;
pub mod issues;
pub mod journal;
pub mod mind;
pub mod processes;
pub mod recipes;
pub mod time;
pub mod user_actions;
pub mod weather;

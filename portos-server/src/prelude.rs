//! What an application names, in one import: `use portos_server::prelude::*;`
//!
//! The attributes (`#[portos_tool]`, `#[portos_resource]`,
//! `#[portos_prompt]`, `#[portos_route]`, `#[portos_event]`), the
//! vocabulary's macros, what an adapter takes and returns, what a route
//! handler takes and answers, and what builds and runs a server. Anything
//! rarer is in its module ([`crate::http`], [`crate::store`],
//! [`crate::cli`], `portos_core`).
//!
//! ```
//! use portos_server::prelude::*;
//!
//! portos_core::vocabulary! {
//!     capabilities {
//!         /// See the pantry.
//!         SEE_PANTRY = "seePantry",
//!     }
//!     scopes {
//!         /// A butler agent over MCP.
//!         #[grants]
//!         #[transport(mcp)]
//!         BUTLER = "butler",
//!         /// The household over HTTP.
//!         #[signed_in]
//!         #[transport(http)]
//!         HOUSEHOLD = "household",
//!     }
//! }
//!
//! /// How many jars are on the shelf.
//! #[portos_tool(name = "pantry.count", scopes = ["butler", "household"],
//!     capabilities = ["seePantry"], side_effect = "read")]
//! async fn count() -> Result<u32, AdapterError> {
//!     Ok(12)
//! }
//!
//! /// The jar count, for people.
//! #[portos_route(method = "GET", path = "/api/pantry/count")]
//! async fn count_route() -> Json<u32> {
//!     Json(12)
//! }
//!
//! fn main() {
//!     let builder = ServerBuilder::new("Pantry", "1.0.0", Config::new("pantry"));
//!     let _ = builder;
//! }
//! ```

pub use portos_core::{
    AdapterError, Content, PromptMessage, Shared, ToolContent, ToolContext, link_tools,
    portos_event, portos_prompt, portos_resource, portos_tool, use_vocabulary, vocabulary,
};

pub use crate::cli::{Application, NoFileKeys, NoFlags};
pub use crate::http::{ApiError, Body, Created, Json, NoContent, Query, RouteErrors};
pub use crate::portos_route;
pub use crate::store::{Schema, Store, StoreError};
pub use crate::{Config, ServerBuilder};

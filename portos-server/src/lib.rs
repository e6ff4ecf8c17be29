//! The portos serving runtime: serves whatever `#[portos_tool]`,
//! `#[portos_route]` and `#[portos_event]` items are linked into a binary —
//! the registry endpoints, catalogs with ETags, the document family (route
//! catalog, internal and public OpenAPI, tools.min.json, events, AsyncAPI),
//! Agent Tools MCP over HTTP and stdio, Socket.IO, the password gate and
//! sessions, the API Explorer and the `--dump-*` command line — for any
//! application. It knows nothing of any application's domains: PortOS's own
//! live in the `portos` crate and come in through the same [`ServerBuilder`]
//! a third party uses.
//!
//! A whole server (see docs/build-your-own-server.md):
//!
//! ```no_run
//! use portos_server::cli::Application;
//! use portos_server::{Config, ServerBuilder};
//!
//! struct Hello;
//!
//! impl Application for Hello {
//!     type Flags = portos_server::cli::NoFlags;
//!     type FileKeys = portos_server::cli::NoFileKeys;
//!     const COMMAND: &'static str = "hello";
//!     const ABOUT: &'static str = "Hello: my tools over HTTP and MCP";
//!     const VERSION: &'static str = env!("CARGO_PKG_VERSION");
//!
//!     fn builder(config: Config, _: &Self::Flags, _: Self::FileKeys) -> Result<ServerBuilder, String> {
//!         Ok(ServerBuilder::new("Hello", env!("CARGO_PKG_VERSION"), config))
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     portos_server::cli::main::<Hello>()
//! }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(unreachable_pub)]

// Lets `#[portos_route]` name `::portos_server` from inside this crate too.
extern crate self as portos_server;

mod agent_tools;
mod api_access;
pub mod app;
pub mod auth;
mod builder;
mod cached;
pub mod cli;
pub mod clock;
mod cluster;
mod config;
mod documents;
pub mod events;
mod grants;
pub mod http;
mod jobs;
mod live_catalogs;
mod live_registry;
pub mod mcp;
pub mod mounts;
mod names;
pub mod outbound;
pub mod prelude;
pub mod redact;
mod remote;
mod route_list;
mod serve;
pub mod settings;
mod stdio;
pub mod store;
pub mod telemetry;
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod trace_export;

/// Declares an HTTP operation on an `async fn` axum handler: method, path,
/// schemas and declared errors (from the handler's extractors and return
/// type). The router is mounted from the same link-time list the route
/// inventory and the OpenAPI documents are derived from. See the [`http`]
/// module for the extractors and outputs a handler uses.
pub use portos_macros::portos_route;

/// The axum this runtime serves with, for a handler that needs more of it
/// than [`http`] re-exports (its `Path` extractor, `HeaderMap`), at the
/// runtime's version.
pub use axum;

/// The clap the command line is parsed with. An application's flags
/// derive this version's `clap::Args`: with `use portos_server::clap;`
/// beside `#[derive(clap::Args)]` the derive finds it, and the
/// application's Cargo.toml names no clap of its own.
pub use clap;

pub use api_access::ExposableApi;
pub use app::{App, Identity, Principals, StartError};
pub use builder::ServerBuilder;
pub use config::Config;
pub use grants::LiveGrants;
pub use live_catalogs::LiveCatalogs;
pub use live_registry::LiveRegistry;
pub use mounts::{Mount, Mounts};
pub use names::McpNames;
pub use serve::{serve, serve_on};

/// Used by the code `#[portos_route]` generates; not a public API.
///
/// Versioned like portos-core's: the macros of one release emit only paths
/// under `v1`, so a later layout can live beside it.
#[doc(hidden)]
pub mod __private {
    pub mod v1 {
        pub use axum;

        /// The clap the command line is parsed with. An application's flags
        /// derive this version's `clap::Args`: with `use portos_server::clap;`
        /// beside `#[derive(clap::Args)]` the derive finds it, and the
        /// application's Cargo.toml names no clap of its own.
        pub use clap;
        pub use linkme;

        /// The type every route handler becomes.
        pub use crate::http::MethodRoute;

        /// What `#[portos_route]` and `#[derive(RouteErrors)]` generate against.
        pub mod io {
            pub use axum::response::{IntoResponse, Response};
            pub use portos_core::inventory::RouteIo;

            pub use crate::http::{ApiError, RouteErrors, RouteInput, RouteOutput};

            /// A status the macro checked to be 300–599.
            pub fn status(code: u16) -> axum::http::StatusCode {
                axum::http::StatusCode::from_u16(code)
                    .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR)
            }
        }
    }
}

/// The words of the crate's own tests, declared as an application would.
#[cfg(test)]
#[allow(dead_code, unreachable_pub)]
pub(crate) mod test_words {
    portos_core::vocabulary! {
        capabilities {
            /// Read.
            READ_PORTOS = "readPortos",
            /// Write.
            WRITE_PORTOS = "writePortos",
        }
        scopes {
            /// Agents over MCP.
            #[grants]
            #[transport(mcp)]
            AGENT = "agent",
            /// People over HTTP.
            #[signed_in]
            #[transport(http)]
            UI = "ui",
        }
        context {
            /// Where things are.
            #[default]
            NAVIGATION = "navigation",
            /// Notes.
            BRAIN = "brain",
        }
    }
}

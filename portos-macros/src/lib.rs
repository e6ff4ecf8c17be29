//! Procedural macros for portos.
//!
//! Use them through `portos_core` and `portos_server` (which re-export
//! them; `#[portos_route]` and `RouteErrors` from the runtime they expand
//! to), not directly: the generated code names
//! `::portos_core::__private::v1` paths, or `<path>::__private::v1` under
//! `crate = path` for a crate that re-exports portos-core. The framework's
//! words and naming rules come from `portos-vocabulary`, the table
//! portos-core's enums are generated from; capabilities and scopes are the
//! application's (`vocabulary!`), and the words a tool attribute names are
//! checked by the compiler against the vocabulary at its crate's root
//! (`words`).
//!
//! The pipeline follows serde_derive: parse the attribute (`attr`), model the
//! function (`ast`), run every cross-field rule (`check`), then `expand`. All
//! mistakes are collected in one `ctxt::Ctxt` and reported together, each
//! under its own token; when the attribute is wrong the function itself is still
//! emitted unchanged so the user sees the real error and not a cascade.

#![warn(missing_docs, unreachable_pub)]

mod ast;
mod attr;
mod check;
mod ctxt;
mod doc;
mod event;
mod expand;
mod krate;
mod names;
mod primitive;
pub(crate) mod route;
mod vocabulary;
mod words;

use proc_macro::TokenStream;

/// Declares a governed PortOS tool on an `async fn` adapter.
///
/// See `portos_core`'s crate documentation for the keys and a full example.
#[proc_macro_attribute]
pub fn portos_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::portos_tool(args.into(), &item.into()).into()
}

/// Declares a governed MCP resource (`uri = "..."`) or resource template
/// (`uri_template = "...{var}..."`) on an `async fn` adapter that reads it.
///
/// See `portos_core`'s crate documentation for the keys and an example.
#[proc_macro_attribute]
pub fn portos_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    primitive::portos_resource(args.into(), &item.into()).into()
}

/// Declares a governed MCP prompt on an `async fn` adapter that renders
/// its messages from its arguments.
///
/// See `portos_core`'s crate documentation for the keys and an example.
#[proc_macro_attribute]
pub fn portos_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    primitive::portos_prompt(args.into(), &item.into()).into()
}

/// Declares the application's vocabulary: its capabilities (the grants its
/// tools require) and its scopes (who its callers speak for), each as a
/// typed constant, registered once in a link-time list.
///
/// See `portos_core`'s crate documentation for the syntax and an example.
#[proc_macro]
pub fn vocabulary(input: TokenStream) -> TokenStream {
    vocabulary::vocabulary(input.into()).into()
}

/// Declares an HTTP operation on an `async fn` axum handler of portos-server:
/// method, path, schemas and declared errors. The router is mounted from the
/// same list the route inventory and OpenAPI document are derived from.
#[proc_macro_attribute]
pub fn portos_route(args: TokenStream, item: TokenStream) -> TokenStream {
    route::portos_route(args.into(), &item.into()).into()
}

/// Derives `portos_server::http::RouteErrors` on an enum of a route family's
/// failures: `#[route_error(status = 404, code = "GOAL_NOT_FOUND")]` on each
/// variant answering itself (its message is its `Display`),
/// `#[route_error(transparent)]` on a variant wrapping another
/// `RouteErrors` type, `#[route_error(internal)]` on a server fault (500,
/// not documented). Use it through `portos_server::http::RouteErrors`.
#[proc_macro_derive(RouteErrors, attributes(route_error))]
pub fn derive_route_errors(input: TokenStream) -> TokenStream {
    route::errors::derive(input.into()).into()
}

/// Declares a Socket.IO event on its payload type (a unit struct for an event
/// without payload): name, direction, summary. The event inventory and the
/// AsyncAPI document are derived from the same list.
#[proc_macro_attribute]
pub fn portos_event(args: TokenStream, item: TokenStream) -> TokenStream {
    event::portos_event(args.into(), &item.into()).into()
}

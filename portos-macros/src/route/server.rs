//! The one place `#[portos_route]` names portos-server. A route's handler is
//! an axum `MethodRouter` of the server's state, so the macro checks the
//! handler against the server's type, through the server's versioned
//! private module (`<server>::__private::v1`, as portos-core's); everything
//! else it emits goes through portos-core's. `server = path` names the
//! server for a crate that re-exports it (default `::portos_server`).

use proc_macro2::TokenStream;
use quote::quote;

/// The server paths a route registration needs.
pub(super) struct ServerPaths {
    /// The type every handler must become (`MethodRouter<App>`).
    pub method_route: TokenStream,
    /// The server's re-export of axum.
    pub axum: TokenStream,
    /// The server's route description traits and error body
    /// (`RouteInput`, `RouteOutput`, `RouteErrors`, `RouteIo`, `ApiError`).
    pub io: TokenStream,
}

pub(super) fn server_paths(server: Option<&syn::Path>) -> ServerPaths {
    let private = match server {
        Some(path) => quote!(#path::__private::v1),
        None => quote!(::portos_server::__private::v1),
    };
    ServerPaths {
        method_route: quote!(#private::MethodRoute),
        axum: quote!(#private::axum),
        io: quote!(#private::io),
    }
}

//! The one place `#[portos_route]` names portos-server. A route's handler is
//! an axum `MethodRouter` of the server's state, so the macro checks the
//! handler against the server's type; everything else it emits goes through
//! portos-core's versioned private module. Change these two paths here when
//! the server's layout changes.

use proc_macro2::TokenStream;
use quote::quote;

/// The server paths a route registration needs.
pub struct ServerPaths {
    /// The type every handler must become (`MethodRouter<App>`).
    pub method_route: TokenStream,
    /// The server's re-export of axum.
    pub axum: TokenStream,
    /// The server's route description traits and error body
    /// (`RouteInput`, `RouteOutput`, `RouteErrors`, `RouteIo`, `ApiError`).
    pub io: TokenStream,
}

pub fn server_paths() -> ServerPaths {
    ServerPaths {
        method_route: quote!(::portos_server::http::MethodRoute),
        axum: quote!(::portos_server::__private::axum),
        io: quote!(::portos_server::__private::io),
    }
}

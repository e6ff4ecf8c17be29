//! `/explorer`: the API Explorer, one self-contained HTML page (inline CSS
//! and script, no build step) compiled into the binary. It reads the
//! documents under `/api/api-docs/` and the tool catalog, and calls tools
//! through `POST /api/cos/tools/call`, with the browser's own credentials.

use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::portos_route;

const PAGE: &str = include_str!("../../assets/explorer.html");

/// The page's script and styles are inline; it may talk only to this origin
/// and may not be framed, so even a mistake in it cannot send data elsewhere.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The API Explorer: search the operations, tools and events, read their
/// schemas and policies, and call a tool. The page holds no data; what it
/// shows comes from the API, under the caller's own authentication.
// No `access` here: the access class is derived from the gate's list of
// always-public paths, so the inventory says what the gate really does.
#[portos_route(
    method = "GET",
    path = "/explorer",
    summary = "API Explorer",
    side_effect = "read"
)]
async fn explorer() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                HeaderName::from_static("x-frame-options"),
                HeaderValue::from_static("DENY"),
            ),
        ],
        PAGE,
    )
        .into_response()
}

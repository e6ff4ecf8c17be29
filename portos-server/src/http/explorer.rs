//! `/explorer`: the API Explorer, one self-contained HTML page (inline CSS
//! and script, no build step) compiled into the binary. It reads the
//! documents (under the `docs` mount) and the tool catalog, signs in
//! through the `auth` mount, and calls tools through the tool-call endpoint
//! (`{tools}/call`), with the browser's own credentials.

use crate::portos_route;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::app::App;
use crate::mounts::{self, Mounts};

const PAGE: &str = include_str!("../../assets/explorer.html");

/// The page's heading and title as written; served with the server's name.
const HEADING: &str = "{{application}} API Explorer";

/// The mounts' paths as written, each served as the server's (mount paths
/// hold no quote, space or brace, so they need no escaping in the page's
/// script).
const TOOLS: &str = "{{tools}}";
const AUTH: &str = "{{auth}}";
const DOCS: &str = "{{docs}}";

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
async fn explorer(State(app): State<App>) -> Response {
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
        named(&app.identity.name, &app.mounts),
    )
        .into_response()
}

/// The page titled with `name` (the application's, HTML-escaped), calling
/// the runtime's routes where `mounts` places them.
fn named(name: &str, mounts: &Mounts) -> String {
    let mut escaped = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    PAGE.replace(HEADING, &format!("{escaped} API Explorer"))
        .replace(TOOLS, mounts.tools().path)
        .replace(AUTH, mounts.path_of(mounts::AUTH))
        .replace(DOCS, mounts.path_of(mounts::DOCS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mount;

    #[test]
    fn the_page_carries_the_servers_name_escaped() {
        let placed = Mounts::default()
            .with(
                mounts::TOOLS,
                Mount::at("/api/cos/tools").with_events("cos:tools"),
            )
            .with(mounts::DOCS, Mount::at("/api/api-docs"));
        assert_eq!(
            named("PortOS", &placed),
            PAGE.replace(HEADING, "PortOS API Explorer")
                .replace(TOOLS, "/api/cos/tools")
                .replace(AUTH, "/api/auth")
                .replace(DOCS, "/api/api-docs")
        );
        let page = named("Lab <&> \"1\"", &Mounts::default());
        assert!(page.contains("\"/api/tools/call\""));
        assert!(page.contains("\"/api/docs/catalog.json\""));
        assert!(page.contains("\"/api/auth/login\""));
        assert!(![TOOLS, AUTH, DOCS].iter().any(|place| page.contains(place)));
        assert!(page.contains("<title>Lab &lt;&amp;&gt; &quot;1&quot; API Explorer</title>"));
        assert!(!page.contains(HEADING));
    }
}

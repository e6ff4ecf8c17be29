//! The HTTP server span of each request when spans are exported
//! (OpenTelemetry's HTTP conventions): named `{method} {route}`, its
//! parent the caller's `traceparent`, its status the response's. The URL's
//! path and query and the client's address are left out: a path can name a
//! person's things, and only the route's template is recorded.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::telemetry::traces;
use portos_core::telemetry::SPAN_TARGET;

/// Wraps every request (the outermost layer).
pub(super) async fn server_span(request: Request, next: Next) -> Response {
    let method = request.method().as_str().to_owned();
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "http request",
        otel.name = %method,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        http.request.method = %method,
        http.route = tracing::field::Empty,
        http.response.status_code = tracing::field::Empty,
        url.scheme = "http",
        network.protocol.version = protocol_version(&request),
        "error.type" = tracing::field::Empty,
    );
    traces::adopt_parent_from_headers(&span, request.headers());
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    span.record("http.response.status_code", i64::from(status.as_u16()));
    // A server's 4xx is the client's mistake, not the span's error.
    if status.is_server_error() {
        span.record("error.type", status.as_str());
        span.record("otel.status_code", "ERROR");
    }
    response
}

/// Inside the router, where the route is known: names the request's span
/// after its route's template.
pub(super) async fn route_name(request: Request, next: Next) -> Response {
    if let Some(route) = request.extensions().get::<MatchedPath>() {
        let span = tracing::Span::current();
        span.record("http.route", route.as_str());
        // Started already (the layers beneath it ran inside it): renamed.
        traces::rename(
            &span,
            format!("{} {}", request.method().as_str(), route.as_str()),
        );
    }
    next.run(request).await
}

fn protocol_version(request: &Request) -> &'static str {
    match request.version() {
        axum::http::Version::HTTP_09 => "0.9",
        axum::http::Version::HTTP_10 => "1.0",
        axum::http::Version::HTTP_2 => "2",
        axum::http::Version::HTTP_3 => "3",
        _ => "1.1",
    }
}

//! The trace context the framework's spans share: a parent taken from a
//! caller's `traceparent` (HTTP headers or MCP `_meta`), links, late
//! names, and the context written into outbound requests. Cheap no-ops
//! unless spans are exported (`trace_export` installs the exporter), and
//! no-ops always without the `otel` feature: the same calls compile in
//! every build, so a caller never needs a `cfg` of its own.

use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(feature = "otel")]
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
#[cfg(feature = "otel")]
use opentelemetry::trace::TraceContextExt;
#[cfg(feature = "otel")]
use opentelemetry_sdk::propagation::TraceContextPropagator;
#[cfg(feature = "otel")]
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Whether spans are exported: the HTTP layer opens its request spans only then.
static EXPORTING: AtomicBool = AtomicBool::new(false);

pub(crate) fn exporting() -> bool {
    EXPORTING.load(Ordering::Relaxed)
}

/// A span's context, to link another span to later ([`context_of`],
/// [`link`]). Opaque: OpenTelemetry's with the `otel` feature, and never
/// made without it.
#[derive(Clone, Debug)]
pub struct SpanContext(#[cfg(feature = "otel")] opentelemetry::trace::SpanContext);

/// Said once the exporter is installed.
#[cfg(feature = "otel")]
pub(crate) fn start_exporting() {
    EXPORTING.store(true, Ordering::Relaxed);
}

/// Makes the W3C trace context `traceparent` (with its `tracestate`) the
/// parent of `span`; a malformed one is ignored, as the standard says.
/// `true` when it was taken.
pub(crate) fn adopt_parent(
    span: &tracing::Span,
    traceparent: &str,
    tracestate: Option<&str>,
) -> bool {
    if span.is_disabled() {
        return false;
    }
    #[cfg(feature = "otel")]
    {
        let carrier = Carrier {
            traceparent,
            tracestate,
        };
        let context = TraceContextPropagator::new().extract(&carrier);
        if !context.span().span_context().is_valid() {
            return false;
        }
        span.set_parent(context).is_ok()
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (traceparent, tracestate);
        false
    }
}

/// The parent of `span` from a request's `traceparent` and `tracestate`
/// headers, if it carries them.
pub(crate) fn adopt_parent_from_headers(span: &tracing::Span, headers: &axum::http::HeaderMap) {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(traceparent) = text("traceparent") {
        adopt_parent(span, traceparent, text("tracestate"));
    }
}

/// `span`'s context, to link to later (a job started by a call).
pub fn context_of(span: &tracing::Span) -> Option<SpanContext> {
    if span.is_disabled() {
        return None;
    }
    #[cfg(feature = "otel")]
    {
        let context = span.context();
        let span_context = context.span().span_context().clone();
        span_context.is_valid().then_some(SpanContext(span_context))
    }
    #[cfg(not(feature = "otel"))]
    None
}

/// Renames `span`, even once it started (the `otel.name` field only names
/// a span before).
pub(crate) fn rename(span: &tracing::Span, name: String) {
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        span.context().span().update_name(name);
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, name);
}

/// Links `span` to another span's context (not its parent).
pub fn link(span: &tracing::Span, to: SpanContext) {
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        span.add_link(to.0);
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, to);
}

/// Writes the current span's context as `traceparent` / `tracestate` into
/// an outbound request's headers, when spans are exported.
pub(crate) fn inject(headers: &mut axum::http::HeaderMap) {
    #[cfg(feature = "otel")]
    if exporting() {
        inject_current(headers);
    }
    #[cfg(not(feature = "otel"))]
    let _ = headers;
}

#[cfg(feature = "otel")]
fn inject_current(headers: &mut axum::http::HeaderMap) {
    let context = tracing::Span::current().context();
    if !context.span().span_context().is_valid() {
        return;
    }
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
}

#[cfg(feature = "otel")]
struct Carrier<'a> {
    traceparent: &'a str,
    tracestate: Option<&'a str>,
}

#[cfg(feature = "otel")]
impl Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(self.traceparent),
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

#[cfg(feature = "otel")]
struct HeaderInjector<'a>(&'a mut axum::http::HeaderMap);

#[cfg(feature = "otel")]
impl Injector for HeaderInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(key.as_bytes()),
            axum::http::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

//! The trace context the framework's spans share: a parent taken from a
//! caller's `traceparent` (HTTP headers or MCP `_meta`), links, late
//! names, and the context written into outbound requests. Cheap no-ops
//! unless spans are exported (`trace_export` installs the exporter).

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{SpanContext, TraceContextExt};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Whether spans are exported: the HTTP layer opens its request spans only then.
static EXPORTING: AtomicBool = AtomicBool::new(false);

pub fn exporting() -> bool {
    EXPORTING.load(Ordering::Relaxed)
}

/// Said once the exporter is installed.
pub(crate) fn start_exporting() {
    EXPORTING.store(true, Ordering::Relaxed);
}

/// Makes the W3C trace context `traceparent` (with its `tracestate`) the
/// parent of `span`; a malformed one is ignored, as the standard says.
/// `true` when it was taken.
pub fn adopt_parent(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) -> bool {
    if span.is_disabled() {
        return false;
    }
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

/// The parent of `span` from a request's `traceparent` and `tracestate`
/// headers, if it carries them.
pub fn adopt_parent_from_headers(span: &tracing::Span, headers: &axum::http::HeaderMap) {
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
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then_some(span_context)
}

/// Renames `span`, even once it started (the `otel.name` field only names
/// a span before).
pub fn rename(span: &tracing::Span, name: String) {
    if !span.is_disabled() {
        span.context().span().update_name(name);
    }
}

/// Links `span` to another span's context (not its parent).
pub fn link(span: &tracing::Span, to: SpanContext) {
    if !span.is_disabled() {
        span.add_link(to);
    }
}

/// Writes the current span's context as `traceparent` / `tracestate` into
/// an outbound request's headers, when spans are exported.
pub fn inject(headers: &mut axum::http::HeaderMap) {
    if !exporting() {
        return;
    }
    let context = tracing::Span::current().context();
    if !context.span().span_context().is_valid() {
        return;
    }
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
}

struct Carrier<'a> {
    traceparent: &'a str,
    tracestate: Option<&'a str>,
}

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

struct HeaderInjector<'a>(&'a mut axum::http::HeaderMap);

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

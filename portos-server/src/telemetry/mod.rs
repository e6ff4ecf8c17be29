//! What the server tells its operator about itself (docs/observability.md):
//! Prometheus metrics at `GET /metrics` and OpenTelemetry traces exported
//! over OTLP (the latter with the `otel` feature; without it the trace
//! context calls of [`traces`] are no-ops). Every application gets the
//! metrics; it adds its own series through [`MetricSource`].

pub(crate) mod exposition;
pub(crate) mod grid;
pub mod histogram;
mod metrics;
pub(crate) mod tools;
pub mod traces;

pub use exposition::{Exposition, Kind};
pub use histogram::Histogram;
pub use metrics::MetricSource;
pub(crate) use metrics::Metrics;

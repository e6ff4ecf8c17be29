//! The OTLP exporter (feature `otel`): the spans of the framework's target
//! as OTLP over HTTP/protobuf, through the outbound client, in a layer of
//! the process's subscriber beside the logs.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::Registry;
use tracing_subscriber::util::SubscriberInitExt;

use super::otlp_client::OtlpClient;
use super::{TraceExport, Traces};
use crate::outbound::OutboundPolicy;
use crate::telemetry::traces::start_exporting;
use portos_core::telemetry::SPAN_TARGET;

/// Installs the subscriber: `logs` and the spans sent to `export`.
pub(super) fn install(
    logs: impl Layer<Registry> + Send + Sync + 'static,
    export: &TraceExport,
    service: (&str, &str),
    policy: &OutboundPolicy,
    runtime: &tokio::runtime::Handle,
) -> Result<Traces, String> {
    let client = OtlpClient::new(&policy.also_allowing_url(&export.endpoint), runtime.clone())?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_endpoint(export.endpoint.clone())
        .build()
        .map_err(|error| format!("--otlp-endpoint: {error}"))?;
    let (name, version) = service;
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(
            export
                .service_name
                .clone()
                .unwrap_or_else(|| name.to_owned()),
        )
        .with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            version.to_owned(),
        ))
        .build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build();
    let tracer = provider.tracer("portos-server");
    let spans = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false)
        .with_tracked_inactivity(false)
        .with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_target(SPAN_TARGET, tracing::Level::TRACE),
        );
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(spans)
        .try_init();
    start_exporting();
    Ok(Traces {
        provider: Some(provider),
    })
}

//! Trace export (docs/observability.md): the spans of the framework's
//! target (`portos_core::telemetry::SPAN_TARGET`) sent as OTLP over
//! HTTP/protobuf to the configured endpoint, through the outbound client.
//! Off unless an endpoint is configured; then the logs and the exported
//! spans are two layers of one subscriber, each with its own filter, so a
//! log line never becomes a span event and a span never clutters a log.
//! (`telemetry::traces` carries the context the spans share; this module
//! only sends them, so it sits above the outbound client it sends with.)
//! The exporter is built with the `otel` feature only (`otlp`); without it
//! the logs are installed as ever, and an export asked for stops start-up
//! naming the feature.

#[cfg(feature = "otel")]
mod otlp;
#[cfg(feature = "otel")]
mod otlp_client;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::outbound::OutboundPolicy;
use portos_core::telemetry::SPAN_TARGET;

/// The standard variables (OpenTelemetry's exporter configuration; the
/// general `OTEL_EXPORTER_OTLP_ENDPOINT` is the `--otlp-endpoint` flag's).
pub(crate) const TRACES_ENDPOINT_VARIABLE: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub(crate) const SERVICE_NAME_VARIABLE: &str = "OTEL_SERVICE_NAME";

/// Why a build without the `otel` feature refuses an export.
#[cfg(not(feature = "otel"))]
const NOT_BUILT: &str = "--otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, otlp-endpoint in the config file): this build exports no traces, it was compiled without portos-server's `otel` cargo feature; unset it, or build with the feature";

/// Where and as whom spans are exported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceExport {
    /// The OTLP/HTTP traces URL (`…/v1/traces`).
    pub endpoint: String,
    /// `service.name` (default: the application's name).
    pub service_name: Option<String>,
}

impl TraceExport {
    /// The export `--otlp-endpoint` (or `OTEL_EXPORTER_OTLP_ENDPOINT`, a
    /// base URL the traces path is added to) or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL itself) ask
    /// for; `None` when neither is set. Without the `otel` feature an
    /// export asked for is refused, naming the feature.
    pub fn resolve(
        base: Option<&str>,
        traces: Option<&str>,
        service_name: Option<&str>,
    ) -> Result<Option<TraceExport>, String> {
        fn given(value: Option<&str>) -> Option<&str> {
            value.map(str::trim).filter(|v| !v.is_empty())
        }
        let (given_url, endpoint) = match (given(base), given(traces)) {
            (Some(base), _) => (base, format!("{}/v1/traces", base.trim_end_matches('/'))),
            (None, Some(traces)) => (traces, traces.to_owned()),
            (None, None) => return Ok(None),
        };
        let url = reqwest::Url::parse(given_url)
            .map_err(|error| format!("--otlp-endpoint: `{given_url}` is not a URL ({error})"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
            return Err(format!(
                "--otlp-endpoint: `{given_url}` is not an http or https URL"
            ));
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = (endpoint, service_name);
            Err(NOT_BUILT.to_owned())
        }
        #[cfg(feature = "otel")]
        Ok(Some(TraceExport {
            endpoint,
            service_name: given(service_name).map(str::to_owned),
        }))
    }
}

/// The installed export, flushed by [`Traces::shutdown`].
#[derive(Debug, Default)]
pub(crate) struct Traces {
    #[cfg(feature = "otel")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Traces {
    /// Sends what is still buffered and stops the exporter.
    pub(crate) fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(provider) = self.provider
            && let Err(error) = provider.shutdown()
        {
            tracing::warn!(%error, "cannot send the last spans");
        }
    }
}

/// Installs the process's subscriber: the logs (`RUST_LOG`, default
/// `info`) on stderr and, when `export` is given, the spans sent to it
/// (with the `otel` feature; without it an export stops start-up).
/// `runtime` carries the exporter's requests; `policy` is widened to the
/// endpoint's host, which the operator named.
pub(crate) fn install(
    export: Option<&TraceExport>,
    service: (&str, &str),
    policy: &OutboundPolicy,
    runtime: &tokio::runtime::Handle,
) -> Result<Traces, String> {
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_filter(log_filter());
    match export {
        None => {
            let _ = tracing_subscriber::registry().with(logs).try_init();
            Ok(Traces::default())
        }
        #[cfg(feature = "otel")]
        Some(export) => otlp::install(logs, export, service, policy, runtime),
        #[cfg(not(feature = "otel"))]
        Some(_) => {
            let _ = (service, policy, runtime);
            Err(NOT_BUILT.to_owned())
        }
    }
}

/// `RUST_LOG` (default `info`), without the export spans unless it names
/// their target: they would prefix every log line inside a call.
fn log_filter() -> EnvFilter {
    let asked = std::env::var("RUST_LOG").ok();
    let filter = asked
        .as_deref()
        .and_then(|directives| EnvFilter::try_new(directives).ok())
        .unwrap_or_else(|| EnvFilter::new("info"));
    if asked.is_some_and(|directives| directives.contains(SPAN_TARGET)) {
        return filter;
    }
    match format!("{SPAN_TARGET}=off").parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "otel")]
    #[test]
    fn the_base_endpoint_gets_the_traces_path_and_the_traces_endpoint_is_taken_as_it_is() {
        let base = TraceExport::resolve(Some("http://127.0.0.1:4318/"), None, None)
            .expect("valid")
            .expect("on");
        assert_eq!(base.endpoint, "http://127.0.0.1:4318/v1/traces");
        let traces = TraceExport::resolve(None, Some("https://otel.lan/in"), Some("lab"))
            .expect("valid")
            .expect("on");
        assert_eq!(traces.endpoint, "https://otel.lan/in");
        assert_eq!(traces.service_name.as_deref(), Some("lab"));
        assert_eq!(TraceExport::resolve(None, Some(" "), None), Ok(None));
    }

    #[test]
    fn an_endpoint_that_is_not_http_stops_start_up_naming_the_flag() {
        for bad in ["ftp://x/", "not a url", "http://"] {
            let error = TraceExport::resolve(Some(bad), None, None).expect_err(bad);
            assert!(error.starts_with("--otlp-endpoint"), "{error}");
        }
    }

    #[cfg(not(feature = "otel"))]
    #[test]
    fn without_the_feature_an_export_stops_start_up_naming_it() {
        for (base, traces) in [
            (Some("http://127.0.0.1:4318"), None),
            (None, Some("https://otel.lan/in")),
        ] {
            let error = TraceExport::resolve(base, traces, None).expect_err("no exporter");
            assert!(error.contains("`otel` cargo feature"), "{error}");
        }
        assert_eq!(TraceExport::resolve(None, None, None), Ok(None));
    }
}

//! `GET /metrics`: the server's series in Prometheus's text format
//! (docs/observability.md). Behind the same gate as every route that is
//! not public: with a password set, a scraper signs in with HTTP Basic.

use crate::portos_route;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use schemars::JsonSchema;

use super::io::{RouteOutput, schema_of};
use crate::app::App;
use crate::telemetry::exposition::CONTENT_TYPE;
use crate::telemetry::{Exposition, Kind};

/// The runtime's series (tool calls, idempotency, MCP messages, catalogs,
/// jobs, the store, outbound requests), then the application's.
#[portos_route(
    method = "GET",
    path = "/metrics",
    summary = "Prometheus metrics",
    side_effect = "read"
)]
async fn metrics(State(app): State<App>) -> MetricsText {
    let mut out = Exposition::new();
    app.metrics.write(&mut out);
    crate::outbound::stats::write(&mut out);
    write_jobs(&app, &mut out).await;
    app.store.write_metrics(&mut out);
    for source in &app.metric_sources {
        source.write(&mut out);
    }
    MetricsText(out.into_text())
}

/// The jobs in the store by tool and state (every server of a cluster
/// reads the same numbers). Left out when the store cannot answer.
async fn write_jobs(app: &App, out: &mut Exposition) {
    const NAME: &str = "tool_jobs";
    let Ok(counts) = app.jobs.counts().await else {
        return;
    };
    out.family(
        NAME,
        Kind::Gauge,
        "Jobs of long-running tools in the store, by tool and state (until their retention ends).",
    );
    for (tool, state, count) in counts {
        out.sample(
            NAME,
            &[
                ("gen_ai_tool_name", &tool),
                ("tool_job_state", state.as_str()),
            ],
            count,
        );
    }
}

/// The exposition text.
pub(super) struct MetricsText(String);

impl IntoResponse for MetricsText {
    fn into_response(self) -> Response {
        (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            self.0,
        )
            .into_response()
    }
}

/// What the document says of the text.
#[derive(JsonSchema)]
#[schemars(
    description = "The Prometheus text exposition format 0.0.4: `# HELP` and `# TYPE` lines, then one sample per line"
)]
#[allow(dead_code)]
struct ExpositionText(String);

impl RouteOutput for MetricsText {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<ExpositionText>());
        io.response_media_type = Some("text/plain");
        io.success_status = 200;
    }
}

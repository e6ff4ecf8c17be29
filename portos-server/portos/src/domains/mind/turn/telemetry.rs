//! A turn as OpenTelemetry's GenAI conventions describe an agent at work:
//! an `invoke_agent` span for the turn, a `chat {model}` client span for
//! each request to the model (its model, tokens and finish reason as the
//! provider reports them), and the turn's tool calls beneath (the
//! registry's `execute_tool` spans). And the Mind's series on `/metrics`:
//! turns, their calls, budget refusals, model request durations and tokens.
//! No prompt, message, argument or result is ever recorded.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use portos_core::telemetry::SPAN_TARGET;
use portos_server::telemetry::histogram::{Histogram, SECONDS, UNITS};
use portos_server::telemetry::{Exposition, Kind, MetricSource};

use super::provider::{ProviderConfig, ProviderError, RoundReport};
use super::record::{CallState, TurnRecord, TurnState};

/// `gen_ai.agent.name`.
const AGENT: &str = "Persistent Mind";
/// `gen_ai.provider.name`: the turn speaks OpenAI's chat-completions API.
const PROVIDER: &str = "openai";
/// Model names with series of their own; the rest share `_OTHER`.
const MAX_MODELS: usize = 32;

/// OpenTelemetry's buckets for `gen_ai.client.operation.duration`.
const OPERATION_SECONDS: &[f64] = &[
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/// OpenTelemetry's buckets for `gen_ai.client.token.usage`.
const TOKENS: &[f64] = &[
    1.0,
    4.0,
    16.0,
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
];

/// The turn's span: a root of its own trace (a turn outlives the request
/// that started it), linked to that request's span.
pub fn turn_span(turn: &TurnRecord) -> tracing::Span {
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        parent: None,
        "invoke_agent",
        otel.name = tracing::field::Empty,
        otel.kind = "internal",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = AGENT,
        gen_ai.conversation.id = %turn.id,
        gen_ai.request.model = %turn.model,
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("invoke_agent {AGENT}"));
        let started_by = portos_server::telemetry::traces::context_of(&tracing::Span::current());
        if let Some(started_by) = started_by {
            portos_server::telemetry::traces::link(&span, started_by);
        }
    }
    span
}

/// How the turn ended, on its span.
pub fn turn_ended(span: &tracing::Span, turn: &TurnRecord) {
    if turn.state == TurnState::Failed {
        span.record("error.type", "turn_failed");
        span.record("otel.status_code", "ERROR");
    }
}

/// One request to the model: `chat {model}`, a client span.
pub fn chat_span(provider: &ProviderConfig) -> tracing::Span {
    let url = reqwest::Url::parse(&provider.base_url).ok();
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "chat",
        otel.name = tracing::field::Empty,
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = PROVIDER,
        gen_ai.request.model = %provider.model,
        gen_ai.response.model = tracing::field::Empty,
        gen_ai.response.id = tracing::field::Empty,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        server.address = url.as_ref().and_then(|url| url.host_str()).unwrap_or_default(),
        server.port = i64::from(url.as_ref().and_then(reqwest::Url::port_or_known_default).unwrap_or_default()),
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("chat {}", provider.model));
    }
    span
}

/// What the provider answered, on the request's span.
pub fn chat_ended(span: &tracing::Span, answer: Result<&RoundReport, &ProviderError>) {
    if span.is_disabled() {
        return;
    }
    match answer {
        Ok(report) => {
            if let Some(model) = &report.model {
                span.record("gen_ai.response.model", model.as_str());
            }
            if let Some(id) = &report.id {
                span.record("gen_ai.response.id", id.as_str());
            }
            if let Some(reason) = &report.finish_reason {
                // A list in the conventions: one choice is asked for.
                span.record("gen_ai.response.finish_reasons", format!("[{reason:?}]"));
            }
            if let Some(tokens) = report.input_tokens {
                span.record(
                    "gen_ai.usage.input_tokens",
                    i64::try_from(tokens).unwrap_or(i64::MAX),
                );
            }
            if let Some(tokens) = report.output_tokens {
                span.record(
                    "gen_ai.usage.output_tokens",
                    i64::try_from(tokens).unwrap_or(i64::MAX),
                );
            }
        }
        Err(error) => {
            span.record("error.type", error_type(error));
            span.record("otel.status_code", "ERROR");
        }
    }
}

/// A provider failure's `error.type`: its kind, or the HTTP status.
fn error_type(error: &ProviderError) -> &'static str {
    match error {
        ProviderError::Unreachable(_) => "unreachable",
        ProviderError::Timeout(_) => "timeout",
        ProviderError::Status { status, .. } if *status >= 500 => "server_error",
        ProviderError::Status { .. } => "client_error",
        ProviderError::Malformed(_) => "malformed",
    }
}

/// The Mind's series.
#[derive(Debug, Default)]
pub struct TurnMetrics {
    /// Completed, failed.
    turns: [AtomicU64; 2],
    /// Completed, failed, refused, skipped.
    calls: [AtomicU64; 4],
    /// Calls refused for a spent budget (tool calls, task requests).
    budget_refusals: AtomicU64,
    /// Turns whose tool-call budget ran out.
    exhausted_turns: AtomicU64,
    /// By model and error type.
    requests: RwLock<HashMap<(String, &'static str), Arc<Histogram>>>,
    /// By model and token type.
    tokens: RwLock<HashMap<(String, &'static str), Arc<Histogram>>>,
}

impl TurnMetrics {
    pub fn turn_ended(&self, turn: &TurnRecord, budget_exhausted: bool) {
        let slot = usize::from(turn.state == TurnState::Failed);
        self.turns[slot].fetch_add(1, Ordering::Relaxed);
        if budget_exhausted {
            self.exhausted_turns.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn call_ended(&self, state: CallState, refused_for_budget: bool) {
        let slot = match state {
            CallState::Completed => 0,
            CallState::Failed => 1,
            CallState::Refused => 2,
            CallState::Skipped => 3,
        };
        self.calls[slot].fetch_add(1, Ordering::Relaxed);
        if refused_for_budget {
            self.budget_refusals.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A request to `model` that took `took`.
    pub fn request_ended(
        &self,
        model: &str,
        took: Duration,
        answer: Result<&RoundReport, &ProviderError>,
    ) {
        let error = answer.err().map_or("", error_type);
        series(&self.requests, model, error, OPERATION_SECONDS, SECONDS).observe(took);
        if let Ok(report) = answer {
            for (kind, count) in [
                ("input", report.input_tokens),
                ("output", report.output_tokens),
            ] {
                if let Some(count) = count {
                    series(&self.tokens, model, kind, TOKENS, UNITS).observe_raw(count);
                }
            }
        }
    }
}

/// The histogram of `model` and `label`, made on first use (at most
/// [`MAX_MODELS`] models).
fn series(
    map: &RwLock<HashMap<(String, &'static str), Arc<Histogram>>>,
    model: &str,
    label: &'static str,
    bounds: &'static [f64],
    scale: portos_server::telemetry::histogram::Scale,
) -> Arc<Histogram> {
    let key = (model.to_owned(), label);
    if let Some(found) = map.read().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return found.clone();
    }
    let mut map = map.write().unwrap_or_else(PoisonError::into_inner);
    let models = map.keys().filter(|(_, l)| *l == label).count();
    let key = if models >= MAX_MODELS && !map.contains_key(&key) {
        ("_OTHER".to_owned(), label)
    } else {
        key
    };
    map.entry(key)
        .or_insert_with(|| Arc::new(Histogram::new(bounds, scale)))
        .clone()
}

impl MetricSource for TurnMetrics {
    fn write(&self, out: &mut Exposition) {
        out.counters(
            "portos_mind_turns_total",
            "Persistent Mind turns ended, by state.",
            "state",
            ["completed", "failed"].into_iter().zip(&self.turns),
        );
        out.counters(
            "portos_mind_turn_calls_total",
            "Tool calls the Persistent Mind's turns asked for, by state (skipped: not run, e.g. over budget).",
            "state",
            ["completed", "failed", "refused", "skipped"]
                .into_iter()
                .zip(&self.calls),
        );
        out.counters(
            "portos_mind_budget_refusals_total",
            "Calls a turn asked for over its tool-call or task budget (never run).",
            "",
            [("", &self.budget_refusals)],
        );
        out.counters(
            "portos_mind_budget_exhausted_turns_total",
            "Turns that spent their whole tool-call budget.",
            "",
            [("", &self.exhausted_turns)],
        );
        write_histograms(
            out,
            &self.requests,
            "gen_ai_client_operation_duration_seconds",
            "Requests to the Persistent Mind's model (OpenTelemetry's gen_ai.client.operation.duration), by model and error.",
            "error_type",
        );
        write_histograms(
            out,
            &self.tokens,
            "gen_ai_client_token_usage",
            "Tokens of the Persistent Mind's model requests as the provider reported them (OpenTelemetry's gen_ai.client.token.usage), by model and type.",
            "gen_ai_token_type",
        );
    }
}

fn write_histograms(
    out: &mut Exposition,
    map: &RwLock<HashMap<(String, &'static str), Arc<Histogram>>>,
    name: &str,
    help: &str,
    label: &str,
) {
    let mut series: Vec<_> = map
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|(key, histogram)| (key.clone(), histogram.clone()))
        .collect();
    series.sort_by(|a, b| a.0.cmp(&b.0));
    out.family(name, Kind::Histogram, help);
    for ((model, value), histogram) in series {
        out.histogram(
            name,
            &[
                ("gen_ai_operation_name", "chat"),
                ("gen_ai_provider_name", PROVIDER),
                ("gen_ai_request_model", &model),
                (label, value),
            ],
            &histogram,
        );
    }
}

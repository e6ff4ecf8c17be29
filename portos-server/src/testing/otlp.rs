//! A stand-in OpenTelemetry collector for tests: an OTLP/HTTP receiver on a
//! loopback port that decodes what a server exports with the official
//! protobuf definitions (`opentelemetry-proto`) and keeps every span, to
//! check names, parents, links and attributes. Point a server at
//! [`OtlpReceiver::endpoint`] with `--otlp-endpoint`. With the `otel`
//! feature only (a server without it exports nothing to receive).

// The module as a whole, from inside its file: `testing.rs` declares it
// for every build.
#![cfg(feature = "otel")]
#![cfg_attr(docsrs, doc(cfg(feature = "otel")))]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, any_value};
use prost::Message;
use serde_json::Value;

/// A span as received, its ids in lowercase hex.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceivedSpan {
    pub service_name: Option<String>,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    pub name: String,
    /// `server`, `client`, `internal`, `producer`, `consumer` or `unspecified`.
    pub kind: &'static str,
    /// Each attribute's value as JSON (a string, number, bool or array).
    pub attributes: BTreeMap<String, Value>,
    /// The spans it links to: `(trace id, span id)`.
    pub links: Vec<(String, String)>,
    /// `error`, `ok` or `unset`.
    pub status: &'static str,
    pub status_message: String,
    /// The names of its events and their attributes' values, for scans.
    pub events: Vec<String>,
}

impl ReceivedSpan {
    /// An attribute's value, as text when it is a string.
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes.get(key)
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).and_then(Value::as_str)
    }

    /// Everything a person could read in it, for checking that nothing
    /// of a call's arguments or results is there.
    pub fn all_text(&self) -> String {
        let mut text = format!("{} {} ", self.name, self.status_message);
        for (key, value) in &self.attributes {
            text.push_str(key);
            text.push(' ');
            text.push_str(&value.to_string());
            text.push(' ');
        }
        text.push_str(&self.events.join(" "));
        text
    }
}

/// The running receiver; it stops with the test's runtime.
#[derive(Debug)]
pub struct OtlpReceiver {
    /// The base URL to give `--otlp-endpoint` (spans arrive at `/v1/traces`).
    pub endpoint: String,
    received: Arc<Mutex<Received>>,
}

#[derive(Debug, Default)]
struct Received {
    spans: Vec<ReceivedSpan>,
    /// Exports that were not OTLP protobuf (wrong type or undecodable).
    refused: usize,
}

impl OtlpReceiver {
    /// Listens on a loopback port.
    pub async fn start() -> OtlpReceiver {
        let received = Arc::new(Mutex::new(Received::default()));
        let router = axum::Router::new()
            .route("/v1/traces", axum::routing::post(export))
            .with_state(received.clone());
        OtlpReceiver {
            endpoint: super::serve_on_loopback(router).await,
            received,
        }
    }

    /// Every span received so far, in order of arrival.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.lock().spans.clone()
    }

    /// Exports refused as not OTLP/HTTP protobuf.
    pub fn refused(&self) -> usize {
        self.lock().refused
    }

    /// Waits until `done` holds of the spans received (or `limit` passes),
    /// then answers them all.
    pub async fn wait_for(
        &self,
        limit: Duration,
        done: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let spans = self.spans();
            if done(&spans) || tokio::time::Instant::now() >= deadline {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Received> {
        self.received.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn export(
    State(received): State<Arc<Mutex<Received>>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let protobuf = headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes() == b"application/x-protobuf");
    let decoded = ExportTraceServiceRequest::decode(body.as_ref());
    let mut received = received.lock().unwrap_or_else(PoisonError::into_inner);
    let Ok(request) = decoded.ok().filter(|_| protobuf).ok_or(()) else {
        received.refused += 1;
        return StatusCode::BAD_REQUEST;
    };
    for resource_spans in request.resource_spans {
        let service_name = resource_spans.resource.as_ref().and_then(|resource| {
            resource
                .attributes
                .iter()
                .find(|attribute| attribute.key == "service.name")
                .and_then(|attribute| attribute.value.as_ref())
                .and_then(|value| json_of(value).as_str().map(str::to_owned))
        });
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                received.spans.push(ReceivedSpan {
                    service_name: service_name.clone(),
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent_span_id: hex::encode(&span.parent_span_id),
                    name: span.name,
                    kind: match span.kind {
                        1 => "internal",
                        2 => "server",
                        3 => "client",
                        4 => "producer",
                        5 => "consumer",
                        _ => "unspecified",
                    },
                    attributes: span
                        .attributes
                        .iter()
                        .map(|attribute| {
                            let value = attribute.value.as_ref().map_or(Value::Null, json_of);
                            (attribute.key.clone(), value)
                        })
                        .collect(),
                    links: span
                        .links
                        .iter()
                        .map(|link| (hex::encode(&link.trace_id), hex::encode(&link.span_id)))
                        .collect(),
                    status: match span.status.as_ref().map(|status| status.code) {
                        Some(1) => "ok",
                        Some(2) => "error",
                        _ => "unset",
                    },
                    status_message: span.status.map(|status| status.message).unwrap_or_default(),
                    events: span
                        .events
                        .iter()
                        .map(|event| {
                            let values: Vec<String> = event
                                .attributes
                                .iter()
                                .map(|a| a.value.as_ref().map_or(Value::Null, json_of).to_string())
                                .collect();
                            format!("{} {}", event.name, values.join(" "))
                        })
                        .collect(),
                });
            }
        }
    }
    StatusCode::OK
}

fn json_of(value: &AnyValue) -> Value {
    match &value.value {
        Some(any_value::Value::StringValue(text)) => Value::String(text.clone()),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(*flag),
        Some(any_value::Value::IntValue(number)) => Value::from(*number),
        Some(any_value::Value::DoubleValue(number)) => Value::from(*number),
        Some(any_value::Value::ArrayValue(array)) => {
            Value::Array(array.values.iter().map(json_of).collect())
        }
        Some(any_value::Value::BytesValue(bytes)) => Value::String(hex::encode(bytes)),
        Some(any_value::Value::KvlistValue(list)) => Value::Object(
            list.values
                .iter()
                .map(|kv| {
                    (
                        kv.key.clone(),
                        kv.value.as_ref().map_or(Value::Null, json_of),
                    )
                })
                .collect(),
        ),
        _ => Value::Null,
    }
}

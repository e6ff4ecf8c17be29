//! A scripted OpenAI-compatible chat-completions server on a loopback port,
//! standing in for the Persistent Mind's model: it plays recorded answers
//! in order (`POST /v1/chat/completions`) and keeps every request it was
//! sent, with its `Authorization` header, for the tests to read.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use portos_server::testing::serve_on_loopback;
use serde_json::{Value, json};

/// The tokens every scripted completion reports (`usage`).
pub const PROMPT_TOKENS: u64 = 120;
pub const COMPLETION_TOKENS: u64 = 7;

/// `tool_calls` when the message asks for calls, as providers say.
fn finish_reason(message: &Value) -> &'static str {
    if message
        .get("tool_calls")
        .is_some_and(|calls| !calls.is_null())
    {
        "tool_calls"
    } else {
        "stop"
    }
}

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A chat completion with this assistant message.
    Message(Value),
    /// A provider error: this status and JSON body.
    Status(u16, Value),
    /// HTTP 200 with this body text (not JSON, or not a completion).
    Raw(String),
    /// No answer at all: the turn has to give up on its own.
    Hang,
    /// Sets the Persistent Mind's grants on the PortOS server under test
    /// (`PUT /api/cos/mind/capabilities` with this body), then answers.
    AfterGrants(Value, Box<Answer>),
}

impl Answer {
    /// The model's last words.
    pub fn text(text: &str) -> Answer {
        Answer::Message(json!({ "role": "assistant", "content": text }))
    }

    /// Tool calls, each `(provider call id or "", provider tool name,
    /// arguments)`; an empty id leaves the id out.
    pub fn calls(calls: &[(&str, &str, Value)]) -> Answer {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, arguments)| {
                let mut call = json!({
                    "type": "function",
                    "function": { "name": name, "arguments": arguments.to_string() },
                });
                if !id.is_empty() {
                    call["id"] = json!(id);
                }
                call
            })
            .collect();
        Answer::Message(json!({ "role": "assistant", "content": null, "tool_calls": tool_calls }))
    }
}

/// A request the model was sent.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub body: Value,
    pub authorization: Option<String>,
    /// The W3C trace context the request carried, if any.
    pub traceparent: Option<String>,
}

impl Recorded {
    /// The provider names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

#[derive(Debug, Default)]
struct Script {
    answers: Mutex<VecDeque<Answer>>,
    requests: Mutex<Vec<Recorded>>,
    /// The PortOS server's base URL, for [`Answer::AfterGrants`].
    portos: OnceLock<String>,
}

/// The running stand-in; stops with the test's runtime.
#[derive(Debug)]
pub struct ScriptedModel {
    /// The API base to give `--mind-provider-url` (ends in `/v1`).
    pub url: String,
    script: Arc<Script>,
}

impl ScriptedModel {
    pub async fn start(answers: Vec<Answer>) -> ScriptedModel {
        let script = Arc::new(Script {
            answers: Mutex::new(answers.into()),
            ..Script::default()
        });
        let router = axum::Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(script.clone());
        ScriptedModel {
            url: format!("{}/v1", serve_on_loopback(router).await),
            script,
        }
    }

    /// Where [`Answer::AfterGrants`] sends the grants.
    pub fn set_portos(&self, base_url: &str) {
        let _ = self.script.portos.set(base_url.to_owned());
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.script
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

async fn complete(
    State(script): State<Arc<Script>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    script
        .requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Recorded {
            body,
            authorization: headers
                .get("authorization")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
            traceparent: headers
                .get("traceparent")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
        });
    let next = script
        .answers
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop_front();
    let Some(answer) = next else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": { "message": "the script has no more answers" } })),
        )
            .into_response();
    };
    play(&script, answer).await
}

async fn play(script: &Script, mut answer: Answer) -> Response {
    loop {
        return match answer {
            Answer::AfterGrants(grants, then) => {
                let base = script.portos.get().expect("set_portos before the turn");
                let response = portos_tests::http_client()
                    .put(format!("{base}/api/cos/mind/capabilities"))
                    .json(&grants)
                    .send()
                    .await
                    .expect("grants changed");
                assert_eq!(response.status(), StatusCode::OK);
                answer = *then;
                continue;
            }
            Answer::Message(message) => Json(json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "model": "scripted-model",
                "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason(&message) }],
                "usage": { "prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS, "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS },
            }))
            .into_response(),
            Answer::Status(status, body) => {
                (StatusCode::from_u16(status).expect("a status"), Json(body)).into_response()
            }
            Answer::Raw(text) => (StatusCode::OK, text).into_response(),
            Answer::Hang => std::future::pending::<Response>().await,
        };
    }
}

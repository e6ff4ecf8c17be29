//! Questions an adapter asks the client mid-call (`ToolContext::ask`):
//! a person's answer to a form, a completion from the client's model, the
//! client's roots. What a client can answer is what it declared (the
//! request's `_meta` capabilities at 2026-07-28, its session's
//! `initialize` at the 2025 revisions).
//!
//! - 2026-07-28 has no server-to-client requests: a call that asks ends
//!   with an `input_required` result listing the questions and a sealed
//!   `requestState`, and the client calls again with `inputResponses`. The
//!   adapter runs again from the start; its questions already answered now
//!   answer at once ([`RoundInput`]).
//! - The 2025 revisions send the question as a request of the server on
//!   the call's event stream, and wait for the client to POST its answer
//!   ([`StreamInput`]).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::{InputError, InputKind, InputRequest, InputSource};
use serde_json::{Map, Value, json};

use super::notify::Notifier;
use crate::agent_tools::session::ClientRequests;

/// How long a 2025 client has to answer (a person filling in a form).
const ANSWER_LIMIT: Duration = Duration::from_secs(600);

/// The kinds a client's capabilities object declares.
pub(crate) fn declared(capabilities: Option<&Map<String, Value>>) -> Vec<InputKind> {
    InputKind::ALL
        .into_iter()
        .filter(|kind| {
            capabilities
                .and_then(|capabilities| capabilities.get(kind.as_str()))
                .is_some_and(Value::is_object)
        })
        .collect()
}

/// One round of a 2026-07-28 multi-round call: the answers the client gave
/// so far, and the questions asked this round that they do not answer.
#[derive(Debug, Default)]
pub(crate) struct RoundInput {
    supported: Vec<InputKind>,
    answers: Map<String, Value>,
    asked: Mutex<Vec<(String, InputRequest)>>,
}

impl RoundInput {
    pub(crate) fn new(supported: Vec<InputKind>, answers: Map<String, Value>) -> RoundInput {
        RoundInput {
            supported,
            answers,
            asked: Mutex::default(),
        }
    }

    /// The answers so far (what the next round's state carries).
    pub(crate) fn answers(&self) -> &Map<String, Value> {
        &self.answers
    }

    /// The questions of this round no answer answered, in the order asked
    /// (each key once).
    pub(crate) fn questions(&self) -> Vec<(String, InputRequest)> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl InputSource for RoundInput {
    fn supports(&self, kind: InputKind) -> bool {
        self.supported.contains(&kind)
    }

    fn ask(
        &self,
        key: &str,
        request: InputRequest,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let answered = self
            .answers
            .get(key)
            .filter(|answer| request.kind.accepts(answer))
            .cloned();
        if let Some(answer) = answered {
            return futures::future::ready(Ok(answer)).boxed();
        }
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        if !asked.iter().any(|(seen, _)| seen == key) {
            asked.push((key.to_owned(), request));
        }
        futures::future::ready(Err(InputError::Required)).boxed()
    }
}

/// The `inputRequests` of an `input_required` result.
pub(crate) fn input_requests(questions: &[(String, InputRequest)]) -> Value {
    let mut requests = Map::new();
    for (key, request) in questions {
        requests.insert(
            key.clone(),
            json!({ "method": request.kind.method(), "params": request.params }),
        );
    }
    Value::Object(requests)
}

/// A 2025 client's answers: each question is a request of the server on
/// the call's event stream.
#[derive(Debug)]
pub(crate) struct StreamInput {
    supported: Vec<InputKind>,
    notifier: Notifier,
    requests: Arc<ClientRequests>,
}

impl StreamInput {
    pub(crate) fn new(
        supported: Vec<InputKind>,
        notifier: Notifier,
        requests: Arc<ClientRequests>,
    ) -> StreamInput {
        StreamInput {
            supported,
            notifier,
            requests,
        }
    }
}

impl InputSource for StreamInput {
    fn supports(&self, kind: InputKind) -> bool {
        self.supported.contains(&kind)
    }

    fn ask(
        &self,
        _key: &str,
        request: InputRequest,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let (id, pending) = self.requests.expect();
        self.notifier.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": request.kind.method(),
            "params": request.params,
        }));
        async move {
            match pending.wait(ANSWER_LIMIT).await {
                Some(Ok(result)) => Ok(result),
                Some(Err(error)) => Err(InputError::Failed(
                    error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("an error")
                        .chars()
                        .take(500)
                        .collect(),
                )),
                None => Err(InputError::Failed("no answer in time".to_owned())),
            }
        }
        .boxed()
    }
}

/// An input source that keeps every answer it hands out, by key: the
/// answers a long-running tool's `ask_first` gathered, which its job
/// starts with.
pub(crate) struct Recorded {
    inner: Arc<dyn InputSource>,
    answers: Arc<Mutex<Map<String, Value>>>,
}

impl Recorded {
    pub(crate) fn new(inner: Arc<dyn InputSource>) -> Recorded {
        Recorded {
            inner,
            answers: Arc::default(),
        }
    }

    /// The answers so far.
    pub(crate) fn answers(&self) -> Map<String, Value> {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl std::fmt::Debug for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorded")
            .field("answers", &self.answers())
            .finish_non_exhaustive()
    }
}

impl InputSource for Recorded {
    fn supports(&self, kind: InputKind) -> bool {
        self.inner.supports(kind)
    }

    fn ask(
        &self,
        key: &str,
        request: InputRequest,
    ) -> BoxFuture<'static, Result<Value, InputError>> {
        let (asked, answers, key) = (
            self.inner.ask(key, request),
            self.answers.clone(),
            key.to_owned(),
        );
        async move {
            let answer = asked.await?;
            answers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key, answer.clone());
            Ok(answer)
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_round_answers_what_it_was_told_and_lists_the_rest() {
        let answers = json!({
            "user_name": {"action": "accept", "content": {"name": "Alice"}},
            "bad": 12345,
        });
        let round = RoundInput::new(
            vec![InputKind::Elicitation],
            answers.as_object().cloned().unwrap_or_default(),
        );
        let form = InputRequest::elicitation("Name?", json!({"type": "object", "properties": {}}));
        assert_eq!(
            round.ask("user_name", form.clone()).await,
            Ok(json!({"action": "accept", "content": {"name": "Alice"}}))
        );
        // Not an answer's shape: asked again.
        assert_eq!(
            round.ask("bad", form.clone()).await,
            Err(InputError::Required)
        );
        assert_eq!(
            round.ask("more", form.clone()).await,
            Err(InputError::Required)
        );
        assert_eq!(round.ask("more", form).await, Err(InputError::Required));
        let keys: Vec<String> = round.questions().into_iter().map(|(key, _)| key).collect();
        assert_eq!(keys, ["bad", "more"]);
        assert!(!round.supports(InputKind::Sampling));
    }
}

//! 2025-revision sessions of the Streamable HTTP transport: `initialize`
//! issues an `Mcp-Session-Id`, later requests that carry it share what the
//! client set for the session (its log level, what it can answer),
//! and `DELETE` ends it (after which the id is not found: 404). A request
//! without an id is still served, on its own, as before: sessions are what
//! a 2025 client asks for, not a requirement. Kept in this process's memory
//! (a replica that does not know an id answers 404, and the client opens a
//! new session, as the transport's rules say); bounded in number and idle
//! time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use portos_core::{InputKind, LogLevel};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// At most this many live sessions; the one idle longest goes first.
const MAX_SESSIONS: usize = 10_000;
/// A session unused this long is forgotten.
const IDLE_LIMIT: Duration = Duration::from_secs(24 * 60 * 60);

/// One client's session.
#[derive(Debug)]
pub(crate) struct Session {
    id: String,
    state: Mutex<SessionState>,
    /// Where the client's answers to this server's requests are awaited
    /// (shared by every session of one endpoint: an answer names only its
    /// request's id).
    requests: Arc<ClientRequests>,
    /// Cancelled when the session ends: its event stream closes.
    ended: CancellationToken,
}

#[derive(Debug, Default)]
struct SessionState {
    log_level: Option<LogLevel>,
    /// What the client said at `initialize` it can answer.
    answers: Vec<InputKind>,
    /// The resources whose updates it asked to hear of
    /// (`resources/subscribe`).
    subscriptions: Vec<String>,
}

/// The most resources one session subscribes to.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 100;

impl Session {
    /// A session of its own, not kept anywhere (stdio's, which lives as
    /// long as its process).
    pub(crate) fn detached() -> Arc<Session> {
        Session::with_requests(Arc::default())
    }

    fn with_requests(requests: Arc<ClientRequests>) -> Arc<Session> {
        Arc::new(Session {
            id: new_id(),
            state: Mutex::default(),
            requests,
            ended: CancellationToken::new(),
        })
    }

    /// Adds `uri` to the resources it hears updates of; `false` when it
    /// already subscribes to as many as it may.
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        let mut state = self.lock();
        if state.subscriptions.iter().any(|seen| seen == uri) {
            return true;
        }
        if state.subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return false;
        }
        state.subscriptions.push(uri.to_owned());
        true
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.lock().subscriptions.retain(|seen| seen != uri);
    }

    /// The resources it subscribed to.
    pub(crate) fn subscriptions(&self) -> Vec<String> {
        self.lock().subscriptions.clone()
    }

    /// Fires when the session ends.
    pub(crate) fn ended(&self) -> &CancellationToken {
        &self.ended
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Keeps what the client's `initialize` capabilities say it answers
    /// (`elicitation`, `sampling`, `roots`).
    pub(crate) fn set_client_capabilities(&self, capabilities: &serde_json::Map<String, Value>) {
        self.lock().answers = InputKind::ALL
            .into_iter()
            .filter(|kind| {
                capabilities
                    .get(kind.as_str())
                    .is_some_and(Value::is_object)
            })
            .collect();
    }

    /// Every kind the client declared it answers.
    pub(crate) fn answered_kinds(&self) -> Vec<InputKind> {
        self.lock().answers.clone()
    }

    /// Where its answers are awaited.
    pub(crate) fn requests(&self) -> &Arc<ClientRequests> {
        &self.requests
    }

    /// The least severe level the client wants log messages of (`None`:
    /// it never asked, so it gets none).
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        self.lock().log_level
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.lock().log_level = Some(level);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The live sessions of this process.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    live: Mutex<HashMap<String, (Arc<Session>, Instant)>>,
    requests: Arc<ClientRequests>,
}

impl Sessions {
    /// Where the endpoint's clients' answers are awaited.
    pub(crate) fn requests(&self) -> &Arc<ClientRequests> {
        &self.requests
    }

    /// Opens a session (at `initialize`) for a client with `capabilities`.
    pub(crate) fn open(&self, capabilities: &serde_json::Map<String, Value>) -> Arc<Session> {
        let session = Session::with_requests(Arc::clone(&self.requests));
        session.set_client_capabilities(capabilities);
        let now = Instant::now();
        let mut live = self.lock();
        live.retain(|_, (_, seen)| now.duration_since(*seen) < IDLE_LIMIT);
        if live.len() >= MAX_SESSIONS
            && let Some(oldest) = live
                .iter()
                .min_by_key(|(_, (_, seen))| *seen)
                .map(|(id, _)| id.clone())
        {
            live.remove(&oldest);
        }
        live.insert(session.id.clone(), (Arc::clone(&session), now));
        session
    }

    /// The live session `id`, marked as used now.
    pub(crate) fn find(&self, id: &str) -> Option<Arc<Session>> {
        let now = Instant::now();
        let mut live = self.lock();
        match live.get_mut(id) {
            Some((_, seen)) if now.duration_since(*seen) >= IDLE_LIMIT => {
                live.remove(id);
                None
            }
            Some((session, seen)) => {
                *seen = now;
                Some(Arc::clone(session))
            }
            None => None,
        }
    }

    /// Ends session `id`; `false` when there was none.
    pub(crate) fn close(&self, id: &str) -> bool {
        let closed = self.lock().remove(id);
        if let Some((session, _)) = &closed {
            session.ended.cancel();
        }
        closed.is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Arc<Session>, Instant)>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// This server's requests to its clients awaiting their answers, by
/// request id. An answer nobody waits for (late, or never asked) is
/// dropped.
#[derive(Debug, Default)]
pub(crate) struct ClientRequests {
    waiting: Mutex<HashMap<String, oneshot::Sender<Result<Value, Value>>>>,
}

impl ClientRequests {
    /// A new request id and the answer to wait for.
    pub(crate) fn expect(self: &Arc<Self>) -> (String, PendingAnswer) {
        let id = format!("server-{}", uuid::Uuid::new_v4().simple());
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id.clone(), sender);
        (
            id.clone(),
            PendingAnswer {
                id,
                receiver,
                requests: Arc::clone(self),
            },
        )
    }

    /// Hands the client's answer (its `result`, or its `error`) to whoever
    /// waits for request `id`; `false` when nobody does.
    pub(crate) fn answer(&self, id: &str, outcome: Result<Value, Value>) -> bool {
        match self.lock().remove(id) {
            Some(waiting) => waiting.send(outcome).is_ok(),
            None => false,
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Result<Value, Value>>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One answer being waited for; forgotten when dropped.
#[derive(Debug)]
pub(crate) struct PendingAnswer {
    id: String,
    receiver: oneshot::Receiver<Result<Value, Value>>,
    requests: Arc<ClientRequests>,
}

impl PendingAnswer {
    /// The answer, or `None` when the wait ends without one.
    pub(crate) async fn wait(mut self, limit: Duration) -> Option<Result<Value, Value>> {
        tokio::time::timeout(limit, &mut self.receiver)
            .await
            .ok()
            .and_then(Result::ok)
    }
}

impl Drop for PendingAnswer {
    fn drop(&mut self) {
        self.requests.lock().remove(&self.id);
    }
}

/// A session id: 128 random bits, as visible ASCII.
fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_lives_until_it_is_closed() {
        let sessions = Sessions::default();
        let capabilities = serde_json::json!({"sampling": {}, "roots": {"listChanged": true}});
        let session = sessions.open(capabilities.as_object().expect("an object"));
        assert_eq!(
            session.answered_kinds(),
            [InputKind::Sampling, InputKind::Roots]
        );
        assert!(session.id().bytes().all(|b| b.is_ascii_graphic()));
        session.set_log_level(LogLevel::Debug);
        let found = sessions.find(session.id()).expect("live");
        assert_eq!(found.log_level(), Some(LogLevel::Debug));
        assert!(sessions.close(session.id()));
        assert!(sessions.find(session.id()).is_none());
        assert!(!sessions.close(session.id()));
    }

    #[tokio::test]
    async fn an_answer_reaches_whoever_waits_for_it() {
        let requests = Arc::new(ClientRequests::default());
        let (id, pending) = requests.expect();
        assert!(requests.answer(&id, Ok(serde_json::json!({"ok": true}))));
        assert_eq!(
            pending.wait(Duration::from_secs(1)).await,
            Some(Ok(serde_json::json!({"ok": true})))
        );
        // Nobody waits any more: a second answer is dropped.
        assert!(!requests.answer(&id, Ok(Value::Null)));
        let (late, pending) = requests.expect();
        drop(pending);
        assert!(!requests.answer(&late, Ok(Value::Null)));
    }
}

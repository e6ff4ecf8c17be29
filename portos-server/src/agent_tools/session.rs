//! 2025-revision sessions of the Streamable HTTP transport: `initialize`
//! issues an `Mcp-Session-Id`, later requests that carry it share what the
//! client set for the session (its log level, its resource subscriptions),
//! and `DELETE` ends it (after which the id is not found: 404). A request
//! without an id is still served, on its own, as before: sessions are what
//! a 2025 client asks for, not a requirement. Kept in this process's memory
//! (a replica that does not know an id answers 404, and the client opens a
//! new session, as the transport's rules say); bounded in number and idle
//! time.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use portos_core::LogLevel;

/// At most this many live sessions; the one idle longest goes first.
const MAX_SESSIONS: usize = 10_000;
/// A session unused this long is forgotten.
const IDLE_LIMIT: Duration = Duration::from_secs(24 * 60 * 60);
/// At most this many subscriptions per session.
const MAX_SUBSCRIPTIONS: usize = 1_000;

/// One client's session.
#[derive(Debug)]
pub struct Session {
    id: String,
    state: Mutex<SessionState>,
}

#[derive(Debug, Default)]
struct SessionState {
    log_level: Option<LogLevel>,
    subscriptions: HashSet<String>,
}

impl Session {
    /// A session of its own, not kept anywhere (stdio's, which lives as
    /// long as its process).
    pub fn detached() -> Arc<Session> {
        Arc::new(Session {
            id: new_id(),
            state: Mutex::default(),
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The least severe level the client wants log messages of (`None`:
    /// it never asked, so it gets none).
    pub fn log_level(&self) -> Option<LogLevel> {
        self.lock().log_level
    }

    pub fn set_log_level(&self, level: LogLevel) {
        self.lock().log_level = Some(level);
    }

    /// Subscribes to `uri`'s updates; `false` when the session already
    /// holds as many as it may.
    pub fn subscribe(&self, uri: &str) -> bool {
        let mut state = self.lock();
        if state.subscriptions.len() >= MAX_SUBSCRIPTIONS && !state.subscriptions.contains(uri) {
            return false;
        }
        state.subscriptions.insert(uri.to_owned());
        true
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.lock().subscriptions.remove(uri);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The live sessions of this process.
#[derive(Debug, Default)]
pub struct Sessions {
    live: Mutex<HashMap<String, (Arc<Session>, Instant)>>,
}

impl Sessions {
    /// Opens a session (at `initialize`).
    pub fn open(&self) -> Arc<Session> {
        let session = Session::detached();
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
    pub fn find(&self, id: &str) -> Option<Arc<Session>> {
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
    pub fn close(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Arc<Session>, Instant)>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
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
        let session = sessions.open();
        assert!(session.id().bytes().all(|b| b.is_ascii_graphic()));
        session.set_log_level(LogLevel::Debug);
        let found = sessions.find(session.id()).expect("live");
        assert_eq!(found.log_level(), Some(LogLevel::Debug));
        assert!(sessions.close(session.id()));
        assert!(sessions.find(session.id()).is_none());
        assert!(!sessions.close(session.id()));
    }

    #[test]
    fn subscriptions_are_bounded() {
        let session = Session::detached();
        for n in 0..MAX_SUBSCRIPTIONS {
            assert!(session.subscribe(&format!("test://{n}")));
        }
        assert!(!session.subscribe("test://one-more"));
        assert!(session.subscribe("test://0"));
        session.unsubscribe("test://0");
        assert!(session.subscribe("test://one-more"));
    }
}

//! What one server changed that the others on the same database keep in
//! memory: the grants, the Agent Tools settings, API Access, login
//! sessions, the recipe library. A change is announced inside the
//! transaction that makes it (PostgreSQL's `NOTIFY`, delivered when that
//! transaction commits, never if it rolls back); every other server hears
//! it on a connection of its own and reloads what it keeps. On SQLite there
//! is one server, and nothing to announce.

use std::sync::OnceLock;
use std::time::Duration;

use super::sql::{self, Connection, Engine, params};
use super::{Backend, Store, StoreError};

/// The notification channel.
const CHANNEL: &str = "portos_changes";

/// Something servers keep in memory, changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The Persistent Mind's grants.
    Grants,
    /// The Agent Tools settings (and the agent's grants with them).
    AgentContext,
    /// The API Access switches.
    ApiAccess,
    /// A login session ended.
    Sessions,
    /// The saved recipe library (the mind and agent catalogs).
    Recipes,
}

impl Change {
    pub const ALL: [Change; 5] = [
        Change::Grants,
        Change::AgentContext,
        Change::ApiAccess,
        Change::Sessions,
        Change::Recipes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Change::Grants => "grants",
            Change::AgentContext => "agent-context",
            Change::ApiAccess => "api-access",
            Change::Sessions => "sessions",
            Change::Recipes => "recipes",
        }
    }

    fn parse(text: &str) -> Option<Change> {
        Change::ALL
            .into_iter()
            .find(|change| change.as_str() == text)
    }
}

/// What a server hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Another server committed this change.
    Changed(Change),
    /// The feed was (re)connected: changes may have been missed meanwhile,
    /// so everything kept should be read again.
    Resumed,
}

/// This process, among the servers on the database (its own announcements
/// come back to it and are skipped).
fn instance() -> &'static str {
    static INSTANCE: OnceLock<String> = OnceLock::new();
    INSTANCE.get_or_init(|| uuid::Uuid::new_v4().simple().to_string())
}

/// Announces `change` to the other servers when the transaction open on
/// `connection` commits (at once outside one).
pub fn announce(connection: &Connection, change: Change) -> Result<(), StoreError> {
    if connection.engine() == Engine::Postgres {
        connection.execute(
            "SELECT pg_notify(?1, ?2)",
            params![CHANNEL, format!("{}:{}", instance(), change.as_str())],
        )?;
    }
    Ok(())
}

impl Store {
    /// Follows the other servers' changes on a thread of its own
    /// (PostgreSQL only: `false` on SQLite), handing each to `heard` until
    /// it answers false. A lost connection is made again, and `Resumed`
    /// said each time it is (including the first).
    pub fn follow_changes(&self, mut heard: impl FnMut(Heard) -> bool + Send + 'static) -> bool {
        let Backend::Postgres { pool, .. } = &self.backend else {
            return false;
        };
        let url = pool.url().to_owned();
        std::thread::Builder::new()
            .name("portos-changes".to_owned())
            .spawn(move || {
                let mut stopped = false;
                while !stopped {
                    let outcome = sql::postgres_listen(&url, CHANNEL, |payload| {
                        let keep_on = match payload {
                            None => heard(Heard::Resumed),
                            Some(payload) => from_others(payload)
                                .is_none_or(|change| heard(Heard::Changed(change))),
                        };
                        stopped = !keep_on;
                        keep_on
                    });
                    if outcome.is_err() {
                        std::thread::sleep(Duration::from_millis(500));
                    }
                }
            })
            .is_ok()
    }
}

/// The change a payload names, unless this process announced it.
fn from_others(payload: &str) -> Option<Change> {
    let (origin, change) = payload.split_once(':')?;
    if origin == instance() {
        return None;
    }
    Change::parse(change)
}

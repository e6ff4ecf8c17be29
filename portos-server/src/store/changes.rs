//! What one server changed that the others on the same database keep in
//! memory: the grants, the Agent Tools settings, API Access, login
//! sessions, whatever an application's catalogs are made of (its own
//! catalog-change reason, e.g. PortOS's recipe library), and what its
//! resources read (for MCP clients subscribed to them on any server). A
//! change is announced inside the
//! transaction that makes it (PostgreSQL's `NOTIFY`, delivered when that
//! transaction commits, never if it rolls back); every other server hears
//! it on a connection of its own and reloads what it keeps. On SQLite there
//! is one server, and nothing to announce.

use std::sync::OnceLock;

use super::sql::{Connection, Engine, params};
use super::{Store, StoreError};

/// The notification channel.
const CHANNEL: &str = "portos_changes";

/// Something servers keep in memory, changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// An in-process principal's stored grants.
    Grants,
    /// The Agent Tools settings (and the agent's grants with them).
    AgentContext,
    /// The API Access switches.
    ApiAccess,
    /// A login session ended.
    Sessions,
    /// A durable job's event (its `seq` in `tool_job_events`): followers
    /// of the job on every server hear it, and the server running it acts
    /// on a cancel or a confirmation made elsewhere.
    Job(i64),
    /// A call finished here (its result is kept): servers whose tools
    /// rooms have members tell them.
    Called(String),
    /// This server's tools room has members: servers that finish calls
    /// should say so (for the next while).
    Watching,
    /// Something an application's catalogs are made of changed: the other
    /// servers tell their catalog subscribers, with this reason (the one
    /// the writing server gave its own).
    Catalog(String),
    /// What the resource at this URI reads changed: the other servers tell
    /// the MCP clients subscribed to it (`Events::resource_updated`).
    Resource(String),
}

/// The wire name of a finished call (`called:<requestId>`).
const CALLED_PREFIX: &str = "called:";

/// The wire name of a job's event (`job:<seq>`).
const JOB_PREFIX: &str = "job:";

/// The wire name of a catalog change (`catalog:<reason>`).
const CATALOG_PREFIX: &str = "catalog:";

/// The wire name of a resource's update (`resource:<uri>`).
const RESOURCE_PREFIX: &str = "resource:";

/// A resource URI fits in a notification (PostgreSQL's payload is at most
/// 8000 bytes) and has no whitespace or control characters.
fn is_resource_uri(uri: &str) -> bool {
    (1..=2048).contains(&uri.len()) && !uri.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A catalog-change reason fits in a notification and reads as a name:
/// 1 to 64 of `a-z`, `0-9`, `-`, `_`, `.`.
fn is_reason(reason: &str) -> bool {
    (1..=64).contains(&reason.len())
        && reason
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b))
}

impl Change {
    /// The change to an application's catalogs that subscribers hear as
    /// `reason`.
    pub fn catalog(reason: &str) -> Change {
        Change::Catalog(reason.to_owned())
    }

    /// The update of the resource at `uri`, which the other servers' MCP
    /// subscribers hear of.
    pub fn resource(uri: &str) -> Change {
        Change::Resource(uri.to_owned())
    }

    fn to_wire(&self) -> String {
        match self {
            Change::Grants => "grants".to_owned(),
            Change::AgentContext => "agent-context".to_owned(),
            Change::ApiAccess => "api-access".to_owned(),
            Change::Sessions => "sessions".to_owned(),
            Change::Job(seq) => format!("{JOB_PREFIX}{seq}"),
            Change::Called(request_id) => format!("{CALLED_PREFIX}{request_id}"),
            Change::Watching => "watching".to_owned(),
            Change::Catalog(reason) => format!("{CATALOG_PREFIX}{reason}"),
            Change::Resource(uri) => format!("{RESOURCE_PREFIX}{uri}"),
        }
    }

    #[cfg(any(test, feature = "postgres"))]
    fn from_wire(text: &str) -> Option<Change> {
        match text {
            "grants" => Some(Change::Grants),
            "agent-context" => Some(Change::AgentContext),
            "api-access" => Some(Change::ApiAccess),
            "sessions" => Some(Change::Sessions),
            "watching" => Some(Change::Watching),
            _ => {
                if let Some(request_id) = text.strip_prefix(CALLED_PREFIX) {
                    return (!request_id.is_empty()).then(|| Change::Called(request_id.to_owned()));
                }
                if let Some(seq) = text.strip_prefix(JOB_PREFIX) {
                    return seq.parse().ok().map(Change::Job);
                }
                if let Some(uri) = text.strip_prefix(RESOURCE_PREFIX) {
                    return is_resource_uri(uri).then(|| Change::resource(uri));
                }
                text.strip_prefix(CATALOG_PREFIX)
                    .filter(|reason| is_reason(reason))
                    .map(Change::catalog)
            }
        }
    }
}

/// What a server hears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Another server committed this change.
    Changed(Change),
    /// The feed was (re)connected: changes may have been missed meanwhile,
    /// so everything kept should be read again.
    Resumed,
}

/// This process, among the servers on the database (its own announcements
/// come back to it and are skipped; the jobs it runs carry it).
pub(crate) fn instance() -> &'static str {
    static INSTANCE: OnceLock<String> = OnceLock::new();
    INSTANCE.get_or_init(|| uuid::Uuid::new_v4().simple().to_string())
}

/// Announces `change` to the other servers when the transaction open on
/// `connection` commits (at once outside one). A catalog reason that is
/// not a name (see [`Change::Catalog`]) is a programming error, refused
/// here rather than dropped silently by the servers that would hear it.
pub fn announce(connection: &Connection, change: &Change) -> Result<(), StoreError> {
    match change {
        Change::Catalog(reason) if !is_reason(reason) => {
            return Err(StoreError::CatalogReason(reason.clone()));
        }
        Change::Resource(uri) if !is_resource_uri(uri) => {
            return Err(StoreError::ResourceUri(uri.clone()));
        }
        _ => {}
    }
    if connection.engine() == Engine::Postgres {
        connection.execute(
            "SELECT pg_notify(?1, ?2)",
            params![CHANNEL, format!("{}:{}", instance(), change.to_wire())],
        )?;
    }
    Ok(())
}

impl Store {
    /// Follows the other servers' changes on a thread of its own
    /// (PostgreSQL only: `false` on SQLite), handing each to `heard` until
    /// it answers false. A lost connection is made again, and `Resumed`
    /// said each time it is (including the first).
    pub fn follow_changes(&self, heard: impl FnMut(Heard) -> bool + Send + 'static) -> bool {
        #[cfg(feature = "postgres")]
        if let super::Backend::Postgres { pool, .. } = &self.backend {
            return follow(pool.url().to_owned(), heard);
        }
        let _ = heard;
        false
    }
}

/// Hears the changes on the database at `url` on a thread of its own (see
/// [`Store::follow_changes`]).
#[cfg(feature = "postgres")]
fn follow(url: String, mut heard: impl FnMut(Heard) -> bool + Send + 'static) -> bool {
    std::thread::Builder::new()
        .name("portos-changes".to_owned())
        .spawn(move || {
            let mut stopped = false;
            while !stopped {
                let outcome = super::sql::postgres_listen(&url, CHANNEL, |payload| {
                    let keep_on = match payload {
                        None => heard(Heard::Resumed),
                        Some(payload) => {
                            from_others(payload).is_none_or(|change| heard(Heard::Changed(change)))
                        }
                    };
                    stopped = !keep_on;
                    keep_on
                });
                if outcome.is_err() {
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
            }
        })
        .is_ok()
}

/// The change a payload names, unless this process announced it.
#[cfg(feature = "postgres")]
fn from_others(payload: &str) -> Option<Change> {
    let (origin, change) = payload.split_once(':')?;
    if origin == instance() {
        return None;
    }
    Change::from_wire(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_reads_back_as_itself() {
        for change in [
            Change::Grants,
            Change::AgentContext,
            Change::ApiAccess,
            Change::Sessions,
            Change::catalog("recipes"),
            Change::catalog("lab.hosts_v2"),
            Change::Job(42),
            Change::Called("req:with:colons-1".to_owned()),
            Change::Watching,
            Change::resource("lab://hosts/nas-1"),
            Change::resource("portos-context://scope/brain"),
        ] {
            assert_eq!(Change::from_wire(&change.to_wire()), Some(change));
        }
    }

    #[test]
    fn payloads_that_name_nothing_known_are_ignored() {
        for wire in [
            "",
            "recipes",
            "catalog:",
            "catalog:Recipes",
            "catalog:a b",
            "job:",
            "job:x",
            "job:7:id",
            "called:",
            "resource:",
            "resource:a b",
            "resource:a\nb",
        ] {
            assert_eq!(Change::from_wire(wire), None, "{wire:?}");
        }
        assert_eq!(
            Change::from_wire(&format!("resource:{}", "x".repeat(2049))),
            None
        );
        assert_eq!(
            Change::from_wire(&format!("catalog:{}", "x".repeat(65))),
            None
        );
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_server_skips_its_own_announcements() {
        assert_eq!(from_others(&format!("{}:grants", instance())), None);
        assert_eq!(from_others("another:grants"), Some(Change::Grants));
    }
}

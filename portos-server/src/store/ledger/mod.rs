//! Tool calls kept in the `tool_calls` table, so that a requestId is
//! answered the same way after a restart (docs/reference.md#idempotency):
//! the journal of a server that owns its SQLite store alone (`local`) and,
//! with the `postgres` feature, the ledger of servers that share a
//! PostgreSQL database (`shared`). Both keep the same rows (`kept`).

#[cfg(feature = "postgres")]
mod attempt;
#[cfg(feature = "postgres")]
mod claimed;
#[cfg(feature = "postgres")]
mod connections;
mod kept;
mod local;
#[cfg(feature = "postgres")]
mod shared;
#[cfg(feature = "postgres")]
mod verdict;

use std::time::Duration;

#[cfg(not(feature = "postgres"))]
use portos_core::contract::ToolError;

pub(crate) use local::LocalCalls;
#[cfg(feature = "postgres")]
pub use shared::SharedCalls;

/// Every this many calls, results beyond the newest `max_results` are
/// cleared (one index walk shared by many calls).
const PRUNE_EVERY: i64 = 64;

/// The ledger of a store that several servers share: there is none without
/// the `postgres` feature, so [`SharedCalls::of`] answers `None` (and no
/// value of this type exists).
#[cfg(not(feature = "postgres"))]
#[derive(Debug)]
pub struct SharedCalls {
    never: std::convert::Infallible,
}

#[cfg(not(feature = "postgres"))]
impl SharedCalls {
    /// `None`: without the `postgres` feature every store is one server's.
    pub fn of(store: &super::Store) -> Option<std::sync::Arc<SharedCalls>> {
        let _ = store;
        None
    }
}

#[cfg(not(feature = "postgres"))]
impl portos_core::registry::CallLedger for SharedCalls {
    fn claim(
        &self,
        _: portos_core::registry::Claim,
    ) -> futures::future::BoxFuture<'static, Result<portos_core::registry::Claimed, ToolError>>
    {
        match self.never {}
    }

    fn retained(
        &self,
        _: std::sync::Arc<str>,
        _: portos_core::registry::RegistryLimits,
    ) -> futures::future::BoxFuture<
        'static,
        Result<Option<portos_core::contract::ToolResult>, ToolError>,
    > {
        match self.never {}
    }
}

fn now_ms() -> i64 {
    millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    )
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

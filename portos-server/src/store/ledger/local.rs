//! The journal of a server that owns its SQLite store alone
//! ([`portos_core::CallJournal`]): each write's fingerprint and result kept
//! in `tool_calls`, in the transaction of the write's own store work (the
//! call's session), so a retry after a crash or a restart replays it. The
//! registry's memory stays the index (exact for one process); at start-up
//! it is given what this journal kept ([`LocalCalls::recall`]).
//!
//! Rows: `state` `kept` (the result) or `evicted` (the fingerprint only,
//! once the newest `max_results` kept results moved past it), `expires_at_ms`
//! the fingerprint's end. Reads are not kept here: they change nothing.

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::contract::{ErrorCode, ToolError, ToolResult};
use portos_core::registry::{CallJournal, Fingerprint, JournaledCall, Recalled, RegistryLimits};

use super::kept::{CallRow, KeptResult, max_fingerprints, max_results};
use super::{PRUNE_EVERY, millis, now_ms};
use crate::store::sql::{Connection, params};
use crate::store::{Store, StoreError};

/// The journal of a SQLite store.
#[derive(Clone, Debug)]
pub(crate) struct LocalCalls {
    store: Store,
}

impl LocalCalls {
    /// The journal of `store`, if this server owns it alone (SQLite); a
    /// shared store has the cluster's ledger instead.
    pub(crate) fn of(store: &Store) -> Option<Arc<LocalCalls>> {
        (!store.is_shared()).then(|| {
            Arc::new(LocalCalls {
                store: store.clone(),
            })
        })
    }

    /// What the journal kept of earlier processes' writes, oldest first:
    /// every fingerprint not yet expired (the newest `max_tombstones`), each
    /// with its result while kept. It writes nothing (a dump opens the
    /// store read-only); expired rows go when later writes prune.
    pub(crate) fn recall(&self, limits: RegistryLimits) -> Result<Vec<Recalled>, StoreError> {
        let max = max_fingerprints(limits);
        self.store.run_blocking(move |c| {
            let now = now_ms();
            let mut statement = c.prepare(
                "SELECT request_id, seq, fingerprint, state, lease_until_ms, expires_at_ms,
                        name, failed, output, error
                 FROM tool_calls WHERE expires_at_ms > ?1 ORDER BY seq DESC LIMIT ?2",
            )?;
            let rows = statement.query_map(params![now, max], |row| {
                Ok((row.get::<_, String>(0)?, CallRow::read(row, 1, false)?))
            })?;
            let mut recalled = Vec::new();
            for entry in rows {
                let (request_id, row) = entry?;
                let Some(fingerprint) = Fingerprint::from_hex(&row.fingerprint) else {
                    continue;
                };
                let expires_in = Duration::from_millis(
                    u64::try_from(row.expires_at_ms.saturating_sub(now)).unwrap_or(0),
                );
                let result = (row.state == "kept").then(|| row.into_result(&request_id));
                recalled.push(Recalled {
                    request_id,
                    fingerprint,
                    expires_in,
                    result,
                });
            }
            recalled.reverse();
            Ok(recalled)
        })
    }
}

impl CallJournal for LocalCalls {
    fn write(
        &self,
        call: JournaledCall,
        run: BoxFuture<'static, ToolResult>,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        let store = self.store.clone();
        async move {
            store
                .write_session(run, move |result| {
                    let kept = KeptResult::of(result);
                    Box::new(move |c: &mut Connection| keep(c, &call, &kept))
                })
                .await
                .map_err(|error| {
                    tracing::error!(%error, "a write call's result could not be kept; it was undone");
                    ToolError::new(
                        ErrorCode::ServiceUnavailable,
                        format!(
                            "The call could not be kept, so nothing of it happened ({error}); send it again with the same requestId"
                        ),
                    )
                })
        }
        .boxed()
    }
}

/// Keeps `call`'s result (a row of its own, the newest; a row left by an
/// earlier run of this requestId, whose fingerprint expired since, makes
/// way for it). Every [`PRUNE_EVERY`] rows the limits are applied, in one
/// pass shared by that many calls: results beyond the newest `max_results`
/// leave only their fingerprint, and fingerprints past their expiry or
/// beyond the newest `max_tombstones` go. (In between, a few more
/// results than `max_results` may be in the table; the registry keeps the
/// newest `max_results` of them at start-up, as it would have in memory.)
fn keep(c: &Connection, call: &JournaledCall, kept: &KeptResult) -> Result<(), StoreError> {
    let limits = call.limits;
    let now = now_ms();
    let seq: i64 = c
        .prepare_cached(
            "INSERT OR REPLACE INTO tool_calls
                 (request_id, fingerprint, state, lease_until_ms, expires_at_ms, name, failed, output, error)
             VALUES (?1, ?2, 'kept', 0, ?3, ?4, ?5, ?6, ?7)
             RETURNING seq",
        )?
        .query_row(
            params![
                &*call.request_id,
                call.fingerprint.to_hex(),
                now.saturating_add(millis(limits.retention)),
                kept.name,
                kept.failed,
                kept.output,
                kept.error
            ],
            |row| row.get(0),
        )?;
    if seq % PRUNE_EVERY == 0 {
        let max_results = max_results(limits);
        let max_fingerprints = max_fingerprints(limits);
        c.execute(
            "UPDATE tool_calls SET state = 'evicted', name = NULL, output = NULL, error = NULL
             WHERE state = 'kept' AND seq <= (
                 SELECT seq FROM tool_calls WHERE state = 'kept'
                 ORDER BY seq DESC LIMIT 1 OFFSET ?1
             )",
            [max_results],
        )?;
        // Each delete walks only what it deletes: rows expire in the order
        // they were kept (a fixed retention), so the expired ones are the
        // oldest, below the first that has not expired; and the newest
        // `max_tombstones` are the last that many sequence numbers (a row
        // kept again leaves a gap, so at times a few fewer stay).
        c.execute(
            "DELETE FROM tool_calls WHERE seq < coalesce(
                 (SELECT seq FROM tool_calls WHERE expires_at_ms > ?1 ORDER BY seq LIMIT 1),
                 ?2
             )",
            params![now, seq + 1],
        )?;
        c.execute(
            "DELETE FROM tool_calls WHERE seq <= ?1",
            [seq.saturating_sub(max_fingerprints)],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use portos_core::contract::ToolResult;
    use portos_core::registry::{Fingerprint, JournaledCall, RegistryLimits};

    use super::{KeptResult, LocalCalls, PRUNE_EVERY, keep};
    use crate::store::Store;

    fn call(n: i64, limits: RegistryLimits) -> JournaledCall {
        JournaledCall {
            request_id: Arc::from(format!("call-{n}")),
            fingerprint: Fingerprint::from_hex(&format!("{n:064x}")).expect("64 hex digits"),
            limits,
        }
    }

    #[test]
    fn the_limits_hold_at_every_prune_and_what_is_kept_is_recalled() {
        let store = Store::open_in_memory(&[]).expect("store");
        let limits = RegistryLimits {
            max_results: 2,
            max_tombstones: 5,
            retention: std::time::Duration::from_secs(3600),
        };
        let result = KeptResult::of(&ToolResult::from_adapter_error(
            "x".to_owned(),
            "t.write".to_owned(),
            "failed on purpose",
        ));
        let rows = PRUNE_EVERY * 2;
        store
            .run_blocking(|c| {
                for n in 1..=rows {
                    keep(c, &call(n, limits), &result)?;
                }
                Ok(())
            })
            .expect("kept");
        let (kept, all): (i64, i64) = store
            .run_blocking(|c| {
                Ok(c.query_row(
                    "SELECT count(*) FILTER (WHERE state = 'kept'), count(*) FROM tool_calls",
                    [],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )?)
            })
            .expect("counted");
        assert_eq!((kept, all), (2, 5), "pruned at the last row");
        let recalled = LocalCalls::of(&store)
            .expect("a journal")
            .recall(limits)
            .expect("recalled");
        let ids: Vec<&str> = recalled.iter().map(|r| r.request_id.as_str()).collect();
        assert_eq!(
            ids,
            ["call-124", "call-125", "call-126", "call-127", "call-128"]
        );
        assert_eq!(
            recalled.iter().filter(|r| r.result.is_some()).count(),
            2,
            "the two newest keep their results"
        );
        assert!(recalled[4].fingerprint == call(128, limits).fingerprint);
    }
}

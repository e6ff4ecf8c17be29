//! The row of a call in `tool_calls` and the result it keeps, as both
//! ledgers read them (what the cluster's makes of a row: `verdict`).

use std::sync::Arc;

use portos_core::contract::{OutputJson, SCHEMA_VERSION, ToolResult, ToolState};
use portos_core::registry::RegistryLimits;

use crate::store::sql::{self, Row};

/// A row of `tool_calls`, and how many results newer than it are kept.
#[cfg_attr(
    not(feature = "postgres"),
    expect(
        dead_code,
        reason = "claims and their order are the cluster's ledger's (feature `postgres`)"
    )
)]
pub(super) struct CallRow {
    pub(super) seq: i64,
    pub(super) fingerprint: String,
    pub(super) state: String,
    pub(super) lease_until_ms: i64,
    pub(super) expires_at_ms: i64,
    pub(super) name: Option<String>,
    pub(super) failed: bool,
    pub(super) output: Option<String>,
    pub(super) error: Option<String>,
    /// Kept results newer than this row's, counted up to the limit.
    pub(super) newer_kept: i64,
}

impl CallRow {
    /// The kept envelope (its `duplicate` false, as kept).
    pub(super) fn into_result(self, request_id: &str) -> ToolResult {
        let output = self
            .output
            .and_then(|text| OutputJson::from_text(text).ok());
        ToolResult {
            kind: "portos_tool_result",
            request_id: request_id.to_owned(),
            name: self.name.unwrap_or_default(),
            version: SCHEMA_VERSION,
            state: if self.failed {
                ToolState::Failed
            } else {
                ToolState::Completed
            },
            duplicate: false,
            result: output.map(Arc::new),
            error: self.error,
        }
    }

    /// The row whose columns (`seq, fingerprint, state, lease_until_ms,
    /// expires_at_ms, name, failed, output, error`) start at `first`, and
    /// after them the count of newer kept results, if `counted`.
    pub(super) fn read(row: &Row<'_>, first: usize, counted: bool) -> Result<CallRow, sql::Error> {
        Ok(CallRow {
            seq: row.get(first)?,
            fingerprint: row.get(first + 1)?,
            state: row.get(first + 2)?,
            lease_until_ms: row.get(first + 3)?,
            expires_at_ms: row.get(first + 4)?,
            name: row.get(first + 5)?,
            failed: row.get::<_, Option<i64>>(first + 6)?.unwrap_or(0) != 0,
            output: row.get(first + 7)?,
            error: row.get(first + 8)?,
            newer_kept: if counted { row.get(first + 9)? } else { 0 },
        })
    }
}

pub(super) fn max_results(limits: RegistryLimits) -> i64 {
    i64::try_from(limits.max_results).unwrap_or(i64::MAX)
}

pub(super) fn max_fingerprints(limits: RegistryLimits) -> i64 {
    i64::try_from(limits.max_tombstones).unwrap_or(i64::MAX)
}

/// What of a result the row keeps.
pub(super) struct KeptResult {
    pub(super) name: String,
    pub(super) failed: bool,
    pub(super) output: Option<String>,
    pub(super) error: Option<String>,
}

impl KeptResult {
    pub(super) fn of(result: &ToolResult) -> KeptResult {
        KeptResult {
            name: result.name.clone(),
            failed: !result.is_completed(),
            output: result
                .result
                .as_ref()
                .map(|output| output.text().to_owned()),
            error: result.error.clone(),
        }
    }
}

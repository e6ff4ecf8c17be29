//! What the registry tells its meter about each call: which tool, who
//! called, how it ended and how long it took. The registry keeps no numbers
//! of its own; the serving runtime counts them (its `/metrics`).

use std::sync::Arc;
use std::time::Duration;

use crate::context::Authority;
use crate::contract::{ErrorCode, ToolError, ToolResult};

/// The tool a call named, as far as the registry could tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeteredTool<'a> {
    /// A linked tool: its position in [`Registry::tools`](super::Registry::tools)
    /// (so a meter can keep one slot per tool and look nothing up) and its
    /// canonical name.
    Linked {
        /// The tool's position in the registry's list.
        index: usize,
        /// The tool's canonical name.
        name: &'static str,
    },
    /// A name the run-time source claims (a saved recipe).
    Dynamic(&'a str),
    /// A name nobody answers to: never a label of its own, since callers
    /// choose it.
    Unknown,
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEnd {
    /// The adapter ran (here or, for a replay, before) and completed.
    Completed,
    /// The adapter ran and failed (or panicked).
    Failed,
    /// Nothing ran: the contract's refusal with this code.
    Refused(ErrorCode),
}

impl CallEnd {
    /// How `answer` ended.
    pub fn of(answer: Result<&ToolResult, &ToolError>) -> CallEnd {
        match answer {
            Ok(result) if result.is_completed() => CallEnd::Completed,
            Ok(_) => CallEnd::Failed,
            Err(error) => CallEnd::Refused(error.code),
        }
    }
}

/// One call through [`Registry::answer`](super::Registry::answer), as its
/// meter is told when it ends.
#[derive(Clone, Copy, Debug)]
pub struct CallReport<'a> {
    /// The tool the call named.
    pub tool: MeteredTool<'a>,
    /// Who called: its scope is the principal's.
    pub authority: &'a Authority,
    /// How the call ended.
    pub end: CallEnd,
    /// Answered from an earlier run of the same requestId (a replay).
    pub duplicate: bool,
    /// From the call's arrival to its answer, waiting for a replayed run
    /// included.
    pub elapsed: Duration,
}

/// Told of every call when it ends (completed, failed, refused or
/// replayed); it runs on the caller's task, so it must be quick and must
/// not lock what other callers wait for.
pub type CallMeter = Arc<dyn Fn(&CallReport<'_>) + Send + Sync>;

//! The spans the framework opens around a call: OpenTelemetry's GenAI
//! `execute_tool` span and one span per stage of the registry that costs
//! time. They are `tracing` spans of one target, [`SPAN_TARGET`], which
//! nothing subscribes to unless the server exports traces: with export off
//! each costs one cached check and records nothing.
//!
//! Their attributes are names, ids, sizes, states and error codes, never a
//! call's arguments or result, nor anything of the caller's credential.

use futures::future::Either;

/// The `tracing` target of every span meant for trace export.
pub const SPAN_TARGET: &str = "telemetry";

/// The `error.type` of a call that ran and failed (the MCP conventions'
/// word for a tool result with `isError`).
pub const TOOL_ERROR: &str = "tool_error";

/// `run` inside `span`; when spans are not recorded, `run` as it is: no
/// wrapper to poll through on every wake. Not an `async fn`: its state
/// would keep `run` as an argument beside the awaited copy, doubling what
/// every caller's future moves. It holds a clone of `span`, not the
/// borrow (`use<F>`), so it may outlive it (a detached task).
pub fn in_span<F: Future>(
    span: &tracing::Span,
    run: F,
) -> impl Future<Output = F::Output> + use<F> {
    if span.is_disabled() {
        Either::Left(run)
    } else {
        Either::Right(tracing::Instrument::instrument(run, span.clone()))
    }
}

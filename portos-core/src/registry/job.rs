//! A long-running call's way through the registry. The checks are the ones
//! every call passes ([`Registry::check`]); what differs is who decides when
//! the adapter runs and what it is told: the server's durable job records
//! start it once the job is committed, with the job's own cancellation
//! signal and a sink for its progress.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{Fingerprint, Registry};
use crate::context::{Authority, CallChannel, InputError, ToolContext};
use crate::contract::{ToolError, ToolResult};
use crate::descriptor::{BoundCall, ToolDescriptor};

/// A call that passed every check and has not run yet.
pub struct PreparedCall {
    descriptor: &'static ToolDescriptor,
    authority: Authority,
    bound: BoundCall,
    fingerprint: Fingerprint,
}

impl PreparedCall {
    /// The tool's canonical name.
    pub fn name(&self) -> &'static str {
        self.descriptor.name
    }

    /// The authority the call runs under.
    pub fn authority(&self) -> &Authority {
        &self.authority
    }

    /// The idempotency fingerprint (docs/reference.md#fingerprint), as for any
    /// call.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The arguments as the adapter will see them (what a job keeps, so it
    /// can run again after a restart).
    pub fn arguments(&self) -> &Value {
        self.bound.normalized()
    }
}

impl std::fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("name", &self.descriptor.name)
            .field("authority", &self.authority)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// Whether `name` resolves to a linked tool declared `long_running`.
    pub fn is_long_running(&self, name: &str) -> bool {
        self.resolve(name)
            .is_some_and(|tool| tool.policy.long_running)
    }

    /// Runs every check of a call without running it: `Err` is the same
    /// refusal [`Registry::call`] would answer.
    pub fn prepare(
        &self,
        authority: &Authority,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<PreparedCall, ToolError> {
        let (tool, bound, fingerprint) = self.check(authority, name, arguments)?;
        Ok(PreparedCall {
            descriptor: tool.descriptor,
            authority: authority.clone(),
            bound,
            fingerprint,
        })
    }

    /// Asks a long-running tool's questions before its job begins (its
    /// `ask_first`), on `channel`: `Ok` once each is answered (at once for
    /// a tool without any). An MCP 2026-07-28 round ends with
    /// [`InputError::Required`] until its client has answered them all.
    pub fn ask_first(
        &self,
        prepared: &PreparedCall,
        request_id: Arc<str>,
        channel: CallChannel,
    ) -> BoxFuture<'static, Result<(), InputError>> {
        let Some(ask) = prepared.descriptor.ask_first else {
            return futures::future::ready(Ok(())).boxed();
        };
        let ctx = ToolContext::new(
            prepared.authority.clone(),
            request_id,
            self.shutdown_token().child_token(),
            self.state.clone(),
        )
        .with_channel(channel);
        // The author's code: a panic is a failed question, not a lost call.
        AssertUnwindSafe(ask(ctx, prepared.arguments().clone()))
            .catch_unwind()
            .map(|asked| {
                asked.unwrap_or_else(|_| {
                    Err(InputError::Failed(
                        "the tool's questions crashed".to_owned(),
                    ))
                })
            })
            .boxed()
    }

    /// Runs a prepared call to its normalized result. `cancel` is what the
    /// adapter sees as `ctx.cancellation()` (a job's own signal, a child of
    /// the server's shutdown); `channel` takes its progress reports and
    /// answers its questions. The observers are told, as for any adapter
    /// run. A panic is a failed result, marked as one ([`PreparedRun`]).
    pub fn run_prepared(
        &self,
        prepared: PreparedCall,
        request_id: Arc<str>,
        cancel: CancellationToken,
        channel: CallChannel,
    ) -> BoxFuture<'static, PreparedRun> {
        let PreparedCall {
            descriptor,
            authority,
            bound,
            ..
        } = prepared;
        let ctx = ToolContext::new(
            authority.clone(),
            request_id.clone(),
            cancel,
            self.state.clone(),
        )
        .with_channel(channel);
        let run = AssertUnwindSafe(bound.run(ctx)).catch_unwind();
        let observers = self.observers.clone();
        async move {
            let id = String::from(&*request_id);
            let name = descriptor.name.to_owned();
            let (result, crashed) = match run.await {
                Ok(Ok(output)) => (ToolResult::from_adapter_output(id, name, output), false),
                Ok(Err(message)) => (ToolResult::from_adapter_error(id, name, &message), false),
                Err(_) => (
                    ToolResult::from_adapter_error(id, name, "Tool execution failed"),
                    true,
                ),
            };
            for observer in observers.iter() {
                observer(&result, &authority);
            }
            PreparedRun { result, crashed }
        }
        .boxed()
    }
}

/// How a prepared call's run ended.
#[derive(Debug)]
pub struct PreparedRun {
    /// The normalized result, as any call answers it.
    pub result: ToolResult,
    /// The adapter panicked: the result is the contract's failure, and no
    /// answer of the tool's (a job records the run as the server's fault).
    pub crashed: bool,
}

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
use crate::context::{Authority, ProgressSink, ToolContext};
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

    /// Runs a prepared call to its normalized result. `cancel` is what the
    /// adapter sees as `ctx.cancellation()` (a job's own signal, a child of
    /// the server's shutdown); `progress` receives its reports. The observers
    /// are told, as for any adapter run. A panic is a failed result.
    pub fn run_prepared(
        &self,
        prepared: PreparedCall,
        request_id: Arc<str>,
        cancel: CancellationToken,
        progress: Arc<dyn ProgressSink>,
    ) -> BoxFuture<'static, ToolResult> {
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
        .with_progress(progress);
        let run = AssertUnwindSafe(bound.run(ctx)).catch_unwind();
        let observers = self.observers.clone();
        async move {
            let id = String::from(&*request_id);
            let name = descriptor.name.to_owned();
            let result = match run.await {
                Ok(Ok(output)) => ToolResult::from_adapter_output(id, name, output),
                Ok(Err(message)) => ToolResult::from_adapter_error(id, name, &message),
                Err(_) => ToolResult::from_adapter_error(id, name, "Tool execution failed"),
            };
            for observer in observers.iter() {
                observer(&result, &authority);
            }
            result
        }
        .boxed()
    }
}

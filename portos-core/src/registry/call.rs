//! `Registry::call`: the one path every caller takes to a tool.

use std::sync::Arc;

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use futures::future::Either;
use serde_json::Value;

use super::idempotency::{Admission, SharedResult};
use super::{Fingerprint, RegisteredTool, Registry};
use crate::context::{Authority, ToolContext};
use crate::contract::{ErrorCode, Scope, ToolCall, ToolError, ToolResult};
use crate::descriptor::BoundCall;

impl Registry {
    /// Runs `call` with the server-derived `authority`.
    ///
    /// `Err` is a refusal (nothing ran); `Ok` is the normalized outcome,
    /// completed or failed.
    pub async fn call(
        &self,
        authority: &Authority,
        call: ToolCall,
    ) -> Result<ToolResult, ToolError> {
        let (shared, duplicate) = self.admit(authority, call)?;
        let result = shared.await;
        let mut result = Arc::unwrap_or_clone(result);
        result.duplicate = duplicate;
        Ok(result)
    }

    /// Everything up to (and including) starting the adapter; the returned
    /// future resolves to the result.
    fn admit(
        &self,
        authority: &Authority,
        call: ToolCall,
    ) -> Result<(SharedResult, bool), ToolError> {
        let tool = self.resolve(&call.name).ok_or_else(|| {
            ToolError::new(
                ErrorCode::ToolNotFound,
                format!("Unknown tool '{}'", call.name),
            )
        })?;
        authorize(tool, authority)?;
        // After authorization, so an unauthorized caller learns nothing about
        // the tool's state; before validation, since nothing would run anyway.
        if let Some(reason) = self.unavailable_reason(tool.name()) {
            return Err(ToolError::new(
                ErrorCode::ToolUnavailable,
                format!("Tool '{}' is unavailable: {reason}", tool.name()),
            ));
        }
        let bound = validate(tool, call.arguments)?;
        let fingerprint = Fingerprint::of_call(tool.name(), bound.normalized(), authority.scope);

        let request_id: Arc<str> = Arc::from(call.request_id.as_str());
        let admission = self.calls.admit(&call.request_id, fingerprint, || {
            self.start(tool, authority, request_id, bound)
        })?;
        Ok(match admission {
            Admission::Fresh(shared) => (shared, false),
            Admission::Replay(shared) => (shared, true),
        })
    }

    /// Starts the adapter. A write is spawned so it runs to completion even
    /// if the caller goes away: an acknowledged write is never half-done
    /// because a client left. A read runs on the caller's task (no spawn, the
    /// cheap path): if the caller leaves, a replay resumes it, and nothing
    /// is lost by stopping it.
    fn start(
        &self,
        tool: &RegisteredTool,
        authority: &Authority,
        request_id: Arc<str>,
        bound: BoundCall,
    ) -> SharedResult {
        let ctx = ToolContext::new(
            *authority,
            request_id.clone(),
            self.shutdown.clone(),
            self.state.clone(),
            tool.descriptor.state,
        );
        let name = tool.name();
        // A panicking adapter is a failed call, not a crash, on either path.
        let run = AssertUnwindSafe(bound.run(ctx)).catch_unwind();
        let outcome = if tool.policy.side_effect.is_read() {
            Either::Left(run.map(Result::ok))
        } else {
            Either::Right(tokio::spawn(run).map(|joined| joined.ok().and_then(Result::ok)))
        };
        let observers = self.observers.clone();
        async move {
            let id = request_id.to_string();
            let name = name.to_owned();
            let result = Arc::new(match outcome.await {
                Some(Ok(value)) => ToolResult::from_adapter_value(id, name, value),
                Some(Err(message)) => ToolResult::from_adapter_error(id, name, &message),
                None => ToolResult::from_adapter_error(id, name, "Tool execution failed"),
            });
            for observer in observers.iter() {
                observer(&result);
            }
            result
        }
        .boxed()
        .shared()
    }

    /// The retained result of `request_id` (`GET /calls/:requestId`): waits
    /// for a call still running; `duplicate` is always false here.
    pub async fn retained(&self, request_id: &str) -> Result<ToolResult, ToolError> {
        let shared = self
            .calls
            .retained(request_id)
            .ok_or_else(|| ToolError::new(ErrorCode::ToolCallNotFound, "Tool call not found"))?;
        Ok(Arc::unwrap_or_clone(shared.await))
    }
}

/// Scope, then capabilities (mind, agent), then authentication (ui writes).
fn authorize(tool: &RegisteredTool, authority: &Authority) -> Result<(), ToolError> {
    let name = tool.name();
    let scope = authority.scope;
    if !tool.policy.scopes.contains(&scope) {
        return Err(ToolError::new(
            ErrorCode::ToolScopeDenied,
            format!("Tool '{name}' is unavailable in the {scope} scope"),
        ));
    }
    if scope.is_granted_principal()
        && !authority
            .capabilities
            .has_all(&tool.policy.required_capabilities)
    {
        return Err(ToolError::new(
            ErrorCode::ToolCapabilityDenied,
            format!("Tool '{name}' is not granted to the {scope} principal"),
        ));
    }
    if scope == Scope::Ui && !tool.policy.side_effect.is_read() && !authority.authenticated {
        return Err(ToolError::new(
            ErrorCode::ToolAuthRequired,
            "Mutating tool calls require an authenticated PortOS session",
        ));
    }
    Ok(())
}

/// The compiled schema first (every violation listed), then the input type.
fn validate(
    tool: &RegisteredTool,
    arguments: serde_json::Map<String, Value>,
) -> Result<BoundCall, ToolError> {
    let arguments = Value::Object(arguments);
    // The common case first: `is_valid` builds no error values.
    if tool.validator().is_valid(&arguments) {
        return (tool.descriptor.bind)(arguments)
            .map_err(|error| invalid_arguments(tool, &error.0));
    }
    let issues: Vec<String> = tool
        .validator()
        .iter_errors(&arguments)
        .map(|error| {
            let path = error
                .instance_path()
                .iter()
                .map(|segment| segment.to_string())
                .collect::<Vec<_>>()
                .join(".");
            let path = if path.is_empty() {
                "arguments".to_owned()
            } else {
                path
            };
            format!("{path} {error}")
        })
        .collect();
    if !issues.is_empty() {
        return Err(invalid_arguments(tool, &issues.join("; ")));
    }
    (tool.descriptor.bind)(arguments).map_err(|error| invalid_arguments(tool, &error.0))
}

fn invalid_arguments(tool: &RegisteredTool, detail: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ToolValidationError,
        format!("Invalid arguments for '{}': {detail}", tool.name()),
    )
}

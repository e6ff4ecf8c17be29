//! `Registry::call`: the one path every caller takes to a tool.

use std::sync::Arc;

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use futures::future::{BoxFuture, Either};
use serde_json::Value;

use super::idempotency::{Admission, SharedResult};
use super::journal::JournaledCall;
use super::shared::{CallLedger, Claim, Claimed, Kept, Pending};
use super::{
    CallBudget, DynamicCall, DynamicTool, DynamicTools, Fingerprint, RegisteredTool, Registry,
    Resolved,
};
use std::time::Instant;

use tracing::Instrument;

use super::{CallEnd, CallReport, MeteredTool, Target};
use crate::context::{Authority, CallChannel, ToolContext};
use crate::contract::{
    CallAnswer, ErrorCode, Guard, OutputJson, Policy, ToolCall, ToolError, ToolResult,
};
use crate::descriptor::{AdapterOutcome, BoundCall};
use crate::telemetry::{SPAN_TARGET, TOOL_ERROR, in_span};

impl Registry {
    fn authorize(
        &self,
        name: &str,
        policy: &Policy,
        authority: &Authority,
    ) -> Result<(), ToolError> {
        authorize(name, policy, authority, &self.sign_in_refusal)
    }

    /// The application's name, as given to [`RegistryBuilder::product`](super::RegistryBuilder::product).
    pub fn product(&self) -> Option<&str> {
        self.product.as_deref()
    }
}

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
        self.call_with(authority, call, None).await
    }

    /// [`Registry::call`] from a caller with a shared call budget (a
    /// Persistent Mind turn), which a dynamic tool's children are charged
    /// to. The call itself is the caller's to charge.
    pub async fn call_with(
        &self,
        authority: &Authority,
        call: ToolCall,
        budget: Option<Arc<CallBudget>>,
    ) -> Result<ToolResult, ToolError> {
        self.answer(authority, call, budget)
            .await
            .map(CallAnswer::into_result)
    }

    /// [`Registry::call_with`] answering with the retained result itself,
    /// shared rather than copied: for a caller that only writes it out.
    ///
    /// The call is one `execute_tool` span (OpenTelemetry's GenAI
    /// conventions) and, when the registry has a meter, one report.
    pub async fn answer(
        &self,
        authority: &Authority,
        call: ToolCall,
        budget: Option<Arc<CallBudget>>,
    ) -> Result<CallAnswer, ToolError> {
        self.answer_on(authority, call, budget, CallChannel::default())
            .await
    }

    /// [`Registry::answer`] for a caller that follows the call on
    /// `channel` (its progress, its log messages). A duplicate that joins a
    /// run already going hears nothing of it.
    pub async fn answer_on(
        &self,
        authority: &Authority,
        call: ToolCall,
        budget: Option<Arc<CallBudget>>,
        channel: CallChannel,
    ) -> Result<CallAnswer, ToolError> {
        let span = call_span(&call);
        let target = self.target(&call.name);
        // Only for a meter: when the call began and, since the call takes
        // it, a run-time tool's name (a linked tool is its slot).
        let metering = self.meter.as_ref().map(|meter| {
            let dynamic_name = (target == Target::Dynamic).then(|| call.name.clone());
            (meter, Instant::now(), dynamic_name)
        });
        let answer = in_span(
            &span,
            self.answer_target(target, authority, call, budget, channel),
        )
        .await;
        let end = CallEnd::of(answer.as_ref().map(CallAnswer::retained));
        record_end(&span, end);
        if let Some((meter, started, dynamic_name)) = metering {
            let tool = match (target, &dynamic_name) {
                (Target::Linked(index), _) => MeteredTool::Linked {
                    index,
                    name: self.tools[index].name(),
                },
                (Target::Dynamic, Some(name)) => MeteredTool::Dynamic(name),
                _ => MeteredTool::Unknown,
            };
            meter(&CallReport {
                tool,
                authority,
                end,
                duplicate: answer.as_ref().is_ok_and(CallAnswer::duplicate),
                elapsed: started.elapsed(),
            });
        }
        answer
    }

    async fn answer_target(
        &self,
        target: Target,
        authority: &Authority,
        call: ToolCall,
        budget: Option<Arc<CallBudget>>,
        channel: CallChannel,
    ) -> Result<CallAnswer, ToolError> {
        let admitted = match (target, &self.dynamic) {
            (Target::Linked(index), _) => {
                self.admit(&self.tools[index], authority, call, channel)?
            }
            (Target::Dynamic, Some(source)) => {
                self.admit_dynamic(source.as_ref(), authority, call, budget)
                    .await?
            }
            _ => return Err(unknown_tool(&call.name)),
        };
        match admitted {
            Admitted::Here(shared, duplicate) => Ok(CallAnswer::new(shared.await?, duplicate)),
            Admitted::Shared(pending, duplicate) => {
                let (result, ran_elsewhere) = pending.await?;
                Ok(CallAnswer::new(result, duplicate || ran_elsewhere))
            }
        }
    }

    /// Everything up to (and including) starting the adapter; the returned
    /// future resolves to the result.
    fn admit(
        &self,
        tool: &RegisteredTool,
        authority: &Authority,
        call: ToolCall,
        channel: CallChannel,
    ) -> Result<Admitted, ToolError> {
        let (bound, fingerprint) = self.check_tool(tool, authority, call.arguments)?;
        let request_id: Arc<str> = Arc::from(call.request_id.as_str());
        let admitting = Admitting {
            authority,
            name: tool.name(),
            policy: &tool.policy,
        };
        self.admit_run(admitting, request_id, fingerprint, |id| {
            self.adapter_run(authority, id, bound, channel)
        })
    }

    /// Admits a checked call through this process's stores or, on a
    /// cluster, its ledger; `adapter` makes the run only if it is fresh.
    fn admit_run(
        &self,
        admitting: Admitting<'_>,
        request_id: Arc<str>,
        fingerprint: Fingerprint,
        adapter: impl FnOnce(Arc<str>) -> BoxFuture<'static, AdapterOutcome>,
    ) -> Result<Admitted, ToolError> {
        if let Some(ledger) = &self.ledger {
            let id = request_id.clone();
            return self.admit_shared(ledger, admitting, &request_id, fingerprint, || adapter(id));
        }
        let key = Arc::clone(&request_id);
        let admission = self.calls.admit(&key, fingerprint, || {
            let run = adapter(request_id.clone());
            self.launch(admitting, request_id, fingerprint, run)
        })?;
        Ok(admitted(admission))
    }

    /// Admission through the cluster's ledger: duplicates running here join
    /// the run; otherwise the ledger claims the call (or answers its kept
    /// result or refusal) and the adapter runs inside the claim, whose
    /// result is kept before anyone is told it.
    fn admit_shared(
        &self,
        ledger: &Arc<dyn CallLedger>,
        Admitting {
            authority,
            name,
            policy,
        }: Admitting<'_>,
        request_id: &Arc<str>,
        fingerprint: Fingerprint,
        adapter: impl FnOnce() -> BoxFuture<'static, AdapterOutcome>,
    ) -> Result<Admitted, ToolError> {
        let claim = Claim {
            request_id: request_id.clone(),
            fingerprint,
            write: !policy.side_effect.is_read(),
            limits: self.calls.limits(),
        };
        let ledger = Arc::clone(ledger);
        let observers = self.observers.clone();
        let authority = authority.clone();
        let name = name.to_owned();
        let id = request_id.clone();
        let (pending, duplicate) =
            self.in_flight
                .join_or_start(request_id, fingerprint, move || {
                    let adapter = adapter();
                    async move {
                        let claiming =
                            tracing::info_span!(target: SPAN_TARGET, "idempotency claim");
                        let claimed = in_span(&claiming, ledger.claim(claim)).await?;
                        match claimed {
                            Claimed::Kept(result) => Ok((Arc::new(result), true)),
                            Claimed::Fresh(mut held) => {
                                let run = AssertUnwindSafe(held.run(adapter)).catch_unwind();
                                let result = Arc::new(normalized(&id, name, run.await.ok()));
                                let keeping =
                                    tracing::info_span!(target: SPAN_TARGET, "idempotency keep");
                                let kept = in_span(&keeping, held.keep(&result)).await?;
                                match kept {
                                    Kept::This => {
                                        for observer in observers.iter() {
                                            observer(&result, &authority);
                                        }
                                        Ok((result, false))
                                    }
                                    Kept::Earlier(kept) => Ok((Arc::new(kept), true)),
                                }
                            }
                        }
                    }
                    .boxed()
                })?;
        Ok(Admitted::Shared(pending, duplicate))
    }

    /// The checks of docs/reference.md#call-pipeline for a linked tool, in
    /// order: resolve, authorize, availability, validation; then the call's
    /// fingerprint.
    pub(super) fn check(
        &self,
        authority: &Authority,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<(&RegisteredTool, BoundCall, Fingerprint), ToolError> {
        let tool = self.resolve(name).ok_or_else(|| unknown_tool(name))?;
        let (bound, fingerprint) = self.check_tool(tool, authority, arguments)?;
        Ok((tool, bound, fingerprint))
    }

    /// [`Registry::check`] of a tool already resolved.
    fn check_tool(
        &self,
        tool: &RegisteredTool,
        authority: &Authority,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<(BoundCall, Fingerprint), ToolError> {
        self.authorize(tool.name(), &tool.policy, authority)?;
        // After authorization, so an unauthorized caller learns nothing about
        // the tool's state; before validation, since nothing would run anyway.
        if let Some(reason) = self.unavailable_reason_of(tool) {
            return Err(ToolError::new(
                ErrorCode::ToolUnavailable,
                format!("Tool '{}' is unavailable: {reason}", tool.name()),
            ));
        }
        let bound = {
            let _stage = tracing::info_span!(target: SPAN_TARGET, "validate arguments").entered();
            validate(tool, arguments)?
        };
        let fingerprint = Fingerprint::of_call(tool.name(), bound.normalized(), authority.scope);
        Ok((bound, fingerprint))
    }

    /// The dynamic path: the source resolves the name (and its own
    /// refusals), then the same checks, fingerprint and idempotency store as
    /// a linked tool, under the authority the source resolved.
    async fn admit_dynamic(
        &self,
        source: &dyn DynamicTools,
        authority: &Authority,
        call: ToolCall,
        budget: Option<Arc<CallBudget>>,
    ) -> Result<Admitted, ToolError> {
        let Resolved { tool, authority } =
            source.resolve(self, authority.clone(), &call.name).await?;
        self.authorize(tool.name(), &tool.spec.policy, &authority)?;
        if !tool.spec.available {
            return Err(ToolError::new(
                ErrorCode::ToolUnavailable,
                format!("Tool '{}' is unavailable", tool.name()),
            ));
        }
        let arguments = {
            let _stage = tracing::info_span!(target: SPAN_TARGET, "validate arguments").entered();
            validate_dynamic(&tool, call.arguments)?
        };
        let fingerprint = Fingerprint::of_call_with(
            tool.name(),
            &arguments,
            authority.scope,
            &tool.spec.fingerprint_extra,
        );
        let request_id: Arc<str> = Arc::from(call.request_id.as_str());
        let observed = authority.clone();
        let admitting = Admitting {
            authority: &observed,
            name: tool.name(),
            policy: &tool.spec.policy,
        };
        self.admit_run(admitting, request_id, fingerprint, |id| {
            self.dynamic_run(&tool, authority, id, arguments, budget)
        })
    }

    /// A linked tool's adapter run (not started: a future runs when polled).
    fn adapter_run(
        &self,
        authority: &Authority,
        request_id: Arc<str>,
        bound: BoundCall,
        channel: CallChannel,
    ) -> BoxFuture<'static, AdapterOutcome> {
        let ctx = ToolContext::new(
            authority.clone(),
            request_id,
            self.shutdown.clone(),
            self.state.clone(),
        )
        .with_channel(channel);
        in_adapter_span(bound.run(ctx))
    }

    /// A dynamic tool's run, its tree written as the output's text.
    fn dynamic_run(
        &self,
        tool: &DynamicTool,
        authority: Authority,
        request_id: Arc<str>,
        arguments: Value,
        budget: Option<Arc<CallBudget>>,
    ) -> BoxFuture<'static, AdapterOutcome> {
        let Some(registry) = self.this.upgrade() else {
            // Only while the registry is being dropped: nothing can call it then.
            return futures::future::ready(Err("The tool registry is shutting down".to_owned()))
                .boxed();
        };
        let run = tool.spec.runner.run(DynamicCall {
            registry,
            authority,
            request_id,
            arguments,
            budget,
            cancel: self.shutdown.clone(),
        });
        // A dynamic runner answers a tree (recipes build theirs); it is kept
        // beside its text.
        in_adapter_span(
            run.map(|outcome| {
                outcome.and_then(|value| {
                    OutputJson::from_value(value)
                        .map_err(|error| format!("Tool output could not be serialized: {error}"))
                })
            })
            .boxed(),
        )
    }

    /// Runs an adapter's future, normalizes what it yields and tells the
    /// observers. A write is spawned so it runs to completion even if the
    /// caller goes away: an acknowledged write is never half-done because a
    /// client left. A read runs on the caller's task (no spawn, the cheap
    /// path): if the caller leaves, a replay resumes it, and nothing is lost
    /// by stopping it.
    fn launch(
        &self,
        Admitting {
            authority,
            name,
            policy,
        }: Admitting<'_>,
        request_id: Arc<str>,
        fingerprint: Fingerprint,
        run: BoxFuture<'static, AdapterOutcome>,
    ) -> SharedResult {
        // A panicking adapter is a failed call, not a crash, on every path.
        let run = AssertUnwindSafe(run).catch_unwind().map(Result::ok);
        let observers = self.observers.clone();
        let authority = authority.clone();
        let name = name.to_owned();
        if policy.side_effect.is_read() {
            return async move {
                let result = Arc::new(normalized(&request_id, name, run.await));
                for observer in observers.iter() {
                    observer(&result, &authority);
                }
                Ok(result)
            }
            .boxed()
            .shared();
        }
        // A write runs on a task of its own, so it reaches its end (and its
        // result is kept) even if every caller leaves; under a journal, its
        // store work and its kept result are one transaction.
        let id = Arc::clone(&request_id);
        let result = run.map(move |outcome| normalized(&id, name, outcome));
        let kept = match &self.journal {
            Some(journal) => {
                let call = JournaledCall {
                    request_id: Arc::clone(&request_id),
                    fingerprint,
                    limits: self.calls.limits(),
                };
                Either::Left(journal.write(call, result.boxed()))
            }
            None => Either::Right(result.map(Ok)),
        };
        let this = self.this.clone();
        tokio::spawn(kept)
            .map(move |joined| {
                let kept = joined.unwrap_or_else(|_| {
                    Err(ToolError::new(
                        ErrorCode::ServiceUnavailable,
                        "The call stopped before its result was kept; send it again with the same requestId",
                    ))
                });
                match kept {
                    Ok(result) => {
                        let result = Arc::new(result);
                        for observer in observers.iter() {
                            observer(&result, &authority);
                        }
                        Ok(result)
                    }
                    Err(error) => {
                        // Nothing of the call happened: a retry runs it.
                        if let Some(registry) = this.upgrade() {
                            registry.calls.forget(&request_id);
                        }
                        Err(error)
                    }
                }
            })
            .boxed()
            .shared()
    }

    /// The retained result of `request_id` (`GET /calls/:requestId`): waits
    /// for a call still running; `duplicate` is always false here.
    pub async fn retained(&self, request_id: &str) -> Result<ToolResult, ToolError> {
        if let Some(ledger) = &self.ledger {
            if let Some(pending) = self.in_flight.running(request_id) {
                return Ok(Arc::unwrap_or_clone(pending.await?.0));
            }
            return ledger
                .retained(Arc::from(request_id), self.calls.limits())
                .await?
                .ok_or_else(call_not_found);
        }
        let shared = self.calls.retained(request_id).ok_or_else(call_not_found)?;
        Ok(Arc::unwrap_or_clone(shared.await?))
    }
}

/// An admitted call: its result, and whether it is a duplicate.
enum Admitted {
    /// Through this process's own stores (one server).
    Here(SharedResult, bool),
    /// Through the cluster's ledger.
    Shared(Pending, bool),
}

fn admitted(admission: Admission) -> Admitted {
    match admission {
        Admission::Fresh(shared) => Admitted::Here(shared, false),
        Admission::Replay(shared) => Admitted::Here(shared, true),
    }
}

/// The envelope of what an adapter run yielded (`None`: it panicked).
fn normalized(request_id: &str, name: String, outcome: Option<AdapterOutcome>) -> ToolResult {
    let id = request_id.to_owned();
    match outcome {
        Some(Ok(output)) => ToolResult::from_adapter_output(id, name, output),
        Some(Err(message)) => ToolResult::from_adapter_error(id, name, &message),
        None => ToolResult::from_adapter_error(id, name, "Tool execution failed"),
    }
}

fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(ErrorCode::ToolNotFound, format!("Unknown tool '{name}'"))
}

fn call_not_found() -> ToolError {
    ToolError::new(ErrorCode::ToolCallNotFound, "Tool call not found")
}

/// A call that passed its checks, as it is admitted: who calls (told to
/// the result observers), which tool, under which policy.
#[derive(Clone, Copy)]
struct Admitting<'a> {
    authority: &'a Authority,
    name: &'a str,
    policy: &'a Policy,
}

/// Scope, then what the scope's guard asks: capabilities for a principal
/// holding grants, a signed-in caller for a person's writes.
fn authorize(
    name: &str,
    policy: &Policy,
    authority: &Authority,
    sign_in_refusal: &str,
) -> Result<(), ToolError> {
    let scope = authority.scope;
    if !policy.scopes.contains(&scope) {
        return Err(ToolError::new(
            ErrorCode::ToolScopeDenied,
            format!("Tool '{name}' is unavailable in the {scope} scope"),
        ));
    }
    match scope.guard() {
        Guard::Grants(_)
            if !authority
                .capabilities
                .has_all(&policy.required_capabilities) =>
        {
            Err(ToolError::new(
                ErrorCode::ToolCapabilityDenied,
                format!("Tool '{name}' is not granted to the {scope} principal"),
            ))
        }
        Guard::SignedIn if !policy.side_effect.is_read() && !authority.authenticated => {
            Err(ToolError::new(ErrorCode::ToolAuthRequired, sign_in_refusal))
        }
        // The credential narrows what the scope allows, never widens it.
        _ if !authority.credential_allows(&policy.required_capabilities) => Err(ToolError::new(
            ErrorCode::ToolCapabilityDenied,
            format!("Tool '{name}' needs a capability the caller's access token does not carry"),
        )),
        _ => Ok(()),
    }
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
            .map_err(|error| invalid_arguments(tool.name(), &error.0));
    }
    let issues = schema_issues(tool.validator(), &arguments);
    if !issues.is_empty() {
        return Err(invalid_arguments(tool.name(), &issues.join("; ")));
    }
    (tool.descriptor.bind)(arguments).map_err(|error| invalid_arguments(tool.name(), &error.0))
}

/// A dynamic tool has no typed input: its compiled schema is the whole check.
fn validate_dynamic(
    tool: &DynamicTool,
    arguments: serde_json::Map<String, Value>,
) -> Result<Value, ToolError> {
    let arguments = Value::Object(arguments);
    let validator = tool.validator().map_err(|why| {
        ToolError::new(
            ErrorCode::ToolUnavailable,
            format!(
                "Tool '{}' is unavailable: its input schema is invalid ({why})",
                tool.name()
            ),
        )
    })?;
    if validator.is_valid(&arguments) {
        return Ok(arguments);
    }
    let issues = schema_issues(validator, &arguments);
    Err(invalid_arguments(tool.name(), &issues.join("; ")))
}

/// Every violation of `validator` by `arguments`, each with its path.
fn schema_issues(validator: &jsonschema::Validator, arguments: &Value) -> Vec<String> {
    validator
        .iter_errors(arguments)
        .map(|error| {
            format!(
                "{} {}",
                crate::schema::issue_path(&error, "arguments"),
                crate::schema::issue_message(&error)
            )
        })
        .collect()
}

fn invalid_arguments(name: &str, detail: &str) -> ToolError {
    ToolError::new(
        ErrorCode::ToolValidationError,
        format!("Invalid arguments for '{name}': {detail}"),
    )
}

/// The call's `execute_tool` span (OpenTelemetry GenAI conventions): the
/// tool's name and the call's id, nothing of its arguments.
fn call_span(call: &ToolCall) -> tracing::Span {
    let span = tracing::info_span!(
        target: SPAN_TARGET,
        "execute_tool",
        otel.name = tracing::field::Empty,
        otel.kind = "internal",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.request_id,
        "gen_ai.tool.type" = "function",
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("execute_tool {}", call.name));
    }
    span
}

/// How the call ended, on its span: a refusal's code or `tool_error` as
/// `error.type`, and the span's status an error.
fn record_end(span: &tracing::Span, end: CallEnd) {
    if span.is_disabled() {
        return;
    }
    let error = match end {
        CallEnd::Completed => return,
        CallEnd::Failed => TOOL_ERROR,
        CallEnd::Refused(code) => code.as_str(),
    };
    span.record("error.type", error);
    span.record("otel.status_code", "ERROR");
}

/// An adapter's run in its stage span, a child of the call's span wherever
/// it is polled (a write runs on a task of its own). Without trace export
/// the run is handed back as it is: no second allocation.
fn in_adapter_span(run: BoxFuture<'static, AdapterOutcome>) -> BoxFuture<'static, AdapterOutcome> {
    let span = tracing::info_span!(target: SPAN_TARGET, "adapter");
    if span.is_disabled() {
        run
    } else {
        run.instrument(span).boxed()
    }
}

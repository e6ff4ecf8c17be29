//! The turn loop (docs/reference.md#turn-budgets): the briefing, then up to 4
//! rounds with the model. Each round offers the mind catalog for the grants
//! stored at that moment; each call the model asks for is charged to the turn's
//! budgets and then run through the registry as `mind`, with the grants
//! read again just before it and its derived requestId, one call at a time
//! so calls made together cannot overspend. What the model is shown of each result is
//! capped at 4,000 characters. A provider that is down, slow or answers
//! nonsense ends the turn `failed`, with the reason; the turn is saved
//! after every call, and its end with its trajectory summary in one write.

use std::sync::Arc;

use portos_core::{Capabilities, Catalogs, Registry, ToolCall, ToolState};
use portos_server::events::Events;
use portos_server::store::Store;
use serde_json::{Value, json};
use tracing::Instrument;

use super::briefing::Briefing;
use super::budget::{BUDGET_EXHAUSTED, MAX_ROUNDS, TurnBudget};
use super::events::{TurnCallFinished, TurnFinished};
use super::offer::offered_tools;
use super::preview::result_preview;
use super::provider::{self, Extras, ProviderConfig, RequestedCall};
use super::record::{CallState, TurnCall, TurnRecord, TurnState};
use super::request_id::call_request_id;
use super::telemetry::{self, TurnMetrics};
use super::wake::Wakes;
use super::{store, trajectory};
use crate::domains::apps::RemoteCache;

/// The prompt of a wake nobody worded.
pub const WAKE_PROMPT: &str =
    "A self-directed wake: look at what needs attention in PortOS and act within your grants.";

/// What a turn works with.
#[derive(Clone, Debug)]
pub struct TurnDeps {
    pub registry: Arc<Registry>,
    pub catalogs: Arc<Catalogs>,
    pub store: Store,
    pub events: Events,
    pub wakes: Wakes,
    pub client: portos_server::outbound::OutboundClient,
    /// The provider, with the model this turn asks.
    pub provider: ProviderConfig,
    /// The reasoning effort and context window this turn sends.
    pub extras: Extras,
    /// The managed apps' remotes, for the issue block.
    pub remotes: RemoteCache,
    /// The turns' series on `/metrics`.
    pub metrics: Arc<TurnMetrics>,
}

/// Runs `turn` (already stored as running) to its end and stores it.
pub async fn run(deps: &TurnDeps, mut turn: TurnRecord) -> TurnRecord {
    let mut exhausted = false;
    match Briefing::gather(&deps.store, &deps.remotes, &deps.catalogs).await {
        Ok(briefing) => {
            turn.messages = vec![
                json!({ "role": "system", "content": briefing.system_prompt() }),
                json!({ "role": "user", "content": turn.prompt }),
            ];
            exhausted = converse(deps, &mut turn).await;
        }
        Err(error) => turn.finish(
            TurnState::Failed,
            Some(format!("cannot read the Persistent Mind's state: {error}")),
        ),
    }
    end(deps, &turn).await;
    deps.metrics.turn_ended(&turn, exhausted);
    telemetry::turn_ended(&tracing::Span::current(), &turn);
    deps.events
        .emit(&TurnFinished {
            turn_id: turn.id.clone(),
            state: turn.state,
            error: turn.error.clone(),
            rounds: turn.rounds,
            budget: turn.budget,
        })
        .await;
    turn
}

/// The rounds with the model, until it answers, fails or runs out of
/// rounds; `true` when the turn spent its whole tool-call budget.
async fn converse(deps: &TurnDeps, turn: &mut TurnRecord) -> bool {
    let mut budget = TurnBudget::default();
    let mut told_exhausted = false;
    for round in 1..=MAX_ROUNDS {
        turn.rounds = round;
        let tools = offered_tools(&deps.catalogs, live_grants(&deps.store).await, &budget);
        let span = telemetry::chat_span(&deps.provider);
        let started = std::time::Instant::now();
        let reply = provider::chat(
            &deps.client,
            &deps.provider,
            &turn.messages,
            &tools,
            &deps.extras,
        )
        .instrument(span.clone())
        .await;
        let report = reply.as_ref().map(|reply| &reply.report);
        telemetry::chat_ended(&span, report);
        deps.metrics
            .request_ended(&deps.provider.model, started.elapsed(), report);
        let reply = match reply {
            Ok(reply) => reply,
            Err(error) => {
                turn.finish(TurnState::Failed, Some(redacted(deps, &error.to_string())));
                break;
            }
        };
        // Sent back next round as the provider sent it (its call ids
        // included); some servers leave out the role.
        let mut said = reply.message.clone();
        if said.get("role").is_none() {
            said["role"] = json!("assistant");
        }
        turn.messages.push(said);
        turn.answer = reply.content.filter(|text| !text.trim().is_empty());
        if reply.calls.is_empty() {
            turn.finish(TurnState::Completed, None);
            break;
        }
        for (index, call) in reply.calls.iter().enumerate() {
            let refused_before = budget.calls_refused;
            let (record, shown) = run_call(deps, &turn.id, round, call, &mut budget).await;
            deps.metrics
                .call_ended(record.state, budget.calls_refused > refused_before);
            turn.messages.push(json!({
                "role": "tool",
                "tool_call_id": call.id.clone().unwrap_or_else(|| format!("call_{round}_{index}")),
                "content": shown,
            }));
            turn.budget = (&budget).into();
            let finished = TurnCallFinished {
                turn_id: turn.id.clone(),
                round,
                name: record.name.clone(),
                request_id: record.request_id.clone(),
                state: record.state,
                budget: turn.budget,
            };
            turn.calls.push(record);
            save(deps, turn).await;
            deps.events.emit(&finished).await;
        }
        if budget.calls_exhausted() && !told_exhausted {
            turn.messages
                .push(json!({ "role": "user", "content": BUDGET_EXHAUSTED }));
            told_exhausted = true;
        }
    }
    if turn.state == TurnState::Running {
        // The last round still asked for calls: they ran, and the model has
        // no round left to answer in.
        turn.finish(TurnState::Completed, None);
    }
    budget.calls_exhausted()
}

/// One call: resolved, charged, run; what is kept of it and what the model
/// is shown.
async fn run_call(
    deps: &TurnDeps,
    turn_id: &str,
    round: usize,
    call: &RequestedCall,
    budget: &mut TurnBudget,
) -> (TurnCall, String) {
    let skipped = |name: &str, code: &str, error: &str| {
        let shown = json!({ "ok": false, "code": code, "error": error }).to_string();
        let record = TurnCall {
            round,
            name: name.to_owned(),
            requested_as: call.name.clone(),
            request_id: None,
            state: CallState::Skipped,
            duplicate: false,
            outcome: shown.clone(),
        };
        (record, shown)
    };
    // The model names tools by their provider names (`goals_list`,
    // `recipe_daily_brief`); the registry knows those, the canonical names
    // and the aliases, and which names its saved recipes answer to.
    let Some(name) = deps.registry.canonical_name(&call.name) else {
        return skipped(
            &call.name,
            "TOOL_NOT_FOUND",
            &format!("Unknown tool '{}'", call.name),
        );
    };
    let name = name.as_ref();
    let arguments = match &call.arguments {
        Ok(arguments) => arguments.clone(),
        Err(why) => {
            return skipped(
                name,
                "TOOL_VALIDATION_ERROR",
                &format!("Invalid arguments for '{name}': {why}"),
            );
        }
    };
    if let Err(refusal) = budget.charge(name) {
        return skipped(name, "TOOL_BUDGET_EXHAUSTED", refusal);
    }
    let request_id = call_request_id(turn_id, call.id.as_deref(), name, &arguments);
    // Read just before the call: a grant revoked since the round began
    // stops this call.
    let authority = portos_words::principal::mind(live_grants(&deps.store).await);
    let outcome = {
        let _in_turn = deps.wakes.enter(&request_id, turn_id);
        // The shared call budget goes with the call: a recipe charges its
        // children to it.
        deps.registry
            .call_with(
                &authority,
                ToolCall::new(&request_id, name, arguments),
                Some(budget.shared_calls()),
            )
            .await
    };
    let (state, duplicate, envelope) = match outcome {
        Ok(result) => {
            let state = match result.state {
                ToolState::Completed => CallState::Completed,
                ToolState::Failed => CallState::Failed,
            };
            let envelope = serde_json::to_value(&result).unwrap_or(Value::Null);
            (state, result.duplicate, envelope)
        }
        Err(refusal) => (
            CallState::Refused,
            false,
            json!({ "ok": false, "code": refusal.code.as_str(), "error": refusal.message }),
        ),
    };
    let shown = result_preview(&envelope);
    let record = TurnCall {
        round,
        name: name.to_owned(),
        requested_as: call.name.clone(),
        request_id: Some(request_id),
        state,
        duplicate,
        outcome: shown.clone(),
    };
    (record, shown)
}

/// The Mind's grants as stored now; none when the store cannot say.
async fn live_grants(store: &Store) -> Capabilities {
    match crate::domains::mind::grants::load(store).await {
        Ok(settings) => settings.capabilities(),
        Err(error) => {
            tracing::warn!(%error, "cannot read the Persistent Mind's grants: the call runs with none");
            Capabilities::NONE
        }
    }
}

/// Saves the ended turn and its trajectory summary together: the history
/// never names a turn that is not stored as ended, nor misses one that is.
async fn end(deps: &TurnDeps, turn: &TurnRecord) {
    let snapshot = turn.clone();
    let ended = deps
        .store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            store::save(&transaction, &snapshot)?;
            trajectory::record(&transaction, &snapshot)?;
            transaction.commit()?;
            Ok(())
        })
        .await;
    if let Err(error) = ended {
        // The turn's own end matters more than its summary: keep it.
        tracing::error!(turn = %turn.id, %error, "cannot record the Persistent Mind turn in its trajectory");
        save(deps, turn).await;
    }
}

async fn save(deps: &TurnDeps, turn: &TurnRecord) {
    let snapshot = turn.clone();
    if let Err(error) = deps
        .store
        .run(move |connection| store::save(connection, &snapshot))
        .await
    {
        tracing::error!(turn = %turn.id, %error, "cannot save the Persistent Mind turn");
    }
}

/// A provider's error text without the API key, should it echo it.
fn redacted(deps: &TurnDeps, text: &str) -> String {
    match deps.provider.api_key.as_deref() {
        Some(key) if !key.is_empty() => text.replace(key, portos_server::redact::REDACTED),
        _ => text.to_owned(),
    }
}

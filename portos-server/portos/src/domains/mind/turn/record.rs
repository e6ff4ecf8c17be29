//! What is kept of a turn: its prompt, every message exchanged with the
//! model, each tool call with its derived requestId, state and what the
//! model was shown, the budget spent, and how it ended. The provider's URL
//! and key are not part of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::budget::TurnBudget;
use crate::domains::mind::thinking::ThinkingPreset;

/// Where a turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TurnState {
    Running,
    Completed,
    Failed,
}

impl TurnState {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnState::Running => "running",
            TurnState::Completed => "completed",
            TurnState::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<TurnState> {
        [TurnState::Running, TurnState::Completed, TurnState::Failed]
            .into_iter()
            .find(|state| state.as_str() == text)
    }
}

/// What became of one tool call the model asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CallState {
    /// The tool ran and succeeded.
    Completed,
    /// The tool ran and failed (its result says why).
    Failed,
    /// The registry refused it: not granted, invalid arguments…
    Refused,
    /// Never sent to the registry: over budget, no such tool, arguments
    /// that are not a JSON object.
    Skipped,
}

/// One tool call of a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnCall {
    /// The provider round it was asked for in (1 to 4).
    pub round: usize,
    /// The tool's canonical name, or the name as asked when no tool has it.
    pub name: String,
    /// The name the model used (its provider name, e.g. `goals_list`).
    pub requested_as: String,
    /// The requestId it ran under (derived from the turn and the call);
    /// null when it never reached the registry.
    pub request_id: Option<String>,
    pub state: CallState,
    /// The registry answered from an earlier identical call of the turn.
    pub duplicate: bool,
    /// What the model was shown: the result envelope, or past 4,000
    /// characters `{"truncated": true, "preview": …}`.
    pub outcome: String,
}

/// A turn, as stored and shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    pub id: String,
    /// What woke the Mind.
    pub prompt: String,
    /// The model that was asked.
    pub model: String,
    /// The thinking preset this self-directed wake took (the Mind asked
    /// for it with `mind.request-thinking-preset`); null: the default route.
    pub thinking_preset: Option<ThinkingPreset>,
    /// What was sent as `reasoning_effort` (from the preset's effort).
    pub reasoning_effort: Option<String>,
    /// What was sent as `options.num_ctx`: the Mind's local context window,
    /// to a local provider only.
    pub num_ctx: Option<i64>,
    pub state: TurnState,
    /// The model's last words, when it answered.
    pub answer: Option<String>,
    /// Why the turn failed.
    pub error: Option<String>,
    /// Provider rounds taken (at most 4).
    pub rounds: usize,
    pub budget: BudgetUse,
    pub calls: Vec<TurnCall>,
    /// The conversation, as sent to and received from the model.
    pub messages: Vec<Value>,
    pub started_at: String,
    pub finished_at: Option<String>,
}

/// The budgets spent (a copy of [`TurnBudget`] that reads back from the
/// store).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetUse {
    /// Tool calls run (at most 5).
    pub calls_used: usize,
    /// `cos.create-task` calls run (at most 5).
    pub tasks_used: usize,
    /// Calls refused for want of budget.
    pub calls_refused: usize,
}

impl From<&TurnBudget> for BudgetUse {
    fn from(budget: &TurnBudget) -> BudgetUse {
        BudgetUse {
            calls_used: budget.calls_used(),
            tasks_used: budget.tasks_used,
            calls_refused: budget.calls_refused,
        }
    }
}

/// A turn in a list: everything but the conversation and the calls.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    pub id: String,
    pub prompt: String,
    pub model: String,
    pub state: TurnState,
    pub answer: Option<String>,
    pub error: Option<String>,
    pub rounds: usize,
    pub budget: BudgetUse,
    pub call_count: usize,
    pub started_at: String,
    pub finished_at: Option<String>,
}

impl TurnRecord {
    /// A turn that starts now.
    pub fn start(id: String, prompt: String, model: String) -> TurnRecord {
        TurnRecord {
            id,
            prompt,
            model,
            thinking_preset: None,
            reasoning_effort: None,
            num_ctx: None,
            state: TurnState::Running,
            answer: None,
            error: None,
            rounds: 0,
            budget: BudgetUse::default(),
            calls: Vec::new(),
            messages: Vec::new(),
            started_at: jiff::Timestamp::now().to_string(),
            finished_at: None,
        }
    }

    pub fn summary(&self) -> TurnSummary {
        TurnSummary {
            id: self.id.clone(),
            prompt: self.prompt.clone(),
            model: self.model.clone(),
            state: self.state,
            answer: self.answer.clone(),
            error: self.error.clone(),
            rounds: self.rounds,
            budget: self.budget,
            call_count: self.calls.len(),
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
        }
    }

    /// Ends the turn in `state`.
    pub fn finish(&mut self, state: TurnState, error: Option<String>) {
        self.state = state;
        self.error = error;
        self.finished_at = Some(jiff::Timestamp::now().to_string());
    }
}

//! A turn's progress on Socket.IO, to every connected client (the password
//! gate decides who connects): it started, each call finished, it ended.
//! Results are not broadcast: read the turn with `GET /api/cos/mind/turns/{id}`.

use portos_core::portos_event;
use schemars::JsonSchema;
use serde::Serialize;

use super::record::{BudgetUse, CallState, TurnState};

/// A Persistent Mind turn started.
#[portos_event(name = "cos:mind:turn-started", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnStarted {
    pub turn_id: String,
    /// The model asked.
    pub model: String,
}

/// A tool call of a running turn finished (or was refused or skipped).
#[portos_event(name = "cos:mind:turn-call", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnCallFinished {
    pub turn_id: String,
    pub round: usize,
    /// The canonical tool name (or the name as asked, when unknown).
    pub name: String,
    pub request_id: Option<String>,
    pub state: CallState,
    pub budget: BudgetUse,
}

/// A turn ended.
#[portos_event(name = "cos:mind:turn-finished", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnFinished {
    pub turn_id: String,
    pub state: TurnState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub rounds: usize,
    pub budget: BudgetUse,
}

//! A job as callers see it: over HTTP, in its event stream, over Socket.IO
//! and (re-shaped) as an MCP task.

use portos_core::{Progress, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a job is in its life. `completed`, `failed` and `cancelled` are
/// final; the words are the MCP tasks extension's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum JobState {
    /// The adapter is running (or queued to run again after a restart).
    Working,
    /// Waiting for a person to confirm or refuse the call.
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl JobState {
    pub(crate) const ALL: [JobState; 5] = [
        JobState::Working,
        JobState::InputRequired,
        JobState::Completed,
        JobState::Failed,
        JobState::Cancelled,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            JobState::Working => "working",
            JobState::InputRequired => "input_required",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<JobState> {
        JobState::ALL
            .into_iter()
            .find(|state| state.as_str() == name)
    }

    pub(crate) fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Completed | JobState::Failed | JobState::Cancelled
        )
    }
}

/// What a job parked in `input_required` waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InputRequest {
    /// `confirmation`: a person approves or refuses the call
    /// (`POST {tools.path}/jobs/{jobId}/confirm`). `questions`: the tool
    /// asks the MCP client that called it (`questions`), which answers with
    /// `tasks/update`.
    pub kind: String,
    /// What the person is asked, naming the principal, the tool and the
    /// capabilities it needs; or the tool's first open question.
    pub message: String,
    /// The tool's open questions by key, each `{method, params}` as MCP
    /// writes the request (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`); only for `questions`.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub questions: serde_json::Map<String, serde_json::Value>,
}

/// The `kind` of a person's confirmation.
pub(super) const CONFIRMATION: &str = "confirmation";
/// The `kind` of a tool's questions to its caller.
pub(super) const QUESTIONS: &str = "questions";

impl InputRequest {
    pub(crate) fn is_confirmation(&self) -> bool {
        self.kind == CONFIRMATION
    }
}

/// One job: the durable record of a long-running tool call.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Job {
    /// Always `portos_tool_job`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub job_id: String,
    /// The call's `requestId`: calling again with it answers this job.
    pub request_id: String,
    /// The canonical tool name.
    pub name: String,
    /// The principal that called ({principals}).
    pub principal: String,
    pub state: JobState,
    /// Whether this answer is a replay of an earlier call with the same
    /// `requestId` (only on the answer to a call).
    pub duplicate: bool,
    /// What is happening now, for a person to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// The adapter's last progress report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// Set while `input_required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_request: Option<InputRequest>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    /// When the record (and its result) is forgotten: a day after it ends.
    pub expires_at: String,
    /// How often a poller should look again, in milliseconds.
    pub poll_interval_ms: u64,
    /// The result envelope, once the job is final (`failed` and
    /// `cancelled` jobs carry a failed envelope saying why).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub result: Option<ToolResult>,
    /// Why the server could not finish the job, when that is why it
    /// `failed` (its adapter crashed, a restart could not resume it): no
    /// answer of the tool's. MCP shows such a task `failed` with an error;
    /// a tool's own failure is a `completed` call with `isError`.
    #[serde(skip)]
    pub fault: Option<String>,
    /// Milliseconds since the Unix epoch, for the MCP task shape.
    #[serde(skip)]
    pub created_at_ms: i64,
    #[serde(skip)]
    pub expires_at_ms: i64,
}

/// The interval a poller is told to wait between reads.
pub(super) const POLL_INTERVAL_MS: u64 = 1_000;

/// One entry of a job's event stream (SSE `id`, `event` and `data`).
#[derive(Clone, Debug)]
pub(crate) struct JobEvent {
    /// Increases across all jobs; a stream resumes after it (`Last-Event-ID`).
    pub seq: i64,
    pub job_id: String,
    /// `working`, `progress`, `input_required`, `completed`, `failed` or
    /// `cancelled`.
    pub kind: &'static str,
    /// The job as it was after the event, as JSON text.
    pub data: String,
    pub is_final: bool,
}

/// The event kinds, in the words of the stream.
pub(super) const EVENT_KINDS: [&str; 6] = [
    "working",
    "progress",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

/// An event kind as the `&'static` word (an unknown stored word reads as
/// `progress`, the kind that ends nothing).
pub(super) fn event_kind(name: &str) -> &'static str {
    EVENT_KINDS
        .into_iter()
        .find(|kind| *kind == name)
        .unwrap_or("progress")
}

//! The MCP tasks extension (`io.modelcontextprotocol/tasks`) at 2026-07-28,
//! backed by the durable job records: a client that declares the extension
//! in a request's capabilities gets a long-running tool's job as a task
//! (`resultType: "task"`), follows it with `tasks/get`, answers its
//! confirmation with `tasks/update` and stops it with `tasks/cancel`. An
//! agent sees its own jobs only: any other id is unknown.

use serde_json::{Map, Value, json};

use super::jsonrpc::INVALID_PARAMS;
use super::modern::Refusal;
use super::reply::ResultMeta;
use super::request_meta::CLIENT_CAPABILITIES_KEY;
use super::server::{McpServer, job_reply};
use crate::jobs::{Job, JobError, JobState};

/// The extension's identifier, in capabilities on both sides.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The key of a job's one input request: its confirmation.
const CONFIRM_KEY: &str = "confirm";

/// Whether the request's own capabilities declare the tasks extension.
pub(crate) fn declares_tasks(params: Option<&Map<String, Value>>) -> bool {
    capabilities_declare_tasks(
        params
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
            .and_then(Value::as_object),
    )
}

/// Whether a request's client capabilities declare the tasks extension.
pub(crate) fn capabilities_declare_tasks(capabilities: Option<&Map<String, Value>>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.get("extensions"))
        .and_then(|extensions| extensions.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
}

/// A job as a `CreateTaskResult` (`resultType: "task"`) or, for
/// `tasks/get`, a detailed task (`resultType: "complete"`, with its
/// input requests or final result).
///
/// `content_output`: the job's tool answers content items (`ToolContent`).
pub(crate) fn task(job: &Job, detailed: bool, meta: &Value, content_output: bool) -> Value {
    let mut task = Map::new();
    task.insert(
        "resultType".to_owned(),
        json!(if detailed { "complete" } else { "task" }),
    );
    task.insert("taskId".to_owned(), json!(job.job_id));
    // A tool that ran and failed is a completed call whose result says so
    // (`isError`), as the same call answers without a task; a job the
    // server could not finish (a fault) is a failed task with an error.
    let status = match job.state {
        JobState::Failed if job.fault.is_none() => "completed",
        state => state.as_str(),
    };
    task.insert("status".to_owned(), json!(status));
    let message = job.status_message.clone().or_else(|| {
        job.progress
            .as_ref()
            .and_then(|progress| progress.message.clone())
    });
    if let Some(message) = message {
        task.insert("statusMessage".to_owned(), json!(message));
    }
    task.insert("createdAt".to_owned(), json!(job.created_at));
    task.insert("lastUpdatedAt".to_owned(), json!(job.updated_at));
    task.insert(
        "ttlMs".to_owned(),
        json!(job.expires_at_ms.saturating_sub(job.created_at_ms).max(0)),
    );
    task.insert("pollIntervalMs".to_owned(), json!(job.poll_interval_ms));
    if detailed {
        if let Some(request) = job
            .input_request
            .as_ref()
            .filter(|request| !request.is_confirmation())
        {
            // The tool's own questions, as it asked them.
            task.insert(
                "inputRequests".to_owned(),
                Value::Object(request.questions.clone()),
            );
        } else if let Some(request) = &job.input_request {
            task.insert(
                "inputRequests".to_owned(),
                json!({ CONFIRM_KEY: {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": request.message,
                        "requestedSchema": {
                            "type": "object",
                            "properties": {
                                CONFIRM_KEY: {
                                    "type": "boolean",
                                    "title": "Confirm",
                                    "description": "Run the call (true) or refuse it (false)",
                                }
                            },
                            "required": [CONFIRM_KEY],
                        },
                    },
                }}),
            );
        }
        match &job.fault {
            Some(fault) if job.state == JobState::Failed => {
                task.insert(
                    "error".to_owned(),
                    json!({ "code": super::jsonrpc::INTERNAL_ERROR, "message": fault }),
                );
            }
            _ if matches!(job.state, JobState::Completed | JobState::Failed) => {
                task.insert("result".to_owned(), call_result(job, content_output));
            }
            _ => {}
        }
    }
    task.insert("_meta".to_owned(), meta.clone());
    Value::Object(task)
}

/// The `CallToolResult` a final job answers.
fn call_result(job: &Job, content_output: bool) -> Value {
    let response =
        job_reply(job, content_output).into_response(&Value::Null, Some(&ResultMeta::default()));
    serde_json::from_str::<Value>(&response)
        .ok()
        .and_then(|mut response| response.get_mut("result").map(Value::take))
        .map(|mut result| {
            if let Some(result) = result.as_object_mut() {
                result.shift_remove("resultType");
                result.shift_remove("_meta");
            }
            result
        })
        .unwrap_or_else(|| json!({}))
}

impl McpServer {
    /// `tasks/get`: the task as it stands.
    pub(super) async fn task_get(
        &self,
        params: Option<&Map<String, Value>>,
    ) -> Result<Value, Refusal> {
        let task_id = task_id(params)?;
        let job = self
            .app()
            .jobs
            .get(self.agent(), task_id)
            .await
            .map_err(refusal)?;
        Ok(task(
            &job,
            true,
            &self.result_meta(),
            self.answers_content(&job),
        ))
    }

    /// `tasks/update`: the answers to the tool's questions, or to the
    /// confirmation (other keys, and a task not waiting, are ignored as the
    /// extension says).
    pub(super) async fn task_update(
        &self,
        params: Option<&Map<String, Value>>,
    ) -> Result<Value, Refusal> {
        let task_id = task_id(params)?;
        let responses = params
            .and_then(|params| params.get("inputResponses"))
            .and_then(Value::as_object)
            .ok_or_else(|| Refusal::new(INVALID_PARAMS, "tasks/update needs inputResponses"))?;
        let jobs = &self.app().jobs;
        let job = jobs.get(self.agent(), task_id).await.map_err(refusal)?;
        let confirming = job
            .input_request
            .as_ref()
            .is_some_and(crate::jobs::InputRequest::is_confirmation);
        if job.state == JobState::InputRequired && !confirming {
            jobs.answer(self.agent(), task_id, responses)
                .await
                .map_err(refusal)?;
            return Ok(ack(&self.result_meta()));
        }
        if let Some(answer) = responses.get(CONFIRM_KEY)
            && job.state == JobState::InputRequired
        {
            // The form asks `confirm`; `approve` (the HTTP confirm route's
            // word, which earlier forms asked) is read too.
            let content = answer.get("content");
            let said = |key: &str| {
                content
                    .and_then(|content| content.get(key))
                    .and_then(Value::as_bool)
            };
            let approve = answer.get("action").and_then(Value::as_str) == Some("accept")
                && said(CONFIRM_KEY).or_else(|| said("approve")) == Some(true);
            match jobs.confirm(self.agent(), task_id, approve).await {
                Ok(_) => {}
                // It moved on in between: nothing is outstanding any more.
                Err(JobError::Refused(error))
                    if matches!(
                        error.code,
                        portos_core::ErrorCode::ToolJobFinished
                            | portos_core::ErrorCode::ToolJobNotAwaitingInput
                    ) => {}
                Err(error) => return Err(refusal(error)),
            }
        }
        Ok(ack(&self.result_meta()))
    }

    /// `tasks/cancel`: acknowledged for any known task, ended or not.
    pub(super) async fn task_cancel(
        &self,
        params: Option<&Map<String, Value>>,
    ) -> Result<Value, Refusal> {
        let task_id = task_id(params)?;
        match self.app().jobs.cancel(self.agent(), task_id).await {
            Ok(_) => Ok(ack(&self.result_meta())),
            Err(JobError::Refused(error))
                if error.code == portos_core::ErrorCode::ToolJobFinished =>
            {
                Ok(ack(&self.result_meta()))
            }
            Err(error) => Err(refusal(error)),
        }
    }
}

fn ack(meta: &Value) -> Value {
    json!({ "resultType": "complete", "_meta": meta })
}

fn task_id(params: Option<&Map<String, Value>>) -> Result<&str, Refusal> {
    params
        .and_then(|params| params.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::new(INVALID_PARAMS, "taskId is required"))
}

/// An unknown (or someone else's) task and every other refusal are
/// invalid params; a store failure is the server's.
fn refusal(error: JobError) -> Refusal {
    match error {
        JobError::Refused(error) if error.code == portos_core::ErrorCode::ToolJobNotFound => {
            Refusal::new(INVALID_PARAMS, "Unknown task")
        }
        JobError::Refused(error) => Refusal::new(INVALID_PARAMS, error.message),
        JobError::Store(error) => Refusal::new(super::jsonrpc::INTERNAL_ERROR, error.to_string()),
    }
}

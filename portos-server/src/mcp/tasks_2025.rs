//! Tasks as MCP 2025-11-25 defines them (an experimental utility of that
//! revision), backed by the same durable jobs as the 2026 extension: a
//! `tools/call` with `task` answers a long-running tool's job as
//! `{ task }`; `tasks/get`, `tasks/result` (waits for the end), `tasks/cancel`
//! and `tasks/list` follow it. Declared in `initialize` only by a server
//! that has a long-running agent tool. An agent sees its own jobs only.
//!
//! That revision has no way for a task to ask its requestor for a person's
//! confirmation without a server-to-client request on a stream, so a job
//! waiting for one is shown `working`, with a status message saying the
//! person confirms it in the application; tasks begin `working`, as it
//! requires.

use portos_core::ErrorCode;
use serde_json::{Map, Value, json};

use super::jsonrpc::{self, INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::server::{CallMeta, CallOutcome, Follows, McpServer, call_params, job_reply};
use crate::jobs::{Job, JobError, JobState};

/// The `_meta` key tying a message to its task.
const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

/// The longest page of `tasks/list`.
const LIST_PAGE: usize = 50;

/// The server's `tasks` capability of that revision.
pub(crate) fn capability() -> Value {
    json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
}

type Answer = Result<Value, (i64, String)>;

impl McpServer {
    /// Answers a 2025 message that is about tasks: `tools/call` with `task`
    /// and the `tasks/*` methods. `None` for any other message.
    pub(super) async fn handle_task_2025(
        &self,
        id: &Value,
        method: &str,
        params: Option<&Map<String, Value>>,
        meta: &CallMeta,
    ) -> Option<String> {
        // Each boxed: every 2025 request passes here, and inline these
        // futures (a call's among them) would grow every request's.
        let answer = match method {
            "tools/call" if params.is_some_and(|params| params.contains_key("task")) => {
                Box::pin(self.call_as_task(id, params, meta)).await
            }
            "tasks/get" => Box::pin(self.task_get_2025(params)).await,
            "tasks/result" => Box::pin(self.task_result_2025(params)).await,
            "tasks/cancel" => Box::pin(self.task_cancel_2025(params)).await,
            "tasks/list" => Box::pin(self.task_list_2025(params)).await,
            _ => return None,
        };
        Some(
            match answer {
                Ok(result) => jsonrpc::result_response(id, result),
                Err((code, message)) => jsonrpc::error_response(id, code, &message),
            }
            .to_string(),
        )
    }

    async fn call_as_task(
        &self,
        id: &Value,
        params: Option<&Map<String, Value>>,
        meta: &CallMeta,
    ) -> Answer {
        let mut params = params.cloned().unwrap_or_default();
        let task = params.remove("task");
        // `{ ttl? }`: the ttl asked for is a wish; jobs keep their own.
        if !task.as_ref().is_some_and(|task| {
            task.as_object().is_some_and(|task| {
                task.keys().all(|key| key == "ttl")
                    && task
                        .get("ttl")
                        .is_none_or(|ttl| ttl.is_null() || ttl.is_u64())
            })
        }) {
            return Err((INVALID_PARAMS, "Invalid tools/call params".to_owned()));
        }
        let Some((name, arguments)) = call_params(Some(params)) else {
            return Err((INVALID_PARAMS, "Invalid tools/call params".to_owned()));
        };
        let long_running = self
            .app()
            .registry
            .resolve(&name)
            .is_some_and(|tool| tool.policy.long_running);
        if !long_running {
            return Err((
                METHOD_NOT_FOUND,
                format!("Tool '{name}' cannot be called as a task"),
            ));
        }
        match self
            .call_tool_or_task(&name, arguments, meta, Follows::Task)
            .await
        {
            CallOutcome::Task(job) => Ok(json!({ "task": task_2025(&job) })),
            // A refusal is the call's own result, as without `task`.
            CallOutcome::Reply(reply) => {
                serde_json::from_str::<Value>(&reply.into_response(id, None))
                    .ok()
                    .and_then(|mut response| response.get_mut("result").map(Value::take))
                    .ok_or((INTERNAL_ERROR, "The result could not be written".to_owned()))
            }
        }
    }

    async fn task_get_2025(&self, params: Option<&Map<String, Value>>) -> Answer {
        let job = self
            .app()
            .jobs
            .get(self.agent(), task_id(params)?)
            .await
            .map_err(refusal)?;
        Ok(task_2025(&job))
    }

    /// Waits for the end, then answers what the call itself would have.
    async fn task_result_2025(&self, params: Option<&Map<String, Value>>) -> Answer {
        let task_id = task_id(params)?;
        let job = self
            .app()
            .jobs
            .wait_final(self.agent(), task_id)
            .await
            .map_err(refusal)?;
        let response =
            job_reply(&job, self.answers_content(&job)).into_response(&Value::Null, None);
        let mut result = serde_json::from_str::<Value>(&response)
            .ok()
            .and_then(|mut response| response.get_mut("result").map(Value::take))
            .ok_or((INTERNAL_ERROR, "The result could not be written".to_owned()))?;
        result["_meta"] = json!({ RELATED_TASK_KEY: { "taskId": job.job_id } });
        Ok(result)
    }

    async fn task_cancel_2025(&self, params: Option<&Map<String, Value>>) -> Answer {
        match self.app().jobs.cancel(self.agent(), task_id(params)?).await {
            Ok(job) => Ok(task_2025(&job)),
            Err(JobError::Refused(error)) if error.code == ErrorCode::ToolJobFinished => Err((
                INVALID_PARAMS,
                "The task is already in a terminal status".to_owned(),
            )),
            Err(error) => Err(refusal(error)),
        }
    }

    async fn task_list_2025(&self, params: Option<&Map<String, Value>>) -> Answer {
        // The cursor is the offset this server wrote; anything else is invalid.
        let offset = match params.and_then(|params| params.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => cursor
                .parse::<usize>()
                .map_err(|_| (INVALID_PARAMS, "Invalid cursor".to_owned()))?,
            Some(_) => return Err((INVALID_PARAMS, "Invalid cursor".to_owned())),
        };
        let (jobs, more) = self
            .app()
            .jobs
            .list(self.agent(), None, offset, LIST_PAGE)
            .await
            .map_err(refusal)?;
        let mut answer = json!({ "tasks": jobs.iter().map(task_2025).collect::<Vec<_>>() });
        if more {
            answer["nextCursor"] = json!((offset + LIST_PAGE).to_string());
        }
        Ok(answer)
    }
}

/// A job as that revision's `Task`.
fn task_2025(job: &Job) -> Value {
    let (status, message) = match job.state {
        JobState::InputRequired => (
            "working",
            Some("Waiting for a person to confirm the call in the application".to_owned()),
        ),
        // That revision makes a call whose result has `isError` a `failed`
        // task (its `tasks/result` is still that result), so a failed job is
        // `failed` as it is.
        state => (state.as_str(), job.status_message.clone()),
    };
    let message = message.or_else(|| {
        job.progress
            .as_ref()
            .and_then(|progress| progress.message.clone())
    });
    let mut task = json!({
        "taskId": job.job_id,
        "status": status,
        "createdAt": job.created_at,
        "lastUpdatedAt": job.updated_at,
        "ttl": job.expires_at_ms.saturating_sub(job.created_at_ms).max(0),
        "pollInterval": job.poll_interval_ms,
    });
    if let Some(message) = message {
        task["statusMessage"] = json!(message);
    }
    task
}

fn task_id(params: Option<&Map<String, Value>>) -> Result<&str, (i64, String)> {
    params
        .and_then(|params| params.get("taskId"))
        .and_then(Value::as_str)
        .ok_or((INVALID_PARAMS, "taskId is required".to_owned()))
}

fn refusal(error: JobError) -> (i64, String) {
    match error {
        JobError::Refused(error) if error.code == ErrorCode::ToolJobNotFound => {
            (INVALID_PARAMS, "Unknown task".to_owned())
        }
        JobError::Refused(error) => (INVALID_PARAMS, error.message),
        JobError::Store(error) => (INTERNAL_ERROR, error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::tasks;

    fn job(state: JobState, status_message: Option<&str>) -> Job {
        Job {
            kind: "portos_tool_job",
            job_id: "job-1".to_owned(),
            request_id: "call-1".to_owned(),
            name: "lab.hosts.probe".to_owned(),
            principal: "agent".to_owned(),
            state,
            duplicate: false,
            status_message: status_message.map(str::to_owned),
            progress: None,
            input_request: None,
            created_at: "2026-12-05T08:00:00.000Z".to_owned(),
            updated_at: "2026-12-05T08:00:01.000Z".to_owned(),
            expires_at: "2026-12-06T08:00:01.000Z".to_owned(),
            poll_interval_ms: 1_000,
            result: None,
            fault: None,
            created_at_ms: 1_000,
            expires_at_ms: 86_402_000,
        }
    }

    #[test]
    fn a_failed_job_is_a_failed_task_at_2025_and_a_completed_one_at_2026() {
        let failed = job(JobState::Failed, Some("No route to host"));
        let old = task_2025(&failed);
        assert_eq!(old["status"], "failed");
        assert_eq!(old["statusMessage"], "No route to host");
        let new = tasks::task(&failed, false, &Value::Null, false);
        assert_eq!(new["status"], "completed");
    }

    #[test]
    fn a_job_waiting_for_a_person_is_working_at_2025_with_a_message() {
        let parked = task_2025(&job(JobState::InputRequired, None));
        assert_eq!(parked["status"], "working");
        assert!(
            parked["statusMessage"]
                .as_str()
                .is_some_and(|message| message.contains("confirm")),
            "{parked}"
        );
        for (state, status) in [
            (JobState::Working, "working"),
            (JobState::Completed, "completed"),
            (JobState::Cancelled, "cancelled"),
        ] {
            assert_eq!(task_2025(&job(state, None))["status"], status);
        }
        assert_eq!(
            task_2025(&job(JobState::Completed, None))["ttl"],
            86_401_000
        );
    }
}

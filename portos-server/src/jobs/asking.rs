//! A job's questions to its caller. A tool that asks (`ToolContext::ask`)
//! while it runs as the job of an MCP client that follows it (a task)
//! parks the job `input_required` with its open questions, all of them at
//! once when it asks several together; the client answers them with
//! `tasks/update`, together or one at a time, on any server of the
//! database, and each answer reaches the adapter waiting on it. Answers are
//! kept on the job: a question asked again (a run resumed after a restart,
//! a question the call's own rounds answered before its job began) answers
//! at once.

use std::collections::BTreeMap;

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::{InputError, InputKind, InputRequest as Question, InputSource};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use super::record::{InputRequest, JobState, QUESTIONS};
use super::sql::{self, Change, JobRow};
use super::{JobError, Jobs, Viewer, now_ms};
use crate::store::StoreError;

/// What a job's caller can answer, and what it has answered, by key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Asking {
    pub kinds: Vec<InputKind>,
    #[serde(default)]
    pub answers: Map<String, Value>,
}

/// What a job's runner holds of its questions.
#[derive(Default)]
pub(super) struct Waiting {
    /// Every answer so far (the job's, read when the run began, and those
    /// delivered since).
    answers: Map<String, Value>,
    /// The questions asked and not answered yet, with who waits on each.
    open: BTreeMap<String, Open>,
}

struct Open {
    question: Question,
    waiters: Vec<oneshot::Sender<Value>>,
}

impl Waiting {
    pub(super) fn with_answers(answers: Map<String, Value>) -> Waiting {
        Waiting {
            answers,
            open: BTreeMap::new(),
        }
    }

    /// Nobody waits any more (the job was cancelled): every ask fails.
    pub(super) fn drop_waiters(&mut self) {
        self.open.clear();
    }

    fn is_waiting(&self) -> bool {
        !self.open.is_empty()
    }

    /// Hands each open question its answer among `answers`.
    fn deliver(&mut self, answers: &Map<String, Value>) {
        for (key, answer) in answers {
            self.answers.insert(key.clone(), answer.clone());
            let fits = self
                .open
                .get(key)
                .is_some_and(|open| open.question.kind.accepts(answer));
            if fits && let Some(open) = self.open.remove(key) {
                for waiter in open.waiters {
                    let _ = waiter.send(answer.clone());
                }
            }
        }
    }
}

/// The input source of a job's adapter.
pub(super) struct JobInput {
    pub(super) jobs: Jobs,
    pub(super) job_id: String,
    pub(super) kinds: Vec<InputKind>,
}

impl InputSource for JobInput {
    /// What the caller answers, or (for a caller that waits) what it
    /// answered before the job began.
    fn supports(&self, kind: InputKind) -> bool {
        self.kinds.contains(&kind)
            || self
                .jobs
                .lock_running()
                .get(&self.job_id)
                .is_some_and(|entry| !entry.waiting.answers.is_empty())
    }

    fn ask(&self, key: &str, question: Question) -> BoxFuture<'static, Result<Value, InputError>> {
        let answer = {
            let mut running = self.jobs.lock_running();
            let Some(waiting) = running
                .get_mut(&self.job_id)
                .map(|entry| &mut entry.waiting)
            else {
                return futures::future::ready(Err(ended())).boxed();
            };
            if let Some(answer) = waiting
                .answers
                .get(key)
                .filter(|answer| question.kind.accepts(answer))
            {
                return futures::future::ready(Ok(answer.clone())).boxed();
            }
            if !self.kinds.contains(&question.kind) {
                return futures::future::ready(Err(InputError::Unavailable(
                    question.kind.as_str(),
                )))
                .boxed();
            }
            let (sender, answer) = oneshot::channel();
            waiting
                .open
                .entry(key.to_owned())
                .or_insert_with(|| Open {
                    question,
                    waiters: Vec::new(),
                })
                .waiters
                .push(sender);
            answer
        };
        let (jobs, job_id) = (self.jobs.clone(), self.job_id.clone());
        async move {
            if let Err(error) = jobs.show_questions(&job_id).await {
                tracing::error!(%job_id, %error, "a job's questions could not be recorded");
                return Err(InputError::Failed(
                    "the question could not be recorded".to_owned(),
                ));
            }
            answer.await.map_err(|_| ended())
        }
        .boxed()
    }
}

fn ended() -> InputError {
    InputError::Failed("the job ended before the question was answered".to_owned())
}

impl Jobs {
    /// Records the runner's open questions on the job (`input_required`
    /// while any is open): computed with the row locked, so the last write
    /// is the latest state, and without what the job already answered.
    async fn show_questions(&self, job_id: &str) -> Result<(), StoreError> {
        let (jobs, id) = (self.clone(), job_id.to_owned());
        let applied = self
            .0
            .store
            .run(move |connection| {
                sql::apply_with(connection, &id, now_ms(), |row| {
                    let open = jobs.open_questions(&row.job_id);
                    questions_change(row, open)
                })
            })
            .await?;
        if let Some((_, events)) = applied {
            for event in events {
                self.publish(event);
            }
        }
        Ok(())
    }

    /// The runner's open questions, as MCP writes each request.
    fn open_questions(&self, job_id: &str) -> Map<String, Value> {
        let running = self.lock_running();
        running
            .get(job_id)
            .map(|entry| {
                entry
                    .waiting
                    .open
                    .iter()
                    .map(|(key, open)| (key.clone(), request_json(&open.question)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The caller's answers to a job's questions (`tasks/update`): those
    /// that answer an open question are kept on the job and handed to its
    /// runner, here or on another server; others (unknown keys, a job not
    /// asking) are ignored, as the tasks extension says.
    pub(crate) async fn answer(
        &self,
        viewer: Viewer,
        job_id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), JobError> {
        let row = self.visible(viewer, job_id).await?;
        let responses = responses.clone();
        let applied = self
            .0
            .store
            .run(move |connection| {
                sql::apply_with(connection, &row.job_id, now_ms(), |row| {
                    answers_change(row, &responses)
                })
            })
            .await?;
        if let Some((row, events)) = applied {
            for event in events {
                self.publish(event);
            }
            self.deliver(&row);
        }
        Ok(())
    }

    /// Hands the runner held here the answers recorded on `row`.
    pub(super) fn deliver(&self, row: &JobRow) {
        let Some(asking) = &row.asking else { return };
        if let Some(entry) = self.lock_running().get_mut(&row.job_id) {
            entry.waiting.deliver(&asking.answers);
        }
    }

    /// Whether a runner held here waits on an answer for `job_id`.
    pub(super) fn waits_on_answers(&self, job_id: &str) -> bool {
        self.lock_running()
            .get(job_id)
            .is_some_and(|entry| entry.waiting.is_waiting())
    }
}

/// `question` as MCP writes it: `{method, params}`.
fn request_json(question: &Question) -> Value {
    json!({ "method": question.kind.method(), "params": question.params })
}

/// The change that shows `open` (less what is answered) on the job, or
/// `None` when it shows them already (or the job waits for a person's
/// confirmation, which questions do not replace).
fn questions_change(row: &JobRow, mut open: Map<String, Value>) -> Option<(Change, &'static str)> {
    if row
        .input_request
        .as_ref()
        .is_some_and(InputRequest::is_confirmation)
    {
        return None;
    }
    if let Some(asking) = &row.asking {
        open.retain(|key, _| !asking.answers.contains_key(key));
    }
    let shown = row.input_request.as_ref().map(|request| &request.questions);
    if shown == Some(&open) || (shown.is_none() && open.is_empty()) {
        return None;
    }
    Some(if open.is_empty() {
        working_again()
    } else {
        parked(open)
    })
}

/// The change `responses` make to the job's open questions.
fn answers_change(row: &JobRow, responses: &Map<String, Value>) -> Option<(Change, &'static str)> {
    let request = row
        .input_request
        .as_ref()
        .filter(|request| row.state == JobState::InputRequired && request.kind == QUESTIONS)?;
    let mut open = request.questions.clone();
    let mut asking = row.asking.clone().unwrap_or_default();
    for (key, answer) in responses {
        let kind = open
            .get(key)
            .and_then(|request| request.get("method"))
            .and_then(Value::as_str)
            .and_then(InputKind::from_method);
        if kind.is_some_and(|kind| kind.accepts(answer)) {
            open.shift_remove(key);
            asking.answers.insert(key.clone(), answer.clone());
        }
    }
    if open.len() == request.questions.len() {
        return None;
    }
    let (mut change, kind) = if open.is_empty() {
        working_again()
    } else {
        parked(open)
    };
    change.asking = Some(asking);
    Some((change, kind))
}

fn parked(open: Map<String, Value>) -> (Change, &'static str) {
    let message = open
        .values()
        .find_map(|request| request["params"]["message"].as_str())
        .unwrap_or("The tool asks its caller")
        .to_owned();
    (
        Change {
            state: Some(JobState::InputRequired),
            status_message: Some(Some("Waiting for the caller's answer".to_owned())),
            input_request: Some(Some(InputRequest {
                kind: QUESTIONS.to_owned(),
                message,
                questions: open,
            })),
            ..Change::default()
        },
        "input_required",
    )
}

fn working_again() -> (Change, &'static str) {
    (
        Change {
            state: Some(JobState::Working),
            status_message: Some(Some("Answered".to_owned())),
            input_request: Some(None),
            ..Change::default()
        },
        "working",
    )
}

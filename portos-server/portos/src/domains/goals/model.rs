//! What a goal is (title, horizon, category, urgency, progress, status, and
//! dated notes) and the rules every change to one follows, whether a tool or
//! a route asks: the ranges, the trimming, and which active goal a spoken
//! title means.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::doc_rules::NOT_BLANK;
use crate::shared::title_match;

/// The status of a goal the tools work on.
pub const ACTIVE: &str = "active";
/// How urgent a new goal is unless told.
pub const DEFAULT_URGENCY: f64 = 0.5;
const MAX_NOTE_MINUTES: f64 = 1440.0;
/// How many other matching titles a match names.
const MAX_ALTERNATIVES: usize = 3;

/// A goal as stored.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub id: String,
    pub title: String,
    /// Free text, e.g. `1-year`, `5-year`, `lifetime`.
    pub horizon: String,
    pub category: String,
    /// 0 (whenever) to 1 (now); lists are ordered by it.
    pub urgency: f64,
    /// Percent, 0 to 100.
    pub progress: i64,
    /// `active`, `completed` or `archived`.
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A note on a goal, dated by the user's local day.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GoalNote {
    pub id: String,
    pub goal_id: String,
    pub date: String,
    pub note: String,
    pub duration_minutes: Option<f64>,
    pub created_at: String,
}

/// Where a goal stands.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GoalStatus {
    Active,
    Completed,
    Archived,
}

impl GoalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GoalStatus::Active => "active",
            GoalStatus::Completed => "completed",
            GoalStatus::Archived => "archived",
        }
    }
}

/// A new goal.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGoal {
    /// Must not be empty.
    #[schemars(regex(pattern = NOT_BLANK))]
    pub title: String,
    /// e.g. `1-year`, `5-year`, `lifetime` (default empty).
    pub horizon: Option<String>,
    /// e.g. `health`, `career` (default empty).
    pub category: Option<String>,
    /// 0 (whenever) to 1 (now); default 0.5.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub urgency: Option<f64>,
    /// Percent, 0 to 100 (default 0).
    #[schemars(range(min = 0, max = 100))]
    pub progress: Option<i64>,
}

/// Changes to a goal; fields left out keep their value.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalChanges {
    #[schemars(regex(pattern = NOT_BLANK))]
    pub title: Option<String>,
    pub horizon: Option<String>,
    pub category: Option<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub urgency: Option<f64>,
    #[schemars(range(min = 0, max = 100))]
    pub progress: Option<i64>,
    pub status: Option<GoalStatus>,
}

/// A note that passed the rules, ready to attach to a goal.
#[derive(Clone, Debug, PartialEq)]
pub struct NoteDraft {
    pub text: String,
    pub duration_minutes: Option<f64>,
}

/// A note's text (trimmed, not empty) and time spent (more than 0, at most
/// 1440 minutes), or what is wrong with them.
pub fn note_draft(note: &str, duration_minutes: Option<f64>) -> Result<NoteDraft, String> {
    let text = non_empty("note", note)?;
    if let Some(minutes) = duration_minutes
        && !(minutes.is_finite() && minutes > 0.0 && minutes <= MAX_NOTE_MINUTES)
    {
        return Err(format!(
            "durationMinutes must be more than 0 and at most 1440 (got {minutes})"
        ));
    }
    Ok(NoteDraft {
        text,
        duration_minutes,
    })
}

/// A goal's title: trimmed, and not empty.
pub fn title(raw: &str) -> Result<String, String> {
    non_empty("title", raw)
}

/// Free text (horizon, category): trimmed; absent is empty.
pub fn trimmed(text: Option<&str>) -> String {
    text.map(str::trim).unwrap_or_default().to_owned()
}

/// Urgency: 0 (whenever) to 1 (now).
pub fn urgency(value: f64) -> Result<f64, String> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("urgency must be between 0 and 1 (got {value})"))
    }
}

/// Progress in whole percent, 0 to 100.
pub fn progress(value: i64) -> Result<i64, String> {
    if (0..=100).contains(&value) {
        Ok(value)
    } else {
        Err(progress_out_of_range(value))
    }
}

/// Progress as said (any number of percent, 0 to 100), rounded to whole percent.
pub fn progress_percent(value: f64) -> Result<i64, String> {
    if !value.is_finite() || !(0.0..=100.0).contains(&value) {
        return Err(progress_out_of_range(value));
    }
    Ok(value.round() as i64)
}

fn progress_out_of_range(got: impl Display) -> String {
    format!("progress must be between 0 and 100 percent (got {got})")
}

/// Text that must not be blank, trimmed; the message names `field`.
pub fn non_empty(field: &str, text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("{field} must not be empty"));
    }
    Ok(text.to_owned())
}

/// The checked values of `changes`; checked before anything is read, so a
/// bad change changes nothing.
#[derive(Debug)]
pub struct CheckedChanges {
    title: Option<String>,
    horizon: Option<String>,
    category: Option<String>,
    urgency: Option<f64>,
    progress: Option<i64>,
    status: Option<GoalStatus>,
}

impl GoalChanges {
    pub fn checked(self) -> Result<CheckedChanges, String> {
        Ok(CheckedChanges {
            title: self.title.as_deref().map(title).transpose()?,
            urgency: self.urgency.map(urgency).transpose()?,
            progress: self.progress.map(progress).transpose()?,
            horizon: self.horizon,
            category: self.category,
            status: self.status,
        })
    }
}

impl CheckedChanges {
    /// `goal` with the changes applied, updated at `now`.
    pub fn apply(self, goal: &mut Goal, now: String) {
        if let Some(title) = self.title {
            goal.title = title;
        }
        if let Some(horizon) = self.horizon {
            goal.horizon = horizon.trim().to_owned();
        }
        if let Some(category) = self.category {
            goal.category = category.trim().to_owned();
        }
        if let Some(urgency) = self.urgency {
            goal.urgency = urgency;
        }
        if let Some(progress) = self.progress {
            goal.progress = progress;
        }
        if let Some(status) = self.status {
            goal.status = status.as_str().to_owned();
        }
        goal.updated_at = now;
    }
}

/// The active goal a spoken title means.
#[derive(Debug)]
pub struct Match {
    pub goal: Goal,
    /// The titles of the runners-up, best first.
    pub alternatives: Vec<String>,
}

/// The best match for `query` among the `active` goals (most urgent first),
/// or the summary of a failed match that tells the user what to say instead.
pub fn best_match(mut active: Vec<Goal>, query: &str) -> Result<Match, String> {
    if active.is_empty() {
        return Err("You have no active goals yet.".to_owned());
    }
    let ranked = title_match::rank(query, active.iter().map(|goal| goal.title.as_str()));
    let Some(&(best, _)) = ranked.first() else {
        let known: Vec<&str> = active
            .iter()
            .take(MAX_ALTERNATIVES)
            .map(|goal| goal.title.as_str())
            .collect();
        return Err(format!(
            "No active goal matches \"{query}\". Say words from its title, e.g. {}.",
            known.join(", ")
        ));
    };
    let alternatives = ranked
        .iter()
        .skip(1)
        .take(MAX_ALTERNATIVES)
        .map(|(index, _)| active[*index].title.clone())
        .collect();
    Ok(Match {
        goal: active.swap_remove(best),
        alternatives,
    })
}

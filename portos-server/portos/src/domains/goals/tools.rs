//! The goals' tools: list by urgency, update progress and log notes by a
//! fuzzy title (docs/reference.md#semantic-adapters rows 9–11, the voice era's
//! `goal_*` tools). Goals are created and edited over REST (`/api/goals`); no
//! tool creates them.

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::clock::UserClock;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{self, GoalChanges, Match};
use super::ops;
use crate::shared::amount::amount;
use crate::shared::limits::clamp_limit;
use crate::shared::local_date;

const LIST_DEFAULT: usize = 10;
const LIST_MAX: usize = 20;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// How many goals to return (default 10, at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GoalItem {
    pub title: String,
    pub horizon: String,
    pub category: String,
    /// Percent, 0 to 100.
    pub progress: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GoalList {
    pub ok: bool,
    pub count: usize,
    pub goals: Vec<GoalItem>,
    pub summary: String,
}

/// List the user's active goals, most urgent first.
#[portos_tool(
    name = "goals.list",
    aliases = ["goal_list", "goals_list"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "goals",
)]
pub async fn list(args: ListArgs, store: Shared<Store>) -> Result<GoalList, AdapterError> {
    let limit = clamp_limit(args.limit, LIST_DEFAULT, LIST_MAX);
    let mut active = ops::active_goals(&store).await?;
    active.truncate(limit);
    let goals: Vec<GoalItem> = active
        .into_iter()
        .map(|goal| GoalItem {
            title: goal.title,
            horizon: goal.horizon,
            category: goal.category,
            progress: goal.progress,
        })
        .collect();
    let summary = if goals.is_empty() {
        "No active goals.".to_owned()
    } else {
        let listed: Vec<String> = goals
            .iter()
            .map(|goal| format!("{} ({}%)", goal.title, goal.progress))
            .collect();
        let noun = if goals.len() == 1 { "goal" } else { "goals" };
        format!("{} active {noun}: {}.", goals.len(), listed.join(", "))
    };
    Ok(GoalList {
        ok: true,
        count: goals.len(),
        goals,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UpdateProgressArgs {
    /// Words from the goal's title.
    pub goal_query: String,
    /// The new progress in percent (0 to 100; rounded).
    pub progress: f64,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct ProgressUpdated {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<i64>,
    /// Other goals that also matched, best first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<Vec<String>>,
    pub summary: String,
}

/// Set the progress of the active goal whose title best matches the query.
#[portos_tool(
    name = "goals.update-progress",
    aliases = ["goal_update_progress", "goals_update_progress"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "goals",
)]
pub async fn update_progress(
    args: UpdateProgressArgs,
    store: Shared<Store>,
) -> Result<ProgressUpdated, AdapterError> {
    let query = model::non_empty("goalQuery", &args.goal_query).map_err(AdapterError::new)?;
    let current = model::progress_percent(args.progress).map_err(AdapterError::new)?;
    let Match { goal, alternatives } = match ops::find_active(&store, &query).await? {
        Ok(found) => found,
        Err(summary) => return Ok(not_updated(summary)),
    };
    let (previous, title) = (goal.progress, goal.title);
    let changes = GoalChanges {
        progress: Some(current),
        ..GoalChanges::default()
    };
    if ops::change(&store, goal.id, changes).await?.is_none() {
        return Ok(not_updated(format!("\"{title}\" was deleted meanwhile.")));
    }
    let mut summary = format!("Updated \"{title}\" from {previous}% to {current}%.");
    if !alternatives.is_empty() {
        summary.push_str(&format!(" Also matched: {}.", alternatives.join(", ")));
    }
    Ok(ProgressUpdated {
        ok: true,
        title: Some(title),
        previous: Some(previous),
        current: Some(current),
        alternatives: Some(alternatives),
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogNoteArgs {
    /// Words from the goal's title.
    pub goal_query: String,
    /// The note, e.g. what was done.
    pub note: String,
    /// Time spent, in minutes (more than 0, at most 1440).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_minutes: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteLogged {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub summary: String,
}

/// Attach a note, dated today, to the active goal whose title best matches.
#[portos_tool(
    name = "goals.log-note",
    aliases = ["goal_log_note", "goals_log_note"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "goals",
)]
pub async fn log_note(
    args: LogNoteArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<NoteLogged, AdapterError> {
    let query = model::non_empty("goalQuery", &args.goal_query).map_err(AdapterError::new)?;
    let draft = model::note_draft(&args.note, args.duration_minutes).map_err(AdapterError::new)?;
    let goal = match ops::find_active(&store, &query).await? {
        Ok(Match { goal, .. }) => goal,
        Err(summary) => return Ok(note_not_logged(summary)),
    };
    let today = local_date::today(&clock);
    let Some(note) = ops::add_note(&store, goal.id, draft, today).await? else {
        return Ok(note_not_logged(format!(
            "\"{}\" was deleted meanwhile.",
            goal.title
        )));
    };
    let minutes = note
        .duration_minutes
        .map(|m| format!(" ({} min)", amount(m)))
        .unwrap_or_default();
    Ok(NoteLogged {
        ok: true,
        summary: format!("Noted on \"{}\"{minutes} for {}.", goal.title, note.date),
        title: Some(goal.title),
    })
}

fn not_updated(summary: String) -> ProgressUpdated {
    ProgressUpdated {
        ok: false,
        summary,
        ..ProgressUpdated::default()
    }
}

fn note_not_logged(summary: String) -> NoteLogged {
    NoteLogged {
        ok: false,
        title: None,
        summary,
    }
}

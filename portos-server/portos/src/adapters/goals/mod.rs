//! Goals: list by urgency, update progress and log notes by a fuzzy title
//! (BEHAVIOUR §3 rows 9–11, the voice era's `goal_*` tools). Goals are
//! created and edited over REST (`/api/goals`); no tool creates them.

use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::UserClock;
use crate::shared::limits::clamp_limit;
use crate::shared::local_date;
use crate::shared::title_match;
use crate::store::Store;
use crate::store::goals::{self, Goal, GoalNote};

const LIST_DEFAULT: usize = 10;
const LIST_MAX: usize = 20;
const MAX_ALTERNATIVES: usize = 3;
const MAX_NOTE_MINUTES: f64 = 1440.0;
pub const ACTIVE: &str = "active";

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
pub async fn list(ctx: &ToolContext, args: ListArgs) -> Result<GoalList, AdapterError> {
    let limit = clamp_limit(args.limit, LIST_DEFAULT, LIST_MAX);
    let mut active = active_goals(ctx.state::<Store>()?).await?;
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
    ctx: &ToolContext,
    args: UpdateProgressArgs,
) -> Result<ProgressUpdated, AdapterError> {
    let query = non_empty("goalQuery", &args.goal_query)?;
    if !args.progress.is_finite() || !(0.0..=100.0).contains(&args.progress) {
        return Err(AdapterError::new(format!(
            "progress must be between 0 and 100 percent (got {})",
            args.progress
        )));
    }
    let current = args.progress.round() as i64;
    let store = ctx.state::<Store>()?;
    let (mut goal, alternatives) = match find(store, &query).await? {
        Ok(found) => found,
        Err(summary) => {
            return Ok(ProgressUpdated {
                ok: false,
                summary,
                ..ProgressUpdated::default()
            });
        }
    };
    let previous = goal.progress;
    goal.progress = current;
    goal.updated_at = jiff::Timestamp::now().to_string();
    let title = goal.title.clone();
    store
        .run(move |connection| goals::update_goal(connection, &goal))
        .await?;
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
pub async fn log_note(ctx: &ToolContext, args: LogNoteArgs) -> Result<NoteLogged, AdapterError> {
    let query = non_empty("goalQuery", &args.goal_query)?;
    let text = non_empty("note", &args.note)?;
    if let Some(minutes) = args.duration_minutes
        && !(minutes.is_finite() && minutes > 0.0 && minutes <= MAX_NOTE_MINUTES)
    {
        return Err(AdapterError::new(format!(
            "durationMinutes must be more than 0 and at most 1440 (got {minutes})"
        )));
    }
    let store = ctx.state::<Store>()?;
    let goal = match find(store, &query).await? {
        Ok((goal, _)) => goal,
        Err(summary) => {
            return Ok(NoteLogged {
                ok: false,
                title: None,
                summary,
            });
        }
    };
    let note = GoalNote {
        id: uuid::Uuid::new_v4().to_string(),
        goal_id: goal.id.clone(),
        date: local_date::today(ctx.state::<UserClock>()?).to_string(),
        note: text,
        duration_minutes: args.duration_minutes,
        created_at: jiff::Timestamp::now().to_string(),
    };
    let minutes = note
        .duration_minutes
        .map(|m| format!(" ({} min)", super::health::rules::amount(m)))
        .unwrap_or_default();
    let summary = format!("Noted on \"{}\"{minutes} for {}.", goal.title, note.date);
    store
        .run(move |connection| goals::insert_note(connection, &note))
        .await?;
    Ok(NoteLogged {
        ok: true,
        title: Some(goal.title),
        summary,
    })
}

/// Active goals, most urgent first.
async fn active_goals(store: &Store) -> Result<Vec<Goal>, AdapterError> {
    Ok(store
        .run(|connection| goals::goals(connection, Some(ACTIVE)))
        .await?)
}

/// The best-matching active goal and the titles of the runners-up, or the
/// summary of a failed match that tells the user what to say instead.
async fn find(
    store: &Store,
    query: &str,
) -> Result<Result<(Goal, Vec<String>), String>, AdapterError> {
    let mut active = active_goals(store).await?;
    if active.is_empty() {
        return Ok(Err("You have no active goals yet.".to_owned()));
    }
    let ranked = title_match::rank(query, active.iter().map(|goal| goal.title.as_str()));
    let Some(&(best, _)) = ranked.first() else {
        let known: Vec<&str> = active
            .iter()
            .take(MAX_ALTERNATIVES)
            .map(|goal| goal.title.as_str())
            .collect();
        return Ok(Err(format!(
            "No active goal matches \"{query}\". Say words from its title, e.g. {}.",
            known.join(", ")
        )));
    };
    let alternatives = ranked
        .iter()
        .skip(1)
        .take(MAX_ALTERNATIVES)
        .map(|(index, _)| active[*index].title.clone())
        .collect();
    Ok(Ok((active.swap_remove(best), alternatives)))
}

fn non_empty(field: &str, text: &str) -> Result<String, AdapterError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AdapterError::new(format!("{field} must not be empty")));
    }
    Ok(text.to_owned())
}

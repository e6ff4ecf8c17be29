//! The goals' operations, for the `goals.*` tools and `/api/goals`: list,
//! find the active goal a title means, create, change (progress included),
//! delete, and attach a note. Each checks its input with the model's rules
//! before it touches the store.

use jiff::civil::Date;
use portos_server::store::{Store, StoreError};

use super::model::{
    self, ACTIVE, Goal, GoalChanges, GoalNote, GoalStatus, Match, NewGoal, NoteDraft,
};
use super::store;

/// Why a goal was not created or changed.
#[derive(Debug, thiserror::Error)]
pub enum GoalError {
    /// The input does not fit; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Goals with `status` (every goal when `None`), most urgent first.
pub async fn goals(store: &Store, status: Option<GoalStatus>) -> Result<Vec<Goal>, StoreError> {
    store
        .run(move |connection| store::goals(connection, status.map(GoalStatus::as_str)))
        .await
}

/// Active goals, most urgent first.
pub async fn active_goals(store: &Store) -> Result<Vec<Goal>, StoreError> {
    store
        .run(|connection| store::goals(connection, Some(ACTIVE)))
        .await
}

/// The active goal whose title best matches `query`, or the summary of a
/// failed match that tells the user what to say instead.
pub async fn find_active(store: &Store, query: &str) -> Result<Result<Match, String>, StoreError> {
    Ok(model::best_match(active_goals(store).await?, query))
}

/// Creates an active goal.
pub async fn create(store: &Store, new: NewGoal) -> Result<Goal, GoalError> {
    let now = jiff::Timestamp::now().to_string();
    let goal = Goal {
        id: uuid::Uuid::new_v4().to_string(),
        title: model::title(&new.title).map_err(GoalError::Invalid)?,
        horizon: model::trimmed(new.horizon.as_deref()),
        category: model::trimmed(new.category.as_deref()),
        urgency: model::urgency(new.urgency.unwrap_or(model::DEFAULT_URGENCY))
            .map_err(GoalError::Invalid)?,
        progress: model::progress(new.progress.unwrap_or(0)).map_err(GoalError::Invalid)?,
        status: GoalStatus::Active.as_str().to_owned(),
        created_at: now.clone(),
        updated_at: now,
    };
    let stored = goal.clone();
    store
        .run(move |connection| store::insert_goal(connection, &stored))
        .await?;
    Ok(goal)
}

/// One goal with its notes, oldest first; `None` when there is none.
pub async fn goal_with_notes(
    store: &Store,
    id: String,
) -> Result<Option<(Goal, Vec<GoalNote>)>, StoreError> {
    store
        .run(move |connection| {
            let Some(goal) = store::goal(connection, &id)? else {
                return Ok(None);
            };
            let notes = store::notes(connection, &id)?;
            Ok(Some((goal, notes)))
        })
        .await
}

/// Applies `changes` to the goal `id` (fields left out keep their value);
/// `None` when there is no such goal.
pub async fn change(
    store: &Store,
    id: String,
    changes: GoalChanges,
) -> Result<Option<Goal>, GoalError> {
    let changes = changes.checked().map_err(GoalError::Invalid)?;
    Ok(store
        .run(move |connection| {
            // Read and written in one transaction, the row locked first:
            // another server's change of other fields is not lost.
            let transaction = connection.transaction()?;
            transaction.lock_rows("goals", "id", &id)?;
            let Some(mut goal) = store::goal(&transaction, &id)? else {
                return Ok(None);
            };
            changes.apply(&mut goal, jiff::Timestamp::now().to_string());
            store::update_goal(&transaction, &goal)?;
            transaction.commit()?;
            Ok(Some(goal))
        })
        .await?)
}

/// Deletes a goal and its notes; `false` when there was none.
pub async fn delete(store: &Store, id: String) -> Result<bool, StoreError> {
    store
        .run(move |connection| store::delete_goal(connection, &id))
        .await
}

/// Attaches `draft`, dated `date`, to the goal `goal_id`; `None` when there
/// is no such goal.
pub async fn add_note(
    store: &Store,
    goal_id: String,
    draft: NoteDraft,
    date: Date,
) -> Result<Option<GoalNote>, StoreError> {
    let note = GoalNote {
        id: uuid::Uuid::new_v4().to_string(),
        goal_id,
        date: date.to_string(),
        note: draft.text,
        duration_minutes: draft.duration_minutes,
        created_at: jiff::Timestamp::now().to_string(),
    };
    store
        .run(move |connection| {
            if store::goal(connection, &note.goal_id)?.is_none() {
                return Ok(None);
            }
            store::insert_note(connection, &note)?;
            Ok(Some(note))
        })
        .await
}

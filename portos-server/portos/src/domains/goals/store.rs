//! The goals' tables and every SQL statement on them: goals (title,
//! horizon, category, urgency, progress, status) and the dated notes
//! attached to them.

use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use portos_server::store::{Schema, StoreError};

use super::model::{Goal, GoalNote};

portos_server::store_schema!(
    /// Goals with their notes.
    GOALS = Schema {
        component: "goals",
        migrations: &[
            // 1 (IF NOT EXISTS: a store written before components has them).
            "CREATE TABLE IF NOT EXISTS goals (
                id         TEXT PRIMARY KEY,
                title      TEXT NOT NULL,
                horizon    TEXT NOT NULL,
                category   TEXT NOT NULL,
                urgency    REAL NOT NULL,
                progress   INTEGER NOT NULL CHECK (progress BETWEEN 0 AND 100),
                status     TEXT NOT NULL CHECK (status IN ('active', 'completed', 'archived')),
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS goals_by_urgency ON goals (status, urgency DESC);
            CREATE TABLE IF NOT EXISTS goal_notes (
                id               TEXT PRIMARY KEY,
                goal_id          TEXT NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
                local_date       TEXT NOT NULL,
                note             TEXT NOT NULL,
                duration_minutes REAL,
                created_at       TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS goal_notes_by_goal ON goal_notes (goal_id);",
        ],
    }
);

const GOAL_COLUMNS: &str =
    "id, title, horizon, category, urgency, progress, status, created_at, updated_at";

fn goal_from(row: &Row<'_>) -> portos_server::store::sql::Result<Goal> {
    Ok(Goal {
        id: row.get(0)?,
        title: row.get(1)?,
        horizon: row.get(2)?,
        category: row.get(3)?,
        urgency: row.get(4)?,
        progress: row.get(5)?,
        status: row.get(6)?,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    })
}

pub fn insert_goal(connection: &Connection, goal: &Goal) -> Result<(), StoreError> {
    connection.execute(
        &format!("INSERT INTO goals ({GOAL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        params![
            goal.id,
            goal.title,
            goal.horizon,
            goal.category,
            goal.urgency,
            goal.progress,
            goal.status,
            goal.created_at,
            goal.updated_at
        ],
    )?;
    Ok(())
}

/// Writes every field of `goal` over the stored one; `false` when gone.
pub fn update_goal(connection: &Connection, goal: &Goal) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE goals SET title = ?2, horizon = ?3, category = ?4, urgency = ?5,
             progress = ?6, status = ?7, updated_at = ?8
         WHERE id = ?1",
        params![
            goal.id,
            goal.title,
            goal.horizon,
            goal.category,
            goal.urgency,
            goal.progress,
            goal.status,
            goal.updated_at
        ],
    )?;
    Ok(changed > 0)
}

pub fn goal(connection: &Connection, id: &str) -> Result<Option<Goal>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {GOAL_COLUMNS} FROM goals WHERE id = ?1"),
            [id],
            goal_from,
        )
        .optional()?)
}

/// Goals with `status` (every goal when `None`), most urgent first, then
/// oldest first.
pub fn goals(connection: &Connection, status: Option<&str>) -> Result<Vec<Goal>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {GOAL_COLUMNS} FROM goals
         WHERE ?1 IS NULL OR status = ?1
         ORDER BY urgency DESC, created_at, rowid"
    ))?;
    let rows = statement.query_map([status], goal_from)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Deletes a goal and its notes; `false` when there was none.
pub fn delete_goal(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    // The notes go with it (ON DELETE CASCADE; foreign keys are on).
    Ok(connection.execute("DELETE FROM goals WHERE id = ?1", [id])? > 0)
}

pub fn insert_note(connection: &Connection, note: &GoalNote) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO goal_notes (id, goal_id, local_date, note, duration_minutes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            note.id,
            note.goal_id,
            note.date,
            note.note,
            note.duration_minutes,
            note.created_at
        ],
    )?;
    Ok(())
}

/// A goal's notes, oldest first.
pub fn notes(connection: &Connection, goal_id: &str) -> Result<Vec<GoalNote>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, goal_id, local_date, note, duration_minutes, created_at
         FROM goal_notes WHERE goal_id = ?1 ORDER BY rowid",
    )?;
    let rows = statement.query_map([goal_id], |row| {
        Ok(GoalNote {
            id: row.get(0)?,
            goal_id: row.get(1)?,
            date: row.get(2)?,
            note: row.get(3)?,
            duration_minutes: row.get(4)?,
            created_at: row.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

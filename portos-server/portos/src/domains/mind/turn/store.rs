//! The turns in SQLite: their table and every statement on it. A running
//! turn is saved after each call, so a reader sees its progress.

use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use portos_server::store::{Schema, StoreError};

use super::record::{BudgetUse, TurnRecord, TurnState, TurnSummary};

portos_server::store_schema!(
    /// Persistent Mind turns: prompt, conversation, calls, budget, outcome.
    MIND_TURNS = Schema {
        component: "mind-turns",
        migrations: &["
            CREATE TABLE IF NOT EXISTS mind_turns (
                id            TEXT PRIMARY KEY,
                seq           INTEGER NOT NULL,
                prompt        TEXT NOT NULL,
                model         TEXT NOT NULL,
                state         TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
                answer        TEXT,
                error         TEXT,
                rounds        INTEGER NOT NULL,
                calls_used    INTEGER NOT NULL,
                tasks_used    INTEGER NOT NULL,
                calls_refused INTEGER NOT NULL,
                calls         TEXT NOT NULL,
                messages      TEXT NOT NULL,
                started_at    TEXT NOT NULL,
                finished_at   TEXT
            );
            CREATE INDEX IF NOT EXISTS mind_turns_recent ON mind_turns (seq DESC);
        ",
        // 2: what the turn ran with: the thinking preset it took (JSON),
        // the reasoning effort and context window it sent.
        "
            ALTER TABLE mind_turns ADD COLUMN thinking_preset TEXT;
            ALTER TABLE mind_turns ADD COLUMN reasoning_effort TEXT;
            ALTER TABLE mind_turns ADD COLUMN num_ctx INTEGER;
        "],
    }
);

/// Turns a listing returns unless asked otherwise, and at most.
pub const LIST_DEFAULT: usize = 20;
pub const LIST_MAX: usize = 100;

fn count(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn size(row: &Row<'_>, index: usize) -> portos_server::store::sql::Result<usize> {
    Ok(usize::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
}

fn state_of(row: &Row<'_>, index: usize) -> portos_server::store::sql::Result<TurnState> {
    let text: String = row.get(index)?;
    // The table's CHECK admits only the three states.
    Ok(TurnState::parse(&text).unwrap_or(TurnState::Failed))
}

fn budget_of(row: &Row<'_>, first: usize) -> portos_server::store::sql::Result<BudgetUse> {
    Ok(BudgetUse {
        calls_used: size(row, first)?,
        tasks_used: size(row, first + 1)?,
        calls_refused: size(row, first + 2)?,
    })
}

/// Stores a new turn.
pub fn insert(connection: &Connection, turn: &TurnRecord) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_turns (id, seq, prompt, model, state, answer, error, rounds,
                calls_used, tasks_used, calls_refused, calls, messages, started_at, finished_at,
                thinking_preset, reasoning_effort, num_ctx)
         VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM mind_turns), ?2, ?3, ?4, ?5, ?6, ?7,
                 ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        params![
            turn.id,
            turn.prompt,
            turn.model,
            turn.state.as_str(),
            turn.answer,
            turn.error,
            count(turn.rounds),
            count(turn.budget.calls_used),
            count(turn.budget.tasks_used),
            count(turn.budget.calls_refused),
            json(&turn.calls),
            json(&turn.messages),
            turn.started_at,
            turn.finished_at,
            turn.thinking_preset.as_ref().map(json),
            turn.reasoning_effort,
            turn.num_ctx,
        ],
    )?;
    Ok(())
}

/// Saves a turn's progress or end.
pub fn save(connection: &Connection, turn: &TurnRecord) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE mind_turns SET state = ?2, answer = ?3, error = ?4, rounds = ?5,
                calls_used = ?6, tasks_used = ?7, calls_refused = ?8, calls = ?9,
                messages = ?10, finished_at = ?11
         WHERE id = ?1",
        params![
            turn.id,
            turn.state.as_str(),
            turn.answer,
            turn.error,
            count(turn.rounds),
            count(turn.budget.calls_used),
            count(turn.budget.tasks_used),
            count(turn.budget.calls_refused),
            json(&turn.calls),
            json(&turn.messages),
            turn.finished_at,
        ],
    )?;
    Ok(())
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<TurnRecord>, StoreError> {
    Ok(connection
        .prepare_cached(
            "SELECT id, prompt, model, state, answer, error, rounds, calls_used, tasks_used,
                    calls_refused, calls, messages, started_at, finished_at,
                    thinking_preset, reasoning_effort, num_ctx
             FROM mind_turns WHERE id = ?1",
        )?
        .query_row([id], |row| {
            let calls: String = row.get(10)?;
            let messages: String = row.get(11)?;
            let preset: Option<String> = row.get(14)?;
            Ok(TurnRecord {
                id: row.get(0)?,
                prompt: row.get(1)?,
                model: row.get(2)?,
                thinking_preset: preset.and_then(|text| serde_json::from_str(&text).ok()),
                reasoning_effort: row.get(15)?,
                num_ctx: row.get(16)?,
                state: state_of(row, 3)?,
                answer: row.get(4)?,
                error: row.get(5)?,
                rounds: size(row, 6)?,
                budget: budget_of(row, 7)?,
                // Written by `insert`/`save` from the same types.
                calls: serde_json::from_str(&calls).unwrap_or_default(),
                messages: serde_json::from_str(&messages).unwrap_or_default(),
                started_at: row.get(12)?,
                finished_at: row.get(13)?,
            })
        })
        .optional()?)
}

/// Turns, newest first, without their conversations.
pub fn list(
    connection: &Connection,
    limit: usize,
    offset: usize,
) -> Result<Vec<TurnSummary>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, prompt, model, state, answer, error, rounds, calls_used, tasks_used,
                calls_refused, json_array_length(calls), started_at, finished_at
         FROM mind_turns ORDER BY seq DESC LIMIT ?1 OFFSET ?2",
    )?;
    let rows = statement.query_map(params![count(limit), count(offset)], |row| {
        Ok(TurnSummary {
            id: row.get(0)?,
            prompt: row.get(1)?,
            model: row.get(2)?,
            state: state_of(row, 3)?,
            answer: row.get(4)?,
            error: row.get(5)?,
            rounds: size(row, 6)?,
            budget: budget_of(row, 7)?,
            call_count: size(row, 10)?,
            started_at: row.get(11)?,
            finished_at: row.get(12)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The ids of the turns stored as running, oldest first.
pub fn running(connection: &Connection) -> Result<Vec<String>, StoreError> {
    let mut statement = connection
        .prepare_cached("SELECT id FROM mind_turns WHERE state = 'running' ORDER BY seq")?;
    let rows = statement.query_map([], |row| row.get(0))?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn json<T: serde::Serialize>(value: &T) -> String {
    // Records of strings, numbers and JSON values: encoding cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| "[]".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domains::mind::thinking::{ThinkingEffort, ThinkingPreset};
    use crate::domains::mind::turn::record::{CallState, TurnCall};
    use serde_json::json;

    #[test]
    fn a_turn_round_trips() {
        let store = portos_server::store::Store::open_in_memory(&[MIND_TURNS]).expect("store");
        let mut turn = TurnRecord::start("t1".to_owned(), "wake".to_owned(), "qwen".to_owned());
        turn.thinking_preset = Some(ThinkingPreset {
            id: "deep".to_owned(),
            label: "Deep".to_owned(),
            model: String::new(),
            effort: ThinkingEffort::High,
        });
        turn.reasoning_effort = Some("high".to_owned());
        turn.num_ctx = Some(8192);
        store
            .run_blocking(|connection| insert(connection, &turn))
            .expect("insert");
        turn.rounds = 1;
        turn.budget.calls_used = 1;
        turn.messages
            .push(json!({ "role": "user", "content": "wake" }));
        turn.calls.push(TurnCall {
            round: 1,
            name: "time.now".to_owned(),
            requested_as: "time_now".to_owned(),
            request_id: Some("mind-tool-x".to_owned()),
            state: CallState::Completed,
            duplicate: false,
            outcome: "{}".to_owned(),
        });
        turn.answer = Some("Done.".to_owned());
        turn.finish(TurnState::Completed, None);
        assert_eq!(
            store
                .run_blocking(|connection| running(connection))
                .expect("running"),
            ["t1"],
            "until saved"
        );
        let saved = turn.clone();
        store
            .run_blocking(move |connection| save(connection, &saved))
            .expect("save");
        let read = store
            .run_blocking(|connection| get(connection, "t1"))
            .expect("get");
        assert_eq!(read.as_ref(), Some(&turn));
        assert!(
            store
                .run_blocking(|connection| running(connection))
                .expect("running")
                .is_empty()
        );
        let listed = store
            .run_blocking(|connection| list(connection, 10, 0))
            .expect("list");
        assert_eq!(listed, vec![turn.summary()]);
        assert_eq!(
            store
                .run_blocking(|connection| get(connection, "nope"))
                .expect("get"),
            None
        );
    }
}

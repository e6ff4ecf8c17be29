//! What a finished turn leaves in the Mind's trajectory (`mind_history`):
//! one bounded summary — the answer or the failure, with each call's name
//! and outcome — and the derived context the next turn reads (`last-turn`:
//! when and why the previous turn ran and how it ended). `mind.cleanup`
//! clears both.
//!
//! A summary is at most 2,000 characters: a few paragraphs of answer fit
//! whole, and the three a prompt carries (6,000 characters, about 1,500
//! tokens) leave a 4k–8k-token local model room for its tools and the
//! conversation.

use portos_server::store::StoreError;
use portos_server::store::sql::Connection;

use super::record::{CallState, TurnRecord, TurnState};
use crate::domains::mind::store::trajectory::{self, ContextEntry, TurnSummary};

pub const SUMMARY_MAX_CHARS: usize = 2_000;
/// The calls' share of a summary; the answer gets the rest.
const CALLS_MAX_CHARS: usize = 600;
/// How much of the waking prompt `last-turn` repeats.
const PROMPT_MAX_CHARS: usize = 300;
/// The derived context entry naming the previous turn.
pub const LAST_TURN: &str = "last-turn";

/// `text` on one line (runs of whitespace made one space), cut to `max`
/// characters with `…` when longer.
pub fn clip(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn state_word(state: CallState) -> &'static str {
    match state {
        CallState::Completed => "completed",
        CallState::Failed => "failed",
        CallState::Refused => "refused",
        CallState::Skipped => "skipped",
    }
}

/// The turn's summary: how it ended, then its calls.
pub fn summary(turn: &TurnRecord) -> String {
    let outcome = match turn.state {
        TurnState::Completed => match turn.answer.as_deref() {
            Some(answer) => format!("Completed: {answer}"),
            None => "Completed without an answer.".to_owned(),
        },
        TurnState::Failed => format!(
            "Failed: {}",
            turn.error.as_deref().unwrap_or("(no reason recorded)")
        ),
        TurnState::Running => "Still running.".to_owned(),
    };
    let calls = if turn.calls.is_empty() {
        "No tool calls.".to_owned()
    } else {
        let listed: Vec<String> = turn
            .calls
            .iter()
            .map(|call| {
                let duplicate = if call.duplicate { " (duplicate)" } else { "" };
                format!("{} {}{duplicate}", call.name, state_word(call.state))
            })
            .collect();
        clip(&format!("Calls: {}.", listed.join("; ")), CALLS_MAX_CHARS)
    };
    // One character for the space, one for a closing period.
    let room = SUMMARY_MAX_CHARS - calls.chars().count() - 2;
    let mut head = clip(&outcome, room);
    if !head.ends_with(['.', '!', '?', '…']) {
        head.push('.');
    }
    format!("{head} {calls}")
}

/// The `last-turn` context entry's text.
pub fn last_turn(turn: &TurnRecord) -> String {
    let ended = match turn.state {
        TurnState::Completed => "completed",
        TurnState::Failed => "failed",
        TurnState::Running => "was still running",
    };
    let preset = turn
        .thinking_preset
        .as_ref()
        .map(|preset| format!(" with the thinking preset \"{}\"", preset.id))
        .unwrap_or_default();
    format!(
        "Your last turn ({}) started at {}, woken by: \"{}\". It {ended} at {}{preset} after {} and {}.",
        turn.id,
        turn.started_at,
        clip(&turn.prompt, PROMPT_MAX_CHARS),
        turn.finished_at.as_deref().unwrap_or("an unknown time"),
        counted(turn.rounds, "provider round", "provider rounds"),
        counted(turn.calls.len(), "tool call", "tool calls"),
    )
}

fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Appends the ended `turn` to the history and refreshes what is derived
/// from it.
pub fn record(connection: &Connection, turn: &TurnRecord) -> Result<(), StoreError> {
    let now = jiff::Timestamp::now().to_string();
    let at = turn.finished_at.clone().unwrap_or_else(|| now.clone());
    trajectory::append_turn(
        connection,
        &TurnSummary {
            turn_id: turn.id.clone(),
            summary: summary(turn),
            at,
        },
    )?;
    trajectory::put_context(
        connection,
        &ContextEntry {
            key: LAST_TURN.to_owned(),
            text: last_turn(turn),
            derived_at: now,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domains::mind::store::MIND;
    use crate::domains::mind::turn::record::TurnCall;

    fn call(name: &str, state: CallState, duplicate: bool) -> TurnCall {
        TurnCall {
            round: 1,
            name: name.to_owned(),
            requested_as: name.replace(['.', '-'], "_"),
            request_id: None,
            state,
            duplicate,
            outcome: "{}".to_owned(),
        }
    }

    fn ended(state: TurnState) -> TurnRecord {
        let mut turn = TurnRecord::start(
            "t1".to_owned(),
            "What is on my plate?".to_owned(),
            "qwen".to_owned(),
        );
        turn.rounds = 2;
        turn.calls = vec![
            call("goals.list", CallState::Completed, false),
            call("goals.list", CallState::Completed, true),
            call("issues.file", CallState::Refused, false),
        ];
        turn.answer = Some("Three goals\n\nare due.".to_owned());
        let error =
            (state == TurnState::Failed).then(|| "the model provider is unreachable".to_owned());
        turn.finish(state, error);
        turn
    }

    #[test]
    fn a_summary_says_how_the_turn_ended_and_what_it_called() {
        assert_eq!(
            summary(&ended(TurnState::Completed)),
            "Completed: Three goals are due. Calls: goals.list completed; goals.list completed (duplicate); issues.file refused."
        );
        assert_eq!(
            summary(&ended(TurnState::Failed)),
            "Failed: the model provider is unreachable. Calls: goals.list completed; goals.list completed (duplicate); issues.file refused."
        );
        let mut quiet = ended(TurnState::Completed);
        quiet.calls.clear();
        quiet.answer = None;
        assert_eq!(
            summary(&quiet),
            "Completed without an answer. No tool calls."
        );
    }

    #[test]
    fn a_summary_is_bounded_and_keeps_its_calls() {
        let mut long = ended(TurnState::Completed);
        long.answer = Some("word ".repeat(2_000));
        long.calls = (0..100)
            .map(|_| call("time.now", CallState::Skipped, false))
            .collect();
        let text = summary(&long);
        assert!(text.chars().count() <= SUMMARY_MAX_CHARS);
        assert!(
            text.chars().count() > SUMMARY_MAX_CHARS - 5,
            "the room is used"
        );
        assert!(text.contains("… Calls: time.now skipped;"), "{text}");
        assert!(text.ends_with('…'));
    }

    #[test]
    fn the_last_turn_entry_and_the_history_are_written() {
        let store = portos_server::store::Store::open_in_memory(&[MIND]).expect("store");
        let turn = ended(TurnState::Completed);
        let text = last_turn(&turn);
        assert!(
            text.starts_with(&format!(
                "Your last turn (t1) started at {}, woken by: \"What is on my plate?\". It completed at ",
                turn.started_at
            )),
            "{text}"
        );
        assert!(
            text.ends_with(" after 2 provider rounds and 3 tool calls."),
            "{text}"
        );
        let saved = turn.clone();
        store
            .run_blocking(move |connection| record(connection, &saved))
            .expect("recorded");
        let (history, context) = store
            .run_blocking(|connection| {
                Ok((
                    trajectory::recent_turns(connection, 10)?,
                    trajectory::context(connection)?,
                ))
            })
            .expect("read");
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].summary, summary(&turn));
        assert_eq!(Some(&history[0].at), turn.finished_at.as_ref());
        assert_eq!(context.len(), 1);
        assert_eq!(context[0].key, LAST_TURN);
        assert_eq!(context[0].text, text);
    }
}

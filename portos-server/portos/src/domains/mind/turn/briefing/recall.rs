//! What the Mind is reminded of from its earlier turns: the newest three
//! summaries of its trajectory, oldest first, and the context derived from
//! them (`last-turn`, …). `mind.cleanup` clearing them takes them out of
//! the next prompt.

use portos_server::store::StoreError;
use portos_server::store::sql::Connection;

use super::bounded_list;
use crate::domains::mind::store::trajectory::{self, ContextEntry, TurnSummary};
use crate::domains::mind::turn::trajectory::{SUMMARY_MAX_CHARS, clip};

pub const HISTORY_HEADING: &str = "Your recent turns, oldest first:";
pub const CONTEXT_HEADING: &str = "What you derived from earlier turns:";
/// Summaries a prompt carries (each at most 2,000 characters).
pub const HISTORY_IN_PROMPT: usize = 3;
const CONTEXT_ENTRIES_MAX: usize = 10;
const CONTEXT_ENTRY_MAX_CHARS: usize = 1_000;
/// The most either list may take of the prompt.
const LIST_MAX_CHARS: usize = 7_000;

/// The history and derived context a prompt recalls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recall {
    /// Oldest first.
    pub history: Vec<TurnSummary>,
    /// By key.
    pub context: Vec<ContextEntry>,
}

impl Recall {
    pub fn read(connection: &Connection) -> Result<Recall, StoreError> {
        let mut context = trajectory::context(connection)?;
        context.truncate(CONTEXT_ENTRIES_MAX);
        Ok(Recall {
            history: trajectory::recent_turns(connection, HISTORY_IN_PROMPT)?,
            context,
        })
    }

    /// The history section and the context section, each only when it has
    /// entries.
    pub fn sections(&self) -> Vec<String> {
        let mut sections = Vec::new();
        if !self.history.is_empty() {
            let lines: Vec<String> = self
                .history
                .iter()
                .map(|turn| format!("{}: {}", turn.at, clip(&turn.summary, SUMMARY_MAX_CHARS)))
                .collect();
            sections.push(bounded_list(HISTORY_HEADING, &lines, LIST_MAX_CHARS));
        }
        if !self.context.is_empty() {
            let lines: Vec<String> = self
                .context
                .iter()
                .map(|entry| {
                    format!(
                        "{}: {}",
                        entry.key,
                        clip(&entry.text, CONTEXT_ENTRY_MAX_CHARS)
                    )
                })
                .collect();
            sections.push(bounded_list(CONTEXT_HEADING, &lines, LIST_MAX_CHARS));
        }
        sections
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_recalled_says_nothing() {
        assert!(Recall::default().sections().is_empty());
    }
}

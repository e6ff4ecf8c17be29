//! The system prompt of a turn (docs/reference.md#persistent-mind,
//! docs/reference.md#recipe-catalog, docs/reference.md#forge-issues): who the
//! Mind is and its limits, what it knows from its earlier turns (their
//! summaries and the context derived from them), what it may do about forge
//! issues and coding tasks on which managed apps, and its saved recipes. Built
//! once when the turn starts, from what is stored then (the tools still check
//! the live grants when called); every section is bounded, so the prompt stays
//! small enough for a local model.

pub mod issues;
pub mod recall;
pub mod recipes;
pub mod tasks;

use portos_core::Catalogs;
use portos_server::store::{Store, StoreError};

use crate::domains::apps::RemoteCache;
use crate::domains::mind::store::live_settings;
use issues::IssueBlock;
use recall::Recall;
use recipes::PromptRecipe;
use tasks::TaskBlock;

/// Who the Mind is told it is, and its limits.
pub const SYSTEM_PROMPT: &str = "You are the PortOS Persistent Mind, the user's chief of staff. \
Use the PortOS tools you are offered to look things up and to act for the user; tools you are \
not granted are not offered. One turn runs at most 5 tool calls and queues at most 5 tasks \
(cos_create_task); calls past that are not executed. When you are done, say in a few sentences \
what you found and did.";

/// What a turn's system prompt is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Briefing {
    pub recall: Recall,
    pub issues: IssueBlock,
    pub tasks: TaskBlock,
    /// The saved recipes the Mind may call now
    /// (docs/reference.md#recipe-catalog).
    pub recipes: Vec<PromptRecipe>,
}

impl Briefing {
    /// Everything the prompt says, read from the store now.
    pub async fn gather(
        store: &Store,
        cache: &RemoteCache,
        catalogs: &Catalogs,
    ) -> Result<Briefing, StoreError> {
        let settings = store.run(|connection| live_settings(connection)).await?;
        let recall = store.run(|connection| Recall::read(connection)).await?;
        Ok(Briefing {
            recall,
            issues: IssueBlock::resolve(&settings, store, cache).await?,
            tasks: TaskBlock::resolve(&settings, store).await?,
            recipes: recipes::saved_recipes(&settings, catalogs),
        })
    }

    /// The system message: the fixed text, then each section that has
    /// something to say, separated by blank lines.
    pub fn system_prompt(&self) -> String {
        let mut sections = vec![SYSTEM_PROMPT.to_owned()];
        sections.extend(self.recall.sections());
        sections.push(self.issues.section());
        sections.push(self.tasks.section());
        sections.extend(recipes::section(&self.recipes));
        sections.join("\n\n")
    }
}

/// `heading`, then one `- ` line per item while the lines fit in
/// `max_chars`; past that, one line says how many were left out.
pub fn bounded_list(heading: &str, items: &[String], max_chars: usize) -> String {
    let mut text = heading.to_owned();
    let mut used = 0;
    for (index, item) in items.iter().enumerate() {
        let line = format!("\n- {item}");
        let length = line.chars().count();
        if used + length > max_chars {
            text.push_str(&format!(
                "\n- … and {} more not listed",
                items.len() - index
            ));
            break;
        }
        used += length;
        text.push_str(&line);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domains::mind::store::trajectory::{ContextEntry, TurnSummary};

    #[test]
    fn lists_stop_at_their_bound() {
        let items: Vec<String> = (1..=5).map(|i| format!("item {i}")).collect();
        assert_eq!(
            bounded_list("Things:", &items, 1_000),
            "Things:\n- item 1\n- item 2\n- item 3\n- item 4\n- item 5"
        );
        // Each line is 9 characters ("\n- item n"): two fit in 20.
        assert_eq!(
            bounded_list("Things:", &items, 20),
            "Things:\n- item 1\n- item 2\n- … and 3 more not listed"
        );
    }

    #[test]
    fn the_prompt_puts_the_sections_in_order() {
        let briefing = Briefing {
            recall: Recall {
                history: vec![TurnSummary {
                    turn_id: "t1".to_owned(),
                    summary: "Completed: Nothing is due. No tool calls.".to_owned(),
                    at: "2026-03-01T09:00:00Z".to_owned(),
                }],
                context: vec![ContextEntry {
                    key: "last-turn".to_owned(),
                    text: "Your last turn (t1) …".to_owned(),
                    derived_at: "2026-03-01T09:00:00Z".to_owned(),
                }],
            },
            issues: IssueBlock::Off,
            tasks: TaskBlock::Off,
            recipes: Vec::new(),
        };
        assert_eq!(
            briefing.system_prompt(),
            [
                SYSTEM_PROMPT,
                &format!(
                    "{}\n- 2026-03-01T09:00:00Z: Completed: Nothing is due. No tool calls.",
                    recall::HISTORY_HEADING
                ),
                &format!(
                    "{}\n- last-turn: Your last turn (t1) …",
                    recall::CONTEXT_HEADING
                ),
                issues::ISSUES_OFF,
                tasks::TASKS_OFF,
            ]
            .join("\n\n")
        );
    }
}

//! What `mind.cleanup` clears and how it reports it. Memories are archived
//! (kept, out of the Mind's context), never deleted, and only unprotected
//! ones; history and derived context are deleted. Derived context is built
//! from the history, so clearing the history clears it too: a summary must
//! not outlive what it summarized.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::answer::counted;

/// What to clean up.
// The variants carry plain comments: doc comments would turn the schema's
// `enum` into a `oneOf` of described constants in every catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CleanupScope {
    // The context derived from the history (rebuilt from nothing).
    Context,
    // The trajectory history (and the context derived from it).
    History,
    // Unprotected memories, archived.
    Memories,
}

/// What a cleanup did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CleanedUp {
    pub ok: bool,
    pub success: bool,
    pub scopes: Vec<CleanupScope>,
    pub reason: Option<String>,
    pub memories_archived: usize,
    /// Active protected memories, which cleanup never archives.
    pub memories_preserved: usize,
    pub history_turns_cleared: usize,
    pub context_entries_cleared: usize,
    pub summary: String,
}

/// The counts a cleanup produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub memories_archived: usize,
    pub memories_preserved: usize,
    pub history_turns_cleared: usize,
    pub context_entries_cleared: usize,
}

/// Which parts `scopes` clears: (memories, history, context).
pub fn selected(scopes: &[CleanupScope]) -> (bool, bool, bool) {
    let memories = scopes.contains(&CleanupScope::Memories);
    let history = scopes.contains(&CleanupScope::History);
    let context = history || scopes.contains(&CleanupScope::Context);
    (memories, history, context)
}

impl CleanedUp {
    pub fn new(scopes: Vec<CleanupScope>, reason: Option<String>, counts: Counts) -> CleanedUp {
        let (memories, history, context) = selected(&scopes);
        let mut parts = Vec::new();
        if memories {
            parts.push(format!(
                "archived {} ({} kept)",
                counted(
                    counts.memories_archived,
                    "unprotected memory",
                    "unprotected memories"
                ),
                counted(
                    counts.memories_preserved,
                    "protected memory",
                    "protected memories"
                ),
            ));
        }
        if history {
            parts.push(format!(
                "cleared {}",
                counted(
                    counts.history_turns_cleared,
                    "history turn",
                    "history turns"
                )
            ));
        }
        if context {
            parts.push(format!(
                "cleared {}",
                counted(
                    counts.context_entries_cleared,
                    "derived context entry",
                    "derived context entries"
                )
            ));
        }
        CleanedUp {
            ok: true,
            success: true,
            summary: format!("Mind cleanup: {}.", parts.join("; ")),
            scopes,
            reason,
            memories_archived: counts.memories_archived,
            memories_preserved: counts.memories_preserved,
            history_turns_cleared: counts.history_turns_cleared,
            context_entries_cleared: counts.context_entries_cleared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_takes_its_context_along() {
        use CleanupScope::*;
        assert_eq!(selected(&[Memories]), (true, false, false));
        assert_eq!(selected(&[Context]), (false, false, true));
        assert_eq!(selected(&[History]), (false, true, true));
        let done = CleanedUp::new(
            vec![Memories, History],
            None,
            Counts {
                memories_archived: 2,
                memories_preserved: 1,
                history_turns_cleared: 1,
                context_entries_cleared: 0,
            },
        );
        assert_eq!(
            done.summary,
            "Mind cleanup: archived 2 unprotected memories (1 protected memory kept); cleared 1 history turn; cleared 0 derived context entries."
        );
    }
}

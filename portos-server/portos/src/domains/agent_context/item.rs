//! Context items, the source snapshots they come from, and the
//! response-size budget (docs/reference.md#context-tools,
//! docs/reference.md#context-items).

use portos_server::mcp::ContextScope;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::redact::cap;
use super::{MAX_APPROX_TOKENS, MAX_RESPONSE_CHARS, MAX_SOURCE_ITEMS};

const MAX_REF_CHARS: usize = 180;
const MAX_KIND_CHARS: usize = 80;
const MAX_TITLE_CHARS: usize = 160;
const MAX_PATH_CHARS: usize = 300;
const MAX_SEARCH_TEXT_CHARS: usize = 2000;

/// One context item as returned to the agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContextItem {
    #[serde(rename = "ref")]
    pub reference: String,
    pub scope: ContextScope,
    pub kind: String,
    pub title: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// An item with the text a search matches against, which is never returned
/// (the metadata profile may match private text it does not show).
#[derive(Clone, Debug)]
pub struct Entry {
    pub item: ContextItem,
    search_text: String,
}

impl Entry {
    /// Builds an entry, capping every field to its contract length.
    pub fn new(
        scope: ContextScope,
        reference: &str,
        kind: &str,
        title: &str,
        summary: &str,
        path: Option<&str>,
        search_parts: &[&str],
    ) -> Entry {
        let search_text = cap(
            &search_parts.join(" ").to_lowercase(),
            MAX_SEARCH_TEXT_CHARS,
        );
        Entry {
            item: ContextItem {
                reference: cap(reference, MAX_REF_CHARS),
                scope,
                kind: cap(kind, MAX_KIND_CHARS),
                title: cap(title, MAX_TITLE_CHARS),
                summary: cap(summary, super::MAX_SUMMARY_CHARS),
                path: path.map(|p| cap(p, MAX_PATH_CHARS)),
            },
            search_text,
        }
    }

    /// Case-insensitive substring match on the hidden search text.
    pub fn matches(&self, lowered_query: &str) -> bool {
        self.search_text.contains(lowered_query)
    }
}

/// What one source returned: at most 1000 entries, whether more existed,
/// and whether the source reported itself stale.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub entries: Vec<Entry>,
    pub truncated: bool,
    pub stale: bool,
}

impl Snapshot {
    /// Keeps the first 1000 entries and records whether any were dropped.
    pub fn capped(mut entries: Vec<Entry>, stale: bool) -> Snapshot {
        let truncated = entries.len() > MAX_SOURCE_ITEMS;
        entries.truncate(MAX_SOURCE_ITEMS);
        Snapshot {
            entries,
            truncated,
            stale,
        }
    }
}

/// `<prefix><first 20 hex digits of sha256(id)>`: stable, and reveals
/// nothing of the id.
pub fn hashed_ref(prefix: &str, id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    let mut out = String::with_capacity(prefix.len() + 20);
    out.push_str(prefix);
    for byte in &digest[..10] {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The items selected under the response budget: up to `limit`, and only
/// while the JSON of the selection stays within 20,000 characters and about
/// 5,000 tokens (a token counted as four characters, rounded up).
pub fn select_within_budget(candidates: &[&ContextItem], limit: usize) -> Vec<ContextItem> {
    let mut selected: Vec<ContextItem> = Vec::new();
    // "[" + "]" of the array, then each item and its comma.
    let mut chars = 2_usize;
    for item in candidates.iter().take(limit) {
        let text = serde_json::to_string(item).unwrap_or_default();
        let added = text.chars().count() + usize::from(!selected.is_empty());
        let total = chars + added;
        if total > MAX_RESPONSE_CHARS || total.div_ceil(4) > MAX_APPROX_TOKENS {
            break;
        }
        chars = total;
        selected.push((*item).clone());
    }
    selected
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(summary_len: usize) -> ContextItem {
        ContextItem {
            reference: "brain:x".to_owned(),
            scope: portos_words::BRAIN,
            kind: "inbox".to_owned(),
            title: "t".to_owned(),
            summary: "s".repeat(summary_len),
            path: None,
        }
    }

    #[test]
    fn refs_are_twenty_hex_digits() {
        let r = hashed_ref("brain:inbox:", "id-1");
        assert_eq!(r.len(), "brain:inbox:".len() + 20);
        assert_eq!(r, hashed_ref("brain:inbox:", "id-1"));
    }

    #[test]
    fn the_budget_stops_before_twenty_thousand_characters() {
        let items: Vec<ContextItem> = (0..100).map(|_| item(300)).collect();
        let refs: Vec<&ContextItem> = items.iter().collect();
        let selected = select_within_budget(&refs, 100);
        let json = serde_json::to_string(&selected).expect("json");
        assert!(json.chars().count() <= MAX_RESPONSE_CHARS);
        assert!(selected.len() < 100 && selected.len() > 10);
        assert_eq!(select_within_budget(&refs, 3).len(), 3);
    }
}

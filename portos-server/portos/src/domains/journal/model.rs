//! What the daily journal holds: each user-local day is the segments
//! appended to it, in order; and the rules for a new segment.

use schemars::JsonSchema;
use serde::Serialize;

/// One appended piece of a day's journal.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    pub id: String,
    /// The user-local day, `YYYY-MM-DD`.
    pub date: String,
    pub text: String,
    pub created_at: String,
}

/// The text of a new segment: trimmed, and not empty.
pub fn segment_text(raw: &str) -> Result<String, String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err("text must not be empty: say what to add to the journal".to_owned());
    }
    Ok(text.to_owned())
}

/// A day's text: its segments in order, separated by blank lines.
pub fn join(segments: &[Segment]) -> String {
    segments
        .iter()
        .map(|segment| segment.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

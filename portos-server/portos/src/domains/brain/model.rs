//! What the brain inbox holds: captures, each a thought as the user said it,
//! dated by the user's local day; and how a capture is quoted in summaries.

/// How much of a capture a summary quotes.
const SUMMARY_PREVIEW_CHARS: usize = 60;

/// One capture, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    pub id: String,
    pub text: String,
    /// The user-local capture date, `YYYY-MM-DD`.
    pub date: String,
    /// When it was captured (RFC 3339).
    pub captured_at: String,
}

/// The text to capture: trimmed, and not empty.
pub fn capture_text(raw: &str) -> Result<String, &'static str> {
    let text = raw.trim();
    if text.is_empty() {
        return Err("text must not be empty");
    }
    Ok(text.to_owned())
}

/// The summary of a capture, in its answer and its ledger row.
pub fn captured_summary(text: &str) -> String {
    format!("Captured \"{}\"", preview(text))
}

/// The first 60 characters, with an ellipsis when cut.
pub fn preview(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_PREVIEW_CHARS) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_cut_at_sixty_characters() {
        assert_eq!(preview("short"), "short");
        let long = "é".repeat(61);
        assert_eq!(preview(&long), format!("{}…", "é".repeat(60)));
        assert_eq!(capture_text("  idea "), Ok("idea".to_owned()));
        assert!(capture_text(" \n").is_err());
    }
}

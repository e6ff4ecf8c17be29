//! What the model is shown of a call's result: the envelope as JSON, or
//! past 4,000 characters `{"truncated": true, "preview": <the first 4,000>}`.

use serde_json::{Value, json};

pub const PREVIEW_MAX_CHARS: usize = 4000;

pub fn result_preview(result: &Value) -> String {
    let text = result.to_string();
    if text.chars().count() <= PREVIEW_MAX_CHARS {
        return text;
    }
    let preview: String = text.chars().take(PREVIEW_MAX_CHARS).collect();
    json!({ "truncated": true, "preview": preview }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_at_four_thousand_characters() {
        let small = json!({ "ok": true });
        assert_eq!(result_preview(&small), small.to_string());
        let big = json!({ "text": "é".repeat(5000) });
        let shown: Value = serde_json::from_str(&result_preview(&big)).expect("json");
        assert_eq!(shown["truncated"], true);
        assert_eq!(
            shown["preview"].as_str().map(|p| p.chars().count()),
            Some(PREVIEW_MAX_CHARS)
        );
    }
}

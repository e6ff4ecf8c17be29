//! How one broken schema rule is said to a caller (a person or a model):
//! the validator's sentence, except where a rule's text would read as
//! regex noise.

use jsonschema::error::ValidationErrorKind;

/// The pattern that says "not blank": at least one character that is not
/// whitespace. Request types declare it on trimmed text fields.
pub const NOT_BLANK: &str = r"\S";

/// The sentence for `error`, to follow the field's path
/// (`"name must not be empty"`).
pub fn issue_message(error: &jsonschema::ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::Pattern { pattern } if pattern == NOT_BLANK => {
            "must not be empty".to_owned()
        }
        _ => error.to_string(),
    }
}

/// Where `error` is, as a dotted path (`providers.0.id`); `whole` when it is
/// the value itself.
pub fn issue_path(error: &jsonschema::ValidationError<'_>, whole: &str) -> String {
    let path = error
        .instance_path()
        .iter()
        .map(|segment| segment.to_string())
        .collect::<Vec<_>>()
        .join(".");
    if path.is_empty() {
        whole.to_owned()
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn blank_text_reads_as_empty() {
        let validator =
            jsonschema::validator_for(&json!({ "type": "string", "pattern": NOT_BLANK }))
                .expect("schema");
        let blank = json!(" \t");
        let error = validator.validate(&blank).expect_err("blank");
        assert_eq!(issue_message(&error), "must not be empty");
        let validator = jsonschema::validator_for(&json!({ "type": "string", "maxLength": 1 }))
            .expect("schema");
        let long = json!("ab");
        let error = validator.validate(&long).expect_err("long");
        assert_eq!(issue_message(&error), error.to_string());
    }
}

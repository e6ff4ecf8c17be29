//! Tool arguments the contract trims before it checks them (Zod's
//! `.trim()`): the value the adapter sees, stores and the registry
//! fingerprints is the trimmed one, so `" a "` and `"a"` are one call.
//!
//! The schema checks the length and pattern of the value as sent (a JSON
//! Schema cannot trim); a field declared "trimmed 1..N" therefore carries
//! `length(min = 1, max = N)` and a pattern that needs one non-space
//! character, and names this function in `deserialize_with`.

use serde::{Deserialize, Deserializer};

/// The string with surrounding whitespace removed.
pub fn trimmed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    Ok(text.trim().to_owned())
}

/// [`trimmed`] for an optional field.
pub fn trimmed_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(deserializer)?;
    Ok(text.map(|text| text.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Args {
        #[serde(deserialize_with = "super::trimmed")]
        name: String,
        #[serde(default, deserialize_with = "super::trimmed_option")]
        reason: Option<String>,
    }

    #[test]
    fn trims_both_ends() {
        let args: Args =
            serde_json::from_value(serde_json::json!({ "name": "  Ada \n", "reason": " why " }))
                .expect("valid");
        assert_eq!(args.name, "Ada");
        assert_eq!(args.reason.as_deref(), Some("why"));
        let args: Args = serde_json::from_value(serde_json::json!({ "name": "x" })).expect("valid");
        assert_eq!(args.reason, None);
    }
}

//! The strict catalog query (docs/reference.md#catalog-query), shared by HTTP
//! and the CLI.

use crate::contract::{CatalogScope, FieldIssue, ValidationFailure};

use super::CatalogFormat;

const INTENT_MAX_CHARS: usize = 500;

/// One catalog read's query (`scope`, `intent`, `format`), parsed strictly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CatalogQuery {
    /// `scope`: whose tools are listed (default `all`); a filter, never authority.
    pub scope: CatalogScope,
    /// Trimmed; `None` when absent or blank.
    pub intent: Option<String>,
    /// `format`: the shape of the entries (default `portos`).
    pub format: CatalogFormat,
}

impl CatalogQuery {
    /// Parses query pairs strictly: unknown keys, repeated keys and values
    /// outside the vocabulary are refused with one issue each.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<CatalogQuery, ValidationFailure> {
        let mut query = CatalogQuery::default();
        let mut details = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            if seen.contains(&key) {
                details.push(issue(key, "Expected a single value"));
                continue;
            }
            seen.push(key);
            match key {
                "scope" => match value.parse() {
                    Ok(scope) => query.scope = scope,
                    Err(()) => {
                        details.push(issue("scope", &enum_message(CatalogScope::values(), value)));
                    }
                },
                "format" => match value.parse() {
                    Ok(format) => query.format = format,
                    Err(()) => details.push(issue(
                        "format",
                        &enum_message(&CatalogFormat::VALUES, value),
                    )),
                },
                "intent" => {
                    let trimmed = value.trim();
                    if trimmed.chars().count() > INTENT_MAX_CHARS {
                        details.push(issue(
                            "intent",
                            &format!("String must contain at most {INTENT_MAX_CHARS} character(s)"),
                        ));
                    } else if !trimmed.is_empty() {
                        query.intent = Some(trimmed.to_owned());
                    }
                }
                other => details.push(issue(
                    "",
                    &format!("Unrecognized key(s) in object: '{other}'"),
                )),
            }
        }
        if details.is_empty() {
            Ok(query)
        } else {
            Err(ValidationFailure { details })
        }
    }
}

/// A query of the scope alone (the primitive catalog's): `scope` as the
/// tool catalog reads it, any other key refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeQuery {
    /// `scope`, default `all`.
    pub scope: CatalogScope,
}

impl ScopeQuery {
    /// Parses query pairs strictly: `scope` as [`CatalogQuery::parse`] reads
    /// it; any other key is an issue, reported with the scope's own issues.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ScopeQuery, ValidationFailure> {
        let (scoped, others): (Vec<_>, Vec<_>) =
            pairs.into_iter().partition(|(key, _)| *key == "scope");
        let mut details: Vec<FieldIssue> = others
            .iter()
            .map(|(key, _)| issue("", &format!("Unrecognized key(s) in object: '{key}'")))
            .collect();
        match CatalogQuery::parse(scoped) {
            Ok(query) if details.is_empty() => Ok(ScopeQuery { scope: query.scope }),
            Ok(_) => Err(ValidationFailure { details }),
            Err(failure) => {
                details.extend(failure.details);
                Err(ValidationFailure { details })
            }
        }
    }
}

/// The query parameter [`ScopeQuery::parse`] accepts, for the documents.
impl schemars::JsonSchema for ScopeQuery {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScopeQuery".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "scope": {
                    "description": "Whose resources and prompts (a filter, never authority). Default `all`.",
                    "type": "string",
                    "enum": CatalogScope::values(),
                },
            },
            "additionalProperties": false,
        })
    }
}

fn issue(path: &str, message: &str) -> FieldIssue {
    FieldIssue {
        path: path.to_owned(),
        message: message.to_owned(),
    }
}

fn enum_message(allowed: &[&str], received: &str) -> String {
    let allowed = allowed
        .iter()
        .map(|v| format!("'{v}'"))
        .collect::<Vec<_>>()
        .join(" | ");
    format!("Invalid enum value. Expected {allowed}, received '{received}'")
}

/// The query parameters [`CatalogQuery::parse`] accepts, for the documents.
impl schemars::JsonSchema for CatalogQuery {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CatalogQuery".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "scope": {
                    "description": "Which principal's tools (a filter, never authority). Default `all`.",
                    "type": "string",
                    "enum": CatalogScope::values(),
                },
                "intent": {
                    "description": "Narrows the voice-derived tools (≤500 characters, trimmed).",
                    "type": "string",
                    "maxLength": INTENT_MAX_CHARS,
                },
                "format": {
                    "description": "Projection. Default `portos`.",
                    "type": "string",
                    "enum": CatalogFormat::VALUES,
                },
            },
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_query_takes_the_scope_alone() {
        assert_eq!(ScopeQuery::parse([]).ok(), Some(ScopeQuery::default()));
        assert_eq!(
            ScopeQuery::parse([("scope", "all")]).ok(),
            Some(ScopeQuery::default())
        );
        let refused = ScopeQuery::parse([("format", "mcp"), ("scope", "root")])
            .err()
            .map(|failure| failure.details)
            .unwrap_or_default();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(refused[0].message.contains("'format'"));
        assert_eq!(refused[1].path, "scope");
    }

    #[test]
    fn strict() {
        assert_eq!(CatalogQuery::parse([]).ok(), Some(CatalogQuery::default()));
        let err = CatalogQuery::parse([
            ("scope", "root"),
            ("cursor", "1"),
            ("intent", &"x".repeat(501)),
        ]);
        let details = err.err().map(|e| e.details).unwrap_or_default();
        assert_eq!(details.len(), 3);
        assert_eq!(details[0].path, "scope");
        // No vocabulary is linked here: `all` is the only scope value.
        assert!(details[0].message.contains("'all'"));
    }
}

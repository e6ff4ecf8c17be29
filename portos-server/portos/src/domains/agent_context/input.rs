//! Strict inputs of the context tools. Every violation is reported by the
//! dotted path of the offending field (`input` for the whole object), as the
//! `Invalid tool input at: …` text names them.

use portos_server::mcp::ContextScope;
use serde_json::{Map, Value};

use super::{MAX_QUERY_CHARS, MAX_REF_CHARS, MAX_RESULTS};

#[derive(Debug, PartialEq, Eq)]
pub enum ContextInput {
    Search {
        query: String,
        scopes: Option<Vec<ContextScope>>,
        limit: Option<usize>,
    },
    Get {
        reference: String,
    },
    List {
        scope: ContextScope,
        cursor: usize,
        limit: Option<usize>,
    },
    Resolve {
        query: String,
    },
    Profile,
}

/// Parses the arguments of `tool`, or lists the paths that are wrong.
pub fn parse_input(tool: &str, arguments: Option<&Value>) -> Result<ContextInput, Vec<String>> {
    let empty = Map::new();
    let object = match arguments {
        None => &empty,
        Some(Value::Object(object)) => object,
        Some(_) => return Err(vec!["input".to_owned()]),
    };
    let allowed: &[&str] = match tool {
        "search_context" => &["query", "scopes", "limit"],
        "get_context" => &["ref"],
        "list_context" => &["scope", "cursor", "limit"],
        "resolve_navigation" => &["query"],
        _ => &[],
    };
    let mut issues: Vec<String> = object
        .keys()
        .filter(|key| !allowed.contains(&key.as_str()))
        .cloned()
        .collect();
    let mut check = Checker {
        object,
        issues: &mut issues,
    };
    let input = match tool {
        "search_context" => ContextInput::Search {
            query: check.text("query", MAX_QUERY_CHARS),
            scopes: check.scopes("scopes"),
            limit: check.integer("limit", 1, MAX_RESULTS, false),
        },
        "get_context" => ContextInput::Get {
            reference: check.text("ref", MAX_REF_CHARS),
        },
        "list_context" => ContextInput::List {
            scope: check.scope("scope"),
            cursor: check.integer("cursor", 0, usize::MAX, false).unwrap_or(0),
            limit: check.integer("limit", 1, MAX_RESULTS, false),
        },
        "resolve_navigation" => ContextInput::Resolve {
            query: check.text("query", MAX_QUERY_CHARS),
        },
        _ => ContextInput::Profile,
    };
    if issues.is_empty() {
        Ok(input)
    } else {
        Err(issues)
    }
}

struct Checker<'a> {
    object: &'a Map<String, Value>,
    issues: &'a mut Vec<String>,
}

impl Checker<'_> {
    fn fail(&mut self, path: impl Into<String>) {
        self.issues.push(path.into());
    }

    /// A required string, trimmed, of 1 to `max` characters.
    fn text(&mut self, key: &str, max: usize) -> String {
        let trimmed = self.object.get(key).and_then(Value::as_str).map(str::trim);
        match trimmed {
            Some(text) if !text.is_empty() && text.chars().count() <= max => text.to_owned(),
            _ => {
                self.fail(key);
                String::new()
            }
        }
    }

    fn integer(&mut self, key: &str, min: usize, max: usize, required: bool) -> Option<usize> {
        let Some(value) = self.object.get(key) else {
            if required {
                self.fail(key);
            }
            return None;
        };
        match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) if (min..=max).contains(&n) => Some(n),
            _ => {
                self.fail(key);
                None
            }
        }
    }

    fn scope(&mut self, key: &str) -> ContextScope {
        match self
            .object
            .get(key)
            .and_then(Value::as_str)
            .and_then(ContextScope::from_name)
        {
            Some(scope) => scope,
            None => {
                self.fail(key);
                portos_words::NAVIGATION
            }
        }
    }

    fn scopes(&mut self, key: &str) -> Option<Vec<ContextScope>> {
        let value = self.object.get(key)?;
        let Some(list) = value.as_array() else {
            self.fail(key);
            return None;
        };
        if list.is_empty() || list.len() > ContextScope::all().count() {
            self.fail(key);
            return None;
        }
        let mut scopes = Vec::new();
        for (index, entry) in list.iter().enumerate() {
            match entry.as_str().and_then(ContextScope::from_name) {
                Some(scope) if !scopes.contains(&scope) => scopes.push(scope),
                _ => self.fail(format!("{key}.{index}")),
            }
        }
        Some(scopes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_of_every_violation() {
        let bad = json!({"query": "  ", "scopes": ["brain", "vault"], "limit": 26, "extra": true});
        assert_eq!(
            parse_input("search_context", Some(&bad)),
            Err(vec![
                "extra".to_owned(),
                "query".to_owned(),
                "scopes.1".to_owned(),
                "limit".to_owned()
            ])
        );
        assert_eq!(
            parse_input("get_context", Some(&json!([]))),
            Err(vec!["input".to_owned()])
        );
        assert_eq!(
            parse_input("context_profile", Some(&json!({"x": 1}))),
            Err(vec!["x".to_owned()])
        );
        assert_eq!(
            parse_input("search_context", Some(&json!({"query": " ideas "}))),
            Ok(ContextInput::Search {
                query: "ideas".to_owned(),
                scopes: None,
                limit: None
            })
        );
        assert_eq!(
            parse_input(
                "list_context",
                Some(&json!({"scope": "brain", "cursor": 3}))
            ),
            Ok(ContextInput::List {
                scope: portos_words::BRAIN,
                cursor: 3,
                limit: None
            })
        );
    }
}

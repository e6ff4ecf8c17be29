//! Resource URI templates, RFC 6570 level 1: literal text and `{name}`
//! variables. A variable matches one or more characters up to the next
//! literal, never a `/` (so `test://template/{id}/data` does not match
//! `test://template/a/b/data`), and its value is percent-decoded.

use std::fmt;

/// A checked template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// Why a template was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("URI template `{template}`: {reason}")]
pub struct TemplateError {
    template: String,
    reason: &'static str,
}

impl UriTemplate {
    /// Checks `template`: `{name}` variables of letters, digits and `_`, a
    /// literal between any two, none named twice, at least one.
    pub fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
        let refuse = |reason| TemplateError {
            template: template.to_owned(),
            reason,
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest
                        .find('}')
                        .ok_or_else(|| refuse("a `{` is not closed"))?;
                    let name = &rest[1..end];
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(refuse(
                            "a variable is a name of letters, digits and `_` (level 1: no operators)",
                        ));
                    }
                    if matches!(parts.last(), Some(Part::Variable(_))) {
                        return Err(refuse("two variables need a literal between them"));
                    }
                    if parts
                        .iter()
                        .any(|part| matches!(part, Part::Variable(seen) if seen == name))
                    {
                        return Err(refuse("a variable is named twice"));
                    }
                    parts.push(Part::Variable(name.to_owned()));
                    rest = &rest[end + 1..];
                }
                found => {
                    let end = found.unwrap_or(rest.len());
                    if rest[..end].contains('}') {
                        return Err(refuse("a `}` without its `{`"));
                    }
                    parts.push(Part::Literal(rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        if !parts.iter().any(|part| matches!(part, Part::Variable(_))) {
            return Err(refuse("a template names at least one variable"));
        }
        Ok(UriTemplate { parts })
    }

    /// The variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values when `uri` matches, in order.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut values = Vec::new();
        let mut rest = uri;
        for (at, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Variable(name) => {
                    // Up to the next literal (or the end), within one segment.
                    let end = match self.parts.get(at + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    if raw.is_empty() || raw.contains('/') {
                        return None;
                    }
                    values.push((name.clone(), percent_decode(raw)?));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(values)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Literal(text) => f.write_str(text)?,
                Part::Variable(name) => write!(f, "{{{name}}}")?,
            }
        }
        Ok(())
    }
}

/// `%XX` sequences decoded; `None` when malformed or not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_one_templates_match_and_decode() {
        let template = UriTemplate::parse("test://template/{id}/data").expect("valid");
        assert_eq!(template.variables().collect::<Vec<_>>(), ["id"]);
        assert_eq!(
            template.matches("test://template/123/data"),
            Some(vec![("id".to_owned(), "123".to_owned())])
        );
        assert_eq!(
            template.matches("test://template/a%20b/data"),
            Some(vec![("id".to_owned(), "a b".to_owned())])
        );
        assert_eq!(template.matches("test://template/a/b/data"), None);
        assert_eq!(template.matches("test://template//data"), None);
        assert_eq!(template.matches("test://template/1/data/more"), None);
        assert_eq!(template.matches("test://template/%zz/data"), None);
        assert_eq!(template.to_string(), "test://template/{id}/data");
        let tail = UriTemplate::parse("notes://{year}-{slug}").expect("valid");
        assert_eq!(
            tail.matches("notes://2026-hello"),
            Some(vec![
                ("year".to_owned(), "2026".to_owned()),
                ("slug".to_owned(), "hello".to_owned())
            ])
        );
    }

    #[test]
    fn malformed_templates_are_refused() {
        for bad in [
            "test://{",
            "test://}",
            "test://{a}{b}",
            "test://{+a}",
            "test://{}",
            "test://plain",
            "{a}/{a}",
        ] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}

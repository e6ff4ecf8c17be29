//! The labels the Persistent Mind files issues with, their colours, the
//! planner slug, and the title key of the duplicate guard
//! (docs/reference.md#forge-issues).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const PLANNER_SLUG_MAX_CHARS: usize = 40;

/// A label and the colour it is created with (six hex digits, no `#`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueLabel {
    pub name: String,
    pub color: &'static str,
}

/// The model tier the filed work asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModelTier {
    Light,
    Medium,
    Heavy,
    Ultra,
}

impl ModelTier {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelTier::Light => "light",
            ModelTier::Medium => "medium",
            ModelTier::Heavy => "heavy",
            ModelTier::Ultra => "ultra",
        }
    }

    fn color(self) -> &'static str {
        match self {
            ModelTier::Light => "D4C5F9",
            ModelTier::Medium => "A371F7",
            ModelTier::Heavy => "6F42C1",
            ModelTier::Ultra => "C2185B",
        }
    }
}

/// The reasoning effort the filed work asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

impl Effort {
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
            Effort::Max => "max",
        }
    }

    fn color(self) -> &'static str {
        match self {
            Effort::Low => "BFE5E5",
            Effort::Medium => "76C7C7",
            Effort::High => "1D7874",
            Effort::Xhigh => "0E4F4C",
            Effort::Max => "05403D",
        }
    }
}

/// The categories an issue may carry (at most four).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Plan,
    Bug,
    Tests,
    Ux,
    Docs,
    Chore,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Plan => "plan",
            Category::Bug => "bug",
            Category::Tests => "tests",
            Category::Ux => "ux",
            Category::Docs => "docs",
            Category::Chore => "chore",
        }
    }

    fn color(self) -> &'static str {
        match self {
            Category::Plan => "0E8A16",
            Category::Bug => "D73A4A",
            Category::Tests => "C5DEF5",
            Category::Ux => "D4C5F9",
            Category::Docs => "0075CA",
            Category::Chore => "FEF2C0",
        }
    }
}

/// `persistent-mind`, `model:<tier>`, `effort:<level>`, `planner:<slug>`
/// (when the Mind's model or provider gives one), then the categories;
/// each name once, in that order.
pub fn issue_labels(
    tier: ModelTier,
    effort: Effort,
    planner: Option<&str>,
    categories: &[Category],
) -> Vec<IssueLabel> {
    let mut labels = vec![
        IssueLabel {
            name: "persistent-mind".to_owned(),
            color: "5319E7",
        },
        IssueLabel {
            name: format!("model:{}", tier.as_str()),
            color: tier.color(),
        },
        IssueLabel {
            name: format!("effort:{}", effort.as_str()),
            color: effort.color(),
        },
    ];
    if let Some(slug) = planner.map(planner_slug).filter(|slug| !slug.is_empty()) {
        labels.push(IssueLabel {
            name: format!("planner:{slug}"),
            color: "C2185B",
        });
    }
    for category in categories {
        labels.push(IssueLabel {
            name: category.as_str().to_owned(),
            color: category.color(),
        });
    }
    let mut seen = Vec::new();
    labels.retain(|label| {
        let fresh = !seen.contains(&label.name);
        seen.push(label.name.clone());
        fresh
    });
    labels
}

/// The planner label's slug of a model (or provider) id: lowercased, the
/// vendor prefix before the last `/` dropped, a trailing `-YYYYMMDD` or
/// `-YYYYMM` date dropped, `claude-` dropped before opus/sonnet/haiku/fable,
/// kebab-cased, at most 40 characters. `claude-opus-5` → `opus-5`.
pub fn planner_slug(model: &str) -> String {
    let lower = model.trim().to_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let name = strip_date(name);
    let name = ["opus", "sonnet", "haiku", "fable"]
        .iter()
        .find_map(|family| {
            name.strip_prefix("claude-")
                .filter(|rest| rest.starts_with(family))
        })
        .unwrap_or(name);
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut slug: String = slug.chars().take(PLANNER_SLUG_MAX_CHARS).collect();
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

/// `name` without a trailing `-YYYYMMDD` or `-YYYYMM`.
fn strip_date(name: &str) -> &str {
    for digits in [8, 6] {
        if let Some(split) = name.len().checked_sub(digits + 1)
            && name.is_char_boundary(split)
        {
            let (head, tail) = name.split_at(split);
            if tail.starts_with('-') && tail[1..].bytes().all(|b| b.is_ascii_digit()) {
                return head;
            }
        }
    }
    name
}

/// The duplicate guard's key of a title: lowercase, every run of
/// non-alphanumerics one space, trimmed. Empty for a punctuation-only
/// title, which never counts as a duplicate.
pub fn title_key(title: &str) -> String {
    let mut key = String::new();
    for c in title.to_lowercase().chars() {
        if c.is_alphanumeric() {
            key.push(c);
        } else if !key.is_empty() && !key.ends_with(' ') {
            key.push(' ');
        }
    }
    key.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planner_slugs() {
        for (model, slug) in [
            ("claude-opus-5", "opus-5"),
            ("anthropic/claude-sonnet-4-20250514", "sonnet-4"),
            ("openai/gpt-5.1-codex", "gpt-5-1-codex"),
            ("claude-3-haiku", "claude-3-haiku"),
            (
                "Qwen/Qwen3-Coder-30B-A3B-Instruct-202507",
                "qwen3-coder-30b-a3b-instruct",
            ),
            ("  ", ""),
        ] {
            assert_eq!(planner_slug(model), slug, "{model}");
        }
        assert!(planner_slug(&"x".repeat(80)).len() <= 40);
    }

    #[test]
    fn labels_in_order_with_their_colours() {
        let labels = issue_labels(
            ModelTier::Heavy,
            Effort::High,
            Some("claude-opus-5"),
            &[Category::Bug, Category::Plan, Category::Bug],
        );
        let named: Vec<(&str, &str)> = labels.iter().map(|l| (l.name.as_str(), l.color)).collect();
        assert_eq!(
            named,
            [
                ("persistent-mind", "5319E7"),
                ("model:heavy", "6F42C1"),
                ("effort:high", "1D7874"),
                ("planner:opus-5", "C2185B"),
                ("bug", "D73A4A"),
                ("plan", "0E8A16"),
            ]
        );
        assert_eq!(
            issue_labels(ModelTier::Light, Effort::Low, None, &[]).len(),
            3
        );
    }

    #[test]
    fn title_keys() {
        assert_eq!(title_key("  Fix: the LOGIN page!! "), "fix the login page");
        assert_eq!(title_key("fix the login-page"), "fix the login page");
        assert_eq!(title_key("?!…"), "");
    }
}

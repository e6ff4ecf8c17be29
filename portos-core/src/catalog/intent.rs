//! The intent filter (docs/reference.md#intent-filtering). It only narrows
//! which tools are advertised; it never authorizes a call, and `resolve`
//! ignores it.
//!
//! The groups, and the patterns that switch them on, are the application's:
//! a tool names its group with `intent_group = "..."`, and the application
//! hands the catalog layer one [`IntentGroup`] per name.

use regex::{Regex, RegexBuilder};

use crate::descriptor::IntentRule;

/// One intent group an application defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntentGroup {
    /// What tools write in `intent_group = "..."`.
    pub name: &'static str,
    /// Case-insensitive pattern whose match on the intent switches the
    /// group on.
    pub pattern: &'static str,
}

/// The application's intent vocabulary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntentConfig {
    /// The groups tools may name, in the application's order.
    pub groups: &'static [IntentGroup],
    /// Case-insensitive pattern of an intent that fills in a form (the
    /// user is dictating into a field, not asking for a tool): tools with
    /// `suppress_on_form_fill` are then not listed. `None`: never.
    pub form_fill: Option<&'static str>,
}

/// [`IntentConfig`], its patterns compiled once.
#[derive(Clone, Debug, Default)]
pub struct IntentGroups {
    groups: Vec<(&'static str, Regex)>,
    form_fill: Option<Regex>,
}

impl IntentGroups {
    /// Compiles every pattern; each one that does not compile, and each
    /// badly spelled or repeated name, is one problem.
    pub fn new(config: &IntentConfig) -> Result<IntentGroups, Vec<String>> {
        let mut problems = Vec::new();
        let mut groups: Vec<(&'static str, Regex)> = Vec::with_capacity(config.groups.len());
        for group in config.groups {
            if let Some(problem) = portos_vocabulary::intent_group_problem(group.name) {
                problems.push(format!("intent group name `{}`: {problem}", group.name));
            }
            if groups.iter().any(|(name, _)| *name == group.name) {
                problems.push(format!("intent group `{}` is defined twice", group.name));
            }
            match compile(group.pattern) {
                Ok(regex) => groups.push((group.name, regex)),
                Err(error) => problems.push(format!(
                    "the pattern of intent group `{}` does not compile: {error}",
                    group.name
                )),
            }
        }
        let form_fill = match config.form_fill.map(compile).transpose() {
            Ok(regex) => regex,
            Err(error) => {
                problems.push(format!("the form-fill pattern does not compile: {error}"));
                None
            }
        };
        if problems.is_empty() {
            Ok(IntentGroups { groups, form_fill })
        } else {
            Err(problems)
        }
    }

    /// Whether the application defines a group called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.groups.iter().any(|(known, _)| *known == name)
    }

    /// The group names, in the application's order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.groups.iter().map(|(name, _)| *name)
    }

    /// Evaluates an intent once, for one catalog read.
    pub fn filter(&self, intent: Option<&str>) -> IntentFilter {
        let Some(text) = intent.map(str::trim).filter(|t| !t.is_empty()) else {
            return IntentFilter::default();
        };
        let groups = self
            .groups
            .iter()
            .filter(|(_, regex)| regex.is_match(text))
            .map(|(name, _)| *name)
            .collect();
        IntentFilter {
            active: Some(ActiveIntent {
                groups,
                form_fill: self.form_fill.as_ref().is_some_and(|r| r.is_match(text)),
            }),
        }
    }
}

fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).case_insensitive(true).build()
}

/// An intent, evaluated once per catalog read.
#[derive(Clone, Debug, Default)]
pub struct IntentFilter {
    /// `None` when there is no (non-blank) intent: nothing is filtered.
    active: Option<ActiveIntent>,
}

#[derive(Clone, Debug)]
struct ActiveIntent {
    groups: Vec<&'static str>,
    form_fill: bool,
}

impl IntentFilter {
    /// Whether a tool with this intent rule is listed: always without an
    /// intent; otherwise not when it is suppressed on a form-filling intent,
    /// and only when its group (if it has one) was switched on.
    pub fn allows(&self, rule: &IntentRule) -> bool {
        let Some(active) = &self.active else {
            return true;
        };
        if rule.suppress_on_form_fill && active.form_fill {
            return false;
        }
        match rule.group {
            Some(group) => active.groups.contains(&group),
            None => true,
        }
    }

    /// The groups the intent switched on (for diagnostics and tests).
    pub fn groups(&self) -> &[&'static str] {
        self.active.as_ref().map_or(&[], |a| &a.groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: IntentConfig = IntentConfig {
        groups: &[
            IntentGroup {
                name: "brain",
                pattern: r"\b(remember|remind\s+me)\b",
            },
            IntentGroup {
                name: "weather",
                pattern: r"\b(weather|raining)\b",
            },
        ],
        form_fill: Some(r"\b(type|fill)\b.{0,60}\b(field|title)\b"),
    };

    fn groups(text: &str) -> Vec<&'static str> {
        let compiled = IntentGroups::new(&CONFIG).expect("valid patterns");
        compiled.filter(Some(text)).groups().to_vec()
    }

    #[test]
    fn patterns_switch_groups_on_case_insensitively() {
        assert_eq!(groups("Remind me to buy milk"), ["brain"]);
        assert_eq!(groups("is it RAINING"), ["weather"]);
        assert!(groups("what time is it").is_empty());
    }

    #[test]
    fn blank_intent_filters_nothing() {
        let compiled = IntentGroups::new(&CONFIG).expect("valid patterns");
        let rule = IntentRule {
            group: Some("brain"),
            suppress_on_form_fill: true,
        };
        assert!(compiled.filter(None).allows(&rule));
        assert!(compiled.filter(Some("   ")).allows(&rule));
    }

    #[test]
    fn form_fill_suppresses_even_ungrouped_tools() {
        let compiled = IntentGroups::new(&CONFIG).expect("valid patterns");
        let journal = IntentRule {
            group: None,
            suppress_on_form_fill: true,
        };
        let time = IntentRule::default();
        let filter = compiled.filter(Some("type my name into the title field"));
        assert!(!filter.allows(&journal));
        assert!(filter.allows(&time));
        assert!(compiled.filter(Some("what time is it")).allows(&journal));
    }

    #[test]
    fn no_groups_and_no_form_fill_by_default() {
        let none = IntentGroups::default();
        let filter = none.filter(Some("type into the title field"));
        assert!(filter.allows(&IntentRule {
            group: None,
            suppress_on_form_fill: true
        }));
        assert!(!filter.allows(&IntentRule {
            group: Some("brain"),
            suppress_on_form_fill: false
        }));
    }

    #[test]
    fn bad_config_is_reported_whole() {
        let problems = IntentGroups::new(&IntentConfig {
            groups: &[
                IntentGroup {
                    name: "Brain Dump",
                    pattern: "(",
                },
                IntentGroup {
                    name: "ok",
                    pattern: "x",
                },
                IntentGroup {
                    name: "ok",
                    pattern: "y",
                },
            ],
            form_fill: Some("["),
        })
        .err()
        .unwrap_or_default();
        assert_eq!(problems.len(), 4, "{problems:#?}");
    }
}

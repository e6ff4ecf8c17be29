//! A coding provider and the rules a configured list follows.

use crate::shared::doc_rules::NOT_BLANK;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The settings key the list is stored under.
pub const SETTINGS_KEY: &str = "cosCodingProviders";
pub const MAX_PROVIDERS: usize = 50;
pub const ID_MAX_CHARS: usize = 100;
pub const NAME_MAX_CHARS: usize = 200;
pub const MAX_MODELS: usize = 50;
/// The same limit as a task's `model` (docs/reference.md#task-creation).
pub const MODEL_MAX_CHARS: usize = 200;

/// How a provider is driven. Only `cli` and `tui` agents work on tasks; an
/// `api` provider answers prompts and has no checkout to work in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Cli,
    Tui,
    Api,
}

// The levels: docs/reference.md#task-creation.
/// A reasoning effort level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
    Max,
    Ultra,
}

impl Effort {
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
            Effort::Max => "max",
            Effort::Ultra => "ultra",
        }
    }
}

/// One provider, as stored and shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CodingProvider {
    /// 1–100 of letters, digits, `.`, `_` and `-`, unique in the list.
    #[schemars(regex(pattern = r"^\s*[A-Za-z0-9._-]{1,100}\s*$"))]
    pub id: String,
    /// 1–200 characters, trimmed.
    #[schemars(length(max = 200), regex(pattern = NOT_BLANK))]
    pub name: String,
    pub kind: ProviderKind,
    /// A disabled provider is kept but takes no tasks.
    pub enabled: bool,
    /// The models a task may name (each 1–200 characters, at most 50); a
    /// task may also leave `model` empty for the provider's default.
    #[serde(default)]
    #[schemars(length(max = 50), inner(length(max = 200), regex(pattern = NOT_BLANK)))]
    pub models: Vec<String>,
    /// The effort levels a task may ask for; a task may also leave `effort`
    /// empty for the provider's default.
    #[serde(default)]
    pub efforts: Vec<Effort>,
}

impl CodingProvider {
    /// Whether tasks may be queued for it: enabled, and a CLI or TUI agent.
    pub fn takes_tasks(&self) -> bool {
        self.enabled && matches!(self.kind, ProviderKind::Cli | ProviderKind::Tui)
    }

    pub fn has_model(&self, model: &str) -> bool {
        self.models.iter().any(|known| known == model)
    }

    pub fn supports(&self, effort: Effort) -> bool {
        self.efforts.contains(&effort)
    }
}

/// The configured providers (none until the owner adds some).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Providers {
    /// At most 50.
    #[schemars(length(max = 50))]
    pub providers: Vec<CodingProvider>,
}

impl Providers {
    /// The list as stored: trimmed, duplicates of a model or effort dropped,
    /// or what breaks a rule (nothing is stored then).
    pub fn checked(self) -> Result<Providers, String> {
        if self.providers.len() > MAX_PROVIDERS {
            return Err(format!(
                "providers may hold at most {MAX_PROVIDERS} entries (got {})",
                self.providers.len()
            ));
        }
        let mut checked: Vec<CodingProvider> = Vec::with_capacity(self.providers.len());
        for (index, provider) in self.providers.into_iter().enumerate() {
            let provider = checked_provider(index, provider)?;
            if checked.iter().any(|seen| seen.id == provider.id) {
                return Err(format!(
                    "providers[{index}].id '{}' is used twice",
                    provider.id
                ));
            }
            checked.push(provider);
        }
        Ok(Providers { providers: checked })
    }

    /// The stored list. A value that no longer reads as a valid list is no
    /// provider at all: tasks fail closed rather than reach an agent the
    /// owner did not configure.
    pub fn from_stored(value: Option<&Value>) -> Providers {
        value
            .and_then(|value| serde_json::from_value::<Providers>(value.clone()).ok())
            .and_then(|providers| providers.checked().ok())
            .unwrap_or_default()
    }

    pub fn find(&self, id: &str) -> Option<&CodingProvider> {
        self.providers.iter().find(|provider| provider.id == id)
    }
}

fn checked_provider(index: usize, provider: CodingProvider) -> Result<CodingProvider, String> {
    let id = provider.id.trim();
    let count = id.chars().count();
    if count == 0 || count > ID_MAX_CHARS {
        return Err(format!(
            "providers[{index}].id must be 1 to {ID_MAX_CHARS} characters (got {count})"
        ));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(format!(
            "providers[{index}].id may hold only letters, digits, '.', '_' and '-'"
        ));
    }
    let name = provider.name.trim();
    let count = name.chars().count();
    if count == 0 || count > NAME_MAX_CHARS {
        return Err(format!(
            "providers[{index}].name must be 1 to {NAME_MAX_CHARS} characters (got {count})"
        ));
    }
    if provider.models.len() > MAX_MODELS {
        return Err(format!(
            "providers[{index}].models may hold at most {MAX_MODELS} models (got {})",
            provider.models.len()
        ));
    }
    let mut models: Vec<String> = Vec::with_capacity(provider.models.len());
    for (at, model) in provider.models.iter().enumerate() {
        let model = model.trim();
        let count = model.chars().count();
        if count == 0 || count > MODEL_MAX_CHARS {
            return Err(format!(
                "providers[{index}].models[{at}] must be 1 to {MODEL_MAX_CHARS} characters (got {count})"
            ));
        }
        if !models.iter().any(|seen| seen == model) {
            models.push(model.to_owned());
        }
    }
    let mut efforts: Vec<Effort> = Vec::with_capacity(provider.efforts.len());
    for effort in provider.efforts {
        if !efforts.contains(&effort) {
            efforts.push(effort);
        }
    }
    Ok(CodingProvider {
        id: id.to_owned(),
        name: name.to_owned(),
        kind: provider.kind,
        enabled: provider.enabled,
        models,
        efforts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Result<Providers, String> {
        serde_json::from_value::<Providers>(value)
            .map_err(|error| error.to_string())
            .and_then(Providers::checked)
    }

    #[test]
    fn a_list_is_trimmed_and_deduplicated() {
        let providers = parse(json!({ "providers": [{
            "id": " codex ", "name": " Codex CLI ", "kind": "cli", "enabled": true,
            "models": ["gpt-5", " gpt-5 ", "o4"], "efforts": ["low", "high", "low"]
        }] }))
        .expect("valid");
        let codex = providers.find("codex").expect("codex");
        assert_eq!(codex.name, "Codex CLI");
        assert_eq!(codex.models, ["gpt-5", "o4"]);
        assert_eq!(codex.efforts, [Effort::Low, Effort::High]);
        assert!(codex.takes_tasks() && codex.has_model("o4") && codex.supports(Effort::High));
        assert!(!codex.supports(Effort::Ultra));
    }

    #[test]
    fn what_a_list_may_not_hold() {
        let one = |provider: Value| parse(json!({ "providers": [provider] }));
        let base = json!({ "id": "a", "name": "A", "kind": "tui", "enabled": true });
        assert!(one(base.clone()).is_ok());
        let with = |key: &str, value: Value| {
            let mut provider = base.clone();
            provider[key] = value;
            one(provider)
        };
        assert!(with("id", json!("")).is_err());
        assert!(with("id", json!("a b")).is_err());
        assert!(with("id", json!("x".repeat(101))).is_err());
        assert!(with("name", json!("  ")).is_err());
        assert!(with("kind", json!("shell")).is_err());
        assert!(with("models", json!([""])).is_err());
        assert!(with("models", json!(["m".repeat(201)])).is_err());
        assert!(with("efforts", json!(["enormous"])).is_err());
        assert!(with("extra", json!(true)).is_err());
        assert!(
            parse(json!({ "providers": [base.clone(), base.clone()] }))
                .expect_err("duplicate")
                .contains("used twice")
        );
        let many: Vec<Value> = (0..51)
            .map(|i| json!({ "id": format!("p{i}"), "name": "P", "kind": "cli", "enabled": true }))
            .collect();
        assert!(parse(json!({ "providers": many })).is_err());
    }

    #[test]
    fn only_enabled_agents_take_tasks_and_bad_storage_is_no_provider() {
        let providers = parse(json!({ "providers": [
            { "id": "api", "name": "API", "kind": "api", "enabled": true },
            { "id": "off", "name": "Off", "kind": "cli", "enabled": false }
        ] }))
        .expect("valid");
        assert!(!providers.find("api").expect("api").takes_tasks());
        assert!(!providers.find("off").expect("off").takes_tasks());
        assert_eq!(
            Providers::from_stored(Some(&json!({ "providers": "codex" }))),
            Providers::default()
        );
        assert_eq!(Providers::from_stored(None), Providers::default());
    }
}

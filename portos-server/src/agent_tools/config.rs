//! The Agent Tools settings (`settings.agentContext`,
//! docs/reference.md#mcp-settings, docs/reference.md#mcp-gating): whether the
//! MCP transport answers, which context profile and scopes it serves, and which
//! semantic actions the agent is granted. Everything is off by default, and a
//! stored value that does not fit the strict schema (an unknown key such as
//! `shell`, a wrong type, an unknown scope) makes the whole configuration
//! invalid: disabled, with no grants.

use crate::cached::Cached;
use std::sync::Arc;

use crate::store::sql::Connection;
use portos_core::{Capabilities, Capability, Scope, Transport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::settings;
use crate::store::StoreError;

pub use portos_core::ContextScope;

/// How much of a context item is returned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Kinds, counts and fixed labels only; private text is never returned.
    #[default]
    Metadata,
    /// Redacted titles and summaries.
    Summary,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Metadata => "metadata",
            Profile::Summary => "summary",
        }
    }
}

/// The agent's action grants: one boolean per capability the MCP
/// transport's principal can be granted (its `#[grants(...)]` in the
/// application's vocabulary, in that order), all off by default. Unknown
/// keys are refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentActions(Capabilities);

impl AgentActions {
    /// The capabilities the MCP principal can be granted, in order.
    fn grantable() -> &'static [Capability] {
        Scope::of_transport(Transport::Mcp).map_or(&[], Scope::grantable)
    }

    /// The grants as registry capabilities.
    pub fn capabilities(self) -> Capabilities {
        self.0
    }
}

impl Serialize for AgentActions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let grantable = AgentActions::grantable();
        let mut map = serializer.serialize_map(Some(grantable.len()))?;
        for capability in grantable {
            map.serialize_entry(capability.as_str(), &self.0.has(*capability))?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for AgentActions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let keys = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        let grantable = AgentActions::grantable();
        let mut granted = Capabilities::NONE;
        for (key, value) in keys {
            let Some(capability) = grantable.iter().find(|c| c.as_str() == key) else {
                let expected: Vec<&str> = grantable.iter().map(|c| c.as_str()).collect();
                return Err(D::Error::custom(format!(
                    "unknown field `{key}`, expected one of {}",
                    expected.join(", ")
                )));
            };
            match value {
                Value::Bool(true) => granted = granted.with(*capability),
                Value::Bool(false) => {}
                other => {
                    return Err(D::Error::custom(format!(
                        "`{key}` must be a boolean, not {other}"
                    )));
                }
            }
        }
        Ok(AgentActions(granted))
    }
}

impl JsonSchema for AgentActions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AgentActions".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let properties: serde_json::Map<String, Value> = AgentActions::grantable()
            .iter()
            .map(|capability| {
                (
                    capability.as_str().to_owned(),
                    serde_json::json!({ "type": "boolean", "default": false }),
                )
            })
            .collect();
        schemars::json_schema!({
            "type": "object",
            "description": "The agent's semantic action grants (all off by default).",
            "properties": properties,
            "additionalProperties": false,
        })
    }
}

/// The stored settings as written by `PUT /api/settings/agent-context`:
/// every key optional, unknown keys refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentContextSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    // Distinct context scopes of the application's vocabulary, at least
    // one (default: its `#[default]` ones); described by
    // `context_scopes_schema` (a doc comment would replace its words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "context_scopes_schema")]
    pub scopes: Option<Vec<ContextScope>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<AgentActions>,
}

impl AgentContextSettings {
    /// Parses and checks a settings value; the message says what is wrong.
    pub fn parse(value: &Value) -> Result<AgentContextSettings, String> {
        let settings: AgentContextSettings =
            serde_json::from_value(value.clone()).map_err(|error| error.to_string())?;
        settings.check()?;
        Ok(settings)
    }

    /// The rules serde cannot express: one to every scope, each once.
    pub fn check(&self) -> Result<(), String> {
        if let Some(scopes) = &self.scopes {
            let declared = ContextScope::all().count();
            if scopes.is_empty() || scopes.len() > declared {
                return Err(format!("scopes must list 1 to {declared} scopes"));
            }
            let mut seen = Vec::new();
            for scope in scopes {
                if seen.contains(scope) {
                    return Err(format!("scopes lists '{}' twice", scope.as_str()));
                }
                seen.push(*scope);
            }
        }
        Ok(())
    }
}

/// The resolved configuration every agent-context path reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentContextConfig {
    pub enabled: bool,
    pub profile: Profile,
    pub scopes: Vec<ContextScope>,
    pub actions: AgentActions,
    /// False when the stored value did not fit the schema.
    pub valid: bool,
}

impl Default for AgentContextConfig {
    fn default() -> Self {
        AgentContextConfig {
            enabled: false,
            profile: Profile::Metadata,
            scopes: ContextScope::defaults().collect(),
            actions: AgentActions::default(),
            valid: true,
        }
    }
}

/// The `scopes` setting's schema, from the application's context scopes:
/// one to all of them, each once (the description names the defaults).
fn context_scopes_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let declared = ContextScope::all().count();
    let defaults: Vec<String> = ContextScope::defaults()
        .map(|scope| format!("\"{scope}\""))
        .collect();
    const WORDS: [&str; 10] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let count = declared
        .checked_sub(1)
        .and_then(|at| WORDS.get(at))
        .map_or_else(|| declared.to_string(), |word| (*word).to_owned());
    schemars::json_schema!({
        "type": ["array", "null"],
        "items": generator.subschema_for::<ContextScope>(),
        "description": format!(
            "One to {count} distinct scopes (default `[{}]`).",
            defaults.join(", ")
        ),
        "minItems": declared.min(1),
        "maxItems": declared,
        "uniqueItems": true,
    })
}

impl AgentContextConfig {
    /// Resolves the stored value (absent = defaults; invalid = disabled,
    /// no grants, `valid: false`).
    pub fn resolve(stored: Option<&Value>) -> AgentContextConfig {
        let Some(value) = stored else {
            return AgentContextConfig::default();
        };
        match AgentContextSettings::parse(value) {
            Ok(settings) => AgentContextConfig::from_settings(&settings),
            Err(_) => AgentContextConfig {
                valid: false,
                ..AgentContextConfig::default()
            },
        }
    }

    pub fn from_settings(settings: &AgentContextSettings) -> AgentContextConfig {
        AgentContextConfig {
            enabled: settings.enabled.unwrap_or(false),
            profile: settings.profile.unwrap_or_default(),
            scopes: settings
                .scopes
                .clone()
                .unwrap_or_else(|| ContextScope::defaults().collect()),
            actions: settings.actions.unwrap_or_default(),
            valid: true,
        }
    }

    pub fn load(connection: &Connection) -> Result<AgentContextConfig, StoreError> {
        let stored = settings::get_json(connection, settings::AGENT_CONTEXT)?;
        Ok(AgentContextConfig::resolve(stored.as_ref()))
    }

    /// The transport answers only when enabled and valid.
    pub fn active(&self) -> bool {
        self.enabled && self.valid
    }

    /// The grants the agent principal executes with (none when invalid).
    pub fn grants(&self) -> Capabilities {
        if self.valid {
            self.actions.capabilities()
        } else {
            Capabilities::NONE
        }
    }

    pub fn has_scope(&self, scope: ContextScope) -> bool {
        self.scopes.contains(&scope)
    }

    /// The settings as the REST route shows them.
    pub fn view(&self) -> AgentContextView {
        AgentContextView {
            enabled: self.enabled,
            profile: self.profile,
            scopes: self.scopes.clone(),
            actions: self.actions,
            configuration_valid: self.valid,
        }
    }
}

/// The resolved Agent Tools settings, as `/api/settings/agent-context` shows
/// them.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentContextView {
    pub enabled: bool,
    pub profile: Profile,
    pub scopes: Vec<ContextScope>,
    pub actions: AgentActions,
    /// False when the stored settings did not fit the schema: the feature is
    /// then disabled with no grants until they are replaced.
    pub configuration_valid: bool,
}

/// The resolved configuration in memory, refreshed on the store's connection
/// inside the `Store::run` of the write that changed it (as `GrantsCache`).
#[derive(Clone, Debug)]
pub(crate) struct AgentContextCache {
    current: Arc<Cached<Arc<AgentContextConfig>>>,
}

impl AgentContextCache {
    pub(crate) fn load(connection: &Connection) -> Result<AgentContextCache, StoreError> {
        Ok(AgentContextCache {
            current: Cached::new(Arc::new(AgentContextConfig::load(connection)?)),
        })
    }

    pub(crate) fn current(&self) -> Arc<AgentContextConfig> {
        self.current.current()
    }

    pub(crate) fn refresh(
        &self,
        connection: &Connection,
    ) -> Result<Arc<AgentContextConfig>, StoreError> {
        self.current
            .load(|| AgentContextConfig::load(connection).map(Arc::new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_is_all_off_with_default_scopes() {
        let config = AgentContextConfig::resolve(None);
        assert!(!config.enabled && config.valid);
        assert_eq!(config.scopes, ContextScope::defaults().collect::<Vec<_>>());
        assert_eq!(config.grants(), Capabilities::NONE);
    }

    #[test]
    fn an_unknown_action_invalidates_everything() {
        let stored = json!({"enabled": true, "actions": {"readPortos": true, "shell": true}});
        let config = AgentContextConfig::resolve(Some(&stored));
        assert!(!config.valid && !config.active());
        assert_eq!(config.grants(), Capabilities::NONE);
    }

    #[test]
    fn scopes_must_be_known_distinct_and_non_empty() {
        for bad in [
            json!({"scopes": []}),
            json!({"scopes": ["brain", "brain"]}),
            json!({"scopes": ["vault"]}),
            json!({"extra": 1}),
        ] {
            assert!(!AgentContextConfig::resolve(Some(&bad)).valid, "{bad}");
        }
        let good = json!({"enabled": true, "profile": "summary", "scopes": ["brain"], "actions": {"readPortos": true}});
        let config = AgentContextConfig::resolve(Some(&good));
        assert!(config.active());
        assert_eq!(config.profile, Profile::Summary);
        assert!(config.grants().has(crate::test_words::READ_PORTOS));
        assert!(!config.grants().has(crate::test_words::WRITE_PORTOS));
    }
}

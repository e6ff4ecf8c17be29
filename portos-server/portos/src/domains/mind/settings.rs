//! The Persistent Mind's capabilities (docs/reference.md#capability-keys): its
//! boolean grants, the task model allowlist and the apps it may work on, with a
//! schema version. Older versions are read forward; anything that does not read
//! as a grant is off, and a malformed stored allowlist fails closed.

use crate::shared::doc_rules::NOT_BLANK;
use portos_core::{Capabilities, Capability};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version written today. Versions 1 up to it are accepted and read
/// forward (a newer stored version is read as far as it is understood).
pub const SCHEMA_VERSION: u32 = 10;
pub const ALLOWLIST_MAX_ENTRIES: usize = 200;
pub const PROVIDER_ID_MAX_CHARS: usize = 100;
pub const MODEL_MAX_CHARS: usize = 200;
pub const ALLOWED_APPS_MAX: usize = 50;
pub const APP_ID_MAX_CHARS: usize = 128;

/// The registry capabilities the Mind can hold (`callToolRecipes` is the
/// agent's, never the Mind's): its grants in PortOS's vocabulary.
pub const MIND_CAPABILITIES: [Capability; 10] = [
    portos_words::READ_PORTOS,
    portos_words::WRITE_PORTOS,
    portos_words::MANAGE_EIDOVERSE,
    portos_words::VISIT_EIDOVERSE_PEERS,
    portos_words::CREATE_TASKS,
    portos_words::FILE_ISSUES,
    portos_words::MANAGE_TOOL_RECIPES,
    portos_words::MANAGE_MIND,
    portos_words::CHOOSE_THINKING_PRESET,
    portos_words::ADJUST_LOCAL_CONTEXT,
];

/// One model the Mind may queue tasks for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AllowedModel {
    /// 1–100 characters.
    #[schemars(length(max = 100), regex(pattern = NOT_BLANK))]
    pub provider_id: String,
    /// At most 200 characters (`""`: the provider's default).
    #[schemars(length(max = 200))]
    pub model: String,
}

/// The capabilities as stored and shown. Every grant is off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindSettings {
    pub schema_version: u32,
    pub read_portos: bool,
    pub write_portos: bool,
    pub manage_eidoverse: bool,
    pub visit_eidoverse_peers: bool,
    pub create_tasks: bool,
    pub file_issues: bool,
    pub manage_tool_recipes: bool,
    pub manage_mind: bool,
    pub choose_thinking_preset: bool,
    pub adjust_local_context: bool,
    /// May place a voice call to the user (not a registry capability).
    pub call_user: bool,
    /// The models tasks may use; empty: any configured model.
    pub task_model_allowlist: Vec<AllowedModel>,
    /// The apps the Mind may work on; `None`: every runnable app; `[]`: none.
    pub allowed_app_ids: Option<Vec<String>>,
    /// Set when the stored allowlist could not be read: no model passes
    /// until it is replaced (never written by a client).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub task_model_allowlist_invalid: bool,
}

/// What a client sends: every key optional, unknown keys refused; keys left
/// out are off (or unrestricted, for the lists).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MindSettingsInput {
    /// 1 up to the current version (default: current).
    #[schemars(range(min = 1, max = SCHEMA_VERSION))]
    pub schema_version: Option<u32>,
    pub read_portos: Option<bool>,
    pub write_portos: Option<bool>,
    pub manage_eidoverse: Option<bool>,
    pub visit_eidoverse_peers: Option<bool>,
    pub create_tasks: Option<bool>,
    pub file_issues: Option<bool>,
    pub manage_tool_recipes: Option<bool>,
    pub manage_mind: Option<bool>,
    pub choose_thinking_preset: Option<bool>,
    pub adjust_local_context: Option<bool>,
    pub call_user: Option<bool>,
    /// At most 200 entries.
    #[schemars(length(max = 200))]
    pub task_model_allowlist: Option<Vec<AllowedModel>>,
    /// At most 50 ids of 1 to 128 characters; `null` or absent: every
    /// runnable app.
    #[schemars(length(max = 50), inner(length(max = 128), regex(pattern = NOT_BLANK)))]
    pub allowed_app_ids: Option<Vec<String>>,
}

impl MindSettingsInput {
    /// The settings this input stands for, or what breaks a limit.
    pub fn into_settings(self) -> Result<MindSettings, String> {
        if let Some(version) = self.schema_version
            && !(1..=SCHEMA_VERSION).contains(&version)
        {
            return Err(format!(
                "schemaVersion must be 1 to {SCHEMA_VERSION} (got {version})"
            ));
        }
        let allowlist = self.task_model_allowlist.unwrap_or_default();
        check_allowlist(&allowlist)?;
        let apps = self
            .allowed_app_ids
            .map(|ids| checked_app_ids(&ids))
            .transpose()?;
        Ok(MindSettings {
            schema_version: SCHEMA_VERSION,
            read_portos: self.read_portos == Some(true),
            write_portos: self.write_portos == Some(true),
            manage_eidoverse: self.manage_eidoverse == Some(true),
            visit_eidoverse_peers: self.visit_eidoverse_peers == Some(true),
            create_tasks: self.create_tasks == Some(true),
            file_issues: self.file_issues == Some(true),
            manage_tool_recipes: self.manage_tool_recipes == Some(true),
            manage_mind: self.manage_mind == Some(true),
            choose_thinking_preset: self.choose_thinking_preset == Some(true),
            adjust_local_context: self.adjust_local_context == Some(true),
            call_user: self.call_user == Some(true),
            task_model_allowlist: allowlist,
            allowed_app_ids: apps,
            task_model_allowlist_invalid: false,
        })
    }
}

fn check_allowlist(allowlist: &[AllowedModel]) -> Result<(), String> {
    if allowlist.len() > ALLOWLIST_MAX_ENTRIES {
        return Err(format!(
            "taskModelAllowlist may hold at most {ALLOWLIST_MAX_ENTRIES} entries (got {})",
            allowlist.len()
        ));
    }
    for (index, entry) in allowlist.iter().enumerate() {
        let provider = entry.provider_id.trim().chars().count();
        if provider == 0 || provider > PROVIDER_ID_MAX_CHARS {
            return Err(format!(
                "taskModelAllowlist[{index}].providerId must be 1 to {PROVIDER_ID_MAX_CHARS} characters"
            ));
        }
        if entry.model.trim().chars().count() > MODEL_MAX_CHARS {
            return Err(format!(
                "taskModelAllowlist[{index}].model must be at most {MODEL_MAX_CHARS} characters"
            ));
        }
    }
    Ok(())
}

fn checked_app_ids(ids: &[String]) -> Result<Vec<String>, String> {
    if ids.len() > ALLOWED_APPS_MAX {
        return Err(format!(
            "allowedAppIds may hold at most {ALLOWED_APPS_MAX} ids (got {})",
            ids.len()
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for (index, id) in ids.iter().enumerate() {
        let id = id.trim();
        let count = id.chars().count();
        if count == 0 || count > APP_ID_MAX_CHARS {
            return Err(format!(
                "allowedAppIds[{index}] must be 1 to {APP_ID_MAX_CHARS} characters"
            ));
        }
        if !out.iter().any(|seen| seen == id) {
            out.push(id.to_owned());
        }
    }
    Ok(out)
}

impl MindSettings {
    /// The settings a stored value stands for, read forward from any older
    /// version: a grant is on only when it is `true`; a list that does not
    /// read is refused as a whole (an invalid model allowlist lets no model
    /// pass; an invalid app list allows no app).
    pub fn from_stored(value: Option<&Value>) -> MindSettings {
        let empty = Map::new();
        let object = value.and_then(Value::as_object).unwrap_or(&empty);
        let on = |key: &str| object.get(key) == Some(&Value::Bool(true));
        let (allowlist, allowlist_invalid) = match object.get("taskModelAllowlist") {
            None | Some(Value::Null) => (Vec::new(), false),
            Some(raw) => match serde_json::from_value::<Vec<AllowedModel>>(raw.clone()) {
                Ok(list) if check_allowlist(&list).is_ok() => (list, false),
                _ => (Vec::new(), true),
            },
        };
        let allowed_app_ids = match object.get("allowedAppIds") {
            None | Some(Value::Null) => None,
            Some(raw) => Some(
                serde_json::from_value::<Vec<String>>(raw.clone())
                    .ok()
                    .and_then(|ids| checked_app_ids(&ids).ok())
                    .unwrap_or_default(),
            ),
        };
        MindSettings {
            schema_version: SCHEMA_VERSION,
            read_portos: on("readPortos"),
            write_portos: on("writePortos"),
            manage_eidoverse: on("manageEidoverse"),
            visit_eidoverse_peers: on("visitEidoversePeers"),
            create_tasks: on("createTasks"),
            file_issues: on("fileIssues"),
            manage_tool_recipes: on("manageToolRecipes"),
            manage_mind: on("manageMind"),
            choose_thinking_preset: on("chooseThinkingPreset"),
            adjust_local_context: on("adjustLocalContext"),
            call_user: on("callUser"),
            task_model_allowlist: allowlist,
            allowed_app_ids,
            task_model_allowlist_invalid: allowlist_invalid,
        }
    }

    /// The registry capabilities these settings grant.
    pub fn capabilities(&self) -> Capabilities {
        let grants = [
            (self.read_portos, portos_words::READ_PORTOS),
            (self.write_portos, portos_words::WRITE_PORTOS),
            (self.manage_eidoverse, portos_words::MANAGE_EIDOVERSE),
            (
                self.visit_eidoverse_peers,
                portos_words::VISIT_EIDOVERSE_PEERS,
            ),
            (self.create_tasks, portos_words::CREATE_TASKS),
            (self.file_issues, portos_words::FILE_ISSUES),
            (self.manage_tool_recipes, portos_words::MANAGE_TOOL_RECIPES),
            (self.manage_mind, portos_words::MANAGE_MIND),
            (
                self.choose_thinking_preset,
                portos_words::CHOOSE_THINKING_PRESET,
            ),
            (
                self.adjust_local_context,
                portos_words::ADJUST_LOCAL_CONTEXT,
            ),
        ];
        grants
            .into_iter()
            .filter_map(|(on, capability)| on.then_some(capability))
            .collect()
    }

    /// Whether the Mind may work on `app_id`.
    pub fn allows_app(&self, app_id: &str) -> bool {
        self.allowed_app_ids
            .as_ref()
            .is_none_or(|ids| ids.iter().any(|id| id == app_id))
    }

    /// Whether tasks may use `model` of `provider_id` (`""`: the default).
    pub fn allows_model(&self, provider_id: &str, model: &str) -> bool {
        if self.task_model_allowlist_invalid {
            return false;
        }
        self.task_model_allowlist.is_empty()
            || self
                .task_model_allowlist
                .iter()
                .any(|entry| entry.provider_id.trim() == provider_id && entry.model.trim() == model)
    }

    /// The value stored under the settings key.
    pub fn to_stored(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn everything_is_off_by_default() {
        let settings = MindSettings::from_stored(None);
        assert_eq!(settings.capabilities(), Capabilities::NONE);
        assert!(!settings.call_user);
        assert!(settings.allows_app("any") && settings.allows_model("codex", ""));
        assert_eq!(settings.schema_version, SCHEMA_VERSION);
        assert_eq!(
            MindSettings::from_stored(Some(&json!("yes"))).capabilities(),
            Capabilities::NONE
        );
    }

    #[test]
    fn older_versions_read_forward() {
        // A version 5 value: only read/write and createTasks knew then.
        let stored = json!({ "schemaVersion": 5, "readPortos": true, "createTasks": "true", "manageMind": 1 });
        let settings = MindSettings::from_stored(Some(&stored));
        assert_eq!(settings.schema_version, SCHEMA_VERSION);
        assert!(settings.read_portos);
        assert!(
            !settings.create_tasks && !settings.manage_mind,
            "only real booleans grant"
        );
    }

    #[test]
    fn a_malformed_allowlist_fails_closed() {
        let stored =
            json!({ "createTasks": true, "taskModelAllowlist": [{ "providerId": "codex" }] });
        let settings = MindSettings::from_stored(Some(&stored));
        assert!(settings.task_model_allowlist_invalid);
        assert!(!settings.allows_model("codex", ""));
        let stored = json!({ "allowedAppIds": "portos" });
        assert!(!MindSettings::from_stored(Some(&stored)).allows_app("portos"));
        let stored = json!({ "allowedAppIds": ["portos"] });
        let settings = MindSettings::from_stored(Some(&stored));
        assert!(settings.allows_app("portos") && !settings.allows_app("other"));
    }

    #[test]
    fn input_limits() {
        let input = |value: Value| {
            serde_json::from_value::<MindSettingsInput>(value)
                .map_err(|e| e.to_string())
                .and_then(MindSettingsInput::into_settings)
        };
        assert!(input(json!({ "shell": true })).is_err());
        assert!(input(json!({ "schemaVersion": 11 })).is_err());
        assert!(input(json!({ "schemaVersion": 0 })).is_err());
        let many: Vec<Value> = (0..201)
            .map(|i| json!({ "providerId": format!("p{i}"), "model": "" }))
            .collect();
        assert!(input(json!({ "taskModelAllowlist": many })).is_err());
        assert!(
            input(json!({ "taskModelAllowlist": [{ "providerId": " ", "model": "" }] })).is_err()
        );
        let ids: Vec<String> = (0..51).map(|i| format!("app{i}")).collect();
        assert!(input(json!({ "allowedAppIds": ids })).is_err());
        let settings = input(json!({ "fileIssues": true, "allowedAppIds": ["a", " a ", "b"] }))
            .expect("valid");
        assert_eq!(
            settings.allowed_app_ids,
            Some(vec!["a".to_owned(), "b".to_owned()])
        );
        assert!(settings.capabilities().has(portos_words::FILE_ISSUES));
        // Round trip through the store.
        assert_eq!(
            MindSettings::from_stored(Some(&settings.to_stored())),
            settings
        );
    }
}

//! The rules `cos.create-task` checks after inference, in the contract's
//! order (docs/reference.md#task-creation), against what is stored at the
//! moment of the call: the grant may have been revoked, the app archived, the
//! provider disabled while the model was thinking. The first rule broken is the
//! refusal; nothing is queued then.

use super::input::CreateTaskArgs;
use crate::domains::apps::ResolvedApp;
use crate::domains::cos::Providers;
use crate::domains::mind::MindSettings;

pub const GRANT_OFF: &str = "Persistent mind task creation access is disabled";
/// Refusals are shown to the model and stored: at most this long.
pub const ERROR_MAX_CHARS: usize = 300;

/// What the rules are checked against, read at call time.
#[derive(Clone, Copy, Debug)]
pub struct Situation<'a> {
    /// The Persistent Mind's capabilities as stored now.
    pub settings: &'a MindSettings,
    /// The app, when it is in the Mind's roster (active, with a repository,
    /// among the first 50 runnable apps), resolved.
    pub app: Option<&'a ResolvedApp>,
    pub providers: &'a Providers,
}

/// Why the task may not be queued, or `None`.
pub fn refusal(args: &CreateTaskArgs, now: &Situation<'_>) -> Option<String> {
    let refusal = first_refusal(args, now)?;
    Some(bounded(&refusal))
}

fn first_refusal(args: &CreateTaskArgs, now: &Situation<'_>) -> Option<String> {
    let app_id = &args.app_id;
    let provider_id = &args.provider_id;
    if !now.settings.create_tasks {
        return Some(GRANT_OFF.to_owned());
    }
    let Some(app) = now.app else {
        return Some(format!("App '{app_id}' has no configured repository"));
    };
    if !now.settings.allows_app(app_id) {
        return Some(format!(
            "Managed app '{app_id}' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions"
        ));
    }
    let Some(provider) = now
        .providers
        .find(provider_id)
        .filter(|provider| provider.takes_tasks())
    else {
        return Some(format!(
            "Provider '{provider_id}' is not an enabled CLI/TUI coding provider"
        ));
    };
    let model = &args.model;
    if !model.is_empty() && !provider.has_model(model) {
        return Some(format!(
            "Model '{model}' is not configured for provider '{provider_id}'"
        ));
    }
    if now.settings.task_model_allowlist_invalid {
        return Some(
            "The Persistent Mind task model allowlist could not be read, so no model is allowed; save it again in Persistent Mind Tools permissions"
                .to_owned(),
        );
    }
    if !now.settings.allows_model(provider_id, model) {
        return Some(if model.is_empty() {
            format!(
                "The default model of provider '{provider_id}' is not in the Persistent Mind task model allowlist"
            )
        } else {
            format!(
                "Model '{model}' of provider '{provider_id}' is not in the Persistent Mind task model allowlist"
            )
        });
    }
    if let Some(effort) = args.effort.level()
        && !provider.supports(effort)
    {
        return Some(format!(
            "Effort '{}' is not supported by provider '{provider_id}'",
            effort.as_str()
        ));
    }
    // A plan is filed as an issue: the app's tracker must be a forge its
    // remote is on.
    if args.plan_only && app.repository.is_none() {
        return Some(format!(
            "App '{app_id}' has no GitHub or GitLab issue tracker for a plan-only task; check its work tracker and git remote"
        ));
    }
    if let Some(check) = args
        .required_validation
        .iter()
        .find(|check| check.needs_forge())
        && app.repository.is_none()
    {
        return Some(format!(
            "Required validation '{}' needs a GitHub or GitLab repository, and app '{app_id}' has none; check its work tracker and git remote",
            check.as_str()
        ));
    }
    None
}

/// At most [`ERROR_MAX_CHARS`] characters (an id can be long).
pub fn bounded(message: &str) -> String {
    if message.chars().count() <= ERROR_MAX_CHARS {
        return message.to_owned();
    }
    let mut cut: String = message.chars().take(ERROR_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::domains::apps::App;
    use crate::domains::forge::remote::{Forge, Repository, Tracker};

    fn args(patch: Value) -> CreateTaskArgs {
        let mut input = json!({
            "description": "Fix it", "prompt": "Fix the bug", "appId": "portos",
            "providerId": "codex", "model": "", "prCompletion": "leave-open",
        });
        if let Value::Object(patch) = patch {
            for (key, value) in patch {
                input[key] = value;
            }
        }
        serde_json::from_value(input).expect("valid args")
    }

    fn app(on_forge: bool) -> ResolvedApp {
        ResolvedApp {
            app: App {
                id: "portos".to_owned(),
                name: "PortOS".to_owned(),
                repo_path: "/srv/portos".to_owned(),
                tracker: Tracker::Auto,
                archived: false,
                created_at: String::new(),
                updated_at: String::new(),
            },
            remote: None,
            tracker: if on_forge {
                Tracker::Github
            } else {
                Tracker::Plan
            },
            repository: on_forge.then(|| Repository {
                forge: Forge::Github,
                host: "github.com".to_owned(),
                full_name: "acme/portos".to_owned(),
            }),
        }
    }

    fn providers() -> Providers {
        serde_json::from_value(json!({ "providers": [
            { "id": "codex", "name": "Codex", "kind": "cli", "enabled": true,
              "models": ["gpt-5"], "efforts": ["low", "high"] },
            { "id": "chat", "name": "Chat", "kind": "api", "enabled": true },
            { "id": "off", "name": "Off", "kind": "tui", "enabled": false }
        ] }))
        .expect("providers")
    }

    fn settings(stored: &Value) -> MindSettings {
        MindSettings::from_stored(Some(stored))
    }

    fn check(
        args: &CreateTaskArgs,
        settings: &MindSettings,
        app: Option<&ResolvedApp>,
    ) -> Option<String> {
        let providers = providers();
        refusal(
            args,
            &Situation {
                settings,
                app,
                providers: &providers,
            },
        )
    }

    #[test]
    fn every_rule_in_order() {
        let granted = settings(&json!({ "createTasks": true }));
        let github = app(true);
        let plain = app(false);
        let ok = args(json!({}));
        assert_eq!(check(&ok, &granted, Some(&github)), None);
        assert_eq!(
            check(&ok, &settings(&json!({})), None).as_deref(),
            Some(GRANT_OFF),
            "the grant comes first"
        );
        assert_eq!(
            check(&ok, &granted, None).as_deref(),
            Some("App 'portos' has no configured repository")
        );
        let elsewhere = settings(&json!({ "createTasks": true, "allowedAppIds": ["other"] }));
        assert_eq!(
            check(&ok, &elsewhere, Some(&github)).as_deref(),
            Some(
                "Managed app 'portos' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions"
            )
        );
        for provider in ["nope", "chat", "off"] {
            assert_eq!(
                check(
                    &args(json!({ "providerId": provider })),
                    &granted,
                    Some(&github)
                ),
                Some(format!(
                    "Provider '{provider}' is not an enabled CLI/TUI coding provider"
                ))
            );
        }
        assert_eq!(
            check(&args(json!({ "model": "o3" })), &granted, Some(&github)).as_deref(),
            Some("Model 'o3' is not configured for provider 'codex'")
        );
        let allowlisted = settings(&json!({ "createTasks": true,
            "taskModelAllowlist": [{ "providerId": "codex", "model": "gpt-5" }] }));
        assert_eq!(
            check(
                &args(json!({ "model": "gpt-5" })),
                &allowlisted,
                Some(&github)
            ),
            None
        );
        assert_eq!(
            check(&ok, &allowlisted, Some(&github)).as_deref(),
            Some(
                "The default model of provider 'codex' is not in the Persistent Mind task model allowlist"
            )
        );
        let malformed = settings(&json!({ "createTasks": true, "taskModelAllowlist": "gpt-5" }));
        assert!(
            check(
                &args(json!({ "model": "gpt-5" })),
                &malformed,
                Some(&github)
            )
            .is_some_and(|refusal| refusal.contains("could not be read")),
            "a malformed allowlist fails closed"
        );
        assert_eq!(
            check(&args(json!({ "effort": "ultra" })), &granted, Some(&github)).as_deref(),
            Some("Effort 'ultra' is not supported by provider 'codex'")
        );
        assert_eq!(
            check(&args(json!({ "effort": "high" })), &granted, Some(&github)),
            None
        );
        let plan = args(json!({ "planOnly": true }));
        assert_eq!(check(&plan, &granted, Some(&github)), None);
        assert!(check(&plan, &granted, Some(&plain)).is_some_and(|refusal| {
            refusal.starts_with("App 'portos' has no GitHub or GitLab issue tracker")
        }));
        let reviewed = args(json!({ "requiredValidation": ["engines", "reviewers"] }));
        assert!(
            check(&reviewed, &granted, Some(&plain))
                .is_some_and(|refusal| refusal.starts_with("Required validation 'reviewers'"))
        );
        assert_eq!(
            check(
                &args(json!({ "requiredValidation": ["engines"] })),
                &granted,
                Some(&plain)
            ),
            None
        );
    }

    #[test]
    fn refusals_are_bounded() {
        let long = "x".repeat(128);
        let granted = settings(&json!({ "createTasks": true }));
        let refusal = check(&args(json!({ "appId": long })), &granted, None).expect("refused");
        assert!(refusal.chars().count() <= ERROR_MAX_CHARS);
        let text = "y".repeat(400);
        assert_eq!(bounded(&text).chars().count(), ERROR_MAX_CHARS);
    }
}

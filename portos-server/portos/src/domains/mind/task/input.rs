//! The input of `cos.create-task` (docs/reference.md#task-creation): the strict
//! wire form the schema is made from, and the normalized arguments the adapter
//! gets. Normalizing trims every text, fills the defaults and orders the
//! readiness checks, so two requests that mean the same are one
//! fingerprint (and one task id).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domains::cos::Priority;
use crate::domains::cos::{EffortChoice, PrCompletion, ReadinessCheck};

pub const DESCRIPTION_MAX_CHARS: usize = 500;
pub const PROMPT_MAX_CHARS: usize = 12_000;
pub const APP_ID_MAX_CHARS: usize = 128;
pub const PROVIDER_ID_MAX_CHARS: usize = 100;
pub const MODEL_MAX_CHARS: usize = 200;
pub const MAX_REQUIRED_VALIDATION: usize = 5;

/// The refusal of an implementation task without a landing policy.
pub const PR_COMPLETION_REQUIRED: &str = "Implementation tasks require a PR completion policy";

// What the model sends: the schema's source. (No doc comment: it would
// become the schema's description.)
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateTaskInput {
    /// What the task is, in one line (1..500 characters, trimmed).
    #[schemars(length(min = 1, max = 500), regex(pattern = r"\S"))]
    pub description: String,
    /// The coding agent's instructions (1..12000 characters, trimmed).
    #[schemars(length(min = 1, max = 12000), regex(pattern = r"\S"))]
    pub prompt: String,
    /// LOW, MEDIUM (default), HIGH or CRITICAL.
    #[serde(default)]
    pub priority: Priority,
    /// The managed app to work on (1..128 characters).
    #[schemars(length(min = 1, max = 128), regex(pattern = r"\S"))]
    pub app_id: String,
    /// An enabled CLI or TUI coding provider (1..100 characters).
    #[schemars(length(min = 1, max = 100), regex(pattern = r"\S"))]
    pub provider_id: String,
    /// One of the provider's models, or "" for its default (at most 200 characters). Required.
    #[schemars(length(max = 200))]
    pub model: String,
    /// "" (the provider's default) or an effort level the provider supports.
    #[serde(default)]
    pub effort: EffortChoice,
    /// Plan and file an issue instead of changing code (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_only: Option<bool>,
    /// How the pull request lands; required unless planOnly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr_completion: Option<PrCompletion>,
    /// Readiness checks that must pass before the work lands (at most 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 5))]
    pub required_validation: Option<Vec<ReadinessCheck>>,
}

// The arguments, normalized: what the adapter gets and the fingerprint (and
// so the task id) covers. Its schema is the wire form's.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(try_from = "CreateTaskInput", into = "CreateTaskInput")]
pub struct CreateTaskArgs {
    pub description: String,
    pub prompt: String,
    pub priority: Priority,
    pub app_id: String,
    pub provider_id: String,
    /// `""`: the provider's default.
    pub model: String,
    pub effort: EffortChoice,
    pub plan_only: bool,
    pub pr_completion: Option<PrCompletion>,
    /// Without repeats, in a fixed order.
    pub required_validation: Vec<ReadinessCheck>,
}

impl TryFrom<CreateTaskInput> for CreateTaskArgs {
    type Error = String;

    fn try_from(input: CreateTaskInput) -> Result<CreateTaskArgs, String> {
        let plan_only = input.plan_only.unwrap_or(false);
        if !plan_only && input.pr_completion.is_none() {
            return Err(format!("prCompletion: {PR_COMPLETION_REQUIRED}"));
        }
        let mut checks = input.required_validation.unwrap_or_default();
        if checks.len() > MAX_REQUIRED_VALIDATION {
            return Err(format!(
                "requiredValidation: at most {MAX_REQUIRED_VALIDATION} checks"
            ));
        }
        checks.sort_unstable();
        checks.dedup();
        Ok(CreateTaskArgs {
            description: text("description", &input.description, 1, DESCRIPTION_MAX_CHARS)?,
            prompt: text("prompt", &input.prompt, 1, PROMPT_MAX_CHARS)?,
            priority: input.priority,
            app_id: text("appId", &input.app_id, 1, APP_ID_MAX_CHARS)?,
            provider_id: text("providerId", &input.provider_id, 1, PROVIDER_ID_MAX_CHARS)?,
            model: text("model", &input.model, 0, MODEL_MAX_CHARS)?,
            effort: input.effort,
            plan_only,
            pr_completion: input.pr_completion,
            required_validation: checks,
        })
    }
}

impl From<CreateTaskArgs> for CreateTaskInput {
    fn from(args: CreateTaskArgs) -> CreateTaskInput {
        CreateTaskInput {
            description: args.description,
            prompt: args.prompt,
            priority: args.priority,
            app_id: args.app_id,
            provider_id: args.provider_id,
            model: args.model,
            effort: args.effort,
            plan_only: Some(args.plan_only),
            pr_completion: args.pr_completion,
            required_validation: Some(args.required_validation),
        }
    }
}

/// The trimmed text, within `min..=max` characters after trimming (the
/// schema checked the untrimmed length already; this is what is stored).
fn text(field: &str, raw: &str, min: usize, max: usize) -> Result<String, String> {
    let trimmed = raw.trim();
    let count = trimmed.chars().count();
    if count < min || count > max {
        return Err(if min == 0 {
            format!("{field}: at most {max} characters after trimming (got {count})")
        } else {
            format!("{field}: {min} to {max} characters after trimming (got {count})")
        });
    }
    Ok(trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn parse(value: Value) -> Result<CreateTaskArgs, String> {
        serde_json::from_value(value).map_err(|error| error.to_string())
    }

    fn minimal() -> Value {
        json!({
            "description": "  Fix the login bug ",
            "prompt": " Reproduce, fix, test. ",
            "appId": " portos ",
            "providerId": " codex ",
            "model": "",
            "prCompletion": "review-then-merge",
        })
    }

    #[test]
    fn normalized_with_defaults() {
        let args = parse(minimal()).expect("valid");
        assert_eq!(args.description, "Fix the login bug");
        assert_eq!(args.app_id, "portos");
        assert_eq!(args.provider_id, "codex");
        assert_eq!(args.priority, Priority::Medium);
        assert_eq!(args.effort, EffortChoice::ProviderDefault);
        assert!(!args.plan_only && args.required_validation.is_empty());
        let normalized = serde_json::to_value(&args).expect("json");
        assert_eq!(
            normalized,
            json!({
                "description": "Fix the login bug",
                "prompt": "Reproduce, fix, test.",
                "priority": "MEDIUM",
                "appId": "portos",
                "providerId": "codex",
                "model": "",
                "effort": "",
                "planOnly": false,
                "prCompletion": "review-then-merge",
                "requiredValidation": [],
            })
        );
        // What normalizing gives reads back as itself.
        assert_eq!(parse(normalized).expect("valid"), args);
    }

    #[test]
    fn the_same_request_normalizes_the_same() {
        let mut spelled_out = minimal();
        spelled_out["description"] = json!("Fix the login bug");
        spelled_out["planOnly"] = json!(false);
        spelled_out["priority"] = json!("MEDIUM");
        spelled_out["effort"] = json!("");
        assert_eq!(parse(spelled_out), parse(minimal()));
        let mut checks = minimal();
        checks["requiredValidation"] = json!(["forge", "engines", "forge"]);
        assert_eq!(
            parse(checks).expect("valid").required_validation,
            [ReadinessCheck::Engines, ReadinessCheck::Forge]
        );
    }

    #[test]
    fn a_landing_policy_is_required_unless_plan_only() {
        let mut input = minimal();
        input.as_object_mut().map(|o| o.remove("prCompletion"));
        let error = parse(input.clone()).expect_err("no policy");
        assert!(
            error.contains("prCompletion: Implementation tasks require a PR completion policy"),
            "{error}"
        );
        input["planOnly"] = json!(true);
        let args = parse(input).expect("a plan needs no policy");
        assert!(args.plan_only && args.pr_completion.is_none());
    }

    #[test]
    fn the_model_key_is_required() {
        let mut input = minimal();
        input.as_object_mut().map(|o| o.remove("model"));
        assert!(parse(input).is_err());
    }
}

//! What a coding agent is told to do for a task the Persistent Mind queued
//! (`cos.create-task`, docs/reference.md#task-creation): the prompt, the
//! provider, model and effort, whether it only plans, how its pull request
//! lands and which readiness checks must pass first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::providers::Effort;

/// How the pull request of an implementation task lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
// Variants without doc comments: the schema stays a plain `enum`.
pub enum PrCompletion {
    // A person reviews, then it is merged.
    ReviewThenMerge,
    // Merged as soon as its checks pass.
    MergeOnGreen,
    // Opened and left for a person.
    LeaveOpen,
}

impl PrCompletion {
    pub fn as_str(self) -> &'static str {
        match self {
            PrCompletion::ReviewThenMerge => "review-then-merge",
            PrCompletion::MergeOnGreen => "merge-on-green",
            PrCompletion::LeaveOpen => "leave-open",
        }
    }
}

/// A readiness check the agent must pass before its work lands.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReadinessCheck {
    Dependencies,
    Engines,
    Submodules,
    // The forge's own checks (CI) on the pull request.
    Forge,
    // Reviewers requested on the forge.
    Reviewers,
}

impl ReadinessCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadinessCheck::Dependencies => "dependencies",
            ReadinessCheck::Engines => "engines",
            ReadinessCheck::Submodules => "submodules",
            ReadinessCheck::Forge => "forge",
            ReadinessCheck::Reviewers => "reviewers",
        }
    }

    /// Checks that happen on a forge (GitHub or GitLab), so the app needs one.
    pub fn needs_forge(self) -> bool {
        matches!(self, ReadinessCheck::Forge | ReadinessCheck::Reviewers)
    }
}

/// An effort level, or `""`: the provider's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EffortChoice {
    #[default]
    #[serde(rename = "")]
    ProviderDefault,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
    Max,
    Ultra,
}

impl EffortChoice {
    /// The level asked for; `None`: the provider's default.
    pub fn level(self) -> Option<Effort> {
        match self {
            EffortChoice::ProviderDefault => None,
            EffortChoice::Minimal => Some(Effort::Minimal),
            EffortChoice::Low => Some(Effort::Low),
            EffortChoice::Medium => Some(Effort::Medium),
            EffortChoice::High => Some(Effort::High),
            EffortChoice::Xhigh => Some(Effort::Xhigh),
            EffortChoice::Max => Some(Effort::Max),
            EffortChoice::Ultra => Some(Effort::Ultra),
        }
    }

    pub fn as_str(self) -> &'static str {
        self.level().map_or("", Effort::as_str)
    }

    pub fn parse(text: &str) -> Option<EffortChoice> {
        serde_json::from_value(serde_json::Value::String(text.to_owned())).ok()
    }
}

/// The coding agent's instructions for a queued task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskDispatch {
    pub prompt: String,
    pub provider_id: String,
    /// `""`: the provider's default model.
    pub model: String,
    pub effort: EffortChoice,
    /// Plan and file an issue instead of changing code.
    pub plan_only: bool,
    /// How the pull request lands (none for a plan-only task).
    pub pr_completion: Option<PrCompletion>,
    pub required_validation: Vec<ReadinessCheck>,
    /// The Persistent Mind turn that queued it.
    pub wake_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_names() {
        assert_eq!(json!(EffortChoice::ProviderDefault), json!(""));
        assert_eq!(json!(EffortChoice::Xhigh), json!("xhigh"));
        assert_eq!(EffortChoice::parse(""), Some(EffortChoice::ProviderDefault));
        assert_eq!(
            EffortChoice::parse("ultra").map(EffortChoice::as_str),
            Some("ultra")
        );
        assert_eq!(EffortChoice::parse("enormous"), None);
        assert_eq!(json!(PrCompletion::MergeOnGreen), json!("merge-on-green"));
        assert_eq!(json!(ReadinessCheck::Submodules), json!("submodules"));
        assert!(ReadinessCheck::Reviewers.needs_forge() && !ReadinessCheck::Engines.needs_forge());
    }
}

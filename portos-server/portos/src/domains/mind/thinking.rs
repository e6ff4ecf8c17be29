//! Thinking presets: named routes (a model and an effort for the Mind's
//! provider) the owner approves, one of which the Mind may request for its
//! next self-directed wake — at most three times in a rolling day and at
//! least thirty minutes apart. The presets are the owner's configuration;
//! the limits are computed from the stored requests and the clock, so they
//! hold across restarts.

use jiff::{SignedDuration, Timestamp};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The settings key of the owner's presets.
pub const SETTINGS_KEY: &str = "persistentMindThinkingPresets";
pub const MAX_PRESETS: usize = 20;
pub const ID_MAX_CHARS: usize = 64;
pub const LABEL_MAX_CHARS: usize = 80;
pub const MODEL_MAX_CHARS: usize = 200;
/// A request's reason, trimmed, is at most this long.
pub const REASON_MAX_CHARS: usize = 200;
/// A preset id: a letter or digit, then letters, digits, `_` and `-`.
pub const ID_PATTERN: &str = r"^[A-Za-z0-9][A-Za-z0-9_-]*$";
/// [`ID_PATTERN`] as the tool's schema states it: around it the whitespace
/// that trimming removes.
pub const ID_ARGUMENT_PATTERN: &str = r"^\s*[A-Za-z0-9][A-Za-z0-9_-]*\s*$";

/// At most this many requests in any rolling [`ROLLING_WINDOW`].
pub const MAX_PER_ROLLING_DAY: usize = 3;
pub const ROLLING_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;
pub const ROLLING_WINDOW: SignedDuration = SignedDuration::from_millis(ROLLING_WINDOW_MS);
/// Two requests are at least this far apart.
pub const MIN_GAP_MS: i64 = 30 * 60 * 1000;
pub const MIN_GAP: SignedDuration = SignedDuration::from_millis(MIN_GAP_MS);

/// How hard the model thinks; `""` is the provider's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingEffort {
    #[default]
    #[serde(rename = "")]
    Default,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
    Max,
    Ultra,
}

impl ThinkingEffort {
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingEffort::Default => "",
            ThinkingEffort::Minimal => "minimal",
            ThinkingEffort::Low => "low",
            ThinkingEffort::Medium => "medium",
            ThinkingEffort::High => "high",
            ThinkingEffort::Xhigh => "xhigh",
            ThinkingEffort::Max => "max",
            ThinkingEffort::Ultra => "ultra",
        }
    }

    /// The effort stored as `text`, if it is one.
    pub fn from_stored(text: &str) -> Option<ThinkingEffort> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }
}

/// One approved route for a self-directed wake.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ThinkingPreset {
    /// What the Mind names: 1–64 of letters, digits, `_` and `-`, starting
    /// with a letter or digit.
    #[schemars(regex(pattern = r"^\s*[A-Za-z0-9][A-Za-z0-9_-]{0,63}\s*$"))]
    pub id: String,
    /// Shown to the Mind and to people (at most 80 characters; default: the id).
    #[serde(default)]
    #[schemars(length(max = 80))]
    pub label: String,
    /// The model of the Mind's provider (at most 200 characters; `""`: the
    /// Mind's configured model).
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub model: String,
    /// `""` (the provider's default), `minimal`, `low`, `medium`, `high`,
    /// `xhigh`, `max` or `ultra`.
    #[serde(default)]
    pub effort: ThinkingEffort,
}

/// The owner's presets, as stored and as sent with `PUT`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PresetList {
    /// At most 20, ids unique; replaces the whole list.
    #[schemars(length(max = 20))]
    pub presets: Vec<ThinkingPreset>,
}

impl PresetList {
    /// What an install offers until its owner says otherwise: the Mind's
    /// own model at three efforts.
    pub fn defaults() -> PresetList {
        let preset = |id: &str, label: &str, effort| ThinkingPreset {
            id: id.to_owned(),
            label: label.to_owned(),
            model: String::new(),
            effort,
        };
        PresetList {
            presets: vec![
                preset("quick", "Quick", ThinkingEffort::Low),
                preset("balanced", "Balanced", ThinkingEffort::Medium),
                preset("deep", "Deep", ThinkingEffort::High),
            ],
        }
    }

    /// The presets a stored value stands for: the defaults when nothing is
    /// stored; none when what is stored no longer reads (an unreadable
    /// approval approves nothing).
    pub fn from_stored(value: Option<&Value>) -> PresetList {
        match value {
            None => PresetList::defaults(),
            Some(value) => serde_json::from_value::<PresetList>(value.clone())
                .ok()
                .and_then(|list| list.checked().ok())
                .unwrap_or(PresetList {
                    presets: Vec::new(),
                }),
        }
    }

    /// The trimmed list with labels filled in, or what to fix.
    pub fn checked(self) -> Result<PresetList, String> {
        if self.presets.len() > MAX_PRESETS {
            return Err(format!(
                "presets may hold at most {MAX_PRESETS} entries (got {})",
                self.presets.len()
            ));
        }
        let id_rule = regex::Regex::new(ID_PATTERN).map_err(|error| error.to_string())?;
        let mut presets: Vec<ThinkingPreset> = Vec::with_capacity(self.presets.len());
        for (index, preset) in self.presets.into_iter().enumerate() {
            let id = preset.id.trim();
            if id.chars().count() > ID_MAX_CHARS || !id_rule.is_match(id) {
                return Err(format!(
                    "presets[{index}].id must be 1 to {ID_MAX_CHARS} letters, digits, `_` or `-`, starting with a letter or digit"
                ));
            }
            if presets.iter().any(|known| known.id == id) {
                return Err(format!("presets[{index}].id \"{id}\" is used twice"));
            }
            let label = match preset.label.trim() {
                "" => id,
                label => label,
            };
            if label.chars().count() > LABEL_MAX_CHARS {
                return Err(format!(
                    "presets[{index}].label must be at most {LABEL_MAX_CHARS} characters"
                ));
            }
            let model = preset.model.trim();
            if model.chars().count() > MODEL_MAX_CHARS {
                return Err(format!(
                    "presets[{index}].model must be at most {MODEL_MAX_CHARS} characters"
                ));
            }
            presets.push(ThinkingPreset {
                id: id.to_owned(),
                label: label.to_owned(),
                model: model.to_owned(),
                effort: preset.effort,
            });
        }
        Ok(PresetList { presets })
    }

    pub fn find(&self, id: &str) -> Option<&ThinkingPreset> {
        self.presets.iter().find(|preset| preset.id == id)
    }
}

/// Where a request stands: waiting for the next self-directed wake, taken
/// by one, or dropped because its preset changed before it was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RequestState {
    Pending,
    Used,
    Cancelled,
}

impl RequestState {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestState::Pending => "pending",
            RequestState::Used => "used",
            RequestState::Cancelled => "cancelled",
        }
    }

    pub fn from_stored(text: &str) -> RequestState {
        match text {
            "pending" => RequestState::Pending,
            "used" => RequestState::Used,
            _ => RequestState::Cancelled,
        }
    }
}

/// One request of the Mind, with the route it asked for as it was then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingRequest {
    pub request_id: String,
    pub preset_id: String,
    pub label: String,
    pub model: String,
    pub effort: ThinkingEffort,
    pub reason: String,
    /// RFC 3339.
    pub requested_at: String,
    pub state: RequestState,
}

/// The switching limits, as the Mind reads them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub max_per_rolling_day: usize,
    pub rolling_window_ms: i64,
    pub min_gap_ms: i64,
    /// Requests made in the rolling window ending now.
    pub used_in_window: usize,
    pub remaining: usize,
    /// When the next request is allowed (RFC 3339); `null`: now.
    pub next_allowed_at: Option<String>,
}

/// Where the rolling window ending at `now` starts.
pub fn window_start(now: Timestamp) -> Timestamp {
    now.checked_sub(ROLLING_WINDOW).unwrap_or(Timestamp::MIN)
}

// Saturating: a stored time at the end of the range blocks, never panics.
fn later(at: Timestamp, by: SignedDuration) -> Timestamp {
    at.checked_add(by).unwrap_or(Timestamp::MAX)
}

/// The limits at `now`, given when earlier requests were made (every
/// request counts, whatever became of it: a cancelled one is not refunded).
pub fn limits(made: &[Timestamp], now: Timestamp) -> Limits {
    let start = window_start(now);
    let mut in_window: Vec<Timestamp> = made.iter().copied().filter(|at| *at > start).collect();
    in_window.sort();
    let mut next: Option<Timestamp> = None;
    if in_window.len() >= MAX_PER_ROLLING_DAY {
        // The window drops below the maximum when the request that made it
        // full (the (n-3)th oldest) is a day old.
        let filling = in_window[in_window.len() - MAX_PER_ROLLING_DAY];
        next = Some(later(filling, ROLLING_WINDOW));
    }
    if let Some(latest) = in_window.last() {
        let gap_over = later(*latest, MIN_GAP);
        if gap_over > now {
            next = Some(next.map_or(gap_over, |other| other.max(gap_over)));
        }
    }
    Limits {
        max_per_rolling_day: MAX_PER_ROLLING_DAY,
        rolling_window_ms: ROLLING_WINDOW_MS,
        min_gap_ms: MIN_GAP_MS,
        used_in_window: in_window.len(),
        remaining: MAX_PER_ROLLING_DAY.saturating_sub(in_window.len()),
        next_allowed_at: next.map(|at| at.to_string()),
    }
}

/// Why a request is refused at `now`, if it is.
pub fn refusal(made: &[Timestamp], now: Timestamp) -> Option<String> {
    let limits = limits(made, now);
    let next = limits.next_allowed_at.clone().unwrap_or_default();
    if limits.used_in_window >= MAX_PER_ROLLING_DAY {
        return Some(format!(
            "Three thinking preset requests were already made in the rolling 24 hours; the next is allowed at {next}"
        ));
    }
    limits.next_allowed_at.map(|_| {
        format!("Thinking preset requests must be at least 30 minutes apart; the next is allowed at {next}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("timestamp")
    }

    #[test]
    fn three_a_rolling_day_thirty_minutes_apart() {
        let now = at("2026-03-01T12:00:00Z");
        assert_eq!(refusal(&[], now), None);
        let limits = limits(&[], now);
        assert_eq!((limits.used_in_window, limits.remaining), (0, 3));
        assert_eq!(limits.next_allowed_at, None);

        // 29 minutes ago: too soon; 30 minutes ago: fine.
        let recent = [at("2026-03-01T11:31:00Z")];
        let refused = refusal(&recent, now).expect("too soon");
        assert!(refused.contains("30 minutes apart"), "{refused}");
        assert!(refused.contains("2026-03-01T12:01:00Z"), "{refused}");
        assert_eq!(refusal(&[at("2026-03-01T11:30:00Z")], now), None);

        // Three in the last day: refused until the oldest is a day old.
        let three = [
            at("2026-02-28T13:00:00Z"),
            at("2026-03-01T08:00:00Z"),
            at("2026-03-01T10:00:00Z"),
        ];
        let refused = refusal(&three, now).expect("over the limit");
        assert!(
            refused.starts_with("Three thinking preset requests"),
            "{refused}"
        );
        assert_eq!(
            super::limits(&three, now).next_allowed_at.as_deref(),
            Some("2026-03-01T13:00:00Z")
        );
        // One of them just outside the window: two used, one left.
        let two = [
            at("2026-02-28T12:00:00Z"),
            at("2026-03-01T08:00:00Z"),
            at("2026-03-01T10:00:00Z"),
        ];
        assert_eq!(refusal(&two, now), None);
        assert_eq!(super::limits(&two, now).remaining, 1);
    }

    #[test]
    fn presets_are_checked_and_fail_closed() {
        assert_eq!(PresetList::from_stored(None), PresetList::defaults());
        assert!(
            PresetList::from_stored(Some(&json!("junk")))
                .presets
                .is_empty()
        );
        let list = |value: Value| {
            serde_json::from_value::<PresetList>(value)
                .map_err(|error| error.to_string())
                .and_then(PresetList::checked)
        };
        let ok = list(
            json!({ "presets": [{ "id": " local-8b ", "model": "qwen3:8b", "effort": "high" }] }),
        )
        .expect("valid");
        assert_eq!(ok.presets[0].id, "local-8b");
        assert_eq!(ok.presets[0].label, "local-8b");
        assert!(list(json!({ "presets": [{ "id": "-x" }] })).is_err());
        assert!(list(json!({ "presets": [{ "id": "a" }, { "id": "a" }] })).is_err());
        assert!(list(json!({ "presets": [{ "id": "a", "effort": "huge" }] })).is_err());
        assert!(list(json!({ "presets": [{ "id": "a", "endpoint": "http://x" }] })).is_err());
        let many: Vec<Value> = (0..21).map(|i| json!({ "id": format!("p{i}") })).collect();
        assert!(list(json!({ "presets": many })).is_err());
        assert_eq!(
            ThinkingEffort::from_stored(""),
            Some(ThinkingEffort::Default)
        );
        assert_eq!(
            ThinkingEffort::from_stored("xhigh"),
            Some(ThinkingEffort::Xhigh)
        );
        assert_eq!(ThinkingEffort::from_stored("huge"), None);
    }
}

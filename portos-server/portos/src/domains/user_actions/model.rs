//! The filters of a user-actions query (docs/reference.md#user-actions) and the
//! rule that checks them: time bounds in the user's zone, in order; types
//! without repeats; at most 100 events.

use crate::ledger::{self, ActionFilter, ActionType, Actor, DateBound};
use portos_server::clock::UserClock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::limits::clamp_limit;

const TOOL_NAME: &str = "user-actions.query";

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// Earliest time: an RFC 3339 timestamp, a local `YYYY-MM-DDTHH:MM`, or a
    /// date `YYYY-MM-DD` (the user's time zone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1), pattern(r"\S"))]
    pub from: Option<String>,
    /// Latest time, in the same forms; a date includes its whole day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1), pattern(r"\S"))]
    pub to: Option<String>,
    /// Only actions of this type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<ActionType>,
    /// Only actions of any of these types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 13))]
    pub types: Option<Vec<ActionType>>,
    /// Only actions by this actor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Actor>,
    /// How many events (default 100, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// The checked filter of a query, or the message that says which bound to
/// fix. `user-actions.query` and `GET /api/user-actions` both use it.
pub fn filter_of(args: &QueryArgs, clock: &UserClock) -> Result<ActionFilter, String> {
    let bound = |text: &Option<String>, name: &str, which: DateBound| match text {
        None => Ok(None),
        Some(text) => ledger::parse_bound(text, clock.zone(), which)
            .map(Some)
            .ok_or_else(|| {
                format!("Invalid '{name}' for '{TOOL_NAME}': must be a parseable date/timestamp")
            }),
    };
    let from_ms = bound(&args.from, "from", DateBound::From)?;
    let to_ms = bound(&args.to, "to", DateBound::To)?;
    if let (Some(from), Some(to)) = (from_ms, to_ms)
        && from > to
    {
        return Err(format!(
            "Invalid range for '{TOOL_NAME}': 'from' is later than 'to'"
        ));
    }
    let mut types: Vec<ActionType> = args.kind.into_iter().collect();
    for kind in args.types.iter().flatten() {
        if !types.contains(kind) {
            types.push(*kind);
        }
    }
    Ok(ActionFilter {
        from_ms,
        to_ms,
        types,
        actor: args.actor,
        limit: clamp_limit(args.limit, ledger::MAX_RESULTS, ledger::MAX_RESULTS),
    })
}

//! `GET /api/user-actions`: the user-actions ledger for people, with the
//! filters of `user-actions.query` (docs/reference.md#user-actions).

use crate::ledger::{ActionPage, ActionType, Actor};
use axum::Json;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{InputError, Invalid, Query};
use portos_server::portos_route;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{QueryArgs, filter_of};
use super::ops;

/// The shape of a local time without offset, `YYYY-MM-DDTHH:MM`.
const LOCAL_TIME: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$";

/// The filters; every one is optional.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserActionsQuery {
    /// Earliest time: RFC 3339, local `YYYY-MM-DDTHH:MM`, or `YYYY-MM-DD`
    /// (the user's time zone).
    #[schemars(extend("anyOf" = [{ "format": "date-time" }, { "format": "date" }, { "pattern": LOCAL_TIME }]))]
    pub from: Option<String>,
    /// Latest time, in the same forms; a date includes its whole day.
    #[schemars(extend("anyOf" = [{ "format": "date-time" }, { "format": "date" }, { "pattern": LOCAL_TIME }]))]
    pub to: Option<String>,
    /// One action type, e.g. `brain.capture`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Several action types, comma-separated.
    pub types: Option<String>,
    /// `user`, `mind`, `schedule` or `system`.
    #[schemars(extend("enum" = ["user", "mind", "schedule", "system"]))]
    pub actor: Option<String>,
    /// 1 or more; at most 100 are returned (default 100).
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// The recorded user actions, newest first; `truncated` says more matched.
#[portos_route(method = "GET", path = "/api/user-actions", summary = "User actions")]
async fn list(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Query(query): Query<UserActionsQuery>,
) -> Result<Json<ActionPage>, InputError> {
    let args = QueryArgs {
        from: query.from,
        to: query.to,
        kind: query.kind.as_deref().map(action_type).transpose()?,
        types: query
            .types
            .as_deref()
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(action_type)
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?,
        actor: query
            .actor
            .as_deref()
            .map(|name| {
                Actor::parse(name).ok_or_else(|| {
                    Invalid(format!(
                        "Unknown actor '{name}': use user, mind, schedule or system"
                    ))
                })
            })
            .transpose()?,
        limit: match query.limit {
            Some(limit) if limit < 1 => return Err(Invalid::new("limit must be 1 or more").into()),
            other => other,
        },
    };
    let filter = filter_of(&args, &clock).map_err(Invalid)?;
    let page = ops::query(&store, &clock, filter).await?;
    Ok(Json(page))
}

fn action_type(name: &str) -> Result<ActionType, Invalid> {
    ActionType::parse(name).ok_or_else(|| {
        let known: Vec<&str> = ActionType::ALL.iter().map(|kind| kind.as_str()).collect();
        Invalid(format!(
            "Unknown action type '{name}': use one of {}",
            known.join(", ")
        ))
    })
}

//! Reading the ledger back, newest first, with the filters of
//! `user-actions.query` and the `GET /api/user-actions` route.

use jiff::tz::TimeZone;
use portos_server::store::sql::Connection;
use portos_server::store::sql::Value as SqlValue;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{ActionType, Actor, Source};
use portos_server::redact;
use portos_server::store::StoreError;

/// `USER_ACTIONS_QUERY_MAX_RESULTS`: the most events one query returns.
pub const MAX_RESULTS: usize = 100;

/// Which actions to read. Bounds are Unix milliseconds, both inclusive.
#[derive(Clone, Debug, Default)]
pub struct ActionFilter {
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    /// Any of these types; empty means every type.
    pub types: Vec<ActionType>,
    pub actor: Option<Actor>,
    /// At most this many events (already clamped by the caller).
    pub limit: usize,
}

/// One recorded action as the query shows it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionEvent {
    /// When it happened, RFC 3339 in the user's zone (milliseconds).
    pub happened_at: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub actor: String,
    pub summary: String,
    pub target: Option<String>,
    pub target_name: Option<String>,
    pub payload: Value,
    pub source: Source,
}

/// A page of events, and whether more matched than the limit.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ActionPage {
    pub events: Vec<ActionEvent>,
    pub truncated: bool,
}

/// The newest actions matching `filter`. The ledger is read with
/// `limit + 1` rows: the extra row, never shown, says whether the page was
/// truncated. Values are masked again on the way out, so a row written by
/// code that forgot to mask still shows no secret.
pub fn query(
    connection: &Connection,
    filter: &ActionFilter,
    zone: &TimeZone,
) -> Result<ActionPage, StoreError> {
    let mut conditions = Vec::new();
    let mut values: Vec<SqlValue> = Vec::new();
    if let Some(from) = filter.from_ms {
        values.push(SqlValue::Integer(from));
        conditions.push(format!("happened_at_ms >= ?{}", values.len()));
    }
    if let Some(to) = filter.to_ms {
        values.push(SqlValue::Integer(to));
        conditions.push(format!("happened_at_ms <= ?{}", values.len()));
    }
    if !filter.types.is_empty() {
        let mut placeholders = Vec::new();
        for kind in &filter.types {
            values.push(SqlValue::Text(kind.as_str().to_owned()));
            placeholders.push(format!("?{}", values.len()));
        }
        conditions.push(format!("type IN ({})", placeholders.join(", ")));
    }
    if let Some(actor) = filter.actor {
        values.push(SqlValue::Text(actor.as_str().to_owned()));
        conditions.push(format!("actor = ?{}", values.len()));
    }
    let queried = filter.limit.saturating_add(1);
    values.push(SqlValue::Integer(
        i64::try_from(queried).unwrap_or(i64::MAX),
    ));
    let limit_placeholder = values.len();
    let where_clause = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    let sql = format!(
        "SELECT happened_at_ms, type, actor, summary, target, target_name, payload,
                source_route, source_method
         FROM user_actions {where_clause}
         ORDER BY happened_at_ms DESC, seq DESC
         LIMIT ?{limit_placeholder}"
    );
    let mut statement = connection.prepare_cached(&sql)?;
    let rows = statement.query_map(portos_server::store::sql::params_from_iter(values), |row| {
        let happened_at_ms: i64 = row.get(0)?;
        let payload: String = row.get(6)?;
        Ok(ActionEvent {
            happened_at: local_time(happened_at_ms, zone),
            kind: row.get(1)?,
            actor: row.get(2)?,
            summary: redact::mask_text(&row.get::<_, String>(3)?),
            target: row.get(4)?,
            target_name: row
                .get::<_, Option<String>>(5)?
                .map(|name| redact::mask_text(&name)),
            payload: redact::mask_value(serde_json::from_str(&payload).unwrap_or(Value::Null)),
            source: Source {
                route: row.get(7)?,
                method: row.get(8)?,
            },
        })
    })?;
    let mut events = rows.collect::<Result<Vec<_>, _>>()?;
    let truncated = events.len() > filter.limit;
    events.truncate(filter.limit);
    Ok(ActionPage { events, truncated })
}

fn local_time(ms: i64, zone: &TimeZone) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(instant) => instant
            .to_zoned_datetime(zone.clone())
            .strftime("%Y-%m-%dT%H:%M:%S%.3f%:z")
            .to_string(),
        Err(_) => ms.to_string(),
    }
}

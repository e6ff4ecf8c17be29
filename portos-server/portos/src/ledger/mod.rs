//! The user-actions ledger (docs/reference.md#user-actions): what the user (or
//! the mind, a schedule, the system) changed through this server, one row per
//! change.
//!
//! Code that changes something calls [`record`] on the same transaction as
//! the change, so an action is in the ledger if and only if the change
//! committed. Secret-looking values are masked before they are stored. The
//! runtime's own settings routes (Agent Tools, API Access) reach it through
//! the runtime's settings hook ([`SettingsLedger`]).

mod dates;
mod query;

use portos_server::store::sql::{Connection, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use portos_server::redact;
use portos_server::store::StoreError;

pub use dates::{DateBound, parse_bound};
use portos_server::settings::{SettingsChange, SettingsObserver};
use portos_server::store::Schema;

portos_server::store_schema!(
    /// The user-actions ledger, one row per change. Databases migrated
    /// before the ledger was PortOS's have the same table from the
    /// runtime's first step; `IF NOT EXISTS` keeps theirs.
    LEDGER = Schema {
        component: "ledger",
        migrations: &["CREATE TABLE IF NOT EXISTS user_actions (
            seq            INTEGER PRIMARY KEY AUTOINCREMENT,
            happened_at_ms INTEGER NOT NULL,
            type           TEXT NOT NULL,
            actor          TEXT NOT NULL CHECK (actor IN ('user', 'mind', 'schedule', 'system')),
            summary        TEXT NOT NULL,
            target         TEXT,
            target_name    TEXT,
            payload        TEXT NOT NULL,
            source_route   TEXT,
            source_method  TEXT
        );
        CREATE INDEX IF NOT EXISTS user_actions_recent
            ON user_actions (happened_at_ms DESC, seq DESC);"],
    }
);
pub use query::{ActionEvent, ActionFilter, ActionPage, MAX_RESULTS, query};

/// The kinds of action the ledger knows (`USER_ACTION_TYPES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ActionType {
    #[serde(rename = "cos.task.create")]
    CosTaskCreate,
    #[serde(rename = "cos.task.update")]
    CosTaskUpdate,
    #[serde(rename = "cos.task.delete")]
    CosTaskDelete,
    #[serde(rename = "cos.task.approve")]
    CosTaskApprove,
    #[serde(rename = "cos.task.spawn")]
    CosTaskSpawn,
    #[serde(rename = "cos.agent.feedback")]
    CosAgentFeedback,
    #[serde(rename = "cos.schedule.trigger")]
    CosScheduleTrigger,
    #[serde(rename = "cos.schedule.update")]
    CosScheduleUpdate,
    #[serde(rename = "settings.update")]
    SettingsUpdate,
    #[serde(rename = "instance-feature.toggle")]
    InstanceFeatureToggle,
    #[serde(rename = "media.image.enqueue")]
    MediaImageEnqueue,
    #[serde(rename = "media.video.enqueue")]
    MediaVideoEnqueue,
    #[serde(rename = "brain.capture")]
    BrainCapture,
}

impl ActionType {
    pub const ALL: [ActionType; 13] = [
        ActionType::CosTaskCreate,
        ActionType::CosTaskUpdate,
        ActionType::CosTaskDelete,
        ActionType::CosTaskApprove,
        ActionType::CosTaskSpawn,
        ActionType::CosAgentFeedback,
        ActionType::CosScheduleTrigger,
        ActionType::CosScheduleUpdate,
        ActionType::SettingsUpdate,
        ActionType::InstanceFeatureToggle,
        ActionType::MediaImageEnqueue,
        ActionType::MediaVideoEnqueue,
        ActionType::BrainCapture,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionType::CosTaskCreate => "cos.task.create",
            ActionType::CosTaskUpdate => "cos.task.update",
            ActionType::CosTaskDelete => "cos.task.delete",
            ActionType::CosTaskApprove => "cos.task.approve",
            ActionType::CosTaskSpawn => "cos.task.spawn",
            ActionType::CosAgentFeedback => "cos.agent.feedback",
            ActionType::CosScheduleTrigger => "cos.schedule.trigger",
            ActionType::CosScheduleUpdate => "cos.schedule.update",
            ActionType::SettingsUpdate => "settings.update",
            ActionType::InstanceFeatureToggle => "instance-feature.toggle",
            ActionType::MediaImageEnqueue => "media.image.enqueue",
            ActionType::MediaVideoEnqueue => "media.video.enqueue",
            ActionType::BrainCapture => "brain.capture",
        }
    }

    pub fn parse(text: &str) -> Option<ActionType> {
        ActionType::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

/// Who acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    User,
    Mind,
    Schedule,
    System,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::User => "user",
            Actor::Mind => "mind",
            Actor::Schedule => "schedule",
            Actor::System => "system",
        }
    }

    pub fn parse(text: &str) -> Option<Actor> {
        [Actor::User, Actor::Mind, Actor::Schedule, Actor::System]
            .into_iter()
            .find(|actor| actor.as_str() == text)
    }
}

/// Where the change came in: only the HTTP route and method are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

impl Source {
    /// A change made by an HTTP route, e.g. `Source::http("PUT", "/api/cos/tasks/{id}")`.
    pub fn http(method: &str, route: &str) -> Source {
        Source {
            route: Some(route.to_owned()),
            method: Some(method.to_owned()),
        }
    }
}

/// One action to record. Build it with [`NewAction::new`] and the setters.
#[derive(Clone, Debug)]
pub struct NewAction {
    pub happened_at: jiff::Timestamp,
    pub kind: ActionType,
    pub actor: Actor,
    pub summary: String,
    /// The id of what changed (a task id, a settings key…).
    pub target: Option<String>,
    /// Its human name (a task's description…).
    pub target_name: Option<String>,
    /// Details: what changed, as JSON.
    pub payload: Value,
    pub source: Source,
    /// Whom a remote caller's access token names (remote mode,
    /// docs/remote.md), recorded as the payload's `subject`.
    pub subject: Option<String>,
}

impl NewAction {
    /// An action happening now, with no target, an empty payload and no source.
    pub fn new(kind: ActionType, actor: Actor, summary: impl Into<String>) -> NewAction {
        NewAction {
            happened_at: jiff::Timestamp::now(),
            kind,
            actor,
            summary: summary.into(),
            target: None,
            target_name: None,
            payload: Value::Object(serde_json::Map::new()),
            source: Source::default(),
            subject: None,
        }
    }

    /// The remote caller the action was made for, if any (a tool's
    /// `ctx.authority().subject`).
    #[must_use]
    pub fn subject(mut self, subject: Option<&str>) -> NewAction {
        self.subject = subject.map(str::to_owned);
        self
    }

    #[must_use]
    pub fn target(mut self, id: impl Into<String>, name: Option<String>) -> NewAction {
        self.target = Some(id.into());
        self.target_name = name;
        self
    }

    #[must_use]
    pub fn payload(mut self, payload: Value) -> NewAction {
        self.payload = payload;
        self
    }

    #[must_use]
    pub fn source(mut self, source: Source) -> NewAction {
        self.source = source;
        self
    }
}

/// Records `action`. Call it on the transaction (a `crate::store::sql::Transaction`
/// derefs to `&Connection`) that makes the change, before committing, so the
/// action is recorded if and only if the change commits. Summary, target
/// name and payload are masked ([`redact`]) before they are stored.
pub fn record(connection: &Connection, action: &NewAction) -> Result<(), StoreError> {
    let mut payload = redact::mask_value(action.payload.clone());
    if let Some(subject) = &action.subject {
        payload = with_subject(payload, subject);
    }
    connection
        .prepare_cached(
            "INSERT INTO user_actions
               (happened_at_ms, type, actor, summary, target, target_name, payload,
                source_route, source_method)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            action.happened_at.as_millisecond(),
            action.kind.as_str(),
            action.actor.as_str(),
            redact::mask_text(&action.summary),
            action.target,
            action.target_name.as_deref().map(redact::mask_text),
            payload.to_string(),
            action.source.route,
            action.source.method,
        ])?;
    Ok(())
}

/// `payload` with `subject` added: as a key of an object payload, or
/// beside a payload of another kind (kept as `value`).
fn with_subject(payload: Value, subject: &str) -> Value {
    let mut object = match payload {
        Value::Object(object) => object,
        Value::Null => serde_json::Map::new(),
        other => serde_json::Map::from_iter([("value".to_owned(), other)]),
    };
    object.insert("subject".to_owned(), Value::String(subject.to_owned()));
    Value::Object(object)
}

/// Records the runtime's settings changes (Agent Tools, API Access) as the
/// user's `settings.update` actions, in the transaction that makes them.
#[derive(Clone, Copy, Debug, Default)]
pub struct SettingsLedger;

impl SettingsObserver for SettingsLedger {
    fn changed(&self, transaction: &Connection, change: &SettingsChange) -> Result<(), StoreError> {
        let action = NewAction::new(
            ActionType::SettingsUpdate,
            Actor::User,
            change.summary.clone(),
        )
        .target(change.key, Some(change.name.to_owned()))
        .payload(change.details.clone())
        .source(Source::http(change.method, change.route));
        record(transaction, &action)
    }
}

//! The Persistent Mind's authority: its stored capabilities, how a change
//! is written (with its ledger row, the runtime's grants refreshed on the
//! same connection, a catalog change announced), and the authority view of
//! `GET /api/cos/mind/tools` (docs/reference.md#mind-inventory).

use crate::MIND_GRANTS_KEY;
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use portos_core::{Capabilities, CatalogQuery, CatalogScope, Catalogs};
use portos_server::events::Events;
use portos_server::settings;
use portos_server::store::changes::{self, Change};
use portos_server::store::sql::Connection;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::settings::{MindSettings, SCHEMA_VERSION};
use crate::domains::cos::CodingProvider;
use crate::domains::{apps, cos};

/// What the Mind may never do, whatever it is granted.
pub const BOUNDARIES: [&str; 3] = [
    "No arbitrary shell commands or filesystem access.",
    "No raw HTTP proxy, browser, process control, paid generation or external messaging, except the granted voice.call-user and the install-local eidoverse.say.",
    "No provider credentials and no hidden reasoning tokens.",
];

/// The Mind's stored capabilities, read forward from any older version.
pub async fn load(store: &Store) -> Result<MindSettings, StoreError> {
    store
        .run(|connection| super::store::live_settings(connection))
        .await
}

/// Stores `next` with its ledger row in one transaction, refreshes the
/// runtime's grants from what committed (`refresh_grants`, on the same
/// connection) and tells catalog readers.
pub async fn replace(
    store: &Store,
    events: &Events,
    refresh_grants: impl FnOnce(&Connection) -> Result<(), StoreError> + Send + 'static,
    next: MindSettings,
) -> Result<MindSettings, StoreError> {
    let stored = next.to_stored();
    let saved = next.clone();
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            // The ledger names what changed since the previous commit on any
            // server.
            settings::lock_for_change(&transaction, MIND_GRANTS_KEY)?;
            let before = MindSettings::from_stored(
                settings::get_json(&transaction, MIND_GRANTS_KEY)?.as_ref(),
            );
            settings::set_json(&transaction, MIND_GRANTS_KEY, &stored)?;
            ledger::record(&transaction, &changed(&before, &saved))?;
            changes::announce(&transaction, &Change::Grants)?;
            transaction.commit()?;
            refresh_grants(connection)
        })
        .await?;
    events.catalog_changed(MIND_GRANTS_KEY).await;
    Ok(next)
}

/// The ledger row of a change: which grants were given and taken.
fn changed(before: &MindSettings, after: &MindSettings) -> NewAction {
    let flags = |settings: &MindSettings| -> Vec<&'static str> {
        let mut names: Vec<&'static str> = settings
            .capabilities()
            .iter()
            .map(|capability| capability.as_str())
            .collect();
        if settings.call_user {
            names.push("callUser");
        }
        names
    };
    let (was, now) = (flags(before), flags(after));
    let granted: Vec<&str> = now.iter().filter(|n| !was.contains(n)).copied().collect();
    let revoked: Vec<&str> = was.iter().filter(|n| !now.contains(n)).copied().collect();
    let mut parts = Vec::new();
    if !granted.is_empty() {
        parts.push(format!("granted {}", granted.join(", ")));
    }
    if !revoked.is_empty() {
        parts.push(format!("revoked {}", revoked.join(", ")));
    }
    if before.allowed_app_ids != after.allowed_app_ids {
        parts.push("changed the allowed apps".to_owned());
    }
    if before.task_model_allowlist != after.task_model_allowlist {
        parts.push("changed the task model allowlist".to_owned());
    }
    let summary = if parts.is_empty() {
        "Saved the Persistent Mind capabilities (no change)".to_owned()
    } else {
        format!("Persistent Mind capabilities: {}", parts.join("; "))
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target(
            MIND_GRANTS_KEY,
            Some("Persistent Mind capabilities".to_owned()),
        )
        .payload(serde_json::json!({ "granted": granted, "revoked": revoked }))
        .source(Source::http("PUT", "/api/cos/mind/capabilities"))
}

/// One typed action or tool family the Mind may be granted.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindTool {
    pub id: &'static str,
    /// The grant that turns it on.
    pub capability: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// `typed-action` or `semantic-tools`.
    pub kind: &'static str,
    pub default_enabled: bool,
    pub guardrails: Vec<&'static str>,
    pub granted: bool,
}

/// A managed app the Mind may queue tasks for, and whether it is allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskApp {
    pub id: String,
    pub name: String,
    pub granted: bool,
}

/// What the Mind could queue tasks on (present only with `createTasks`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TaskCatalog {
    pub apps: Vec<TaskApp>,
    /// The coding providers tasks may name (enabled CLI and TUI agents).
    pub providers: Vec<CodingProvider>,
}

/// `GET /api/cos/mind/tools`: the Mind's authority, not the generic catalog.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindToolsView {
    /// The mind-scope catalog in the native format, each entry with
    /// `granted`.
    pub semantic_tools: Vec<Value>,
    pub schema_version: u32,
    pub capabilities: MindSettings,
    pub boundaries: Vec<&'static str>,
    pub task_catalog: Option<TaskCatalog>,
    pub tools: Vec<MindTool>,
}

/// The authority view for the stored capabilities.
pub async fn tools_view(store: &Store, catalogs: &Catalogs) -> Result<MindToolsView, StoreError> {
    let settings = load(store).await?;
    let semantic_tools = semantic_tools(catalogs, settings.capabilities());
    let task_catalog = if settings.create_tasks {
        Some(task_catalog(store, &settings).await?)
    } else {
        None
    };
    Ok(MindToolsView {
        semantic_tools,
        schema_version: SCHEMA_VERSION,
        tools: typed_actions(&settings),
        boundaries: BOUNDARIES.to_vec(),
        task_catalog,
        capabilities: settings,
    })
}

/// The runnable apps, each marked whether `settings` allow it, and the
/// coding providers that take tasks (the view's `taskCatalog` and the
/// turn prompt's task block).
pub async fn task_catalog(
    store: &Store,
    settings: &MindSettings,
) -> Result<TaskCatalog, StoreError> {
    let apps = apps::runnable(store).await?;
    let providers = store
        .run(|connection| cos::stored_providers(connection))
        .await?;
    Ok(TaskCatalog {
        apps: apps
            .into_iter()
            .map(|managed| TaskApp {
                granted: settings.allows_app(&managed.id),
                id: managed.id,
                name: managed.name,
            })
            .collect(),
        providers: providers
            .providers
            .into_iter()
            .filter(CodingProvider::takes_tasks)
            .collect(),
    })
}

/// The mind catalog's native entries for these grants.
fn semantic_tools(catalogs: &Catalogs, grants: Capabilities) -> Vec<Value> {
    let query = CatalogQuery {
        scope: CatalogScope::Only(portos_words::MIND),
        ..CatalogQuery::default()
    };
    match catalogs.catalog(&query, grants).body() {
        Value::Object(mut body) => match body.remove("tools") {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The typed actions and tool families the owner can grant
/// (docs/reference.md#mind-inventory).
fn typed_actions(settings: &MindSettings) -> Vec<MindTool> {
    let tool =
        |id, capability, name, description, kind, guardrails: &[&'static str], granted| MindTool {
            id,
            capability,
            name,
            description,
            kind,
            default_enabled: false,
            guardrails: guardrails.to_vec(),
            granted,
        };
    vec![
        tool(
            "cos.create-task",
            "createTasks",
            "Queue coding tasks",
            "Queue a task for a configured coding provider on an allowed managed app.",
            "typed-action",
            &[
                "At most 5 task requests per turn.",
                "Only runnable apps in allowedAppIds, only configured providers and models.",
                "A replayed request reuses its task.",
            ],
            settings.create_tasks,
        ),
        tool(
            "portos.read",
            "readPortos",
            "Read PortOS",
            "The semantic read tools: brain, health, goals, journal, feeds, calendar, weather, time.",
            "semantic-tools",
            &["Reads only.", "At most 5 tool calls per turn."],
            settings.read_portos,
        ),
        tool(
            "portos.write",
            "writePortos",
            "Write to PortOS",
            "The semantic write tools: capture, log, update progress, append to the journal.",
            "semantic-tools",
            &["Every write is recorded.", "At most 5 tool calls per turn."],
            settings.write_portos,
        ),
        tool(
            "eidoverse.manage",
            "manageEidoverse",
            "Manage the Eidoverse world",
            "Project PortOS into the private world, build in it and speak there.",
            "semantic-tools",
            &["Bounded construction operations only."],
            settings.manage_eidoverse,
        ),
        tool(
            "mind.cleanup",
            "manageMind",
            "Tend its own memory",
            "Archive unprotected memories, clear history, rebuild context, protect memories and choose a name.",
            "typed-action",
            &[
                "Protected memories are never archived.",
                "Protection can never be removed.",
            ],
            settings.manage_mind,
        ),
        // A typed action of the contract with no behaviour in this server:
        // the grant is stored and shown, and nothing calls anyone.
        tool(
            "voice.call-user",
            "callUser",
            "Call the user",
            "Place a voice call to the user. This server has no telephony: the grant is stored and shown here, but no call tool is offered to the Mind and no call is placed.",
            "typed-action",
            &[
                "Only the user; no other external messaging.",
                "Not connected in this server: granting it offers the Mind nothing yet.",
            ],
            settings.call_user,
        ),
    ]
}

//! The registry of every linked tool on a real store, its forge settings
//! pointing at local stand-ins, and managed apps whose repositories are
//! temporary directories with a `.git/config` naming their remote.

use std::sync::atomic::{AtomicU64, Ordering};

use portos::MIND_GRANTS_KEY;
use portos::domains::apps::RemoteCache;
use portos::domains::apps::model::NewApp;
use portos::domains::forge::Tracker;
use portos::domains::forge::client::{ForgeSettings, Secret};
use portos_core::{Authority, Capabilities, Registry, ToolCall, ToolError, ToolResult};
use portos_server::Config;
use portos_server::settings::set_json;
use portos_server::store::Store;
use portos_tests::forge_standin::{Kind, StandIn};
use serde_json::{Value, json};

pub const GITHUB_TOKEN: &str = "ghp_standin_secret_0123456789";
pub const GITLAB_TOKEN: &str = "glpat-standin-secret-9876543210";

pub struct Fixture {
    pub registry: std::sync::Arc<Registry>,
    pub store: Store,
    dir: tempfile::TempDir,
}

/// The forge settings for these API bases, with the stand-ins' tokens.
pub fn settings(github_api: &str, gitlab_api: &str) -> ForgeSettings {
    ForgeSettings {
        github_api: Some(github_api.to_owned()),
        github_token: Secret::new(GITHUB_TOKEN),
        gitlab_api: Some(gitlab_api.to_owned()),
        gitlab_token: Secret::new(GITLAB_TOKEN),
    }
}

impl Fixture {
    pub fn new(forge: ForgeSettings) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config {
            data_dir: dir.path().join("data"),
            timezone: Some("UTC".to_owned()),
            ..portos::config()
        };
        let options = portos::Options {
            forge,
            ..portos::Options::default()
        };
        let store = portos::store::open(&config.data_dir).expect("store");
        let registry = portos::build_registry(config, &options, &store).expect("registry");
        Fixture {
            registry,
            store,
            dir,
        }
    }

    /// A fixture whose forge APIs are these stand-ins (either may be
    /// absent: its API is then a closed port).
    pub async fn with(github: Option<&StandIn>, gitlab: Option<&StandIn>) -> Fixture {
        let github_api = match github {
            Some(stand_in) => stand_in.api_url.clone(),
            None => portos_tests::forge_standin::closed_port_url(Kind::Github).await,
        };
        let gitlab_api = match gitlab {
            Some(stand_in) => stand_in.api_url.clone(),
            None => portos_tests::forge_standin::closed_port_url(Kind::Gitlab).await,
        };
        Fixture::new(settings(&github_api, &gitlab_api))
    }

    /// Stores the Persistent Mind's capabilities as the settings route
    /// would.
    pub fn mind_settings(&self, value: Value) {
        self.store
            .run_blocking(move |connection| set_json(connection, MIND_GRANTS_KEY, &value))
            .expect("settings stored");
    }

    /// `fileIssues` granted, every app allowed.
    pub fn grant(&self) {
        self.mind_settings(json!({ "fileIssues": true }));
    }

    /// A runnable app whose repository's `origin` is `remote` (none: a
    /// repository without remotes).
    pub async fn app(&self, id: &str, remote: Option<&str>, tracker: Tracker) {
        let repo = self.dir.path().join("repos").join(id);
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        let mut config = "[core]\n\tbare = false\n".to_owned();
        if let Some(remote) = remote {
            config.push_str(&format!(
                "[remote \"origin\"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
            ));
        }
        std::fs::write(repo.join(".git/config"), config).expect("git config");
        self.new_app(NewApp {
            id: Some(id.to_owned()),
            name: format!("App {id}"),
            repo_path: Some(repo.display().to_string()),
            tracker: Some(tracker),
        })
        .await;
    }

    pub async fn new_app(&self, app: NewApp) {
        portos::domains::apps::ops::create(&self.store, &RemoteCache::default(), app)
            .await
            .expect("app created");
    }

    /// One call as `authority`, with a fresh requestId.
    pub async fn call_as(
        &self,
        authority: Authority,
        name: &str,
        arguments: Value,
    ) -> Result<ToolResult, ToolError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = format!("issues-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.registry
            .call(&authority, ToolCall::new(id, name, arguments))
            .await
    }

    /// One call as the Mind holding `fileIssues`, which must be allowed.
    pub async fn call(&self, name: &str, arguments: Value) -> ToolResult {
        self.call_as(mind(), name, arguments)
            .await
            .expect("the call is allowed")
    }
}

/// The Mind with `fileIssues` in its authority (the turn's grants).
pub fn mind() -> Authority {
    portos_words::principal::mind(Capabilities::NONE.with(portos_words::FILE_ISSUES))
}

/// The result object of a call.
pub fn result(r: &ToolResult) -> &Value {
    r.result.as_ref().expect("a result object")
}

/// Arguments of a valid `issues.file` call on `app`.
pub fn filing(app: &str, title: &str) -> Value {
    json!({
        "appId": app,
        "title": title,
        "body": "Steps to reproduce: open the page.",
        "model": "heavy",
        "effort": "high",
        "labels": ["bug"],
    })
}

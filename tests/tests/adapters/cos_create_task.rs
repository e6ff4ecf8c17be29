//! `cos.create-task` through the registry as the Persistent Mind
//! (docs/reference.md#tool-families, docs/reference.md#task-creation) on a real
//! store: its policy, the strict input, every post-inference rule with its text
//! (checked against what is stored at call time), the derived task id, and a
//! replay in the same wake.

use portos::MIND_GRANTS_KEY;
use portos::domains::apps::model::NewApp;
use portos::domains::apps::{RemoteCache, ops as apps};
use portos::domains::cos::providers::model::SETTINGS_KEY as PROVIDERS;
use portos::domains::cos::store as tasks;
use portos::domains::cos::{TaskFilter, TaskStatus};
use portos::domains::mind::turn::wake::Wakes;
use portos_core::{
    Authority, Capabilities, Confirmation, ErrorCode, SideEffect, ToolCall, ToolResult, ToolState,
};
use portos_server::settings;
use portos_tests as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{RegistryFixture, result};

fn mind() -> Authority {
    portos_words::principal::mind(Capabilities::NONE.with(portos_words::CREATE_TASKS))
}

struct Fixture {
    inner: RegistryFixture,
    repos: tempfile::TempDir,
}

impl Fixture {
    /// Tasks granted, a GitHub app `portos`, a plan-tracker app `notes`,
    /// and three providers.
    async fn new() -> Fixture {
        let fixture = Fixture {
            inner: RegistryFixture::new("UTC", mind()),
            repos: tempfile::tempdir().expect("repos"),
        };
        fixture.grants(json!({ "createTasks": true }));
        fixture.set(
            PROVIDERS,
            json!({ "providers": [
                { "id": "codex", "name": "Codex", "kind": "cli", "enabled": true,
                  "models": ["gpt-5"], "efforts": ["low", "high"] },
                { "id": "chat", "name": "Chat API", "kind": "api", "enabled": true, "models": ["gpt-5"] },
                { "id": "off", "name": "Off", "kind": "tui", "enabled": false }
            ] }),
        );
        fixture
            .app("portos", Some("https://github.com/acme/portos.git"))
            .await;
        fixture
            .app("notes", Some("git@git.example.org:me/notes.git"))
            .await;
        fixture.app("bare", None).await;
        fixture
    }

    fn set(&self, key: &'static str, value: Value) {
        self.inner
            .store
            .run_blocking(move |connection| settings::set_json(connection, key, &value))
            .expect("stored");
    }

    fn grants(&self, value: Value) {
        self.set(MIND_GRANTS_KEY, value);
    }

    /// An app with a repository whose origin is `remote` (`None`: no
    /// repository path at all).
    async fn app(&self, id: &str, remote: Option<&str>) {
        let repo_path = remote.map(|remote| {
            let repo = self.repos.path().join(id);
            std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
            std::fs::write(
                repo.join(".git/config"),
                format!("[remote \"origin\"]\n\turl = {remote}\n"),
            )
            .expect("git config");
            repo.display().to_string()
        });
        let new = NewApp {
            id: Some(id.to_owned()),
            name: id.to_owned(),
            repo_path,
            tracker: None,
        };
        apps::create(&self.inner.store, &RemoteCache::default(), new)
            .await
            .expect("app created");
    }

    async fn call_with(&self, request_id: &str, arguments: Value) -> ToolResult {
        self.call_as(mind(), request_id, arguments)
            .await
            .expect("allowed")
    }

    async fn call_as(
        &self,
        authority: Authority,
        request_id: &str,
        arguments: Value,
    ) -> Result<ToolResult, portos_core::ToolError> {
        let Value::Object(arguments) = arguments else {
            panic!("an object")
        };
        self.inner
            .registry
            .call(
                &authority,
                ToolCall::new(request_id, "cos.create-task", arguments),
            )
            .await
    }

    async fn call(&self, arguments: Value) -> ToolResult {
        let id = self.inner.calls.get() + 1;
        self.inner.calls.set(id);
        self.call_with(&format!("r-{id}"), arguments).await
    }

    fn task_count(&self) -> usize {
        let filter = TaskFilter::checked(None, None, None, None).expect("filter");
        self.inner
            .store
            .run_blocking(move |connection| tasks::list_tasks(connection, &filter))
            .expect("tasks")
            .len()
    }
}

fn task(patch: Value) -> Value {
    let mut args = json!({
        "description": "Fix the login bug",
        "prompt": "Reproduce it, fix it, add a test.",
        "appId": "portos",
        "providerId": "codex",
        "model": "",
        "prCompletion": "review-then-merge",
    });
    let Value::Object(patch) = patch else {
        panic!("a patch is an object")
    };
    for (key, value) in patch {
        if value.is_null() {
            args.as_object_mut().map(|object| object.remove(&key));
        } else {
            args[key] = value;
        }
    }
    args
}

/// A refusal: a failed result with the contract's shape and this text.
fn assert_refused(outcome: &ToolResult, error: &str) {
    assert_eq!(outcome.state, ToolState::Failed, "{outcome:?}");
    assert_eq!(
        result(outcome),
        &json!({ "ok": false, "taskId": null, "state": "failed", "duplicate": false, "error": error })
    );
    assert_eq!(outcome.error.as_deref(), Some(error));
}

#[tokio::test]
async fn the_policy_of_the_contract() {
    let fixture = Fixture::new().await;
    let tool = fixture
        .inner
        .registry
        .resolve("cos_create_task")
        .expect("the provider name resolves");
    assert_eq!(tool.name(), "cos.create-task");
    assert_eq!(tool.policy.scopes, [portos_words::MIND]);
    assert_eq!(
        tool.policy.required_capabilities,
        [portos_words::CREATE_TASKS]
    );
    assert_eq!(tool.policy.side_effect, SideEffect::SupervisedWrite);
    assert!(tool.policy.idempotent && tool.policy.is_async);
    assert_eq!(tool.policy.confirmation, Confirmation::CapabilityGrant);

    // Only the Mind, and only with the grant.
    let refused = fixture
        .call_as(portos_words::principal::ui(true), "ui-1", task(json!({})))
        .await
        .expect_err("not a ui tool");
    assert_eq!(refused.code, ErrorCode::ToolScopeDenied);
    let refused = fixture
        .call_as(
            portos_words::principal::mind(Capabilities::NONE),
            "m-1",
            task(json!({})),
        )
        .await
        .expect_err("not granted");
    assert_eq!(refused.code, ErrorCode::ToolCapabilityDenied);
    assert_eq!(fixture.task_count(), 0);
}

#[tokio::test]
async fn the_input_is_strict() {
    let fixture = Fixture::new().await;
    for (patch, says) in [
        (
            json!({ "prCompletion": null }),
            "prCompletion: Implementation tasks require a PR completion policy",
        ),
        (json!({ "model": null }), "model"),
        (json!({ "shell": "rm -rf /" }), "shell"),
        (json!({ "effort": "enormous" }), "effort"),
        (json!({ "priority": "urgent" }), "priority"),
        (json!({ "description": "   " }), "description"),
        (json!({ "description": "d".repeat(501) }), "description"),
        (json!({ "prompt": "p".repeat(12_001) }), "prompt"),
        (json!({ "appId": "a".repeat(129) }), "appId"),
        (json!({ "providerId": "" }), "providerId"),
        (json!({ "model": "m".repeat(201) }), "model"),
        (json!({ "prCompletion": "yolo" }), "prCompletion"),
        (json!({ "planOnly": "yes" }), "planOnly"),
        (
            json!({ "requiredValidation": ["forge", "engines", "submodules", "reviewers", "dependencies", "forge"] }),
            "requiredValidation",
        ),
        (
            json!({ "requiredValidation": ["lint"] }),
            "requiredValidation",
        ),
    ] {
        let refused = fixture
            .call_as(mind(), "strict", task(patch.clone()))
            .await
            .expect_err("invalid");
        assert_eq!(refused.code, ErrorCode::ToolValidationError, "{patch}");
        assert!(
            refused.message.contains(says),
            "{patch}: {}",
            refused.message
        );
    }
    // A plan needs no landing policy.
    let plan = fixture
        .call(task(json!({ "prCompletion": null, "planOnly": true })))
        .await;
    assert_eq!(plan.state, ToolState::Completed, "{plan:?}");
    assert_eq!(fixture.task_count(), 1);
}

#[tokio::test]
async fn every_rule_is_checked_at_call_time_with_its_text() {
    let fixture = Fixture::new().await;

    // The authority still carries the grant; the store no longer does.
    fixture.grants(json!({ "createTasks": false }));
    assert_refused(
        &fixture.call(task(json!({}))).await,
        "Persistent mind task creation access is disabled",
    );
    fixture.grants(json!({ "createTasks": true }));

    for app in ["nope", "bare"] {
        assert_refused(
            &fixture.call(task(json!({ "appId": app }))).await,
            &format!("App '{app}' has no configured repository"),
        );
    }
    fixture.grants(json!({ "createTasks": true, "allowedAppIds": ["notes"] }));
    assert_refused(
        &fixture.call(task(json!({}))).await,
        "Managed app 'portos' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions",
    );
    fixture.grants(json!({ "createTasks": true, "allowedAppIds": [] }));
    assert_refused(
        &fixture.call(task(json!({ "appId": "notes" }))).await,
        "Managed app 'notes' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions",
    );
    fixture.grants(json!({ "createTasks": true }));

    for provider in ["nobody", "chat", "off"] {
        assert_refused(
            &fixture.call(task(json!({ "providerId": provider }))).await,
            &format!("Provider '{provider}' is not an enabled CLI/TUI coding provider"),
        );
    }
    assert_refused(
        &fixture.call(task(json!({ "model": "o3" }))).await,
        "Model 'o3' is not configured for provider 'codex'",
    );

    fixture.grants(json!({ "createTasks": true,
        "taskModelAllowlist": [{ "providerId": "codex", "model": "gpt-5" }] }));
    assert_refused(
        &fixture.call(task(json!({}))).await,
        "The default model of provider 'codex' is not in the Persistent Mind task model allowlist",
    );
    let allowed = fixture.call(task(json!({ "model": "gpt-5" }))).await;
    assert_eq!(allowed.state, ToolState::Completed, "{allowed:?}");
    // A stored allowlist that does not read lets no model through.
    fixture
        .grants(json!({ "createTasks": true, "taskModelAllowlist": [{ "providerId": "codex" }] }));
    assert_refused(
        &fixture
            .call(task(json!({ "model": "gpt-5", "description": "Other" })))
            .await,
        "The Persistent Mind task model allowlist could not be read, so no model is allowed; save it again in Persistent Mind Tools permissions",
    );
    fixture.grants(json!({ "createTasks": true }));

    assert_refused(
        &fixture.call(task(json!({ "effort": "ultra" }))).await,
        "Effort 'ultra' is not supported by provider 'codex'",
    );
    assert_refused(
        &fixture
            .call(task(json!({ "appId": "notes", "planOnly": true })))
            .await,
        "App 'notes' has no GitHub or GitLab issue tracker for a plan-only task; check its work tracker and git remote",
    );
    assert_refused(
        &fixture
            .call(task(
                json!({ "appId": "notes", "requiredValidation": ["reviewers"] }),
            ))
            .await,
        "Required validation 'reviewers' needs a GitHub or GitLab repository, and app 'notes' has none; check its work tracker and git remote",
    );

    // Every refusal changed nothing; the one allowed request was queued.
    assert_eq!(fixture.task_count(), 1);
    // And a request that breaks no rule is queued on either kind of app.
    let on_plan_tracker = fixture
        .call(task(
            json!({ "appId": "notes", "effort": "high", "requiredValidation": ["engines"] }),
        ))
        .await;
    assert_eq!(
        on_plan_tracker.state,
        ToolState::Completed,
        "{on_plan_tracker:?}"
    );
    assert_eq!(fixture.task_count(), 2);
}

#[tokio::test]
async fn the_task_id_is_derived_and_a_replay_in_the_wake_is_a_duplicate() {
    let fixture = Fixture::new().await;
    let wakes = fixture
        .inner
        .registry
        .state()
        .get::<Wakes>()
        .expect("the server keeps the wakes")
        .clone();

    // Two calls of one turn with different requestIds, asking the same.
    let first = {
        let _in_turn = wakes.enter("mind-tool-a", "turn-1");
        fixture
            .call_with(
                "mind-tool-a",
                task(json!({ "description": "  Fix the login bug " })),
            )
            .await
    };
    let second = {
        let _in_turn = wakes.enter("mind-tool-b", "turn-1");
        fixture
            .call_with("mind-tool-b", task(json!({ "planOnly": false })))
            .await
    };
    let first = result(&first).clone();
    let second = result(&second).clone();
    assert_eq!(first["ok"], true);
    assert_eq!(first["state"], "queued");
    assert_eq!(first["duplicate"], false);
    assert_eq!(
        second["taskId"], first["taskId"],
        "the same request is the same task"
    );
    assert_eq!(second["duplicate"], true);

    // sys-mind- + 24 hex of sha256("cos-persistent-mind:<wake>:<canonical normalized input>").
    let normalized = json!({
        "appId": "portos",
        "description": "Fix the login bug",
        "effort": "",
        "model": "",
        "planOnly": false,
        "prCompletion": "review-then-merge",
        "priority": "MEDIUM",
        "prompt": "Reproduce it, fix it, add a test.",
        "providerId": "codex",
        "requiredValidation": [],
    });
    let digest = Sha256::digest(format!("cos-persistent-mind:turn-1:{normalized}").as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    let id = format!("sys-mind-{}", &hex[..24]);
    assert_eq!(first["taskId"], id);

    // Another wake asking the same queues another task.
    let other = {
        let _in_turn = wakes.enter("mind-tool-c", "turn-2");
        fixture.call_with("mind-tool-c", task(json!({}))).await
    };
    assert_ne!(result(&other)["taskId"], first["taskId"]);
    assert_eq!(fixture.task_count(), 2);

    // The queued task and what its agent is told.
    let stored_id = id.clone();
    let (stored, dispatch) = fixture
        .inner
        .store
        .run_blocking(move |connection| {
            Ok((
                tasks::get_task(connection, &stored_id)?,
                tasks::get_dispatch(connection, &stored_id)?,
            ))
        })
        .expect("read");
    let stored = stored.expect("the task");
    assert_eq!(stored.status, TaskStatus::Pending);
    assert_eq!(stored.app.as_deref(), Some("portos"));
    assert_eq!(stored.description, "Fix the login bug");
    let dispatch = dispatch.expect("its dispatch");
    assert_eq!(dispatch.wake_id, "turn-1");
    assert_eq!(dispatch.provider_id, "codex");
    assert_eq!(dispatch.prompt, "Reproduce it, fix it, add a test.");

    // The ledger says the Mind queued it, once.
    let filter = portos::ledger::ActionFilter {
        types: vec![portos::ledger::ActionType::CosTaskCreate],
        limit: 100,
        ..Default::default()
    };
    let page = fixture
        .inner
        .store
        .run_blocking(move |connection| {
            portos::ledger::query(connection, &filter, &jiff::tz::TimeZone::UTC)
        })
        .expect("ledger");
    let queued: Vec<_> = page
        .events
        .iter()
        .filter(|event| event.target.as_deref() == Some(id.as_str()))
        .collect();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].actor, "mind");
    assert_eq!(queued[0].payload["wakeId"], "turn-1");

    // The same requestId again is the registry's replay of the first call.
    let replay = {
        let _in_turn = wakes.enter("mind-tool-a", "turn-1");
        fixture
            .call_with(
                "mind-tool-a",
                task(json!({ "description": "  Fix the login bug " })),
            )
            .await
    };
    assert!(replay.duplicate);
    assert_eq!(result(&replay)["taskId"], first["taskId"]);

    // Outside a turn the call is its own wake.
    let alone = fixture.call_with("solo", task(json!({}))).await;
    let digest = Sha256::digest(format!("cos-persistent-mind:solo:{normalized}").as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    assert_eq!(result(&alone)["taskId"], format!("sys-mind-{}", &hex[..24]));
}

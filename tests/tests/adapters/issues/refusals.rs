//! The post-inference checks of both tools (docs/reference.md#forge-issues),
//! each with the contract's text and in the contract's order, on live stored
//! settings; and the registry's own refusals before any of them (scope, grant,
//! schema). A refused call sends nothing to any forge.

use portos::domains::apps::model::NewApp;
use portos::domains::forge::Tracker;
use portos_core::{Capabilities, ErrorCode, ToolState};
use portos_tests::forge_standin::{Kind, StandIn};
use serde_json::{Value, json};

use super::fixture::{Fixture, filing, mind, result};

const GITHUB_REMOTE: &str = "git@github.com:acme/app.git";

/// Both stand-ins, and a fixture using them.
async fn setup() -> (Fixture, StandIn, StandIn) {
    let github = StandIn::start(Kind::Github, "acme/app", super::fixture::GITHUB_TOKEN).await;
    let gitlab = StandIn::start(Kind::Gitlab, "group/app", super::fixture::GITLAB_TOKEN).await;
    let fixture = Fixture::with(Some(&github), Some(&gitlab)).await;
    (fixture, github, gitlab)
}

/// Calls both tools on `app` and asserts both answer `{ok:false, error}`
/// with `expected`.
async fn both_refuse(fixture: &Fixture, app: &str, expected: &str) {
    for (tool, arguments) in [
        ("issues.list", json!({ "appId": app })),
        ("issues.file", filing(app, "Fix the login page")),
    ] {
        let r = fixture.call(tool, arguments).await;
        assert_eq!(r.state, ToolState::Failed, "{tool}: {:?}", r.result);
        assert_eq!(
            result(&r),
            &json!({ "ok": false, "error": expected }),
            "{tool}"
        );
        assert_eq!(r.error.as_deref(), Some(expected), "{tool}");
    }
}

#[tokio::test]
async fn the_live_grant_is_checked_after_inference() {
    let (fixture, github, gitlab) = setup().await;
    fixture.app("app", Some(GITHUB_REMOTE), Tracker::Auto).await;
    // The turn's authority still holds fileIssues, but the stored grant
    // was revoked (or never given): the live one decides.
    both_refuse(&fixture, "app", "Persistent mind issue access is disabled").await;
    fixture.mind_settings(json!({ "fileIssues": false, "readPortos": true }));
    both_refuse(&fixture, "app", "Persistent mind issue access is disabled").await;
    // Task authority does not imply issue authority.
    fixture.mind_settings(json!({ "createTasks": true }));
    both_refuse(&fixture, "app", "Persistent mind issue access is disabled").await;
    // Only a real `true` grants.
    fixture.mind_settings(json!({ "fileIssues": "true" }));
    both_refuse(&fixture, "app", "Persistent mind issue access is disabled").await;
    // The grant check comes first, even for an app that does not exist.
    both_refuse(&fixture, "nope", "Persistent mind issue access is disabled").await;
    assert!(github.received().is_empty() && gitlab.received().is_empty());
}

#[tokio::test]
async fn an_app_must_be_runnable_with_a_repository() {
    let (fixture, github, _gitlab) = setup().await;
    fixture.grant();
    both_refuse(&fixture, "nope", "App 'nope' has no configured repository").await;
    // Known but without a repository path.
    fixture
        .new_app(NewApp {
            id: Some("bare".to_owned()),
            name: "Bare".to_owned(),
            repo_path: None,
            tracker: None,
        })
        .await;
    both_refuse(&fixture, "bare", "App 'bare' has no configured repository").await;
    // Archived.
    fixture.app("old", Some(GITHUB_REMOTE), Tracker::Auto).await;
    portos::domains::apps::ops::change(
        &fixture.store,
        &portos::domains::apps::RemoteCache::default(),
        "old".to_owned(),
        portos::domains::apps::model::AppChanges {
            archived: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("archived");
    both_refuse(&fixture, "old", "App 'old' has no configured repository").await;
    // The id is trimmed before it is looked up.
    fixture.app("app", Some(GITHUB_REMOTE), Tracker::Auto).await;
    let r = fixture
        .call("issues.list", json!({ "appId": "  app " }))
        .await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
    assert_eq!(result(&r)["appId"], "app");
    assert_eq!(github.asked(), ["GET issues"]);
}

#[tokio::test]
async fn an_app_must_be_in_the_minds_allowed_apps() {
    let (fixture, github, _gitlab) = setup().await;
    fixture.app("app", Some(GITHUB_REMOTE), Tracker::Auto).await;
    fixture
        .app("other", Some(GITHUB_REMOTE), Tracker::Auto)
        .await;
    let refused = "Managed app 'app' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions";
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": ["other"] }));
    both_refuse(&fixture, "app", refused).await;
    // `[]` allows none.
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": [] }));
    both_refuse(&fixture, "app", refused).await;
    // A stored list that does not read allows none (fail closed).
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": "app" }));
    both_refuse(&fixture, "app", refused).await;
    // The repository check comes before the allowlist.
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": ["other"] }));
    both_refuse(
        &fixture,
        "ghost",
        "App 'ghost' has no configured repository",
    )
    .await;
    assert!(github.received().is_empty());

    // Listed: allowed.
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": ["other", "app"] }));
    let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
}

#[tokio::test]
async fn the_tracker_must_be_a_forge_and_the_remote_on_it() {
    let (fixture, github, gitlab) = setup().await;
    fixture.grant();
    for (id, remote, tracker) in [
        ("plan", Some(GITHUB_REMOTE), Tracker::Plan),
        ("jira", Some(GITHUB_REMOTE), Tracker::Jira),
        (
            "codeberg",
            Some("https://codeberg.org/acme/app.git"),
            Tracker::Auto,
        ),
        (
            "crossed",
            Some("https://gitlab.com/group/app.git"),
            Tracker::Github,
        ),
        ("no-remote", None, Tracker::Github),
        ("local", Some("/srv/git/app.git"), Tracker::Auto),
    ] {
        fixture.app(id, remote, tracker).await;
        let expected = format!(
            "App '{id}' has no GitHub or GitLab issue list; check its work tracker and git remote"
        );
        both_refuse(&fixture, id, &expected).await;
    }
    // The allowlist comes before the tracker.
    fixture.mind_settings(json!({ "fileIssues": true, "allowedAppIds": [] }));
    both_refuse(
        &fixture,
        "plan",
        "Managed app 'plan' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions",
    )
    .await;
    assert!(github.received().is_empty() && gitlab.received().is_empty());
}

#[tokio::test]
async fn the_registry_refuses_before_the_tool_runs() {
    let (fixture, github, _gitlab) = setup().await;
    fixture.grant();
    fixture.app("app", Some(GITHUB_REMOTE), Tracker::Auto).await;
    for tool in ["issues.list", "issues.file"] {
        let arguments = if tool == "issues.list" {
            json!({ "appId": "app" })
        } else {
            filing("app", "A title")
        };
        // Mind-only: no other scope reaches them, whatever it holds.
        let every = Capabilities::NONE.with(portos_words::FILE_ISSUES);
        for authority in [
            portos_words::principal::agent(every),
            portos_words::principal::ui(true),
            portos_words::principal::voice(),
        ] {
            let error = fixture
                .call_as(authority, tool, arguments.clone())
                .await
                .expect_err("refused");
            assert_eq!(error.code, ErrorCode::ToolScopeDenied, "{tool}");
        }
        // The turn's authority without fileIssues.
        let other_grants = Capabilities::NONE
            .with(portos_words::CREATE_TASKS)
            .with(portos_words::READ_PORTOS);
        let error = fixture
            .call_as(portos_words::principal::mind(other_grants), tool, arguments)
            .await
            .expect_err("refused");
        assert_eq!(error.code, ErrorCode::ToolCapabilityDenied, "{tool}");
        assert_eq!(
            error.message,
            format!("Tool '{tool}' is not granted to the mind principal")
        );
    }
    assert!(github.received().is_empty());
}

/// Asserts `arguments` fail the tool's schema.
async fn invalid(fixture: &Fixture, tool: &str, arguments: Value) {
    let error = fixture
        .call_as(mind(), tool, arguments.clone())
        .await
        .expect_err("invalid arguments");
    assert_eq!(error.code, ErrorCode::ToolValidationError, "{arguments}");
    assert_eq!(error.code.status(), 400);
    assert!(
        error
            .message
            .starts_with(&format!("Invalid arguments for '{tool}': ")),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn arguments_outside_the_limits_are_validation_errors() {
    let (fixture, github, _gitlab) = setup().await;
    fixture.grant();
    fixture.app("app", Some(GITHUB_REMOTE), Tracker::Auto).await;
    let long_id = "a".repeat(129);
    for arguments in [
        json!({}),
        json!({ "appId": "" }),
        json!({ "appId": "   " }),
        json!({ "appId": long_id }),
        json!({ "appId": "app", "limit": 0 }),
        json!({ "appId": "app", "limit": 51 }),
        json!({ "appId": "app", "limit": 2.5 }),
        json!({ "appId": "app", "search": "s".repeat(201) }),
        json!({ "appId": "app", "label": "l".repeat(61) }),
        json!({ "appId": "app", "state": "closed" }),
    ] {
        invalid(&fixture, "issues.list", arguments).await;
    }
    let with = |key: &str, value: Value| {
        let mut arguments = filing("app", "A title");
        arguments[key] = value;
        arguments
    };
    let without = |key: &str| {
        let mut arguments = filing("app", "A title");
        arguments.as_object_mut().expect("object").remove(key);
        arguments
    };
    for arguments in [
        with("model", json!("enormous")),
        with("model", json!("Heavy")),
        with("effort", json!("minimal")),
        with("effort", json!("ultra")),
        with("title", json!("")),
        with("title", json!("   ")),
        with("title", json!("t".repeat(201))),
        with("body", json!("")),
        with("body", json!("b".repeat(12_001))),
        with("labels", json!(["feature"])),
        with("labels", json!(["plan", "bug", "tests", "ux", "docs"])),
        with("labels", json!("bug")),
        with("assignee", json!("me")),
        without("model"),
        without("effort"),
        without("title"),
        without("body"),
        without("appId"),
    ] {
        invalid(&fixture, "issues.file", arguments).await;
    }
    // At the limits: accepted (the tool runs and reaches the forge).
    let r = fixture
        .call(
            "issues.list",
            json!({ "appId": "app", "limit": 50, "search": "s".repeat(200), "label": "l".repeat(60) }),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
    assert_eq!(github.asked(), ["GET issues"]);
}

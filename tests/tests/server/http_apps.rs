//! The managed-app roster over REST against the real binary
//! (docs/reference.md#forge-issues): the tracker and forge repository resolved
//! from the app's git remote, strict bodies, unknown ids, and at most 50
//! runnable apps.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

/// A directory that looks like a git checkout whose `origin` is `remote`.
fn repository(root: &std::path::Path, name: &str, remote: &str) -> String {
    let repo = root.join(name);
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    std::fs::write(
        repo.join(".git/config"),
        format!("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"),
    )
    .expect("config");
    repo.display().to_string()
}

#[tokio::test]
async fn apps_resolve_their_forge_from_the_git_remote() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let repos = tempfile::tempdir().expect("tempdir");
    let on_github = repository(
        repos.path(),
        "app",
        "https://bot:ghp_secret@github.com/acme/app.git",
    );

    let (status, app) = send(client.post(server.url("/api/apps")).json(&json!({
        "name": "Acme App",
        "repoPath": on_github,
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{app}");
    assert_eq!(app["id"], "acme-app", "an id made from the name");
    assert_eq!(app["tracker"], "auto");
    assert_eq!(app["resolvedTracker"], "github");
    assert_eq!(app["runnable"], true);
    assert_eq!(
        app["repository"],
        json!({ "forge": "github", "host": "github.com", "fullName": "acme/app" })
    );
    assert_eq!(app["remote"], "https://github.com/acme/app.git");
    assert!(
        !app.to_string().contains("ghp_secret"),
        "credentials never shown: {app}"
    );

    // A GitLab remote on a self-hosted host the auto rule does not know
    // resolves only when the tracker says gitlab.
    let self_hosted = repository(repos.path(), "tool", "git@git.acme.corp:team/sub/tool.git");
    let (status, tool) = send(client.post(server.url("/api/apps")).json(&json!({
        "id": "tool", "name": "Tool", "repoPath": self_hosted,
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{tool}");
    assert_eq!(tool["resolvedTracker"], "plan");
    assert_eq!(tool["repository"], Value::Null);
    let (status, tool) = send(
        client
            .put(server.url("/api/apps/tool"))
            .json(&json!({ "tracker": "gitlab" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tool}");
    assert_eq!(tool["repository"]["fullName"], "team/sub/tool");
    assert_eq!(tool["repository"]["forge"], "gitlab");

    // A GitHub tracker over that remote has no issue list.
    let (_, tool) = send(
        client
            .put(server.url("/api/apps/tool"))
            .json(&json!({ "tracker": "github" })),
    )
    .await;
    assert_eq!(tool["repository"], Value::Null);

    let (status, list) = send(client.get(server.url("/api/apps"))).await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = list["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .filter_map(|app| app["id"].as_str())
        .collect();
    assert_eq!(ids, ["acme-app", "tool"], "by name");

    let (status, archived) = send(
        client
            .put(server.url("/api/apps/acme-app"))
            .json(&json!({ "archived": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(archived["runnable"], false);

    let (status, deleted) = send(client.delete(server.url("/api/apps/tool"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({ "ok": true, "id": "tool" }));
    let (status, missing) = send(client.get(server.url("/api/apps/tool"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(missing["code"], "APP_NOT_FOUND");
    assert_eq!(missing["error"], "No app has the id \"tool\"");
}

#[tokio::test]
async fn bad_apps_are_refused_and_change_nothing() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for (body, status, code) in [
        (
            json!({ "name": "x", "repoPath": "relative/dir" }),
            400,
            "VALIDATION_ERROR",
        ),
        (json!({ "name": "  " }), 400, "VALIDATION_ERROR"),
        (json!({ "name": "x", "id": "a b" }), 400, "VALIDATION_ERROR"),
        (
            json!({ "name": "x", "shell": "rm" }),
            400,
            "VALIDATION_ERROR",
        ),
        (
            json!({ "name": "x", "tracker": "svn" }),
            400,
            "VALIDATION_ERROR",
        ),
        (json!({ "name": "!!!" }), 400, "VALIDATION_ERROR"),
    ] {
        let (got, error) = send(client.post(server.url("/api/apps")).json(&body)).await;
        assert_eq!(got.as_u16(), status, "{body}: {error}");
        assert_eq!(error["code"], code, "{body}");
    }
    let response = client
        .post(server.url("/api/apps"))
        .body("name=x")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);

    let (status, _) = send(
        client
            .post(server.url("/api/apps"))
            .json(&json!({ "name": "Once" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, again) = send(
        client
            .post(server.url("/api/apps"))
            .json(&json!({ "name": "once!" })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(again["code"], "APP_EXISTS");
    let (status, nothing) = send(client.put(server.url("/api/apps/once")).json(&json!({}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        nothing["error"],
        "Nothing to change: give name, repoPath, tracker or archived"
    );
    let (status, missing) = send(
        client
            .put(server.url("/api/apps/nope"))
            .json(&json!({ "name": "Nope" })),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(missing["code"], "APP_NOT_FOUND");

    let (_, list) = send(client.get(server.url("/api/apps"))).await;
    assert_eq!(list["apps"].as_array().map(Vec::len), Some(1), "{list}");
}

#[tokio::test]
async fn at_most_fifty_apps_are_runnable() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for n in 0..50 {
        let (status, app) = send(client.post(server.url("/api/apps")).json(&json!({
            "id": format!("app-{n}"), "name": format!("App {n}"), "repoPath": format!("/srv/app-{n}"),
        })))
        .await;
        assert_eq!(status, StatusCode::CREATED, "{app}");
    }
    let (status, refused) = send(client.post(server.url("/api/apps")).json(&json!({
        "id": "app-50", "name": "App 50", "repoPath": "/srv/app-50",
    })))
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["code"], "APP_LIMIT_REACHED");

    // Without a repository an app is not runnable, so it fits; giving it
    // one does not.
    let (status, _) = send(client.post(server.url("/api/apps")).json(&json!({
        "id": "idea", "name": "Idea",
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, refused) = send(
        client
            .put(server.url("/api/apps/idea"))
            .json(&json!({ "repoPath": "/srv/idea" })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(refused["code"], "APP_LIMIT_REACHED");

    // Archiving one frees a place.
    let (status, _) = send(
        client
            .put(server.url("/api/apps/app-0"))
            .json(&json!({ "archived": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, idea) = send(
        client
            .put(server.url("/api/apps/idea"))
            .json(&json!({ "repoPath": "/srv/idea" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{idea}");
    assert_eq!(idea["runnable"], true);
}

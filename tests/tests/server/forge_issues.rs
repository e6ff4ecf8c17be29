//! The forge-issue tools in the real binary (docs/reference.md#tool-families,
//! docs/reference.md#forge-issues), started with `PORTOS_GITHUB_API_URL`
//! pointing at a local GitHub stand-in and a token in `GITHUB_TOKEN`. This
//! server has no HTTP path on which the Persistent Mind calls a tool (its turn
//! loop is not served), so what is reachable from outside is checked: the mind
//! catalog lists both tools with the contract's policy and the stored grant,
//! every other scope is refused before the forge is contacted, and a bad API
//! URL stops start-up. The calls themselves are covered in the adapter tests.

use portos_tests::forge_standin::{Kind, StandIn};
use portos_tests::{ServerProcess, portos_command};
use reqwest::StatusCode;
use serde_json::{Value, json};

const TOKEN: &str = "ghp_blackbox_secret_42";

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

fn tool<'a>(catalog: &'a Value, name: &str) -> Option<&'a Value> {
    catalog["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == name)
}

#[tokio::test]
async fn the_mind_catalog_lists_the_issue_tools_and_no_other_scope_reaches_them() {
    let github = StandIn::start(Kind::Github, "acme/app", TOKEN).await;
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("temp dir"),
        &[],
        &[
            ("PORTOS_GITHUB_API_URL", github.api_url.as_str()),
            ("GITHUB_TOKEN", TOKEN),
        ],
    );
    let client = portos_tests::http_client();

    // An app on GitHub, in the roster.
    let repos = tempfile::tempdir().expect("temp dir");
    let repo = repos.path().join("app");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    std::fs::write(
        repo.join(".git/config"),
        "[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n",
    )
    .expect("config");
    let (status, app) = send(client.post(server.url("/api/apps")).json(&json!({
        "id": "app", "name": "App", "repoPath": repo.display().to_string(),
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{app}");

    // Off by default; independent of createTasks.
    let (_, catalog) = send(client.get(server.url("/api/cos/tools?scope=mind"))).await;
    for name in ["issues.list", "issues.file"] {
        let entry = tool(&catalog, name).expect("listed at mind");
        assert_eq!(entry["granted"], false, "{name}");
    }
    let (status, _) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({ "createTasks": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, catalog) = send(client.get(server.url("/api/cos/tools?scope=mind"))).await;
    assert_eq!(
        tool(&catalog, "issues.file").expect("listed")["granted"],
        false
    );

    let (status, _) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({ "fileIssues": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, catalog) = send(client.get(server.url("/api/cos/tools?scope=mind"))).await;
    for (name, side_effect, idempotent) in [
        ("issues.list", "read", true),
        ("issues.file", "write", false),
    ] {
        let entry = tool(&catalog, name).expect("listed at mind");
        assert_eq!(entry["granted"], true, "{name}");
        assert_eq!(entry["aliases"], json!([]), "{name}");
        assert_eq!(entry["providerName"], name.replace('.', "_"));
        let policy = &entry["policy"];
        assert_eq!(policy["scopes"], json!(["mind"]), "{name}");
        assert_eq!(policy["requiredCapabilities"], json!(["fileIssues"]));
        assert_eq!(policy["sideEffect"], side_effect);
        assert_eq!(policy["idempotent"], idempotent);
        assert_eq!(policy["async"], false);
        assert_eq!(policy["confirmation"], "capability-grant");
    }
    let schema = &tool(&catalog, "issues.file").expect("listed")["input_schema"];
    assert_eq!(
        schema["properties"]["model"]["enum"],
        json!(["light", "medium", "heavy", "ultra"])
    );
    assert_eq!(
        schema["properties"]["effort"]["enum"],
        json!(["low", "medium", "high", "xhigh", "max"])
    );
    assert_eq!(
        schema["required"],
        json!(["appId", "title", "body", "model", "effort"])
    );

    // Mind-only: listed nowhere else.
    for scope in ["agent", "ui", "voice"] {
        let (_, catalog) =
            send(client.get(server.url(&format!("/api/cos/tools?scope={scope}")))).await;
        assert!(tool(&catalog, "issues.list").is_none(), "{scope}");
        assert!(tool(&catalog, "issues.file").is_none(), "{scope}");
    }

    // The HTTP registry is the ui principal: refused before anything runs.
    for (name, arguments) in [
        ("issues.list", json!({ "appId": "app" })),
        (
            "issues.file",
            json!({ "appId": "app", "title": "T", "body": "B", "model": "heavy", "effort": "high" }),
        ),
    ] {
        let (status, body) = send(client.post(server.url("/api/cos/tools/call")).json(&json!({
            "requestId": format!("bb-{name}"), "name": name, "arguments": arguments,
        })))
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body["code"], "TOOL_SCOPE_DENIED");
        assert_eq!(
            body["error"],
            format!("Tool '{name}' is unavailable in the ui scope")
        );
    }
    assert!(
        github.received().is_empty(),
        "nothing reached the forge: {:?}",
        github.asked()
    );
}

/// Runs the binary until it stops; it must not start.
fn refused_start(args: &[&str], env: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = portos_command()
        .args(["--bind", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .args(test_postgres::database_args(dir.path()))
        .args(args)
        .env("GITHUB_TOKEN", TOKEN)
        .envs(env.iter().copied())
        .output()
        .expect("portos runs");
    assert!(!output.status.success(), "{args:?} {env:?} must not start");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains(TOKEN), "the token never shows: {stderr}");
    stderr
}

#[test]
fn a_forge_api_url_that_is_not_http_stops_start_up() {
    // From the environment, the flag and the TOML file alike.
    for (variable, value, forge) in [
        ("PORTOS_GITHUB_API_URL", "api.github.com", "GitHub"),
        (
            "PORTOS_GITLAB_API_URL",
            "ftp://gitlab.acme.corp/api/v4",
            "GitLab",
        ),
    ] {
        let stderr = refused_start(&[], &[(variable, value)]);
        assert!(
            stderr.contains(&format!("the {forge} API URL \"{value}\"")),
            "{stderr}"
        );
    }
    let stderr = refused_start(&["--github-api-url", "not a url"], &[]);
    assert!(
        stderr.contains("the GitHub API URL \"not a url\""),
        "{stderr}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("portos.toml");
    std::fs::write(&config, "gitlab-api-url = \"gopher://git.acme.corp\"\n").expect("config");
    let config = config.display().to_string();
    let stderr = refused_start(&["--config", &config], &[]);
    assert!(
        stderr.contains("the GitLab API URL \"gopher://git.acme.corp\""),
        "{stderr}"
    );
    // The flag wins over the file.
    let stderr = refused_start(
        &["--config", &config, "--gitlab-api-url", "mailto:x@y"],
        &[],
    );
    assert!(stderr.contains("\"mailto:x@y\""), "{stderr}");
}

//! The homelab's catalog holds exactly its six tools — none of PortOS's —
//! in every format and every scope of its own vocabulary, the same from
//! `--dump-catalog` as from `GET /api/tools`, and the assistant's
//! grants widen its catalogs to exactly the granted ones.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::{Server, dump, get_text, http_client, put};

const SCOPES: [&str; 4] = ["all", "assistant", "operator", "panel"];
const FORMATS: [&str; 4] = ["portos", "openai", "anthropic", "mcp"];

/// (canonical name, scopes, required capability) of every homelab tool.
const TOOLS: [(&str, &[&str], &str); 7] = [
    ("lab.hosts.add", &["assistant", "operator"], "writeLab"),
    (
        "lab.hosts.audit",
        &["assistant", "operator", "panel"],
        "readLab",
    ),
    (
        "lab.hosts.list",
        &["assistant", "operator", "panel"],
        "readLab",
    ),
    ("lab.hosts.probe", &["assistant", "operator"], "readLab"),
    ("lab.hosts.remove", &["assistant", "operator"], "writeLab"),
    ("lab.hosts.retire", &["assistant", "operator"], "writeLab"),
    ("lab.uptime", &["assistant", "operator", "panel"], "readLab"),
];

/// What the owner granted the assistant, the one scope that holds grants.
#[derive(Clone, Copy)]
struct Grants<'a> {
    assistant: &'a [&'a str],
}

const NONE: Grants<'static> = Grants { assistant: &[] };

fn provider(name: &str) -> String {
    name.replace(['.', '-'], "_")
}

/// The names a catalog of `scope` and `format` must list. The portos format
/// lists every tool of the scope (with `granted`); the provider formats of
/// the assistant's scope list only granted ones.
fn expected(scope: &str, format: &str, grants: Grants<'_>) -> Vec<String> {
    let granted: Option<&[&str]> = match scope {
        "assistant" => Some(grants.assistant),
        _ => None,
    };
    TOOLS
        .iter()
        .filter(|(_, scopes, _)| scope == "all" || scopes.contains(&scope))
        .filter(|(_, _, capability)| {
            format == "portos" || granted.is_none_or(|granted| granted.contains(capability))
        })
        .map(|(name, _, _)| {
            if format == "portos" {
                (*name).to_owned()
            } else {
                provider(name)
            }
        })
        .collect()
}

fn names(catalog: &Value, format: &str) -> Vec<String> {
    catalog["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|tool| {
            let name = if format == "openai" {
                &tool["function"]["name"]
            } else {
                &tool["name"]
            };
            name.as_str().expect("a name").to_owned()
        })
        .collect()
}

fn check(catalog: &Value, scope: &str, format: &str, grants: Grants<'_>, from: &str) {
    assert_eq!(
        catalog["type"],
        format!("{format}_tool_catalog"),
        "{from} {scope}/{format}"
    );
    assert_eq!(catalog["scope"], scope, "{from} {scope}/{format}");
    let listed = names(catalog, format);
    let mut wanted = expected(scope, format, grants);
    // Deterministic order: tools no contract orders come by name.
    wanted.sort();
    assert_eq!(listed, wanted, "{from} scope={scope} format={format}");
}

#[test]
fn dump_catalog_lists_exactly_the_homelab_tools_in_every_scope_and_format() {
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path().to_str().expect("utf-8 path");
    for scope in SCOPES {
        for format in FORMATS {
            let catalog = dump(&[
                "--data-dir",
                dir,
                "--dump-catalog",
                "--scope",
                scope,
                "--format",
                format,
            ]);
            check(&catalog, scope, format, NONE, "--dump-catalog");
        }
    }
    // A dump creates nothing: no file (but the suite's note of which
    // database is this directory's, on PostgreSQL), no table.
    let created: Vec<_> = std::fs::read_dir(data.path())
        .expect("dir")
        .map(|entry| entry.expect("entry").file_name())
        .filter(|name| name != ".test-database")
        .collect();
    assert!(created.is_empty(), "{created:?}");
    if let Some(tables) = test_postgres::query(
        data.path(),
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    ) {
        assert_eq!(tables, ["0"]);
    }
}

#[test]
fn the_portos_format_carries_each_tools_policy() {
    let catalog = dump(&["--dump-catalog"]);
    let policy = |name: &str| -> Value {
        catalog["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|tool| tool["name"] == name)
            .map(|tool| tool["policy"].clone())
            .unwrap_or_else(|| panic!("{name} is listed"))
    };
    let remove = policy("lab.hosts.remove");
    assert_eq!(remove["sideEffect"], "destructive");
    assert_eq!(remove["requiredCapabilities"], json!(["writeLab"]));
    assert_eq!(remove["scopes"], json!(["assistant", "operator"]));
    assert_eq!(remove["idempotent"], false);
    assert_eq!(policy("lab.hosts.add")["sideEffect"], "write");
    assert_eq!(policy("lab.uptime")["idempotent"], true);
    assert_eq!(
        catalog["stats"],
        json!({"total": 7, "read": 4, "write": 3, "granted": 0})
    );
    // The long-running ones say so, and the retirement needs a person's
    // confirmation when the assistant calls it.
    let retire = policy("lab.hosts.retire");
    assert_eq!(retire["longRunning"], true, "{retire}");
    assert_eq!(retire["confirmation"], "capability-grant");
    assert_eq!(policy("lab.hosts.probe")["longRunning"], true);
    assert_eq!(retire["async"], true);
    assert!(policy("lab.hosts.list").get("longRunning").is_none());

    let mcp = dump(&["--dump-catalog", "--format", "mcp"]);
    let remove = mcp["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == "lab_hosts_remove")
        .expect("listed");
    assert_eq!(remove["annotations"]["destructiveHint"], true);
    assert_eq!(remove["annotations"]["readOnlyHint"], false);
    // The input schema is closed and requires the name.
    assert_eq!(remove["inputSchema"]["additionalProperties"], false);
    assert_eq!(remove["inputSchema"]["required"], json!(["name"]));
}

#[tokio::test]
async fn served_catalogs_match_the_dumps_before_and_after_grants() {
    let server = Server::start(&[]);
    let client = http_client();
    let dir = server.data_dir.path().to_str().expect("utf-8 path");

    let compare = async |grants: Grants<'_>| {
        for scope in SCOPES {
            for format in FORMATS {
                let path = format!("/api/tools?scope={scope}&format={format}");
                let served = get_text(&client, &server, &path).await;
                let catalog: Value = serde_json::from_str(&served).expect("JSON");
                check(&catalog, scope, format, grants, "GET /api/tools");
                let dumped = dump(&[
                    "--data-dir",
                    dir,
                    "--dump-catalog",
                    "--scope",
                    scope,
                    "--format",
                    format,
                ]);
                assert_eq!(dumped, catalog, "dump and served differ: {scope}/{format}");
            }
        }
    };
    compare(NONE).await;

    // The runtime serves no grants route of any other application's
    // principals (PortOS's Persistent Mind has one; the homelab has none).
    let status = client
        .get(format!("{}/api/cos/mind/capabilities", server.base_url))
        .send()
        .await
        .expect("answered")
        .status();
    assert_eq!(status, 404);

    put(
        &client,
        &server,
        "/api/settings/mcp",
        &json!({"enabled": true, "actions": {"readLab": true}}),
    )
    .await;
    compare(Grants {
        assistant: &["readLab"],
    })
    .await;

    let assistant: Value =
        serde_json::from_str(&get_text(&client, &server, "/api/tools?scope=assistant").await)
            .expect("JSON");
    let granted: BTreeSet<&str> = assistant["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|tool| tool["granted"] == true)
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        granted,
        BTreeSet::from([
            "lab.hosts.audit",
            "lab.hosts.list",
            "lab.hosts.probe",
            "lab.uptime"
        ])
    );

    put(
        &client,
        &server,
        "/api/settings/mcp",
        &json!({"enabled": true, "actions": {"readLab": true, "writeLab": true}}),
    )
    .await;
    compare(Grants {
        assistant: &["readLab", "writeLab"],
    })
    .await;
}

/// The names in one list of a primitive catalog, with `granted`.
fn primitives_in(catalog: &Value, list: &str, key: &str) -> Vec<(String, Value)> {
    catalog[list]
        .as_array()
        .unwrap_or_else(|| panic!("{list}: {catalog}"))
        .iter()
        .map(|entry| {
            (
                entry[key].as_str().expect("named").to_owned(),
                entry["granted"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_primitive_catalog_lists_each_scopes_resources_and_prompts_as_served_and_dumped() {
    let server = Server::start(&[]);
    let client = http_client();
    let dir = server.data_dir.path().to_str().expect("utf-8 path");
    let both = async |scope: &str| {
        let served: Value = serde_json::from_str(
            &get_text(
                &client,
                &server,
                &format!("/api/tools/primitives?scope={scope}"),
            )
            .await,
        )
        .expect("JSON");
        let dumped = dump(&["--data-dir", dir, "--dump-primitives", "--scope", scope]);
        assert_eq!(dumped, served, "dump and served differ: {scope}");
        assert_eq!(served["type"], "portos_primitive_catalog");
        assert_eq!(served["scope"], scope);
        served
    };

    // The inventory, its host template and the triage prompt are the
    // assistant's; the panel has none; `all` tells no grants.
    let all = both("all").await;
    assert_eq!(
        primitives_in(&all, "resources", "uri"),
        [("lab://hosts".to_owned(), Value::Null)]
    );
    assert_eq!(
        primitives_in(&all, "resourceTemplates", "uriTemplate"),
        [("lab://hosts/{name}".to_owned(), Value::Null)]
    );
    assert_eq!(
        primitives_in(&all, "prompts", "name"),
        [("lab.triage".to_owned(), Value::Null)]
    );
    assert_eq!(
        all["resources"][0]["policy"],
        json!({"scopes": ["assistant"], "requiredCapabilities": ["readLab"]})
    );
    let panel = both("panel").await;
    for list in ["resources", "resourceTemplates", "prompts"] {
        assert_eq!(panel[list], json!([]), "{list}");
    }
    let assistant = both("assistant").await;
    assert_eq!(assistant["resources"][0]["granted"], false);

    // Granted `readLab`, the assistant may read and get them.
    put(
        &client,
        &server,
        "/api/settings/mcp",
        &json!({"enabled": true, "actions": {"readLab": true}}),
    )
    .await;
    let assistant = both("assistant").await;
    for list in ["resources", "resourceTemplates", "prompts"] {
        assert_eq!(assistant[list][0]["granted"], true, "{list}: {assistant}");
    }

    // The query is strict, as the tool catalog's.
    let refused = client
        .get(format!(
            "{}/api/tools/primitives?scope=root&format=mcp",
            server.base_url
        ))
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.expect("JSON");
    assert_eq!(body["code"], "VALIDATION_ERROR", "{body}");
}

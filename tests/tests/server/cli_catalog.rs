//! `portos --dump-catalog`: the served catalog, printed without binding a
//! port; golden snapshots of every scope × format of the real binary.

use std::process::Output;

use portos_tests::{ServerProcess, portos_command};
use serde_json::{Value, json};

const SCOPES: [&str; 5] = ["all", "agent", "mind", "ui", "voice"];
const FORMATS: [&str; 7] = [
    "portos",
    "openai",
    "anthropic",
    "mcp",
    "openai-strict",
    "anthropic-strict",
    "gemini",
];

fn dump(data_dir: &std::path::Path, args: &[&str]) -> Output {
    portos_command()
        .arg("--dump-catalog")
        .arg("--data-dir")
        .arg(data_dir)
        .args(test_postgres::database_args(data_dir))
        .args(args)
        .output()
        .expect("portos runs")
}

fn dump_json(data_dir: &std::path::Path, args: &[&str]) -> Value {
    let output = dump(data_dir, args);
    assert!(
        output.status.success(),
        "dump failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the dump is JSON")
}

#[test]
fn every_scope_and_format_matches_its_snapshot() {
    let dir = tempfile::tempdir().expect("temp dir");
    for scope in SCOPES {
        for format in FORMATS {
            let catalog = dump_json(dir.path(), &["--scope", scope, "--format", format]);
            assert_eq!(catalog["scope"], scope);
            assert_eq!(catalog["type"], format!("{format}_tool_catalog"));
            insta::assert_json_snapshot!(format!("catalog_{scope}_{format}"), catalog);
        }
    }
}

#[test]
fn voice_mcp_lists_the_23_voice_tools_in_contract_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let catalog = dump_json(dir.path(), &["--scope", "voice", "--format", "mcp"]);
    let names: Vec<&str> = catalog["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // docs/reference.md#scope-counts: eidoverse.status plus the 22 shared
    // adapters, the latter in the docs/reference.md#semantic-adapters table
    // order; MCP names are provider names.
    assert_eq!(
        names,
        [
            "eidoverse_status",
            "brain_capture",
            "brain_search",
            "brain_recent",
            "health_log_drink",
            "health_log_nicotine",
            "health_today",
            "health_log_weight",
            "health_log_workout",
            "goals_list",
            "goals_update_progress",
            "goals_log_note",
            "system_processes_status",
            "feeds_digest",
            "feeds_mark_read",
            "journal_append",
            "journal_read",
            "time_now",
            "calendar_today",
            "calendar_next",
            "weather_now",
            "cos_agents_status",
            "catalog_search",
        ]
    );
}

#[test]
fn every_scope_has_the_contract_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    // docs/reference.md#scope-counts and docs/reference.md#tool-families: voice
    // 23, agent and ui 32. Reads: 13 of the 22, eidoverse
    // status/chat/destinations, user-actions.query. Mind and all add the
    // mind-only family: the six mind.recipes.* tools (list and read are reads),
    // the Mind's seven self-management tools (mind.thinking-presets and
    // mind.local-context read), issues.list (read), issues.file and
    // cos.create-task.
    for (scope, total, read, write) in [
        ("voice", 23, 14, 9),
        ("agent", 32, 17, 15),
        ("ui", 32, 17, 15),
        ("mind", 48, 22, 26),
        ("all", 48, 22, 26),
    ] {
        let catalog = dump_json(dir.path(), &["--scope", scope]);
        assert_eq!(catalog["stats"]["total"], total, "{scope}");
        assert_eq!(catalog["stats"]["read"], read, "{scope}");
        assert_eq!(catalog["stats"]["write"], write, "{scope}");
    }
}

#[test]
fn aliases_follow_the_name_resolution_rule() {
    // docs/reference.md#name-resolution: a tool's aliases carry its provider
    // name, except the tools listed there with `aliases: []` (forge issues,
    // recipes, the thinking and local-context tools); a voice-derived tool has
    // its legacy voice name first.
    const NO_ALIASES: [&str; 6] = [
        "issues.list",
        "issues.file",
        "mind.thinking-presets",
        "mind.request-thinking-preset",
        "mind.local-context",
        "mind.adjust-local-context",
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let catalog = dump_json(dir.path(), &["--scope", "all"]);
    for tool in catalog["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default();
        let aliases: Vec<&str> = tool["aliases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if NO_ALIASES.contains(&name) || name.starts_with("mind.recipes.") {
            assert!(aliases.is_empty(), "{name}: {aliases:?}");
        } else {
            assert!(
                aliases.contains(&tool["providerName"].as_str().unwrap_or("?")),
                "{name}: {aliases:?}"
            );
        }
    }
    let status = catalog["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tool| tool["name"] == "cos.agents.status");
    assert_eq!(
        status.map(|tool| tool["aliases"].clone()),
        Some(json!(["code_agent_status", "cos_agents_status"]))
    );
}

#[test]
fn defaults_are_scope_all_and_format_portos() {
    let dir = tempfile::tempdir().expect("temp dir");
    let catalog = dump_json(dir.path(), &[]);
    assert_eq!(catalog["type"], "portos_tool_catalog");
    assert_eq!(catalog["scope"], "all");
    assert_eq!(catalog["stats"]["total"], 48);
}

#[test]
fn a_bad_value_exits_2_with_one_line_naming_the_allowed_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (flag, value, allowed) in [
        ("--scope", "root", "all, agent, mind, ui, voice"),
        (
            "--format",
            "xml",
            "portos, openai, anthropic, mcp, openai-strict, anthropic-strict, gemini",
        ),
    ] {
        let output = dump(dir.path(), &[flag, value]);
        assert_eq!(output.status.code(), Some(2));
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "one line, got {stderr:?}");
        assert!(
            stderr.contains(value) && stderr.contains(allowed),
            "{stderr}"
        );
    }
    let long_intent = "x".repeat(501);
    let output = dump(dir.path(), &["--intent", &long_intent]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1);
}

#[test]
fn catalog_flags_need_dump_catalog() {
    let output = portos_command()
        .args(["--scope", "voice"])
        .output()
        .expect("portos runs");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn bad_outbound_entries_stop_start_up_and_name_each_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| {
        portos_command()
            .env_remove("PORTOS_OUTBOUND_ONLY")
            .arg("--data-dir")
            .arg(dir.path())
            .args(args)
            .arg("--dump-routes")
            .output()
            .expect("portos runs")
    };
    let output = run(&["--outbound-allow", "10.0.0.0/33,feeds.lan,exa mple"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`10.0.0.0/33` is not an outbound allow entry")
            && stderr.contains("`exa mple` is not an outbound allow entry")
            && !stderr.contains("`feeds.lan` is not"),
        "{stderr}"
    );
    let output = run(&["--outbound-allow", "loopback", "--outbound-only", "none"]);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("not both"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(run(&["--outbound-only", "none"]).status.success());
    let output = run(&[
        "--outbound-hosts",
        "feeds.lan=192.168.1.20,feeds.lan,=10.0.0.1,lan=fd00::1",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--outbound-hosts")
            && stderr.contains("`feeds.lan` is not a pinned host")
            && stderr.contains("`=10.0.0.1` is not a pinned host")
            && !stderr.contains("`lan=fd00::1`"),
        "{stderr}"
    );
}

#[test]
fn dumping_creates_nothing() {
    let parent = tempfile::tempdir().expect("temp dir");
    let data_dir = parent.path().join("never-created");
    let catalog = dump_json(&data_dir, &["--scope", "ui"]);
    assert_eq!(catalog["scope"], "ui");
    assert!(
        !data_dir.exists(),
        "a dump must not create the data directory"
    );
}

#[test]
fn intent_narrows_only_the_voice_groups() {
    let dir = tempfile::tempdir().expect("temp dir");
    let catalog = dump_json(
        dir.path(),
        &["--scope", "voice", "--intent", "what time is it"],
    );
    let names: Vec<&str> = catalog["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // docs/reference.md#intent-filtering's example: the ungrouped
    // journal.append and time.now, plus eidoverse.status, which intent never
    // filters.
    assert_eq!(names, ["eidoverse.status", "journal.append", "time.now"]);
    let catalog = dump_json(
        dir.path(),
        &["--scope", "voice", "--intent", "search my brain for tacos"],
    );
    assert_eq!(catalog["stats"]["total"], 6);
}

#[test]
fn mind_grants_are_read_from_the_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = portos_tests::open_store(dir.path());
    store
        .run_blocking(|connection| {
            portos_server::settings::set_json(
                connection,
                portos::MIND_GRANTS_KEY,
                &serde_json::json!({"readPortos": true, "writePortos": "yes"}),
            )
        })
        .expect("grants stored");
    drop(store);

    let catalog = dump_json(dir.path(), &["--scope", "mind"]);
    for tool in catalog["tools"].as_array().expect("tools") {
        // readPortos alone grants exactly the reads that need nothing else
        // ("yes" is not `true`, so writePortos stays off).
        let needs_only_read_portos = tool["policy"]["requiredCapabilities"]
            .as_array()
            .expect("capabilities")
            .iter()
            .all(|capability| capability == "readPortos");
        let expected = tool["policy"]["sideEffect"] == "read" && needs_only_read_portos;
        assert_eq!(tool["granted"], expected, "{}", tool["name"]);
    }
    // 13 shared reads, eidoverse.status and eidoverse.chat, user-actions.query
    // (eidoverse.destinations also needs visitEidoversePeers).
    assert_eq!(catalog["stats"]["granted"], 16);
    // Provider formats drop what is not granted.
    let openai = dump_json(dir.path(), &["--scope", "mind", "--format", "openai"]);
    assert_eq!(openai["tools"].as_array().map(Vec::len), Some(16));
    // Scope `ui` never reports grants.
    let ui = dump_json(dir.path(), &["--scope", "ui"]);
    assert!(
        ui["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .all(|t| t["granted"].is_null())
    );
}

#[tokio::test]
async fn the_dump_is_byte_identical_to_the_served_body() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for (scope, format) in [
        ("voice", "mcp"),
        ("all", "portos"),
        ("mind", "anthropic"),
        ("agent", "openai-strict"),
        ("ui", "anthropic-strict"),
        ("voice", "gemini"),
    ] {
        let served = client
            .get(server.url(&format!("/api/cos/tools?scope={scope}&format={format}")))
            .send()
            .await
            .expect("catalog request")
            .bytes()
            .await
            .expect("body");
        let dumped = dump(
            server.data_dir.path(),
            &["--scope", scope, "--format", format],
        );
        assert!(dumped.status.success());
        let mut expected = served.to_vec();
        expected.push(b'\n');
        assert_eq!(dumped.stdout, expected, "{scope}/{format}");
    }
}

fn report(data_dir: &std::path::Path, args: &[&str]) -> Output {
    portos_command()
        .arg("--dump-projection-report")
        .arg("--data-dir")
        .arg(data_dir)
        .args(test_postgres::database_args(data_dir))
        .args(args)
        .output()
        .expect("portos runs")
}

#[test]
fn the_projection_report_is_the_strict_catalogs_projection_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    for format in ["openai-strict", "anthropic-strict", "gemini"] {
        let output = report(dir.path(), &["--format", format, "--scope", "agent"]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let catalog = dump_json(dir.path(), &["--scope", "agent", "--format", format]);
        assert_eq!(report["format"], format);
        assert_eq!(report["scope"], "agent");
        assert_eq!(report["tools"], catalog["projection"]);
    }
    // eidoverse.augment's free-form `args` cannot be strict: it is offered
    // unconstrained, with its declared reason.
    let output = report(dir.path(), &["--format", "openai-strict"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let augment = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["tool"] == "eidoverse_augment")
        .expect("augment is reported");
    assert_eq!(augment["strict"], false);
    assert!(
        augment["reason"]
            .as_str()
            .is_some_and(|r| r.contains("free-form"))
    );
}

#[test]
fn the_projection_report_needs_a_strict_format() {
    let dir = tempfile::tempdir().expect("temp dir");
    for args in [&["--format", "openai"][..], &[][..]] {
        let output = report(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("openai-strict, anthropic-strict, gemini"),
            "{stderr}"
        );
    }
}

#[test]
fn strict_formats_offer_only_what_the_provider_subsets_take() {
    let dir = tempfile::tempdir().expect("temp dir");
    let openai = dump_json(dir.path(), &["--format", "openai-strict"]);
    for tool in openai["tools"].as_array().expect("tools") {
        let function = &tool["function"];
        // The tools that declare `not_strict`: a free-form operation list,
        // and a recipe definition (a program with its own validator).
        if [
            "eidoverse_augment",
            "mind_recipes_create",
            "mind_recipes_update",
        ]
        .contains(&function["name"].as_str().unwrap_or_default())
        {
            assert_eq!(function["strict"], false, "{}", function["name"]);
            continue;
        }
        assert_eq!(function["strict"], true, "{}", function["name"]);
        let text = function["parameters"].to_string();
        for keyword in [
            "\"minLength\"",
            "\"maxLength\"",
            "\"uniqueItems\"",
            "\"default\"",
            "\"propertyNames\"",
        ] {
            assert!(!text.contains(keyword), "{keyword} in {}", function["name"]);
        }
    }
}

#[test]
fn the_primitive_catalog_of_every_scope_matches_its_snapshot() {
    let dir = tempfile::tempdir().expect("temp dir");
    for scope in SCOPES {
        let output = portos_command()
            .args(["--dump-primitives", "--scope", scope, "--data-dir"])
            .arg(dir.path())
            .args(test_postgres::database_args(dir.path()))
            .output()
            .expect("portos runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let catalog: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(catalog["type"], "portos_primitive_catalog");
        assert_eq!(catalog["scope"], scope);
        insta::assert_json_snapshot!(format!("primitives_{scope}"), catalog);
    }
    // It takes a scope, not a format.
    let output = portos_command()
        .args(["--dump-primitives", "--format", "mcp", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("portos runs");
    assert_eq!(output.status.code(), Some(2));
}

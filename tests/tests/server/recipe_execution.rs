//! Saved recipes as tools (docs/reference.md#recipe-catalog,
//! docs/reference.md#recipe-execution, docs/reference.md#fail-closed-rules,
//! docs/reference.md#turn-budgets, docs/reference.md#fingerprint) against the
//! real binary: projected into the mind and agent catalogs with their `recipe`
//! block and a new ETag per change, run by the Persistent Mind within its
//! shared five-call turn budget, run by an Agent Tools MCP client with its own
//! five-child budget, refused outside mind and agent, and fail-closed when
//! archived or when the grant is gone.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::scripted_model::{Answer, ScriptedModel};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `steps` reads of the brain's newest capture, each a child call.
fn reads(name: &str, steps: usize) -> Value {
    let steps: Vec<Value> = (1..=steps)
        .map(|n| {
            json!({
                "id": format!("s{n}"),
                "tool": "brain.recent",
                "arguments": { "limit": { "literal": 1 } }
            })
        })
        .collect();
    let last = format!("s{}", steps.len());
    json!({
        "schemaVersion": 1,
        "name": name,
        "purpose": "Read the newest brain capture, again and again.",
        "parameters": { "type": "object", "properties": {}, "additionalProperties": false },
        "steps": steps,
        "outputs": { "items": { "step": last, "path": ["items"] } }
    })
}

async fn save(client: &Client, server: &ServerProcess, definition: Value) -> Value {
    let (status, created) = send(
        client
            .post(server.url("/api/cos/mind/recipes"))
            .json(&json!({ "definition": definition })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["recipe"].clone()
}

async fn grant_mind(client: &Client, server: &ServerProcess, grants: Value) {
    let (status, body) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&grants),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn catalog(client: &Client, server: &ServerProcess, query: &str) -> (String, Value) {
    let response = client
        .get(server.url(&format!("/api/cos/tools?{query}")))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let etag = response.headers()["etag"]
        .to_str()
        .expect("ascii")
        .to_owned();
    (etag, response.json().await.expect("json"))
}

fn entry<'a>(catalog: &'a Value, name: &str) -> Option<&'a Value> {
    catalog["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tool| tool["name"] == name || tool["function"]["name"] == name)
}

#[tokio::test]
async fn recipes_are_listed_in_the_mind_and_agent_catalogs_with_a_new_etag_per_change() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    grant_mind(
        &client,
        &server,
        json!({ "readPortos": true, "manageToolRecipes": true }),
    )
    .await;
    let (before, _) = catalog(&client, &server, "scope=mind").await;
    let recipe = save(&client, &server, reads("recipe.newest", 2)).await;
    let id = recipe["id"].as_str().expect("id").to_owned();

    let (listed_etag, mind) = catalog(&client, &server, "scope=mind").await;
    assert_ne!(before, listed_etag, "a new recipe is a new catalog");
    let listed = entry(&mind, "recipe.newest").expect("listed");
    assert_eq!(listed["providerName"], "recipe_newest");
    assert_eq!(listed["aliases"], json!([]));
    assert_eq!(listed["granted"], true);
    assert_eq!(listed["policy"]["scopes"], json!(["mind"]));
    assert_eq!(listed["policy"]["sideEffect"], "read");
    assert_eq!(
        listed["policy"]["requiredCapabilities"],
        json!(["manageToolRecipes", "readPortos"])
    );
    assert_eq!(
        listed["recipe"],
        json!({
            "id": id,
            "source": "persistent-mind-library",
            "revision": 1,
            "scope": "mind",
            "available": true,
            "underlyingTools": ["brain.recent"],
        })
    );
    // Never the definition, its bindings or history.
    assert!(!listed.to_string().contains("arguments"), "{listed}");
    // `all` is the linked tools only.
    let (_, all) = catalog(&client, &server, "scope=all").await;
    assert!(entry(&all, "recipe.newest").is_none());
    // Provider formats: the purpose with the local revision suffix.
    let (_, openai) = catalog(&client, &server, "scope=mind&format=openai").await;
    assert_eq!(
        entry(&openai, "recipe_newest").map(|tool| tool["function"]["description"].clone()),
        Some(json!(
            "Read the newest brain capture, again and again. Saved local Persistent Mind recipe revision 1."
        ))
    );
    // The agent sees it only with callToolRecipes: listed ungranted with why.
    let (_, agent) = catalog(&client, &server, "scope=agent").await;
    let for_agent = entry(&agent, "recipe.newest").expect("listed for agents");
    assert_eq!(for_agent["granted"], false);
    assert_eq!(
        for_agent["recipe"]["disabledReason"],
        "Saved recipe access is disabled for CoS Agent MCP."
    );
    assert_eq!(
        for_agent["policy"]["requiredCapabilities"],
        json!(["callToolRecipes", "readPortos"])
    );

    // Archived: gone from discovery, and the ETag moves again.
    let (status, archived) = send(
        client
            .post(server.url(&format!("/api/cos/mind/recipes/{id}/archive")))
            .json(&json!({ "expectedRevision": 1 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{archived}");
    let (archived_etag, mind) = catalog(&client, &server, "scope=mind").await;
    assert_ne!(archived_etag, listed_etag);
    assert!(entry(&mind, "recipe.newest").is_none());
}

#[tokio::test]
async fn a_recipe_name_outside_mind_and_agent_is_a_scope_refusal() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, refused) = send(client.post(server.url("/api/cos/tools/call")).json(&json!({
        "requestId": "r-1",
        "name": "recipe.anything",
        "arguments": {}
    })))
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], "TOOL_SCOPE_DENIED");
    assert_eq!(refused["error"], "Recipes require mind or agent scope");
}

/// The envelope a turn's call showed the model.
fn shown(call: &Value) -> Value {
    serde_json::from_str(call["outcome"].as_str().unwrap_or("null")).unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_five_step_recipe_in_a_fresh_turn_runs_four_children_and_ends_partial() {
    let model = ScriptedModel::start(vec![
        Answer::calls(&[("c1", "recipe_five_reads", json!({}))]),
        Answer::text("Partly read."),
    ])
    .await;
    let server = ServerProcess::start(&[
        "--mind-provider-url",
        model.url.as_str(),
        "--mind-model",
        "scripted-model",
    ]);
    model.set_portos(&server.base_url);
    let client = portos_tests::http_client();
    grant_mind(
        &client,
        &server,
        json!({ "readPortos": true, "manageToolRecipes": true }),
    )
    .await;
    let recipe = save(&client, &server, reads("recipe.five-reads", 5)).await;

    let (status, turn) = send(
        client
            .post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "prompt": "Read it five times." })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{turn}");
    assert_eq!(turn["state"], "completed", "{turn}");
    let call = &turn["calls"][0];
    assert_eq!(call["name"], "recipe.five-reads", "{turn}");
    assert_eq!(call["state"], "failed", "{turn}");
    let envelope = shown(call);
    let result = &envelope["result"];
    assert_eq!(result["state"], "partial", "{envelope}");
    assert_eq!(result["failingStep"], "s5");
    assert_eq!(result["recipeId"], recipe["id"]);
    assert_eq!(
        result["error"],
        "Shared turn tool-call budget exhausted; remaining steps were stopped"
    );
    let completed = result["outcomes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|outcome| outcome["state"] == "completed")
        .count();
    assert_eq!(completed, 4, "{result}");
    // The recipe call itself and its four children: the turn's five.
    assert_eq!(turn["budget"]["callsUsed"], 5, "{turn}");
    // The capability events: each child, then the run's failure; never a
    // child's result.
    let (status, events) = send(client.get(server.url("/api/cos/mind/recipes/events"))).await;
    assert_eq!(status, StatusCode::OK, "{events}");
    let events = events["events"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|event| {
            (
                event["kind"].as_str().unwrap_or_default(),
                event["state"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("failure", "partial"),
            ("step", "completed"),
            ("step", "completed"),
            ("step", "completed"),
            ("step", "completed"),
        ],
        "{events:?}"
    );
    assert!(events.iter().all(|event| event["recipeId"] == recipe["id"]));
    assert_eq!(events[0]["step"], "s5");
    assert!(
        events[1]["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("recipe-step:recipe-")),
        "{events:?}"
    );
    assert!(
        !serde_json::to_string(&events)
            .unwrap_or_default()
            .contains("\"items\"")
    );
    // The model was offered it as a tool and told of it in the prompt.
    let first = &model.requests()[0];
    assert!(first.tool_names().contains(&"recipe_five_reads".to_owned()));
    let system = first.messages()[0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        system.contains("Saved recipes you may call")
            && system.contains("\"name\":\"recipe.five-reads\""),
        "{system}"
    );
}

#[tokio::test]
async fn an_agent_runs_recipes_only_with_call_tool_recipes_within_its_own_budget() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let small = save(&client, &server, reads("recipe.two-reads", 2)).await;
    assert_eq!(small["available"], true, "{small}");
    let settings = |recipes: bool| {
        json!({
            "enabled": true,
            "actions": { "readPortos": true, "callToolRecipes": recipes }
        })
    };
    let (status, body) = send(
        client
            .put(server.url("/api/settings/agent-context"))
            .json(&settings(false)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mcp = |message: Value| {
        client
            .post(server.url("/api/agent-context/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_string())
    };
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (_, listed) = send(mcp(list.clone())).await;
    let names: Vec<String> = listed["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect();
    assert!(
        !names.iter().any(|name| name.starts_with("recipe_")),
        "{names:?}"
    );
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "recipe_two_reads", "arguments": {}}})
    };
    let (_, refused) = send(mcp(call(2))).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refused.to_string().contains("Recipe access is not granted"),
        "{refused}"
    );

    let (status, _) = send(
        client
            .put(server.url("/api/settings/agent-context"))
            .json(&settings(true)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, listed) = send(mcp(list)).await;
    assert!(listed.to_string().contains("recipe_two_reads"), "{listed}");
    let (_, ran) = send(mcp(call(3))).await;
    assert_ne!(ran["result"]["isError"], true, "{ran}");
    assert!(ran.to_string().contains("\"completed\""), "{ran}");

    // Five steps, outside any turn: the call's own budget of five
    // children holds them all.
    save(&client, &server, reads("recipe.five-reads", 5)).await;
    let (_, ran) = send(mcp(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "recipe_five_reads", "arguments": {}}}),
    ))
    .await;
    assert_ne!(ran["result"]["isError"], true, "five children fit: {ran}");
    assert!(ran.to_string().contains("\"completed\""), "{ran}");
}

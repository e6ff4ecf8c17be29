//! Saved read recipes against the real binary
//! (docs/reference.md#recipe-definition, docs/reference.md#recipe-storage): the
//! REST routes people review them through, every refusal code of the library
//! with nothing changed, hostile definitions, and the six `mind.recipes.*`
//! tools as the Persistent Mind calls them in a turn (scope `mind`,
//! `manageToolRecipes`), refused over HTTP's `ui` scope and without the grant.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::scripted_model::{Answer, ScriptedModel};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

/// A valid definition: the latest brain capture's text, searched for.
fn definition(name: &str) -> Value {
    json!({
        "schemaVersion": 1,
        "name": name,
        "purpose": "Search the brain for the latest capture's text.",
        "parameters": {
            "type": "object",
            "properties": { "limit": { "type": "integer" } },
            "required": ["limit"],
            "additionalProperties": false
        },
        "steps": [
            { "id": "recent", "tool": "brain.recent", "arguments": { "limit": { "input": "limit" } } },
            {
                "id": "search",
                "tool": "brain.search",
                "arguments": { "query": { "step": "recent", "path": ["items", 0, "text"] } }
            }
        ],
        "outputs": { "hits": { "step": "search", "path": ["hits"] } }
    })
}

/// The definition with a write tool as its first step.
fn writing(name: &str) -> Value {
    let mut bad = definition(name);
    bad["steps"][0] = json!({ "id": "recent", "tool": "brain.capture", "arguments": { "text": { "literal": "x" } } });
    bad
}

struct Recipes<'a> {
    server: &'a ServerProcess,
    client: reqwest::Client,
}

impl Recipes<'_> {
    fn url(&self, path: &str) -> String {
        self.server.url(&format!("/api/cos/mind/recipes{path}"))
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        send(self.client.get(self.url(path))).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        send(self.client.post(self.url(path)).json(&body)).await
    }

    async fn put(&self, path: &str, body: Value) -> (StatusCode, Value) {
        send(self.client.put(self.url(path)).json(&body)).await
    }

    /// The active definition and revision of `id`.
    async fn active(&self, id: &str) -> (Value, i64) {
        let (status, read) = self.get(&format!("/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{read}");
        (
            read["recipe"]["definition"].clone(),
            read["recipe"]["activeRevision"].as_i64().expect("revision"),
        )
    }
}

fn assert_error(status: StatusCode, body: &Value, want: StatusCode, code: &str) {
    assert_eq!(status, want, "{body}");
    assert_eq!(body["code"], code, "{body}");
}

#[tokio::test]
async fn people_review_and_manage_recipes_over_rest() {
    let server = ServerProcess::start(&[]);
    let recipes = Recipes {
        server: &server,
        client: portos_tests::http_client(),
    };
    let (status, empty) = recipes.get("").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        empty,
        json!({ "recipes": [], "total": 0, "limit": 10, "offset": 0 })
    );

    let (status, created) = recipes
        .post("", json!({ "definition": definition("recipe.brain-echo") }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let recipe = &created["recipe"];
    let id = recipe["id"].as_str().expect("id").to_owned();
    assert_eq!(recipe["name"], "recipe.brain-echo");
    assert_eq!(recipe["activeRevision"], 1);
    assert_eq!(recipe["archived"], false);
    assert_eq!(recipe["available"], true);
    assert_eq!(recipe["definition"], definition("recipe.brain-echo"));
    for key in ["createdAt", "updatedAt"] {
        assert!(recipe[key].is_string(), "{key}");
    }

    // An invalid update: 400 with where, and the previous definition stays.
    let (status, refused) = recipes
        .put(
            &format!("/{id}"),
            json!({ "definition": writing("recipe.brain-echo"), "expectedRevision": 1 }),
        )
        .await;
    assert_error(
        status,
        &refused,
        StatusCode::BAD_REQUEST,
        "RECIPE_VALIDATION_ERROR",
    );
    assert_eq!(refused["context"]["field"], "steps[0].tool");
    assert_eq!(refused["context"]["step"], "recent");
    assert_eq!(
        recipes.active(&id).await,
        (definition("recipe.brain-echo"), 1)
    );

    // A valid update, then a stale one.
    let mut second = definition("recipe.brain-echo");
    second["purpose"] = json!("The second purpose.");
    let (status, updated) = recipes
        .put(
            &format!("/{id}"),
            json!({ "definition": second, "expectedRevision": 1 }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["recipe"]["activeRevision"], 2);
    let (status, stale) = recipes
        .put(
            &format!("/{id}"),
            json!({ "definition": definition("recipe.brain-echo"), "expectedRevision": 1 }),
        )
        .await;
    assert_error(
        status,
        &stale,
        StatusCode::CONFLICT,
        "RECIPE_REVISION_CONFLICT",
    );

    // Archive (twice: the second changes nothing), then restore revision 1.
    let (status, archived) = recipes
        .post(&format!("/{id}/archive"), json!({ "expectedRevision": 2 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{archived}");
    assert_eq!(archived["recipe"]["archived"], true);
    assert_eq!(archived["recipe"]["available"], false);
    assert_eq!(archived["recipe"]["activeRevision"], 3);
    let (status, again) = recipes
        .post(&format!("/{id}/archive"), json!({ "expectedRevision": 3 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["changed"], false);
    assert_eq!(again["recipe"]["activeRevision"], 3);
    let (status, missing) = recipes
        .post(
            &format!("/{id}/restore"),
            json!({ "revision": 99, "expectedRevision": 3 }),
        )
        .await;
    assert_error(status, &missing, StatusCode::NOT_FOUND, "RECIPE_NOT_FOUND");
    let (status, restored) = recipes
        .post(
            &format!("/{id}/restore"),
            json!({ "revision": 1, "expectedRevision": 3 }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{restored}");
    assert_eq!(
        recipes.active(&id).await,
        (definition("recipe.brain-echo"), 4)
    );

    // The history, newest first, paged.
    let (_, read) = recipes.get(&format!("/{id}?limit=3&offset=1")).await;
    assert_eq!(read["totalVersions"], 4);
    let history: Vec<(i64, bool, &str)> = read["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            (
                v["revision"].as_i64().expect("revision"),
                v["archived"].as_bool().expect("archived"),
                v["author"].as_str().expect("author"),
            )
        })
        .collect();
    assert_eq!(
        history,
        [(3, true, "user"), (2, false, "user"), (1, false, "user")]
    );

    // Every other refusal.
    let (status, body) = recipes.get("/00000000-0000-4000-8000-000000000000").await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "RECIPE_NOT_FOUND");
    let (status, body) = recipes
        .post("", json!({ "definition": definition("recipe.brain-echo") }))
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "RECIPE_NAME_CONFLICT");
    let mut future = definition("recipe.future");
    future["schemaVersion"] = json!(2);
    let (status, body) = recipes.post("", json!({ "definition": future })).await;
    assert_error(
        status,
        &body,
        StatusCode::CONFLICT,
        "RECIPE_VERSION_UNSUPPORTED",
    );
    let (status, body) = recipes.get("?limit=21").await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = recipes
        .post(
            "",
            json!({ "definition": definition("recipe.x"), "author": "mind" }),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (_, list) = recipes.get("").await;
    assert_eq!(list["total"], 1, "refusals stored nothing: {list}");

    // Kept across a restart.
    let dir = server.kill();
    let restarted = ServerProcess::start_in(dir, &[]);
    let recipes = Recipes {
        server: &restarted,
        client: portos_tests::http_client(),
    };
    assert_eq!(recipes.active(&id).await.1, 4);
}

#[tokio::test]
async fn hostile_definitions_are_refused_and_change_nothing() {
    let server = ServerProcess::start(&[]);
    let recipes = Recipes {
        server: &server,
        client: portos_tests::http_client(),
    };
    let mut deep = json!("bottom");
    for _ in 0..40 {
        deep = json!({ "a": deep });
    }
    let mut nested = definition("recipe.deep");
    nested["outputs"]["deep"] = json!({ "literal": deep });
    let mut proto = definition("recipe.proto");
    proto["parameters"]["properties"]["__proto__"] = json!({ "type": "string" });
    let mut constructor = definition("recipe.ctor");
    constructor["outputs"]["constructor"] = json!({ "literal": 1 });
    let mut huge = definition("recipe.huge");
    huge["purpose"] = json!("x".repeat(20_000));
    let mut forward = definition("recipe.forward");
    forward["steps"][0]["arguments"]["limit"] = json!({ "step": "search", "path": ["count"] });
    let mut long_path = definition("recipe.path");
    long_path["outputs"]["hits"]["path"] = json!(["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    let mut six_steps = definition("recipe.six");
    six_steps["steps"] = json!(
        (0..6)
            .map(|i| json!({ "id": format!("s{i}"), "tool": "time.now" }))
            .collect::<Vec<_>>()
    );
    let mut recursive = definition("recipe.recursive");
    recursive["steps"][0]["tool"] = json!("recipe.brain-echo");
    let mut alias = definition("recipe.alias");
    alias["steps"][0]["tool"] = json!("brain_recent");
    for hostile in [
        nested,
        proto,
        constructor,
        huge,
        forward,
        long_path,
        six_steps,
        recursive,
        alias,
        json!("recipe"),
        json!([]),
        json!(null),
    ] {
        let (status, body) = recipes.post("", json!({ "definition": hostile })).await;
        assert_error(
            status,
            &body,
            StatusCode::BAD_REQUEST,
            "RECIPE_VALIDATION_ERROR",
        );
    }
    let (_, list) = recipes.get("").await;
    assert_eq!(list["total"], 0, "{list}");
}

#[tokio::test]
async fn the_recipe_tools_are_mind_only() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, refused) = send(client.post(server.url("/api/cos/tools/call")).json(&json!({
        "requestId": "ui-recipes-1",
        "name": "mind.recipes.list",
        "arguments": {},
    })))
    .await;
    assert_error(status, &refused, StatusCode::FORBIDDEN, "TOOL_SCOPE_DENIED");
    let (_, catalog) = send(client.get(server.url("/api/cos/tools?scope=mind"))).await;
    let names: Vec<&str> = catalog["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .filter(|name| name.starts_with("mind.recipes."))
        .collect();
    assert_eq!(
        names,
        [
            "mind.recipes.create",
            "mind.recipes.list",
            "mind.recipes.read",
            "mind.recipes.update",
            "mind.recipes.archive",
            "mind.recipes.restore",
        ]
    );
    for tool in catalog["tools"].as_array().expect("tools") {
        if tool["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("mind.recipes."))
        {
            assert_eq!(tool["policy"]["scopes"], json!(["mind"]));
            assert_eq!(
                tool["policy"]["requiredCapabilities"],
                json!(["manageToolRecipes"])
            );
            assert_eq!(tool["policy"]["idempotent"], true);
            assert_eq!(tool["policy"]["confirmation"], "capability-grant");
        }
    }
}

/// The envelope a turn's call showed the model.
fn shown(call: &Value) -> Value {
    serde_json::from_str(call["outcome"].as_str().expect("outcome")).expect("JSON outcome")
}

#[tokio::test]
async fn the_mind_manages_its_recipes_in_a_turn() {
    let model_calls = |id: &str| {
        vec![
            Answer::calls(&[
                (
                    "c1",
                    "mind_recipes_create",
                    json!({ "definition": definition("recipe.mind-made") }),
                ),
                ("c2", "mind_recipes_list", json!({ "limit": 5 })),
                ("c3", "mind_recipes_read", json!({ "id": id })),
                (
                    "c4",
                    "mind_recipes_update",
                    json!({ "id": id, "definition": writing("recipe.people"), "expectedRevision": 1 }),
                ),
                (
                    "c5",
                    "mind_recipes_archive",
                    json!({ "id": id, "expectedRevision": 1 }),
                ),
            ]),
            Answer::text("Saved one, archived one."),
            Answer::calls(&[
                (
                    "c6",
                    "mind_recipes_restore",
                    json!({ "id": id, "revision": 1, "expectedRevision": 2 }),
                ),
                (
                    "c7",
                    "mind_recipes_update",
                    json!({ "id": id, "definition": definition("recipe.people"), "expectedRevision": 1 }),
                ),
            ]),
            Answer::text("Restored it."),
            Answer::calls(&[("c8", "mind_recipes_list", json!({}))]),
            Answer::text("I may no longer."),
        ]
    };
    // The id is known only once a person saved the recipe: save it first,
    // then start the Mind's model with a script that names it.
    let server_dir = tempfile::tempdir().expect("temp dir");
    let first = ServerProcess::start_in(server_dir, &[]);
    let client = portos_tests::http_client();
    let (status, created) = send(
        client
            .post(first.url("/api/cos/mind/recipes"))
            .json(&json!({ "definition": definition("recipe.people") })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["recipe"]["id"].as_str().expect("id").to_owned();
    let dir = first.kill();

    let model = ScriptedModel::start(model_calls(&id)).await;
    let server = ServerProcess::start_in(
        dir,
        &[
            "--mind-provider-url",
            model.url.as_str(),
            "--mind-model",
            "scripted-model",
        ],
    );
    model.set_portos(&server.base_url);
    let (status, _) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({ "manageToolRecipes": true, "readPortos": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let turn = run_turn(&server, "Tidy your recipes.").await;
    let calls = turn["calls"].as_array().expect("calls").clone();
    assert_eq!(calls.len(), 5, "{turn}");
    let offered = model.requests()[0].tool_names();
    assert!(
        offered.contains(&"mind_recipes_create".to_owned()),
        "{offered:?}"
    );

    let created = shown(&calls[0]);
    assert_eq!(created["state"], "completed", "{created}");
    assert_eq!(created["result"]["ok"], true);
    assert_eq!(created["result"]["recipe"]["name"], "recipe.mind-made");
    let listed = shown(&calls[1]);
    assert_eq!(listed["result"]["total"], 2, "{listed}");
    let read = shown(&calls[2]);
    assert_eq!(read["result"]["recipe"]["id"], id.as_str(), "{read}");
    let invalid = shown(&calls[3]);
    assert_eq!(invalid["state"], "failed", "{invalid}");
    assert_eq!(invalid["result"]["ok"], false);
    assert_eq!(invalid["result"]["state"], "failed");
    assert_eq!(invalid["result"]["code"], "RECIPE_VALIDATION_ERROR");
    assert_eq!(invalid["result"]["field"], "steps[0].tool");
    assert_eq!(invalid["result"]["step"], "recent");
    let archived = shown(&calls[4]);
    assert_eq!(
        archived["result"]["recipe"]["activeRevision"], 2,
        "{archived}"
    );
    assert_eq!(archived["result"]["recipe"]["archived"], true);

    let turn = run_turn(&server, "Bring it back.").await;
    let calls = turn["calls"].as_array().expect("calls").clone();
    let restored = shown(&calls[0]);
    assert_eq!(
        restored["result"]["recipe"]["activeRevision"], 3,
        "{restored}"
    );
    assert_eq!(restored["result"]["recipe"]["available"], true);
    let stale = shown(&calls[1]);
    assert_eq!(
        stale["result"]["code"], "RECIPE_REVISION_CONFLICT",
        "{stale}"
    );

    // People see who wrote what.
    let (_, history) = send(client.get(server.url(&format!("/api/cos/mind/recipes/{id}")))).await;
    let authors: Vec<&str> = history["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| v["author"].as_str().expect("author"))
        .collect();
    assert_eq!(authors, ["mind", "mind", "user"]);

    // Without the grant the registry refuses the call.
    let (status, _) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({ "readPortos": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let turn = run_turn(&server, "List your recipes.").await;
    let call = &turn["calls"][0];
    assert_eq!(call["state"], "refused", "{turn}");
    assert_eq!(shown(call)["code"], "TOOL_CAPABILITY_DENIED");
}

async fn run_turn(server: &ServerProcess, prompt: &str) -> Value {
    let (status, turn) = send(
        portos_tests::http_client()
            .post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "prompt": prompt, "waitSeconds": 60 })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{turn}");
    assert_eq!(turn["state"], "completed", "{turn}");
    turn
}

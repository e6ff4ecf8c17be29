//! A grant revoked between a recipe's children stops what follows
//! (docs/reference.md#recipe-execution step 6,
//! docs/reference.md#fail-closed-rules): the Mind's `manageToolRecipes` is
//! taken away while the recipe runs — by its second step, a read tool this test
//! links in that revokes the stored grant as it answers — and the third step
//! never runs; the recipe ends `partial` at that step with guidance. Its own
//! binary, since it links a tool PortOS does not have.

use std::sync::Arc;

use portos::domains::recipes::model::Author;
use portos::domains::recipes::ops;
use portos::domains::recipes::run::ACCESS_REVOKED;
use portos_core::{
    AdapterError, CallBudget, Capabilities, Registry, Shared, ToolCall, ToolState, portos_tool,
};
use portos_server::Config;
use portos_server::settings;
use portos_server::store::Store;
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Debug, Serialize, JsonSchema)]
struct Revoked {
    ok: bool,
    summary: String,
}

/// Revoke the Mind's recipe grant (a test fixture: a "read" that changes
/// the stored grants, to revoke at an exact moment).
#[portos_tool(
    name = "fixture.revoke-recipe-grant",
    scopes = ["mind"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn revoke(_args: NoArgs, store: Shared<Store>) -> Result<Revoked, AdapterError> {
    store
        .run(|connection| {
            settings::set_json(
                connection,
                portos::MIND_GRANTS_KEY,
                &json!({ "readPortos": true, "manageToolRecipes": false }),
            )
        })
        .await?;
    Ok(Revoked {
        ok: true,
        summary: "Revoked.".to_owned(),
    })
}

/// PortOS's registry over a fresh store whose Mind holds `readPortos` and
/// `manageToolRecipes`.
async fn granted_portos() -> (tempfile::TempDir, Store, Arc<Registry>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some("UTC".to_owned()),
        ..portos::config()
    };
    let store = portos::store::open(dir.path()).expect("store");
    let registry =
        portos::build_registry(config, &portos::Options::default(), &store).expect("registry");
    store
        .run(|connection| {
            settings::set_json(
                connection,
                portos::MIND_GRANTS_KEY,
                &json!({ "readPortos": true, "manageToolRecipes": true }),
            )
        })
        .await
        .expect("grants");
    (dir, store, registry)
}

fn step(id: &str, tool: &str, arguments: &Value) -> Value {
    json!({ "id": id, "tool": tool, "arguments": arguments })
}

#[tokio::test]
async fn a_grant_revoked_between_children_stops_the_rest() {
    let (_dir, store, registry) = granted_portos().await;
    let recent = json!({ "limit": { "literal": 1 } });
    let definition = json!({
        "schemaVersion": 1,
        "name": "recipe.revoke-midway",
        "purpose": "Read, lose the grant, read again.",
        "parameters": { "type": "object", "properties": {}, "additionalProperties": false },
        "steps": [
            step("s1", "brain.recent", &recent),
            step("s2", "fixture.revoke-recipe-grant", &json!({})),
            step("s3", "brain.recent", &recent),
        ],
        "outputs": { "items": { "step": "s3", "path": ["items"] } }
    });
    let created = ops::create(&store, registry.clone(), definition, Author::User)
        .await
        .expect("saved");
    let grants = Capabilities::NONE
        .with(portos_words::READ_PORTOS)
        .with(portos_words::MANAGE_TOOL_RECIPES);
    let budget = Arc::new(CallBudget::new(5));
    assert!(budget.try_charge(), "the turn charges the recipe call");
    let call = ToolCall::new(
        "turn-call-1",
        "recipe_revoke_midway",
        serde_json::Map::new(),
    );
    let result = registry
        .call_with(
            &portos_words::principal::mind(grants),
            call,
            Some(budget.clone()),
        )
        .await
        .expect("the recipe ran");
    assert_eq!(result.state, ToolState::Failed);
    let outcome = result
        .result
        .as_deref()
        .map_or(Value::Null, |output| output.value().clone());
    assert_eq!(outcome["state"], "partial", "{outcome}");
    assert_eq!(outcome["failingStep"], "s3");
    assert_eq!(outcome["error"], ACCESS_REVOKED);
    assert_eq!(outcome["recipeId"], json!(created.recipe.id));
    assert_eq!(
        outcome["guidance"],
        "Read the current definition and grants; repair or restore if needed. Use a new requestId only for an intentional retry."
    );
    let completed: Vec<&str> = outcome["outcomes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|step| step["state"] == "completed")
        .filter_map(|step| step["step"].as_str())
        .collect();
    assert_eq!(completed, ["s1", "s2"]);
    // Two children ran and were charged; the third was stopped first.
    assert_eq!(budget.used(), 3);
    // A new call is refused outright now.
    let again = registry
        .call(
            &portos_words::principal::mind(grants),
            ToolCall::new(
                "turn-call-2",
                "recipe.revoke-midway",
                serde_json::Map::new(),
            ),
        )
        .await
        .expect_err("the grant is gone");
    assert_eq!(again.message, "Recipe access is not granted");
}

#[tokio::test]
async fn an_archived_recipe_is_refused_409_recipe_archived() {
    let (_dir, store, registry) = granted_portos().await;
    let definition = json!({
        "schemaVersion": 1,
        "name": "recipe.shelved",
        "purpose": "Read the newest capture.",
        "parameters": { "type": "object", "properties": {}, "additionalProperties": false },
        "steps": [step("s1", "brain.recent", &json!({ "limit": { "literal": 1 } }))],
        "outputs": { "items": { "step": "s1", "path": ["items"] } }
    });
    let created = ops::create(&store, registry.clone(), definition, Author::User)
        .await
        .expect("saved");
    ops::archive(
        &store,
        registry.clone(),
        created.recipe.id.clone(),
        1,
        Author::User,
    )
    .await
    .expect("archived");
    let grants = Capabilities::NONE
        .with(portos_words::READ_PORTOS)
        .with(portos_words::MANAGE_TOOL_RECIPES);
    let refused = registry
        .call_with(
            &portos_words::principal::mind(grants),
            ToolCall::new("c-1", "recipe.shelved", serde_json::Map::new()),
            Some(Arc::new(CallBudget::new(5))),
        )
        .await
        .expect_err("archived");
    assert_eq!(refused.code.as_str(), "RECIPE_ARCHIVED");
    assert_eq!(refused.status(), 409);
}

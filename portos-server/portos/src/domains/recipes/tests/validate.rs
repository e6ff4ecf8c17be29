//! The checks against the live catalog (docs/reference.md#recipe-definition),
//! on the registry of every PortOS tool.

use portos_core::Scope;
use serde_json::{Value, json};

use super::{registry, valid, with};
use crate::domains::recipes::definition::parse;
use crate::domains::recipes::error::RecipeValidationError;
use crate::domains::recipes::validate::{Checked, provider_name, validate};

fn check(value: &Value, scope: Scope) -> Result<Checked, RecipeValidationError> {
    let definition = parse(value).expect("the definition's own rules pass");
    validate(&definition, scope, &registry())
}

fn refused(value: &Value, field: &str) -> RecipeValidationError {
    let error = check(value, portos_words::MIND).expect_err("refused");
    assert_eq!(error.field.as_deref(), Some(field), "{error:?}");
    error
}

#[test]
fn a_valid_definition_names_its_tools_and_capabilities() {
    let checked = check(&valid(), portos_words::MIND).expect("valid");
    assert_eq!(checked.underlying_tools, ["brain.recent", "brain.search"]);
    assert_eq!(checked.required_capabilities, [portos_words::READ_PORTOS]);
    // Every step tool is an agent tool too.
    assert!(check(&valid(), portos_words::AGENT).is_ok());
}

#[test]
fn steps_call_current_canonical_read_tools_of_the_scope() {
    let at = "/steps/0/tool";
    let error = refused(&with(at, Some(json!("brain.nothing"))), "steps[0].tool");
    assert!(error.message.contains("not in the catalog"), "{error:?}");
    assert_eq!(error.step.as_deref(), Some("recent"));

    let error = refused(&with(at, Some(json!("brain_recent"))), "steps[0].tool");
    assert!(error.message.contains("canonical"), "{error:?}");
    assert!(error.message.contains("brain.recent"), "{error:?}");

    let mut write = valid();
    write["steps"][0] = json!({ "id": "recent", "tool": "brain.capture", "arguments": { "text": { "literal": "x" } } });
    let error = refused(&write, "steps[0].tool");
    assert!(error.message.contains("read tools only"), "{error:?}");

    let error = refused(&with(at, Some(json!("recipe.other"))), "steps[0].tool");
    assert!(error.message.contains("cannot call a recipe"), "{error:?}");

    // A Mind-only read tool: fine for the Mind, not for an agent.
    let mut mind_only = valid();
    mind_only["steps"] = json!([{ "id": "recent", "tool": "mind.local-context" }]);
    mind_only["outputs"] = json!({ "context": { "step": "recent", "path": [] } });
    let checked = check(&mind_only, portos_words::MIND).expect("mind scope");
    assert_eq!(
        checked.required_capabilities,
        [portos_words::ADJUST_LOCAL_CONTEXT]
    );
    let error = check(&mind_only, portos_words::AGENT).expect_err("agent scope");
    assert!(error.message.contains("agent scope"), "{error:?}");
}

#[test]
fn every_required_argument_is_bound_and_no_unknown_one() {
    let error = refused(
        &with("/steps/1/arguments/query", None),
        "steps[1].arguments.query",
    );
    assert!(error.message.contains("needs the argument"), "{error:?}");
    assert_eq!(error.step.as_deref(), Some("search"));
    let error = refused(
        &with("/steps/1/arguments/since", Some(json!({ "literal": 1 }))),
        "steps[1].arguments.since",
    );
    assert!(error.message.contains("takes no argument"), "{error:?}");
}

#[test]
fn literals_must_fit_the_argument_schema() {
    let error = refused(
        &with(
            "/steps/1/arguments/limit",
            Some(json!({ "literal": "three" })),
        ),
        "steps[1].arguments.limit",
    );
    assert!(error.message.contains("literal"), "{error:?}");
    let mut query = valid();
    query["steps"][1]["arguments"]["query"] = json!({ "literal": "tea" });
    check(&query, portos_words::MIND).expect("a fitting literal");
}

#[test]
fn inputs_must_fit_and_a_required_argument_needs_a_required_parameter() {
    let mut wrong_type = valid();
    wrong_type["parameters"]["properties"]["limit"] = json!({ "type": "string" });
    let error = refused(&wrong_type, "steps[0].arguments.limit");
    assert!(error.message.contains("cannot fill"), "{error:?}");

    let mut number = valid();
    number["parameters"]["properties"]["limit"] = json!({ "type": "number" });
    check(&number, portos_words::MIND).expect("a number may be an integer");

    let mut optional = valid();
    optional["steps"][1]["arguments"]["query"] = json!({ "input": "mood" });
    let error = refused(&optional, "steps[1].arguments.query");
    assert!(error.message.contains("optional"), "{error:?}");
    optional["parameters"]["required"] = json!(["limit", "mood"]);
    check(&optional, portos_words::MIND).expect("an enum of strings fills a string");
}

#[test]
fn step_paths_must_be_declared_fields_of_the_earlier_result() {
    let error = refused(
        &with(
            "/steps/1/arguments/query",
            Some(json!({ "step": "recent", "path": ["itemz", 0, "text"] })),
        ),
        "steps[1].arguments.query",
    );
    assert!(error.message.contains("itemz"), "{error:?}");
    let error = refused(
        &with(
            "/steps/1/arguments/query",
            Some(json!({ "step": "recent", "path": ["count"] })),
        ),
        "steps[1].arguments.query",
    );
    assert!(error.message.contains("cannot fill"), "{error:?}");
    let error = refused(
        &with(
            "/outputs/latest",
            Some(json!({ "step": "recent", "path": ["nope"] })),
        ),
        "outputs.latest.path",
    );
    assert!(error.message.contains("nope"), "{error:?}");
}

#[test]
fn the_name_must_fit_the_providers_and_collide_with_no_tool() {
    assert_eq!(
        provider_name("recipe.morning-brief"),
        "recipe_morning_brief"
    );
    let longest = format!("recipe.a{}", "b".repeat(56));
    check(&with("/name", Some(json!(longest))), portos_words::MIND)
        .expect("64-character provider name");
    let too_long = format!("recipe.a{}", "b".repeat(57));
    let error = refused(&with("/name", Some(json!(too_long))), "name");
    assert!(error.message.contains("provider"), "{error:?}");
    // No PortOS tool is named `recipe.*`: the registry refuses the prefix.
    assert!(
        registry()
            .tools()
            .iter()
            .all(|tool| !tool.name().starts_with("recipe"))
    );
}

//! The definition's own rules (docs/reference.md#recipe-definition), each limit
//! at its edge and one past it.

use serde_json::{Map, Value, json};

use super::{valid, with};
use crate::domains::recipes::definition::{
    Binding, DefinitionError, RecipeDefinition, Segment, parse,
};
use crate::domains::recipes::error::RecipeValidationError;

fn ok(value: &Value) -> RecipeDefinition {
    match parse(value) {
        Ok(definition) => definition,
        Err(error) => panic!("{value}: {error:?}"),
    }
}

fn refused(value: &Value) -> RecipeValidationError {
    match parse(value) {
        Err(DefinitionError::Invalid(error)) => error,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn refused_at(value: &Value, field: &str) -> RecipeValidationError {
    let error = refused(value);
    assert_eq!(error.field.as_deref(), Some(field), "{error:?}");
    error
}

fn properties(count: usize) -> Value {
    let map: Map<String, Value> = (0..count)
        .map(|i| (format!("p{i}"), json!({ "type": "string" })))
        .collect();
    Value::Object(map)
}

#[test]
fn a_valid_definition_reads_and_is_stored_normalized() {
    let definition = ok(&valid());
    assert_eq!(definition.name, "recipe.brain-echo");
    assert_eq!(
        definition.purpose,
        "Search the brain for the latest capture's text."
    );
    assert_eq!(
        definition.underlying_tools(),
        ["brain.recent", "brain.search"]
    );
    assert_eq!(
        definition.steps[1].arguments[0].1,
        Binding::Step {
            step: "recent".to_owned(),
            path: vec![
                Segment::Key("items".to_owned()),
                Segment::Index(0),
                Segment::Key("text".to_owned())
            ],
        }
    );
    // What is stored reads back to the same definition.
    let stored = definition.to_json();
    assert_eq!(stored["purpose"], definition.purpose);
    assert_eq!(ok(&stored), definition);
}

#[test]
fn the_version_is_checked_first_and_a_future_one_is_unsupported() {
    let mut future = valid();
    future["schemaVersion"] = json!(2);
    future["somethingNew"] = json!(true);
    assert_eq!(parse(&future), Err(DefinitionError::Unsupported(json!(2))));
    for bad in [json!("1"), json!(1.5), json!(null)] {
        refused_at(&with("/schemaVersion", Some(bad)), "schemaVersion");
    }
    refused_at(&with("/schemaVersion", None), "schemaVersion");
    assert!(refused(&json!([1])).message.contains("JSON object"));
}

#[test]
fn unknown_keys_are_refused_everywhere() {
    refused_at(&with("/extra", Some(json!(1))), "extra");
    refused_at(&with("/steps/0/when", Some(json!(1))), "steps[0].when");
    refused_at(
        &with("/parameters/properties/limit/minimum", Some(json!(1))),
        "parameters.properties.limit.minimum",
    );
    let error = refused_at(
        &with("/outputs/latest/also", Some(json!(1))),
        "outputs.latest",
    );
    assert!(error.message.contains("exactly one of"), "{error:?}");
}

#[test]
fn names_follow_the_pattern() {
    ok(&with(
        "/name",
        Some(json!(format!("recipe.a{}", "b".repeat(63)))),
    ));
    for bad in [
        json!(format!("recipe.a{}", "b".repeat(64))),
        json!("recipe.Bad"),
        json!("brain.search"),
        json!(7),
    ] {
        refused_at(&with("/name", Some(bad)), "name");
    }
}

#[test]
fn the_purpose_is_trimmed_then_1_to_1000_characters() {
    ok(&with(
        "/purpose",
        Some(json!(format!("  {}  ", "é".repeat(1000)))),
    ));
    refused_at(&with("/purpose", Some(json!("x".repeat(1001)))), "purpose");
    refused_at(&with("/purpose", Some(json!("   "))), "purpose");
}

#[test]
fn parameter_descriptions_at_most_500() {
    let at = "/parameters/properties/limit/description";
    ok(&with(at, Some(json!("d".repeat(500)))));
    refused_at(
        &with(at, Some(json!("d".repeat(501)))),
        "parameters.properties.limit.description",
    );
}

#[test]
fn at_most_30_properties_and_required_names_are_properties() {
    let mut thirty = valid();
    thirty["parameters"]["properties"] = properties(30);
    thirty["parameters"]["required"] = json!(["p0"]);
    thirty["steps"][0]["arguments"] = json!({});
    ok(&thirty);
    let mut past = thirty.clone();
    past["parameters"]["properties"] = properties(31);
    refused_at(&past, "parameters.properties");

    let mut all_required = thirty.clone();
    all_required["parameters"]["required"] =
        json!((0..30).map(|i| format!("p{i}")).collect::<Vec<_>>());
    ok(&all_required);
    let mut too_many = thirty.clone();
    too_many["parameters"]["required"] =
        json!((0..31).map(|i| format!("p{}", i % 30)).collect::<Vec<_>>());
    refused_at(&too_many, "parameters.required");

    refused_at(
        &with("/parameters/required", Some(json!(["limit", "nope"]))),
        "parameters.required[1]",
    );
    refused_at(
        &with("/parameters/required", Some(json!(["limit", "limit"]))),
        "parameters.required[1]",
    );
}

#[test]
fn objects_are_closed_and_items_exactly_for_arrays() {
    refused_at(
        &with("/parameters/additionalProperties", Some(json!(true))),
        "parameters.additionalProperties",
    );
    refused_at(
        &with("/parameters/additionalProperties", None),
        "parameters.additionalProperties",
    );
    refused_at(
        &with("/parameters/type", Some(json!("array"))),
        "parameters.properties",
    );
    let list = "/parameters/properties/tags";
    ok(&with(
        list,
        Some(json!({ "type": "array", "items": { "type": "string" } })),
    ));
    refused_at(
        &with(list, Some(json!({ "type": "array" }))),
        "parameters.properties.tags.items",
    );
    refused_at(
        &with(
            list,
            Some(json!({ "type": "string", "items": { "type": "string" } })),
        ),
        "parameters.properties.tags.items",
    );
    refused_at(
        &with(list, Some(json!({ "type": "date" }))),
        "parameters.properties.tags.type",
    );
    refused_at(
        &with(list, Some(json!({ "type": "object", "properties": {} }))),
        "parameters.properties.tags.additionalProperties",
    );
}

#[test]
fn enums_hold_1_to_30_values_of_their_type() {
    let at = "/parameters/properties/mood/enum";
    let thirty: Vec<String> = (0..30).map(|i| format!("m{i}")).collect();
    ok(&with(at, Some(json!(thirty))));
    let past: Vec<String> = (0..31).map(|i| format!("m{i}")).collect();
    refused_at(
        &with(at, Some(json!(past))),
        "parameters.properties.mood.enum",
    );
    refused_at(
        &with(at, Some(json!([]))),
        "parameters.properties.mood.enum",
    );
    refused_at(
        &with(at, Some(json!(["calm", 3]))),
        "parameters.properties.mood.enum[1]",
    );
    let integers = "/parameters/properties/limit/enum";
    ok(&with(integers, Some(json!([1, 2.0]))));
    refused_at(
        &with(integers, Some(json!([1.5]))),
        "parameters.properties.limit.enum[0]",
    );
    refused_at(
        &with(
            "/parameters/properties/list",
            Some(json!({ "type": "array", "items": { "type": "string" }, "enum": [[]] })),
        ),
        "parameters.properties.list.enum",
    );
}

#[test]
fn keys_are_checked_and_prototype_names_refused() {
    for key in ["__proto__", "constructor", "prototype", "1abc", "a b"] {
        let mut bad = valid();
        bad["parameters"]["properties"][key] = json!({ "type": "string" });
        let error = refused(&bad);
        assert!(
            error
                .field
                .as_deref()
                .is_some_and(|f| f.starts_with("parameters.properties.")),
            "{key}: {error:?}"
        );
        let mut output = valid();
        output["outputs"][key] = json!({ "literal": 1 });
        refused(&output);
    }
    ok(&with(
        "/parameters/properties/k",
        Some(json!({ "type": "string" })),
    ));
    let long = format!("a{}", "b".repeat(63));
    ok(&with(
        &format!("/parameters/properties/{long}"),
        Some(json!({ "type": "string" })),
    ));
    let longer = format!("a{}", "b".repeat(64));
    refused(&with(
        &format!("/parameters/properties/{longer}"),
        Some(json!({ "type": "string" })),
    ));
}

#[test]
fn one_to_five_steps_with_unique_ids() {
    let step = |id: &str| json!({ "id": id, "tool": "time.now", "arguments": {} });
    let mut five = valid();
    five["steps"] = json!([step("a"), step("b"), step("c"), step("d"), step("e")]);
    five["outputs"] = json!({ "now": { "step": "e", "path": [] } });
    ok(&five);
    let mut six = five.clone();
    six["steps"].as_array_mut().expect("steps").push(step("f"));
    refused_at(&six, "steps");
    let mut none = five.clone();
    none["steps"] = json!([]);
    refused_at(&none, "steps");
    let mut twice = five.clone();
    twice["steps"][4]["id"] = json!("a");
    let error = refused_at(&twice, "steps[4].id");
    assert_eq!(error.step.as_deref(), Some("a"));
    // A tool that takes nothing needs no arguments.
    let mut bare = five;
    bare["steps"][0] = json!({ "id": "a", "tool": "time.now" });
    ok(&bare);
}

#[test]
fn tool_names_are_1_to_100_characters() {
    ok(&with("/steps/0/tool", Some(json!("t".repeat(100)))));
    let error = refused_at(
        &with("/steps/0/tool", Some(json!("t".repeat(101)))),
        "steps[0].tool",
    );
    assert_eq!(error.step.as_deref(), Some("recent"));
    refused_at(&with("/steps/0/tool", Some(json!(""))), "steps[0].tool");
}

#[test]
fn at_most_30_arguments_and_30_outputs() {
    let bindings = |n: usize| -> Value {
        Value::Object(
            (0..n)
                .map(|i| (format!("a{i}"), json!({ "literal": i })))
                .collect(),
        )
    };
    ok(&with("/steps/0/arguments", Some(bindings(30))));
    refused_at(
        &with("/steps/0/arguments", Some(bindings(31))),
        "steps[0].arguments",
    );
    ok(&with("/outputs", Some(bindings(30))));
    refused_at(&with("/outputs", Some(bindings(31))), "outputs");
    refused_at(&with("/outputs", Some(json!({}))), "outputs");
    refused_at(&with("/outputs", None), "outputs");
}

#[test]
fn bindings_reference_declared_inputs_and_earlier_steps() {
    refused_at(
        &with("/steps/0/arguments/limit", Some(json!({ "input": "nope" }))),
        "steps[0].arguments.limit.input",
    );
    let own = refused_at(
        &with(
            "/steps/0/arguments/limit",
            Some(json!({ "step": "recent", "path": [] })),
        ),
        "steps[0].arguments.limit.step",
    );
    assert!(own.message.contains("its own result"), "{own:?}");
    let forward = refused_at(
        &with(
            "/steps/0/arguments/limit",
            Some(json!({ "step": "search", "path": ["count"] })),
        ),
        "steps[0].arguments.limit.step",
    );
    assert!(forward.message.contains("earlier"), "{forward:?}");
    assert_eq!(forward.step.as_deref(), Some("recent"));
    refused_at(
        &with("/outputs/x", Some(json!({ "step": "ghost", "path": [] }))),
        "outputs.x.step",
    );
    refused_at(
        &with("/outputs/x", Some(json!({ "step": "recent" }))),
        "outputs.x",
    );
}

#[test]
fn paths_are_up_to_8_keys_or_indexes_up_to_999999() {
    let path = |segments: Value| {
        with(
            "/outputs/x",
            Some(json!({ "step": "recent", "path": segments })),
        )
    };
    ok(&path(json!(["a", 1, "b", 2, "c", 3, "d", 999_999])));
    refused_at(
        &path(json!(["a", 1, "b", 2, "c", 3, "d", 4, "e"])),
        "outputs.x.path",
    );
    refused_at(&path(json!([1_000_000])), "outputs.x.path[0]");
    refused_at(&path(json!([-1])), "outputs.x.path[0]");
    refused_at(&path(json!([1.5])), "outputs.x.path[0]");
    refused_at(&path(json!(["__proto__"])), "outputs.x.path[0]");
    refused_at(&path(json!([null])), "outputs.x.path[0]");
}

#[test]
fn the_size_guard_runs_before_the_rules() {
    // Too deep, even where a literal may hold anything.
    let mut deep = json!(0);
    for _ in 0..20 {
        deep = json!([deep]);
    }
    let error = refused(&with("/outputs/deep", Some(json!({ "literal": deep }))));
    assert_eq!(error.field, None);
    assert!(error.message.contains("deeper"), "{error:?}");
    let huge = refused(&with("/purpose", Some(json!("x".repeat(12_001)))));
    assert!(huge.message.contains("12001"), "{huge:?}");
}

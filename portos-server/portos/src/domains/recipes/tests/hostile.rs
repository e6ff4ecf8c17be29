//! Hostile definitions never panic the parser or the validator and are
//! refused (the stable counterpart of the `cargo fuzz` target in
//! `fuzz/fuzz_targets/recipe_definition.rs`).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{registry, valid};
use crate::domains::recipes::definition::parse;
use crate::domains::recipes::validate::validate;

/// Parses and validates; true when accepted. Must not panic.
fn accepted(value: &Value) -> bool {
    match parse(value) {
        Ok(definition) => validate(&definition, portos_words::MIND, &registry()).is_ok(),
        Err(_) => false,
    }
}

/// Any JSON, with keys drawn from names that matter here.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z_]{0,12}".prop_map(Value::String),
        Just(json!("__proto__")),
    ];
    let key = prop_oneof![
        Just("__proto__".to_owned()),
        Just("constructor".to_owned()),
        Just("step".to_owned()),
        Just("path".to_owned()),
        Just("literal".to_owned()),
        Just("input".to_owned()),
        Just("type".to_owned()),
        "[a-zA-Z_]{1,8}",
    ];
    leaf.prop_recursive(24, 300, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A place in the valid definition to put hostile JSON.
fn pointer() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/parameters",
        "/parameters/properties/limit",
        "/steps/0",
        "/steps/1/arguments",
        "/steps/1/arguments/query",
        "/outputs",
        "/outputs/latest",
        "/outputs/latest/path",
        "/name",
        "/schemaVersion",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics(value in any_json()) {
        let _ = accepted(&value);
    }

    #[test]
    fn hostile_parts_in_a_valid_definition_never_panic(at in pointer(), part in any_json()) {
        let mut definition = valid();
        if let Some(slot) = definition.pointer_mut(at) {
            *slot = part;
        }
        let _ = accepted(&definition);
    }
}

#[test]
fn hostile_shapes_are_refused() {
    let mut deep = json!({});
    for _ in 0..200 {
        deep = json!({ "a": deep });
    }
    let mut cyclic = valid();
    cyclic["steps"][0]["arguments"]["limit"] = json!({ "step": "search", "path": ["count"] });
    let mut proto = valid();
    proto["parameters"]["properties"]["__proto__"] = json!({ "type": "string" });
    let mut long_path = valid();
    long_path["outputs"]["latest"]["path"] = json!([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    let mut huge = valid();
    huge["outputs"]["blob"] = json!({ "literal": "x".repeat(100_000) });
    let mut wide = valid();
    wide["outputs"]["many"] = json!({ "literal": vec![0; 5000] });
    for hostile in [
        deep,
        cyclic,
        proto,
        long_path,
        huge,
        wide,
        json!(null),
        json!("recipe"),
    ] {
        assert!(!accepted(&hostile), "{hostile}");
    }
    assert!(accepted(&valid()));
}

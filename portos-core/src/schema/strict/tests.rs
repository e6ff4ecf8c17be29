use serde_json::{Value, json};

use super::{Action, Dialect, Projected};

fn projected(dialect: Dialect, schema: &Value) -> Projected {
    match dialect.project(schema) {
        Ok(projected) => projected,
        Err(refusals) => panic!("{dialect} refused: {refusals:?}"),
    }
}

fn actions(projected: &Projected) -> Vec<(&str, &str, Action)> {
    projected
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.keyword.as_str(), c.action))
        .collect()
}

fn search_args() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "query": {"type": "string", "description": "What to find.", "minLength": 1, "maxLength": 200},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "kind": {"type": "string", "enum": ["note", "link"], "description": "Which kind."},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 5, "uniqueItems": true}
        },
        "required": ["query"]
    })
}

#[test]
fn openai_makes_optional_properties_required_with_a_null_branch() {
    let out = projected(Dialect::OpenaiStrict, &search_args());
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(
        schema["required"],
        json!(["query", "limit", "kind", "tags"])
    );
    assert_eq!(
        schema["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
    // An enum cannot take null through `type` alone: it is wrapped.
    assert_eq!(
        schema["properties"]["kind"],
        json!({
            "description": "Which kind.",
            "anyOf": [{"type": "string", "enum": ["note", "link"]}, {"type": "null"}]
        })
    );
    assert_eq!(schema["properties"]["query"]["type"], "string");
    assert!(actions(&out).contains(&("/properties/limit", "type", Action::NullableAdded)));
    assert!(actions(&out).contains(&("/properties/kind", "anyOf", Action::NullableAdded)));
    assert!(
        !actions(&out)
            .iter()
            .any(|(path, _, _)| *path == "/properties/query"
                && actions(&out).contains(&(path, "type", Action::NullableAdded)))
    );
}

#[test]
fn openai_drops_unsupported_keywords_and_reports_each() {
    let out = projected(Dialect::OpenaiStrict, &search_args());
    let schema = out.schema.clone().expect("a schema");
    let query = &schema["properties"]["query"];
    assert!(query.get("minLength").is_none() && query.get("maxLength").is_none());
    assert_eq!(schema["properties"]["tags"]["minItems"], 2);
    assert!(schema["properties"]["tags"].get("uniqueItems").is_none());
    let changes = actions(&out);
    for expected in [
        ("/properties/query", "minLength", Action::Dropped),
        ("/properties/query", "maxLength", Action::Dropped),
        ("/properties/tags", "uniqueItems", Action::Dropped),
    ] {
        assert!(changes.contains(&expected), "{expected:?} in {changes:?}");
    }
    // Ranges are in OpenAI's subset.
    assert_eq!(schema["properties"]["limit"]["maximum"], 50);
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn anthropic_keeps_optional_properties_and_drops_bounds() {
    let out = projected(Dialect::AnthropicStrict, &search_args());
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["limit"], json!({"type": "integer"}));
    assert_eq!(schema["properties"]["tags"]["minItems"], 1);
    let changes = actions(&out);
    for expected in [
        ("/properties/limit", "minimum", Action::Dropped),
        ("/properties/limit", "maximum", Action::Dropped),
        ("/properties/tags", "minItems", Action::Rewritten),
        ("/properties/tags", "maxItems", Action::Dropped),
    ] {
        assert!(changes.contains(&expected), "{expected:?} in {changes:?}");
    }
    assert!(!changes.iter().any(|c| c.2 == Action::NullableAdded));
}

#[test]
fn anthropic_drops_a_pattern_beyond_its_regex_features() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "simple": {"type": "string", "pattern": "^[a-z]+$"},
        "unicode": {"type": "string", "pattern": "^[\\p{L}]+$"}
    }});
    let out = projected(Dialect::AnthropicStrict, &schema);
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(schema["properties"]["simple"]["pattern"], "^[a-z]+$");
    assert!(schema["properties"]["unicode"].get("pattern").is_none());
    assert_eq!(
        actions(&out),
        [("/properties/unicode", "pattern", Action::Dropped)]
    );
}

#[test]
fn gemini_uses_upper_case_types_and_drops_what_it_lacks() {
    let out = projected(Dialect::Gemini, &search_args());
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(schema["type"], "OBJECT");
    assert_eq!(schema["properties"]["tags"]["items"]["type"], "STRING");
    assert_eq!(schema["properties"]["query"]["maxLength"], 200);
    assert!(schema.get("additionalProperties").is_none());
    assert_eq!(schema["required"], json!(["query"]));
    let changes = actions(&out);
    assert!(changes.contains(&("", "additionalProperties", Action::Dropped)));
    assert!(changes.contains(&("/properties/tags", "uniqueItems", Action::Dropped)));
}

#[test]
fn gemini_says_null_as_nullable_and_const_as_enum() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "when": {"type": ["string", "null"], "format": "date-time"},
        "mode": {"type": "string", "const": "fast"},
        "count": {"type": "integer", "exclusiveMinimum": 0}
    }, "required": ["when", "mode", "count"]});
    let out = projected(Dialect::Gemini, &schema);
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(
        schema["properties"]["when"],
        json!({"type": "STRING", "format": "date-time", "nullable": true})
    );
    assert_eq!(
        schema["properties"]["mode"],
        json!({"type": "STRING", "enum": ["fast"]})
    );
    assert_eq!(
        schema["properties"]["count"],
        json!({"type": "INTEGER", "minimum": 1})
    );
}

#[test]
fn gemini_declares_a_tool_without_arguments_without_parameters() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {}});
    let out = projected(Dialect::Gemini, &schema);
    assert_eq!(out.schema, None);
    assert!(actions(&out).contains(&("", "properties", Action::Dropped)));
}

#[test]
fn an_open_object_is_refused_by_every_dialect() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "args": {"type": "object", "additionalProperties": true, "propertyNames": {"maxLength": 80}}
    }, "required": ["args"]});
    for dialect in Dialect::ALL {
        let refusals = dialect.project(&schema).expect_err("refused");
        let keywords: Vec<&str> = refusals.iter().map(|r| r.keyword.as_str()).collect();
        assert!(
            keywords.contains(&"additionalProperties") && keywords.contains(&"propertyNames"),
            "{dialect}: {refusals:?}"
        );
        assert!(refusals.iter().all(|r| r.path == "/properties/args"));
    }
}

#[test]
fn a_lost_value_set_or_composition_is_refused() {
    let cases = [
        (Dialect::Gemini, json!({"type": "integer", "enum": [1, 2]})),
        (
            Dialect::AnthropicStrict,
            json!({"type": "object", "enum": [{"a": 1}]}),
        ),
        (
            Dialect::OpenaiStrict,
            json!({"allOf": [{"type": "string"}]}),
        ),
        (
            Dialect::OpenaiStrict,
            json!({"type": "string", "not": {"const": "x"}}),
        ),
        (Dialect::AnthropicStrict, json!({"description": "anything"})),
    ];
    for (dialect, property) in cases {
        let schema = json!({"type": "object", "additionalProperties": false,
            "properties": {"p": property}, "required": ["p"]});
        assert!(dialect.project(&schema).is_err(), "{dialect}: {schema}");
    }
}

#[test]
fn one_of_is_said_as_any_of() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "mode": {"oneOf": [
            {"type": "string", "const": "Fast"},
            {"type": "object", "additionalProperties": false,
             "properties": {"Slow": {"type": "integer"}}, "required": ["Slow"]}
        ]}
    }, "required": ["mode"]});
    let out = projected(Dialect::OpenaiStrict, &schema);
    let schema = out.schema.clone().expect("a schema");
    assert_eq!(
        schema["properties"]["mode"]["anyOf"][0],
        json!({"type": "string", "enum": ["Fast"]})
    );
    assert!(actions(&out).contains(&("/properties/mode", "oneOf", Action::Rewritten)));
}

#[test]
fn pointers_escape_slash_and_tilde() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "a/b~c": {"type": "string", "maxLength": 3}
    }, "required": ["a/b~c"]});
    let out = projected(Dialect::OpenaiStrict, &schema);
    assert_eq!(out.changes[0].path, "/properties/a~1b~0c");
}

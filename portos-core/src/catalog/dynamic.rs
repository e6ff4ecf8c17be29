//! Catalog entries of run-time tools (saved recipes). Unlike a linked
//! tool's, their text is rendered on each render of a catalog: there are few
//! (the source bounds them), their fields depend on the grants of the read,
//! and the served catalog is memoized by the listing's revision anyway.

use serde_json::Value;

use super::CatalogFormat;
use super::format::{StrictOutcome, policy_annotations, refusal_text, strict_entry};
use super::fragments::{StrictText, Text};
use crate::contract::Capabilities;
use crate::registry::{DynamicTool, DynamicTools};

/// The native entry of `tool`, `granted` included (`None` outside mind and
/// agent reads), in the linked entries' key order.
pub(super) fn native_entry(
    source: &dyn DynamicTools,
    tool: &DynamicTool,
    grants: Capabilities,
    granted: Option<bool>,
) -> Text {
    let spec = &tool.spec;
    let policy = serde_json::to_value(&spec.policy).unwrap_or(Value::Null);
    let mut fields: Vec<(&str, Text)> = vec![
        ("type", Text::of(&Value::from("portos_tool"))),
        ("name", Text::of(&Value::from(spec.name.as_str()))),
        ("version", Text::of(&Value::from(spec.version))),
        (
            "providerName",
            Text::of(&Value::from(spec.provider_name.as_str())),
        ),
        ("aliases", Text::of(&Value::Array(Vec::new()))),
        (
            "description",
            Text::of(&Value::from(spec.description.as_str())),
        ),
        ("input_schema", Text::of(&spec.input_schema)),
        ("output_schema", Text::of(&spec.output_schema)),
        ("policy", Text::of(&policy)),
        ("availableInScope", Text::of(&Value::Bool(true))),
    ];
    for (key, value) in source.native_fields(tool, grants) {
        fields.push((key, Text::of(&value)));
    }
    fields.push((
        "granted",
        Text::of(&granted.map_or(Value::Null, Value::Bool)),
    ));
    let borrowed: Vec<(&str, &Text)> = fields.iter().map(|(key, text)| (*key, text)).collect();
    Text::object(&borrowed)
}

/// A provider entry of `tool` (docs/reference.md#provider-formats), with the
/// provider description.
pub(super) fn provider_entry(tool: &DynamicTool, format: CatalogFormat) -> Text {
    let spec = &tool.spec;
    let name = Text::of(&Value::from(spec.provider_name.as_str()));
    let description = Text::of(&Value::from(spec.provider_description.as_str()));
    let input = Text::of(&spec.input_schema);
    match format {
        CatalogFormat::OpenaiStrict | CatalogFormat::AnthropicStrict | CatalogFormat::Gemini => {
            strict_text(tool, format).entry
        }
        CatalogFormat::Openai => Text::object(&[
            ("type", &Text::of(&Value::from("function"))),
            (
                "function",
                &Text::object(&[
                    ("name", &name),
                    ("description", &description),
                    ("parameters", &input),
                ]),
            ),
        ]),
        CatalogFormat::Anthropic => Text::object(&[
            ("name", &name),
            ("description", &description),
            ("input_schema", &input),
        ]),
        CatalogFormat::Mcp | CatalogFormat::Portos => Text::object(&[
            ("name", &name),
            ("description", &description),
            ("inputSchema", &input),
            ("outputSchema", &Text::of(&spec.output_schema)),
            (
                "annotations",
                &Text::of(&policy_annotations(&spec.policy, false)),
            ),
        ]),
    }
}

/// A strict-format entry of `tool` and its report line. A run-time tool has
/// no build to refuse it, so one that cannot be projected is offered
/// unconstrained, with the refusals as the reason.
pub(super) fn strict_text(tool: &DynamicTool, format: CatalogFormat) -> StrictText {
    let spec = &tool.spec;
    let projection = format
        .dialect()
        .map(|dialect| dialect.project(&spec.input_schema));
    let outcome = match &projection {
        Some(Ok(projected)) => StrictOutcome::Projected(projected),
        Some(Err(refusals)) => StrictOutcome::Unconstrained(refusal_text(refusals)),
        None => StrictOutcome::Unconstrained(String::new()),
    };
    StrictText::of(&strict_entry(
        format,
        &spec.provider_name,
        &spec.provider_description,
        &outcome,
        &spec.input_schema,
    ))
}

use std::str::FromStr;

use serde_json::{Value, json};

use crate::contract::{Policy, SideEffect};
use crate::registry::RegisteredTool;
use crate::schema::strict::{Dialect, Projected, Refusal};

/// The catalog's `format` query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CatalogFormat {
    /// `portos`: the contract's native entries, with policy.
    #[default]
    Portos,
    /// `openai`: OpenAI function-calling tools (`{type: "function", function}`).
    Openai,
    /// `anthropic`: Anthropic tool definitions (`input_schema`).
    Anthropic,
    /// `mcp`: MCP `tools/list` entries, with annotations.
    Mcp,
    /// OpenAI function calling with `strict: true` (`schema::strict`).
    OpenaiStrict,
    /// Anthropic tool use with `strict: true`.
    AnthropicStrict,
    /// Gemini function declarations.
    Gemini,
}

impl CatalogFormat {
    /// Every format, in the order documents list them: the contract's four,
    /// then the strict provider formats.
    pub const ALL: [CatalogFormat; 7] = [
        CatalogFormat::Portos,
        CatalogFormat::Openai,
        CatalogFormat::Anthropic,
        CatalogFormat::Mcp,
        CatalogFormat::OpenaiStrict,
        CatalogFormat::AnthropicStrict,
        CatalogFormat::Gemini,
    ];

    /// The query's vocabulary, the CLI's and the documents' enum.
    pub const VALUES: [&'static str; 7] = [
        "portos",
        "openai",
        "anthropic",
        "mcp",
        "openai-strict",
        "anthropic-strict",
        "gemini",
    ];

    /// The query's word for the format, one of [`CatalogFormat::VALUES`].
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogFormat::Portos => "portos",
            CatalogFormat::Openai => "openai",
            CatalogFormat::Anthropic => "anthropic",
            CatalogFormat::Mcp => "mcp",
            CatalogFormat::OpenaiStrict => "openai-strict",
            CatalogFormat::AnthropicStrict => "anthropic-strict",
            CatalogFormat::Gemini => "gemini",
        }
    }

    /// The strict dialect of a strict provider format.
    pub fn dialect(self) -> Option<Dialect> {
        match self {
            CatalogFormat::OpenaiStrict => Some(Dialect::OpenaiStrict),
            CatalogFormat::AnthropicStrict => Some(Dialect::AnthropicStrict),
            CatalogFormat::Gemini => Some(Dialect::Gemini),
            _ => None,
        }
    }

    /// The mechanical provider projection of one entry
    /// (docs/reference.md#provider-formats, docs/reference.md#mcp-annotations).
    pub fn project(self, tool: &RegisteredTool) -> Value {
        let d = tool.descriptor;
        match self {
            CatalogFormat::Openai => json!({
                "type": "function",
                "function": {
                    "name": d.provider_name,
                    "description": d.description,
                    "parameters": tool.input_schema,
                },
            }),
            CatalogFormat::Anthropic => json!({
                "name": d.provider_name,
                "description": d.description,
                "input_schema": tool.input_schema,
            }),
            CatalogFormat::Mcp => {
                let mut entry = json!({
                    "name": d.provider_name,
                    "description": d.description,
                    "inputSchema": tool.input_schema,
                    "outputSchema": tool.output_schema,
                    "annotations": mcp_annotations(tool),
                });
                if let Some(execution) = mcp_execution(tool) {
                    entry["execution"] = execution;
                }
                entry
            }
            CatalogFormat::Portos => json!({ "name": d.name }),
            CatalogFormat::OpenaiStrict
            | CatalogFormat::AnthropicStrict
            | CatalogFormat::Gemini => {
                strict_entry(
                    self,
                    d.provider_name,
                    d.description,
                    &strict_outcome(self, tool),
                    &tool.input_schema,
                )
                .entry
            }
        }
    }
}

/// How a tool appears in a strict format: projected, or offered
/// unconstrained (its full schema, `strict: false`) for a reason.
pub(crate) enum StrictOutcome<'a> {
    Projected(&'a Projected),
    Unconstrained(String),
}

/// The outcome of a linked tool in a strict `format`. The registry build
/// only lets a refused projection through with the author's `not_strict`.
pub(crate) fn strict_outcome(format: CatalogFormat, tool: &RegisteredTool) -> StrictOutcome<'_> {
    let projection = format.dialect().map(|dialect| tool.strict.get(dialect));
    match projection {
        Some(Ok(projected)) => StrictOutcome::Projected(projected),
        Some(Err(refusals)) => StrictOutcome::Unconstrained(
            tool.descriptor
                .not_strict
                .map_or_else(|| refusal_text(refusals), str::to_owned),
        ),
        None => StrictOutcome::Unconstrained(String::new()),
    }
}

/// Refusals as one line, for a tool that has no author's reason (a
/// run-time tool).
pub(crate) fn refusal_text(refusals: &[Refusal]) -> String {
    let each: Vec<String> = refusals.iter().map(ToString::to_string).collect();
    each.join("; ")
}

/// A strict-format entry and its report line.
pub(crate) struct StrictEntry {
    pub entry: Value,
    /// `{tool, changes}` (with `strict: false` and `reason` for a tool
    /// offered unconstrained), or `None` when nothing changed.
    pub report: Option<Value>,
}

/// The entry of one tool in a strict format, and its projection report.
pub(crate) fn strict_entry(
    format: CatalogFormat,
    name: &str,
    description: &str,
    outcome: &StrictOutcome<'_>,
    input_schema: &Value,
) -> StrictEntry {
    let (schema, strict) = match outcome {
        StrictOutcome::Projected(projected) => (projected.schema.as_ref(), true),
        StrictOutcome::Unconstrained(_) => (Some(input_schema), false),
    };
    let parameters = schema.cloned().unwrap_or_else(|| json!({}));
    let entry = match format {
        CatalogFormat::OpenaiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
                "strict": strict,
            },
        }),
        CatalogFormat::AnthropicStrict => json!({
            "name": name,
            "description": description,
            "input_schema": parameters,
            "strict": strict,
        }),
        _ => {
            let mut entry = json!({ "name": name, "description": description });
            match (schema, strict) {
                (Some(schema), true) => entry["parameters"] = schema.clone(),
                // Declared without parameters: the tool takes none.
                (None, _) => {}
                // Gemini's documented alternative to the OpenAPI subset:
                // the full JSON Schema, which it does not constrain to.
                (Some(schema), false) => entry["parametersJsonSchema"] = schema.clone(),
            }
            entry
        }
    };
    let report = match outcome {
        StrictOutcome::Projected(projected) if projected.changes.is_empty() => None,
        StrictOutcome::Projected(projected) => Some(json!({
            "tool": name,
            "changes": projected.changes,
        })),
        StrictOutcome::Unconstrained(reason) => Some(json!({
            "tool": name,
            "strict": false,
            "reason": reason,
            "changes": [],
        })),
    };
    StrictEntry { entry, report }
}

/// The MCP annotations mapping (docs/reference.md#mcp-annotations).
/// MCP's `execution` of a long-running tool: it may be called as a task
/// (2025-11-25 `tools/call` with `task`; the 2026 tasks extension decides
/// per request), or must be (`requires_client = ["tasks"]`). Other tools
/// have none, which means "not as a task".
pub(crate) fn mcp_execution(tool: &RegisteredTool) -> Option<Value> {
    let support = if tool.descriptor.requires_tasks {
        "required"
    } else {
        "optional"
    };
    tool.policy
        .long_running
        .then(|| json!({ "taskSupport": support }))
}

pub(crate) fn mcp_annotations(tool: &RegisteredTool) -> Value {
    policy_annotations(&tool.policy, tool.descriptor.policy.open_world)
}

/// The annotations of a policy; `open_world` is what the author declared.
pub(crate) fn policy_annotations(policy: &Policy, open_world: bool) -> Value {
    json!({
        "readOnlyHint": policy.side_effect == SideEffect::Read,
        "destructiveHint": policy.side_effect == SideEffect::Destructive,
        "idempotentHint": policy.idempotent,
        "openWorldHint": open_world_hint(policy, open_world),
    })
}

/// A tool that requires a capability the vocabulary declares open-world
/// (holding it means reaching other machines) is open-world by definition,
/// so the hint cannot hang on the author remembering `open_world`; the flag
/// still lets any other tool say the same.
fn open_world_hint(policy: &Policy, open_world: bool) -> bool {
    open_world
        || policy
            .required_capabilities
            .iter()
            .any(|capability| capability.term().is_some_and(|term| term.open_world))
}

impl FromStr for CatalogFormat {
    type Err = ();

    fn from_str(value: &str) -> Result<Self, ()> {
        Ok(match value {
            "portos" => CatalogFormat::Portos,
            "openai" => CatalogFormat::Openai,
            "anthropic" => CatalogFormat::Anthropic,
            "mcp" => CatalogFormat::Mcp,
            "openai-strict" => CatalogFormat::OpenaiStrict,
            "anthropic-strict" => CatalogFormat::AnthropicStrict,
            "gemini" => CatalogFormat::Gemini,
            _ => return Err(()),
        })
    }
}

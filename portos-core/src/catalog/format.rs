use std::str::FromStr;

use serde_json::{Value, json};

use crate::contract::{Capability, Policy, SideEffect};
use crate::registry::RegisteredTool;

/// The catalog's `format` query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CatalogFormat {
    #[default]
    Portos,
    Openai,
    Anthropic,
    Mcp,
}

impl CatalogFormat {
    pub const VALUES: [&'static str; 4] = ["portos", "openai", "anthropic", "mcp"];

    pub fn as_str(self) -> &'static str {
        match self {
            CatalogFormat::Portos => "portos",
            CatalogFormat::Openai => "openai",
            CatalogFormat::Anthropic => "anthropic",
            CatalogFormat::Mcp => "mcp",
        }
    }

    /// The mechanical provider projection of one entry (BEHAVIOUR §2.4–2.5).
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
            CatalogFormat::Mcp => json!({
                "name": d.provider_name,
                "description": d.description,
                "inputSchema": tool.input_schema,
                "outputSchema": tool.output_schema,
                "annotations": mcp_annotations(tool),
            }),
            CatalogFormat::Portos => json!({ "name": d.name }),
        }
    }
}

/// The MCP annotations mapping (BEHAVIOUR §2.5).
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

/// BEHAVIOUR §2.5: a tool that needs `visitEidoversePeers` reaches other
/// machines by definition, so the hint cannot hang on the author remembering
/// `open_world`; the flag still lets any other tool say the same.
fn open_world_hint(policy: &Policy, open_world: bool) -> bool {
    open_world
        || policy
            .required_capabilities
            .contains(&Capability::VisitEidoversePeers)
}

impl FromStr for CatalogFormat {
    type Err = ();

    fn from_str(value: &str) -> Result<Self, ()> {
        Ok(match value {
            "portos" => CatalogFormat::Portos,
            "openai" => CatalogFormat::Openai,
            "anthropic" => CatalogFormat::Anthropic,
            "mcp" => CatalogFormat::Mcp,
            _ => return Err(()),
        })
    }
}

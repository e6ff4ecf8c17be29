//! Schema-only descriptions of the wire forms, for the OpenAPI document.
//! Parsing never goes through these types: `ToolCall::parse` and
//! `CatalogQuery::parse` hold the rules (trimming, limits, strictness).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `portos_tool_call` envelope as it travels.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolCallBody {
    /// `"portos_tool_call"` (the default).
    #[serde(rename = "type")]
    pub kind: Option<CallType>,
    /// 1–200 of letters, digits, `.`, `_`, `:` and `-` after trimming.
    #[schemars(
        length(min = 1, max = 200),
        regex(pattern = r"^\s*[A-Za-z0-9._:-]+\s*$")
    )]
    pub request_id: String,
    /// Canonical name, provider name or alias: 1–100 of `[A-Za-z0-9._-]`.
    #[schemars(length(min = 1, max = 100))]
    pub name: String,
    /// Only 1 is accepted (the default).
    #[schemars(range(min = 1, max = 1))]
    pub version: Option<u32>,
    /// The tool's arguments; `{}` when omitted.
    pub arguments: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub enum CallType {
    #[serde(rename = "portos_tool_call")]
    PortosToolCall,
}

/// `GET /api/cos/tools` query.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogQueryParams {
    /// Which principal's tools (a filter, never authority). Default `all`.
    pub scope: Option<ScopeParam>,
    /// Narrows the voice-derived tools (≤500 characters, trimmed).
    #[schemars(length(max = 500))]
    pub intent: Option<String>,
    /// Projection. Default `portos`.
    pub format: Option<FormatParam>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScopeParam {
    All,
    Agent,
    Mind,
    Ui,
    Voice,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FormatParam {
    Portos,
    Openai,
    Anthropic,
    Mcp,
}

/// A catalog in any format: `<format>_tool_catalog`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogBody {
    #[serde(rename = "type")]
    pub kind: String,
    pub schema_version: u32,
    pub scope: String,
    /// Native entries (`portos`) or provider projections.
    pub tools: Vec<Map<String, Value>>,
    /// Native format only.
    pub stats: Option<CatalogStats>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct CatalogStats {
    pub total: usize,
    pub read: usize,
    pub write: usize,
    pub granted: usize,
}

/// The normalized `portos_tool_result` envelope.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultBody {
    #[serde(rename = "type")]
    pub kind: String,
    pub request_id: String,
    /// Always the canonical name.
    pub name: String,
    pub version: u32,
    pub state: super::ToolState,
    pub duplicate: bool,
    /// What the adapter returned (absent when it failed outright).
    pub result: Option<Map<String, Value>>,
    /// At most 500 characters, when failed.
    pub error: Option<String>,
}

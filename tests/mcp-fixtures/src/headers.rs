//! The suite's SEP-2243 fixture: a tool whose `region` argument a client
//! mirrors in the `Mcp-Param-Region` header.

use portos_core::{AdapterError, Content, ToolContent, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegionArgs {
    /// Where to run, also sent as the `Mcp-Param-Region` header.
    #[schemars(length(max = 200), extend("x-mcp-header" = "Region"))]
    pub region: String,
}

/// Echoes the region it was routed by.
#[portos_tool(
    name = "test_custom_header",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    side_effect = "read",
)]
pub async fn custom_header(args: RegionArgs) -> Result<ToolContent, AdapterError> {
    Ok(ToolContent::new(vec![Content::text(format!(
        "Region: {}",
        args.region
    ))]))
}

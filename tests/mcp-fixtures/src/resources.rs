//! The suite's fixture resources and resource template.

use portos_core::{AdapterError, ResourceBody, ToolContext, portos_resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::media::RED_PIXEL_PNG;

/// A fixed text resource.
#[portos_resource(
    uri = "test://static-text",
    name = "static-text",
    title = "Static text",
    mime_type = "text/plain",
    scopes = ["client"],
    capabilities = ["readFixtures"],
)]
pub async fn static_text() -> Result<String, AdapterError> {
    Ok("This is the content of the static text resource.".to_owned())
}

/// A fixed binary resource: a 1×1 red PNG.
#[portos_resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png",
    scopes = ["client"],
    capabilities = ["readFixtures"],
)]
pub async fn static_binary() -> Result<ResourceBody, AdapterError> {
    Ok(ResourceBody::blob(RED_PIXEL_PNG))
}

/// A resource the suite subscribes to.
#[portos_resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain",
    scopes = ["client"],
    capabilities = ["readFixtures"],
)]
pub async fn watched_resource() -> Result<String, AdapterError> {
    Ok("Watched resource content".to_owned())
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateVars {
    /// The item's id.
    #[schemars(length(min = 1, max = 100))]
    pub id: String,
}

/// Data for one id, as JSON.
#[portos_resource(
    uri_template = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json",
    scopes = ["client"],
    capabilities = ["readFixtures"],
    complete(id = suggest_ids),
)]
pub async fn template_data(vars: TemplateVars) -> Result<String, AdapterError> {
    let data = serde_json::json!({
        "id": vars.id,
        "templateTest": true,
        "data": format!("Data for ID: {}", vars.id),
    });
    Ok(data.to_string())
}

/// Ids that start with what was typed.
async fn suggest_ids(
    _ctx: &ToolContext,
    request: portos_core::primitives::CompletionRequest,
) -> Vec<String> {
    ["123", "124", "200"]
        .into_iter()
        .filter(|id| id.starts_with(&request.value))
        .map(str::to_owned)
        .collect()
}

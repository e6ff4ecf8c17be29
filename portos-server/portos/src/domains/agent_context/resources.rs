//! The context items as MCP resources: each enabled scope is a resource
//! (`portos-context://scope/{scope}`, its first page as `list_context`
//! answers it) and each item is one through the template
//! `portos-context://item/{ref}` (the ref percent-encoded, the item as
//! `get_context` answers it). They are read through the same path as the
//! context tools, so the same settings, scopes, profile redaction and
//! limits apply; a scope that is not enabled, or an item it does not show,
//! is not found.

use portos_core::ResourceContents;
use portos_core::primitives::uri_template::percent_decode;
use portos_server::mcp::{AgentContextConfig, ContextScope};
use portos_server::mcp::{ResourceFuture, ResourceMiss};
use serde_json::{Value, json};

use super::input::ContextInput;
use super::{MAX_RESULTS, Sources, run};

use crate::shared::context_uri::{ITEM_PREFIX, SCOPE_PREFIX, scope_uri};

/// One resource per enabled scope.
pub fn resources(config: &AgentContextConfig) -> Vec<Value> {
    config
        .scopes
        .iter()
        .map(|scope| {
            json!({
                "uri": scope_uri(*scope),
                "name": scope.as_str(),
                "title": format!("PortOS context: {}", scope.as_str()),
                "description": format!(
                    "The first {MAX_RESULTS} {} context items, bounded and redacted as list_context answers them",
                    scope.as_str()
                ),
                "mimeType": "application/json",
            })
        })
        .collect()
}

/// The template items are read through.
pub fn templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": format!("{ITEM_PREFIX}{{ref}}"),
        "name": "context-item",
        "title": "PortOS context item",
        "description": "One context item by its ref (percent-encoded), as get_context answers it",
        "mimeType": "application/json",
    })]
}

/// Reads `uri` when it is a context resource.
pub fn read<'a>(
    uri: &'a str,
    config: &'a AgentContextConfig,
    sources: Sources,
) -> Option<ResourceFuture<'a>> {
    if let Some(scope) = uri.strip_prefix(SCOPE_PREFIX) {
        return Some(Box::pin(async move {
            let scope = ContextScope::from_name(scope)
                .filter(|scope| config.has_scope(*scope))
                .ok_or(ResourceMiss::NotFound)?;
            let input = ContextInput::List {
                scope,
                cursor: 0,
                limit: Some(MAX_RESULTS),
            };
            let page = run(input, config, &sources)
                .await
                .map_err(ResourceMiss::Unavailable)?;
            Ok(vec![json_contents(uri, &page)])
        }));
    }
    let reference = uri.strip_prefix(ITEM_PREFIX)?;
    Some(Box::pin(async move {
        let reference = percent_decode(reference).ok_or(ResourceMiss::NotFound)?;
        let found = run(ContextInput::Get { reference }, config, &sources)
            .await
            .map_err(ResourceMiss::Unavailable)?;
        match found.get("item") {
            Some(item) if !item.is_null() => Ok(vec![json_contents(uri, item)]),
            _ => Err(ResourceMiss::NotFound),
        }
    }))
}

fn json_contents(uri: &str, value: &Value) -> ResourceContents {
    ResourceContents::text(uri, value.to_string()).with_mime_type("application/json")
}

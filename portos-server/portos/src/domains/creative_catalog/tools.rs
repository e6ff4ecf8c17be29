//! `catalog.search` (docs/reference.md#semantic-adapters row 22): search the
//! creative catalog by name and body text, optionally within one type.

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::Hit;
use super::ops;
use crate::shared::limits::clamp_limit;

const SEARCH_DEFAULT: usize = 5;
const SEARCH_MAX: usize = 20;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for in entry names and bodies (case-insensitive).
    pub query: String,
    /// Only this type: character, place, object, idea, scene, concept or an active user type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// How many entries to return (default 5, at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResult {
    pub ok: bool,
    pub count: usize,
    pub results: Vec<Hit>,
    pub summary: String,
}

/// Look up characters, places, objects, ideas, scenes and concepts in the
/// user's creative catalog.
#[portos_tool(
    name = "catalog.search",
    aliases = ["catalog_lookup", "catalog_search"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "catalog",
)]
pub async fn search(args: SearchArgs, store: Shared<Store>) -> Result<SearchResult, AdapterError> {
    let query = args.query.trim().to_owned();
    if query.is_empty() {
        return Err(AdapterError::new(
            "query must not be empty: say what to look for in the catalog",
        ));
    }
    let limit = clamp_limit(args.limit, SEARCH_DEFAULT, SEARCH_MAX);
    let needle = query.clone();
    let requested = args.kind;
    let (kind, results) = store
        .run(move |connection| ops::search(connection, &needle, requested.as_deref(), limit))
        .await?;
    let within = kind
        .map(|kind| format!(" among {kind} entries"))
        .unwrap_or_default();
    let summary = match results.as_slice() {
        [] => format!("No catalog entries match \"{query}\"{within}."),
        [only] => format!(
            "Found 1 catalog entry for \"{query}\"{within}: {} ({}).",
            only.name, only.kind
        ),
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|hit| format!("{} ({})", hit.name, hit.kind))
                .collect();
            format!(
                "Found {} catalog entries for \"{query}\"{within}: {}.",
                many.len(),
                names.join(", ")
            )
        }
    };
    Ok(SearchResult {
        ok: true,
        count: results.len(),
        results,
        summary,
    })
}

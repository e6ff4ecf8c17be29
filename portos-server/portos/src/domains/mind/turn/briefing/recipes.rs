//! The prompt's saved-recipe list (docs/reference.md#recipe-catalog, last
//! bullet): empty unless the Mind holds `manageToolRecipes`, and then only the
//! available recipes whose capabilities are all granted — read from the mind
//! catalog for the stored grants, so the prompt names exactly what the catalog
//! offers.

use portos_core::{CatalogFormat, CatalogQuery, CatalogScope, Catalogs};
use serde::Serialize;
use serde_json::Value;

use super::bounded_list;
use crate::domains::mind::MindSettings;

pub const RECIPES_HEADING: &str =
    "Saved recipes you may call (each runs its read steps as one tool call):";
const LIST_MAX_CHARS: usize = 3_000;

/// A saved recipe as the prompt names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptRecipe {
    /// Its tool name, e.g. `recipe.morning-brief`.
    pub name: String,
    /// Its purpose, at most 280 characters.
    pub description: String,
}

/// The recipes the prompt lists for `settings`.
pub fn saved_recipes(settings: &MindSettings, catalogs: &Catalogs) -> Vec<PromptRecipe> {
    if !settings.manage_tool_recipes {
        return Vec::new();
    }
    let query = CatalogQuery {
        scope: CatalogScope::Only(portos_words::MIND),
        intent: None,
        format: CatalogFormat::Portos,
    };
    let catalog = catalogs.catalog(&query, settings.capabilities()).body();
    catalog["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|tool| tool.get("recipe").is_some() && tool["granted"] == Value::Bool(true))
        .map(|tool| PromptRecipe {
            name: tool["name"].as_str().unwrap_or_default().to_owned(),
            description: tool["description"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

/// The recipe section, when there is a recipe to list.
pub fn section(recipes: &[PromptRecipe]) -> Option<String> {
    if recipes.is_empty() {
        return None;
    }
    let lines: Vec<String> = recipes
        .iter()
        .map(|recipe| serde_json::to_string(recipe).unwrap_or_default())
        .collect();
    Some(bounded_list(RECIPES_HEADING, &lines, LIST_MAX_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_slot_adds_no_section() {
        assert_eq!(section(&[]), None);
        let listed = section(&[PromptRecipe {
            name: "recipe.morning-brief".to_owned(),
            description: "Goals and calendar for today.".to_owned(),
        }]);
        assert_eq!(
            listed.as_deref(),
            Some(
                "Saved recipes you may call (each runs its read steps as one tool call):\n- {\"name\":\"recipe.morning-brief\",\"description\":\"Goals and calendar for today.\"}"
            )
        );
    }
}

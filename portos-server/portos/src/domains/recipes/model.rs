//! What the library answers: a recipe with its active definition and
//! whether it can be called now, its revisions, pages of them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::definition::RecipeDefinition;

/// Who wrote a revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Author {
    /// The Persistent Mind, through its `mind.recipes.*` tools.
    Mind,
    /// A person, through the REST routes.
    User,
}

impl Author {
    pub fn as_str(self) -> &'static str {
        match self {
            Author::Mind => "mind",
            Author::User => "user",
        }
    }

    pub fn from_stored(text: &str) -> Author {
        if text == "mind" {
            Author::Mind
        } else {
            Author::User
        }
    }
}

// The projection: docs/reference.md#recipe-storage.
/// A recipe as the library shows it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recipe {
    pub id: String,
    pub name: String,
    pub active_revision: i64,
    pub archived: bool,
    /// The active revision's definition.
    pub definition: Value,
    /// Not archived, and the definition passes against the live Mind
    /// catalog now.
    pub available: bool,
    /// Why it is not available (at most 500 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// One revision.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipeVersion {
    pub revision: i64,
    pub definition: Value,
    pub author: Author,
    pub archived: bool,
    pub created_at: String,
}

/// A page of recipes, by name.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RecipePage {
    pub recipes: Vec<Recipe>,
    /// Every recipe, archived ones included.
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
}

/// A recipe with a page of its revisions, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipeRead {
    pub recipe: Recipe,
    pub versions: Vec<RecipeVersion>,
    pub total_versions: usize,
    pub limit: usize,
    pub offset: usize,
}

/// A recipe written (created, updated, archived or restored).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Written {
    pub recipe: Recipe,
    /// False only for archiving a recipe already archived.
    pub changed: bool,
    pub summary: String,
}

/// A recipe that can be offered and run: not archived, its active
/// definition read. Whether it fits the live catalog is for the reader to
/// check, per scope (`validate::validate`).
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveRecipe {
    pub id: String,
    pub name: String,
    pub revision: i64,
    pub definition: RecipeDefinition,
}

/// A recipe that is not archived, with its active definition as read
/// from the store: a definition that no longer reads (a future version, a
/// rule tightened since) is the reason it is unavailable.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRecipe {
    pub id: String,
    pub name: String,
    pub revision: i64,
    pub definition: Result<RecipeDefinition, super::definition::DefinitionError>,
}

/// Paging of lists: `limit` 1..20 (default 10), `offset` 0..100000.
pub const DEFAULT_LIMIT: usize = 10;
pub const MAX_LIMIT: usize = 20;
pub const MAX_OFFSET: usize = 100_000;

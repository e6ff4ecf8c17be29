//! The library's operations, shared by the Mind's tools and the people's
//! routes (docs/reference.md#recipe-storage). Every write is one SQLite
//! transaction: the revision check, the new revision, the recipe's active
//! revision and the generation, so two racing writers cannot both win and a
//! refused write changes nothing. A definition is checked (its own rules, then
//! the live catalog) before anything is written: an invalid update leaves the
//! previous definition active.

use std::sync::Arc;

use jiff::Timestamp;
use portos_core::Registry;
use portos_server::store::sql::Connection;
use portos_server::store::{Store, StoreError};
use serde_json::Value;

use super::definition::{self, DefinitionError, RecipeDefinition};
use super::error::RecipeError;
use super::model::{
    ActiveRecipe, Author, Recipe, RecipePage, RecipeRead, RecipeVersion, StoredRecipe, Written,
};
use super::store::{self, RecipeRow, VersionRow};
use super::validate::validate;
use crate::domains::mind::live_settings;

/// The longest `disabledReason` shown.
const MAX_REASON_CHARS: usize = 500;

/// Creates a recipe at revision 1.
pub async fn create(
    store: &Store,
    registry: Arc<Registry>,
    raw: Value,
    author: Author,
) -> Result<Written, RecipeError> {
    let definition = checked(&raw, &registry)?;
    let text = definition.to_json().to_string();
    let (row, text) = write(store, move |transaction| {
        gate(transaction, author)?;
        if store::by_name(transaction, &definition.name)?.is_some() {
            return Err(RecipeError::NameConflict(definition.name.clone()));
        }
        let now = Timestamp::now().to_string();
        let row = RecipeRow {
            id: uuid::Uuid::new_v4().to_string(),
            name: definition.name.clone(),
            active_revision: 1,
            archived: false,
            created_at: now.clone(),
            updated_at: now,
        };
        store::insert(transaction, &row)?;
        append(transaction, &row, &text, author)?;
        Ok((row, text))
    })
    .await?;
    let summary = format!("Created {} at revision 1.", row.name);
    Ok(written(&row, &text, &registry, true, summary))
}

/// Replaces the definition: revision + 1, archived as it was.
pub async fn update(
    store: &Store,
    registry: Arc<Registry>,
    id: String,
    raw: Value,
    expected_revision: i64,
    author: Author,
) -> Result<Written, RecipeError> {
    let definition = checked(&raw, &registry)?;
    let text = definition.to_json().to_string();
    let (row, text) = write(store, move |transaction| {
        gate(transaction, author)?;
        let mut row = current(transaction, &id, expected_revision)?;
        claim_name(transaction, &row.id, &definition.name)?;
        row.name = definition.name.clone();
        let archived = row.archived;
        advance(transaction, &mut row, &text, archived, author)?;
        Ok((row, text))
    })
    .await?;
    let summary = format!("Updated {} to revision {}.", row.name, row.active_revision);
    Ok(written(&row, &text, &registry, true, summary))
}

/// Archives a recipe: revision + 1, archived. A recipe already archived is
/// left as it is and answered at the revision it has (`changed: false`).
pub async fn archive(
    store: &Store,
    registry: Arc<Registry>,
    id: String,
    expected_revision: i64,
    author: Author,
) -> Result<Written, RecipeError> {
    let (row, text, changed) = write(store, move |transaction| {
        gate(transaction, author)?;
        let mut row = current(transaction, &id, expected_revision)?;
        let text = active_text(transaction, &row)?;
        if row.archived {
            return Ok((row, text, false));
        }
        advance(transaction, &mut row, &text, true, author)?;
        Ok((row, text, true))
    })
    .await?;
    let summary = if changed {
        format!("Archived {} at revision {}.", row.name, row.active_revision)
    } else {
        format!(
            "{} was already archived (revision {}); nothing changed.",
            row.name, row.active_revision
        )
    };
    Ok(written(&row, &text, &registry, changed, summary))
}

/// Makes an earlier revision's definition active again, checked against
/// today's catalog: revision + 1, not archived.
pub async fn restore(
    store: &Store,
    registry: Arc<Registry>,
    id: String,
    revision: i64,
    expected_revision: i64,
    author: Author,
) -> Result<Written, RecipeError> {
    let catalog = registry.clone();
    let (row, text) = write(store, move |transaction| {
        gate(transaction, author)?;
        let mut row = current(transaction, &id, expected_revision)?;
        let Some(version) = store::version(transaction, &row.id, revision)? else {
            return Err(RecipeError::NoSuchRevision { id, revision });
        };
        let stored: Value = serde_json::from_str(&version.definition).unwrap_or(Value::Null);
        let definition = checked(&stored, &catalog)?;
        claim_name(transaction, &row.id, &definition.name)?;
        let text = definition.to_json().to_string();
        row.name = definition.name;
        advance(transaction, &mut row, &text, false, author)?;
        Ok((row, text))
    })
    .await?;
    let summary = format!(
        "Restored revision {revision} of {} as revision {}.",
        row.name, row.active_revision
    );
    Ok(written(&row, &text, &registry, true, summary))
}

/// A page of recipes, by name.
pub async fn list(
    store: &Store,
    registry: &Registry,
    limit: usize,
    offset: usize,
) -> Result<RecipePage, StoreError> {
    let (rows, total) = store
        .run(move |connection| store::list(connection, limit, offset))
        .await?;
    let recipes = rows
        .iter()
        .map(|(row, text)| project(row, text, registry))
        .collect();
    Ok(RecipePage {
        recipes,
        total,
        limit,
        offset,
    })
}

/// A recipe with a page of its revisions, newest first.
pub async fn read(
    store: &Store,
    registry: &Registry,
    id: String,
    limit: usize,
    offset: usize,
) -> Result<RecipeRead, RecipeError> {
    let (row, text, (versions, total_versions)) = store
        .run(move |connection| {
            let Some(row) = store::get(connection, &id)? else {
                return Ok(Err(RecipeError::NotFound(id)));
            };
            let text = active_text(connection, &row)?;
            let versions = store::versions(connection, &row.id, limit, offset)?;
            Ok(Ok((row, text, versions)))
        })
        .await??;
    Ok(RecipeRead {
        recipe: project(&row, &text, registry),
        versions: versions.into_iter().map(version_view).collect(),
        total_versions,
        limit,
        offset,
    })
}

/// Every recipe that is not archived, by name, with its active definition
/// read (or why it cannot be): what a catalog projects.
pub async fn active(store: &Store) -> Result<Vec<StoredRecipe>, StoreError> {
    store.run(|connection| active_in(connection)).await
}

/// [`active`] on a connection the caller holds (a catalog listing is read
/// synchronously: `store.run_blocking(|c| ops::active_in(c))`).
pub fn active_in(connection: &Connection) -> Result<Vec<StoredRecipe>, StoreError> {
    Ok(store::active(connection)?
        .into_iter()
        .map(|(row, text)| StoredRecipe {
            definition: read_stored(&text),
            id: row.id,
            name: row.name,
            revision: row.active_revision,
        })
        .collect())
}

/// The recipe called `name`, to run: `RECIPE_NOT_FOUND`, `RECIPE_ARCHIVED`,
/// or its active definition as stored (`RECIPE_VERSION_UNSUPPORTED`,
/// `RECIPE_VALIDATION_ERROR` when it no longer reads).
pub async fn callable(store: &Store, name: String) -> Result<ActiveRecipe, RecipeError> {
    let (row, text) = store
        .run(move |connection| {
            let Some(row) = store::by_name(connection, &name)? else {
                return Ok(Err(RecipeError::NotFound(name)));
            };
            if row.archived {
                return Ok(Err(RecipeError::Archived(row.name)));
            }
            let text = active_text(connection, &row)?;
            Ok(Ok((row, text)))
        })
        .await??;
    Ok(ActiveRecipe {
        definition: read_stored(&text)?,
        id: row.id,
        name: row.name,
        revision: row.active_revision,
    })
}

/// Changes with every write to the library: compare it to notice one
/// (`store::generation` reads it on a connection the caller holds).
pub async fn generation(store: &Store) -> Result<i64, StoreError> {
    store.run(|connection| store::generation(connection)).await
}

/// The definition's own rules, then the live Mind catalog.
fn checked(raw: &Value, registry: &Registry) -> Result<RecipeDefinition, RecipeError> {
    let definition = definition::parse(raw)?;
    validate(&definition, portos_words::MIND, registry)?;
    Ok(definition)
}

fn read_stored(text: &str) -> Result<RecipeDefinition, DefinitionError> {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    definition::parse(&value)
}

/// Runs a write in one transaction, committed only when it succeeds.
async fn write<R: Send + 'static>(
    store: &Store,
    work: impl FnOnce(&Connection) -> Result<R, RecipeError> + Send + 'static,
) -> Result<R, RecipeError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            // First, so the library's row is locked for the whole write:
            // writes from several servers (PostgreSQL) take turns, and each
            // checks revisions and names against the one before it. A
            // refused write rolls the bump back.
            store::bump_generation(&transaction)?;
            match work(&transaction) {
                Ok(answer) => {
                    transaction.commit()?;
                    Ok(Ok(answer))
                }
                // Dropping the transaction rolls back whatever was done.
                Err(refusal) => Ok(Err(refusal)),
            }
        })
        .await?
}

/// The Mind's writes re-read its grant in the write's transaction, so a
/// grant revoked during a turn stops the next write; people are not gated
/// here (the password gate is in front of their routes).
fn gate(connection: &Connection, author: Author) -> Result<(), RecipeError> {
    if author == Author::Mind && !live_settings(connection)?.manage_tool_recipes {
        return Err(RecipeError::AccessOff);
    }
    Ok(())
}

/// The recipe `id` at `expected` revision.
fn current(connection: &Connection, id: &str, expected: i64) -> Result<RecipeRow, RecipeError> {
    let Some(row) = store::get(connection, id)? else {
        return Err(RecipeError::NotFound(id.to_owned()));
    };
    if row.active_revision != expected {
        return Err(RecipeError::RevisionConflict {
            id: row.id,
            expected,
            active: row.active_revision,
        });
    }
    Ok(row)
}

/// `name` must be free, or already this recipe's.
fn claim_name(connection: &Connection, id: &str, name: &str) -> Result<(), RecipeError> {
    match store::by_name(connection, name)? {
        Some(other) if other.id != id => Err(RecipeError::NameConflict(name.to_owned())),
        _ => Ok(()),
    }
}

/// Appends the next revision and makes it active.
fn advance(
    connection: &Connection,
    row: &mut RecipeRow,
    text: &str,
    archived: bool,
    author: Author,
) -> Result<(), RecipeError> {
    row.active_revision += 1;
    row.archived = archived;
    row.updated_at = Timestamp::now().to_string();
    append(connection, row, text, author)?;
    store::set_active(connection, row)?;
    Ok(())
}

/// Stores the row's active revision with `text` as its definition.
fn append(
    connection: &Connection,
    row: &RecipeRow,
    text: &str,
    author: Author,
) -> Result<(), RecipeError> {
    store::insert_version(
        connection,
        &row.id,
        &VersionRow {
            revision: row.active_revision,
            definition: text.to_owned(),
            author: author.as_str().to_owned(),
            archived: row.archived,
            created_at: row.updated_at.clone(),
        },
    )?;
    Ok(())
}

fn active_text(connection: &Connection, row: &RecipeRow) -> Result<String, StoreError> {
    Ok(store::version(connection, &row.id, row.active_revision)?
        .map(|version| version.definition)
        .unwrap_or_default())
}

fn written(
    row: &RecipeRow,
    text: &str,
    registry: &Registry,
    changed: bool,
    summary: String,
) -> Written {
    Written {
        recipe: project(row, text, registry),
        changed,
        summary,
    }
}

/// The projection, with whether the recipe can be called in the Mind's
/// scope now.
fn project(row: &RecipeRow, text: &str, registry: &Registry) -> Recipe {
    let definition: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let reason = unavailable_reason(row.archived, &definition, registry);
    Recipe {
        id: row.id.clone(),
        name: row.name.clone(),
        active_revision: row.active_revision,
        archived: row.archived,
        definition,
        available: reason.is_none(),
        disabled_reason: reason,
        created_at: row.created_at.clone(),
        updated_at: row.updated_at.clone(),
    }
}

/// Why a stored recipe cannot be called by the Mind now, if it cannot.
pub fn unavailable_reason(
    archived: bool,
    definition: &Value,
    registry: &Registry,
) -> Option<String> {
    let reason = if archived {
        "The recipe is archived".to_owned()
    } else {
        let error = match definition::parse(definition) {
            Ok(parsed) => validate(&parsed, portos_words::MIND, registry)
                .err()?
                .into(),
            Err(error) => RecipeError::from(error),
        };
        error.to_string()
    };
    Some(reason.chars().take(MAX_REASON_CHARS).collect())
}

fn version_view(version: VersionRow) -> RecipeVersion {
    RecipeVersion {
        revision: version.revision,
        definition: serde_json::from_str(&version.definition).unwrap_or(Value::Null),
        author: Author::from_stored(&version.author),
        archived: version.archived,
        created_at: version.created_at,
    }
}

//! The recipe library's tables and every SQL statement on them
//! (docs/reference.md#recipe-storage): one row per recipe with its active
//! revision, one row per revision with the definition as written then, and a
//! generation counter bumped by every write in the same transaction, so a
//! reader can tell cheaply whether anything changed (one row read, no scan; a
//! timestamp could tie within a clock tick).

use portos_server::store::changes::{self, Change};
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use portos_server::store::{Schema, StoreError};

/// The reason a library write gives when it announces a catalog change.
pub const CATALOG_CHANGE: &str = "recipes";

portos_server::store_schema!(
    /// Saved read recipes and every revision of each.
    RECIPES = Schema {
        component: "recipes",
        migrations: &[
            // 1
            "CREATE TABLE mind_tool_recipes (
                id              TEXT PRIMARY KEY,
                -- Unique among archived recipes too: a name is never reused.
                name            TEXT NOT NULL UNIQUE,
                active_revision INTEGER NOT NULL CHECK (active_revision >= 1),
                archived        INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
                created_at      TEXT NOT NULL,
                updated_at      TEXT NOT NULL
            );
            CREATE TABLE mind_tool_recipe_versions (
                recipe_id  TEXT NOT NULL REFERENCES mind_tool_recipes (id),
                revision   INTEGER NOT NULL CHECK (revision >= 1),
                definition TEXT NOT NULL,
                author     TEXT NOT NULL CHECK (author IN ('mind', 'user')),
                archived   INTEGER NOT NULL CHECK (archived IN (0, 1)),
                created_at TEXT NOT NULL,
                -- Two writers racing for the same next revision: one wins.
                PRIMARY KEY (recipe_id, revision)
            );
            CREATE TABLE mind_tool_recipe_generation (
                slot       INTEGER PRIMARY KEY CHECK (slot = 1),
                generation INTEGER NOT NULL
            );
            INSERT INTO mind_tool_recipe_generation (slot, generation) VALUES (1, 0);",
        ],
    }
);

/// A recipe's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeRow {
    pub id: String,
    pub name: String,
    pub active_revision: i64,
    pub archived: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// One revision's row; `definition` is the JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionRow {
    pub revision: i64,
    pub definition: String,
    pub author: String,
    pub archived: bool,
    pub created_at: String,
}

const RECIPE_COLUMNS: &str = "id, name, active_revision, archived, created_at, updated_at";

fn recipe_from(row: &Row<'_>) -> portos_server::store::sql::Result<RecipeRow> {
    Ok(RecipeRow {
        id: row.get(0)?,
        name: row.get(1)?,
        active_revision: row.get(2)?,
        archived: row.get(3)?,
        created_at: row.get(4)?,
        updated_at: row.get(5)?,
    })
}

fn version_from(row: &Row<'_>) -> portos_server::store::sql::Result<VersionRow> {
    Ok(VersionRow {
        revision: row.get(0)?,
        definition: row.get(1)?,
        author: row.get(2)?,
        archived: row.get(3)?,
        created_at: row.get(4)?,
    })
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<RecipeRow>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {RECIPE_COLUMNS} FROM mind_tool_recipes WHERE id = ?1"),
            [id],
            recipe_from,
        )
        .optional()?)
}

pub fn by_name(connection: &Connection, name: &str) -> Result<Option<RecipeRow>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {RECIPE_COLUMNS} FROM mind_tool_recipes WHERE name = ?1"),
            [name],
            recipe_from,
        )
        .optional()?)
}

pub fn insert(connection: &Connection, recipe: &RecipeRow) -> Result<(), StoreError> {
    connection.execute(
        &format!(
            "INSERT INTO mind_tool_recipes ({RECIPE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        ),
        params![
            recipe.id,
            recipe.name,
            recipe.active_revision,
            recipe.archived,
            recipe.created_at,
            recipe.updated_at
        ],
    )?;
    Ok(())
}

/// Moves a recipe to a revision just appended.
pub fn set_active(connection: &Connection, recipe: &RecipeRow) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE mind_tool_recipes
         SET name = ?2, active_revision = ?3, archived = ?4, updated_at = ?5
         WHERE id = ?1",
        params![
            recipe.id,
            recipe.name,
            recipe.active_revision,
            recipe.archived,
            recipe.updated_at
        ],
    )?;
    Ok(())
}

pub fn insert_version(
    connection: &Connection,
    recipe_id: &str,
    version: &VersionRow,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_tool_recipe_versions
             (recipe_id, revision, definition, author, archived, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            recipe_id,
            version.revision,
            version.definition,
            version.author,
            version.archived,
            version.created_at
        ],
    )?;
    Ok(())
}

pub fn version(
    connection: &Connection,
    recipe_id: &str,
    revision: i64,
) -> Result<Option<VersionRow>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT revision, definition, author, archived, created_at
             FROM mind_tool_recipe_versions WHERE recipe_id = ?1 AND revision = ?2",
            params![recipe_id, revision],
            version_from,
        )
        .optional()?)
}

/// A recipe's revisions, newest first.
pub fn versions(
    connection: &Connection,
    recipe_id: &str,
    limit: usize,
    offset: usize,
) -> Result<(Vec<VersionRow>, usize), StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT revision, definition, author, archived, created_at
         FROM mind_tool_recipe_versions WHERE recipe_id = ?1
         ORDER BY revision DESC LIMIT ?2 OFFSET ?3",
    )?;
    let rows = statement
        .query_map(
            params![recipe_id, as_i64(limit), as_i64(offset)],
            version_from,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    let total: i64 = connection.query_row(
        "SELECT count(*) FROM mind_tool_recipe_versions WHERE recipe_id = ?1",
        [recipe_id],
        |row| row.get(0),
    )?;
    Ok((rows, usize::try_from(total).unwrap_or(0)))
}

/// Recipes by name with their active definitions, archived ones included.
pub fn list(
    connection: &Connection,
    limit: usize,
    offset: usize,
) -> Result<(Vec<(RecipeRow, String)>, usize), StoreError> {
    let rows = with_definitions(
        connection,
        "1 = 1 ORDER BY r.name LIMIT ?1 OFFSET ?2",
        params![as_i64(limit), as_i64(offset)],
    )?;
    let total: i64 = connection.query_row("SELECT count(*) FROM mind_tool_recipes", [], |row| {
        row.get(0)
    })?;
    Ok((rows, usize::try_from(total).unwrap_or(0)))
}

/// Every recipe that is not archived, by name, with its active definition.
pub fn active(connection: &Connection) -> Result<Vec<(RecipeRow, String)>, StoreError> {
    with_definitions(connection, "r.archived = 0 ORDER BY r.name", params![])
}

fn with_definitions(
    connection: &Connection,
    filter: &str,
    values: &[&dyn portos_server::store::sql::ToSql],
) -> Result<Vec<(RecipeRow, String)>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT r.id, r.name, r.active_revision, r.archived, r.created_at, r.updated_at,
                v.definition
         FROM mind_tool_recipes r
         JOIN mind_tool_recipe_versions v
           ON v.recipe_id = r.id AND v.revision = r.active_revision
         WHERE {filter}"
    ))?;
    let rows = statement
        .query_map(values, |row| Ok((recipe_from(row)?, row.get(6)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Marks a change to the library (in the writer's transaction).
pub fn bump_generation(connection: &Connection) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE mind_tool_recipe_generation SET generation = generation + 1 WHERE slot = 1",
        [],
    )?;
    // Other servers tell their catalog subscribers.
    changes::announce(connection, &Change::catalog(CATALOG_CHANGE))
}

/// How many writes the library has had; changes with every write.
pub fn generation(connection: &Connection) -> Result<i64, StoreError> {
    Ok(connection.query_row(
        "SELECT generation FROM mind_tool_recipe_generation WHERE slot = 1",
        [],
        |row| row.get(0),
    )?)
}

fn as_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

//! The health logs' tables and every SQL statement on them: drinks,
//! nicotine, weight and workouts, each row dated by the user's local date.

use portos_server::store::sql::{Connection, params};
use portos_server::store::{Schema, StoreError};

use super::model::{DayEntries, Drink, Nicotine, Weight, Workout};

portos_server::store_schema!(
    /// Health logs: drinks, nicotine, weight, workouts. Every `local_date` is
    /// the user's local date, `YYYY-MM-DD`.
    HEALTH = Schema {
        component: "health",
        migrations: &[
            // 1 (IF NOT EXISTS: a store written before components has them).
            "CREATE TABLE IF NOT EXISTS health_drinks (
                id              TEXT PRIMARY KEY,
                local_date      TEXT NOT NULL,
                logged_at       TEXT NOT NULL,
                name            TEXT NOT NULL,
                count           REAL NOT NULL,
                oz              REAL NOT NULL,
                abv             REAL NOT NULL,
                standard_drinks REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS health_drinks_by_date ON health_drinks (local_date);
            CREATE TABLE IF NOT EXISTS health_nicotine (
                id          TEXT PRIMARY KEY,
                local_date  TEXT NOT NULL,
                logged_at   TEXT NOT NULL,
                product     TEXT NOT NULL,
                count       REAL NOT NULL,
                mg_per_unit REAL NOT NULL,
                total_mg    REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS health_nicotine_by_date ON health_nicotine (local_date);
            CREATE TABLE IF NOT EXISTS health_weights (
                id            TEXT PRIMARY KEY,
                local_date    TEXT NOT NULL,
                logged_at     TEXT NOT NULL,
                pounds        REAL NOT NULL,
                entered_value REAL NOT NULL,
                entered_unit  TEXT NOT NULL CHECK (entered_unit IN ('lb', 'kg'))
            );
            CREATE INDEX IF NOT EXISTS health_weights_by_date ON health_weights (local_date);
            CREATE TABLE IF NOT EXISTS health_workouts (
                id               TEXT PRIMARY KEY,
                local_date       TEXT NOT NULL,
                logged_at        TEXT NOT NULL,
                type             TEXT NOT NULL,
                duration_minutes REAL,
                intensity        TEXT CHECK (intensity IN ('light', 'moderate', 'vigorous')),
                notes            TEXT
            );
            CREATE INDEX IF NOT EXISTS health_workouts_by_date ON health_workouts (local_date);",
        ],
    }
);

pub fn insert_drink(connection: &Connection, drink: &Drink) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO health_drinks (id, local_date, logged_at, name, count, oz, abv, standard_drinks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            drink.id,
            drink.date,
            drink.logged_at,
            drink.name,
            drink.count,
            drink.oz,
            drink.abv,
            drink.standard_drinks
        ],
    )?;
    Ok(())
}

pub fn insert_nicotine(connection: &Connection, entry: &Nicotine) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO health_nicotine (id, local_date, logged_at, product, count, mg_per_unit, total_mg)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            entry.id,
            entry.date,
            entry.logged_at,
            entry.product,
            entry.count,
            entry.mg_per_unit,
            entry.total_mg
        ],
    )?;
    Ok(())
}

pub fn insert_weight(connection: &Connection, entry: &Weight) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO health_weights (id, local_date, logged_at, pounds, entered_value, entered_unit)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            entry.id,
            entry.date,
            entry.logged_at,
            entry.pounds,
            entry.entered_value,
            entry.entered_unit
        ],
    )?;
    Ok(())
}

pub fn insert_workout(connection: &Connection, entry: &Workout) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO health_workouts (id, local_date, logged_at, type, duration_minutes, intensity, notes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            entry.id,
            entry.date,
            entry.logged_at,
            entry.kind,
            entry.duration_minutes,
            entry.intensity,
            entry.notes
        ],
    )?;
    Ok(())
}

/// Standard drinks logged from `from` to `to` (inclusive `YYYY-MM-DD`).
pub fn standard_drinks_between(
    connection: &Connection,
    from: &str,
    to: &str,
) -> Result<f64, StoreError> {
    Ok(connection.query_row(
        "SELECT COALESCE(SUM(standard_drinks), 0) FROM health_drinks
         WHERE local_date BETWEEN ?1 AND ?2",
        params![from, to],
        |row| row.get(0),
    )?)
}

/// Milligrams of nicotine logged from `from` to `to` (inclusive).
pub fn nicotine_mg_between(
    connection: &Connection,
    from: &str,
    to: &str,
) -> Result<f64, StoreError> {
    Ok(connection.query_row(
        "SELECT COALESCE(SUM(total_mg), 0) FROM health_nicotine
         WHERE local_date BETWEEN ?1 AND ?2",
        params![from, to],
        |row| row.get(0),
    )?)
}

/// Every entry of the user-local day `date`.
pub fn entries_on(connection: &Connection, date: &str) -> Result<DayEntries, StoreError> {
    let mut drinks = connection.prepare_cached(
        "SELECT id, local_date, logged_at, name, count, oz, abv, standard_drinks
         FROM health_drinks WHERE local_date = ?1 ORDER BY rowid",
    )?;
    let drinks = drinks
        .query_map([date], |row| {
            Ok(Drink {
                id: row.get(0)?,
                date: row.get(1)?,
                logged_at: row.get(2)?,
                name: row.get(3)?,
                count: row.get(4)?,
                oz: row.get(5)?,
                abv: row.get(6)?,
                standard_drinks: row.get(7)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut nicotine = connection.prepare_cached(
        "SELECT id, local_date, logged_at, product, count, mg_per_unit, total_mg
         FROM health_nicotine WHERE local_date = ?1 ORDER BY rowid",
    )?;
    let nicotine = nicotine
        .query_map([date], |row| {
            Ok(Nicotine {
                id: row.get(0)?,
                date: row.get(1)?,
                logged_at: row.get(2)?,
                product: row.get(3)?,
                count: row.get(4)?,
                mg_per_unit: row.get(5)?,
                total_mg: row.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut weights = connection.prepare_cached(
        "SELECT id, local_date, logged_at, pounds, entered_value, entered_unit
         FROM health_weights WHERE local_date = ?1 ORDER BY rowid",
    )?;
    let weights = weights
        .query_map([date], |row| {
            Ok(Weight {
                id: row.get(0)?,
                date: row.get(1)?,
                logged_at: row.get(2)?,
                pounds: row.get(3)?,
                entered_value: row.get(4)?,
                entered_unit: row.get(5)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut workouts = connection.prepare_cached(
        "SELECT id, local_date, logged_at, type, duration_minutes, intensity, notes
         FROM health_workouts WHERE local_date = ?1 ORDER BY rowid",
    )?;
    let workouts = workouts
        .query_map([date], |row| {
            Ok(Workout {
                id: row.get(0)?,
                date: row.get(1)?,
                logged_at: row.get(2)?,
                kind: row.get(3)?,
                duration_minutes: row.get(4)?,
                intensity: row.get(5)?,
                notes: row.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DayEntries {
        date: date.to_owned(),
        drinks,
        nicotine,
        weights,
        workouts,
    })
}

/// Deletes the entry `id` of any kind; `false` when there is none.
pub fn delete_entry(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    let mut deleted = 0;
    // The table names are this list's constants, never input.
    for table in [
        "health_drinks",
        "health_nicotine",
        "health_weights",
        "health_workouts",
    ] {
        deleted += connection.execute(&format!("DELETE FROM {table} WHERE id = ?1"), [id])?;
    }
    Ok(deleted > 0)
}

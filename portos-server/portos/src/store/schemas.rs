//! The tables of PortOS's domains, one [`Schema`] each. The first step of
//! each uses `IF NOT EXISTS`, so a store written before components existed
//! (one numbered list for everything) is adopted without change.

use portos_server::store::Schema;

portos_server::store_schema!(
    /// The brain inbox.
    BRAIN = Schema {
    component: "brain",
    migrations: &["CREATE TABLE IF NOT EXISTS brain_captures (
        id          TEXT PRIMARY KEY,
        text        TEXT NOT NULL,
        captured_at TEXT NOT NULL,
        local_date  TEXT NOT NULL,
        seq         INTEGER NOT NULL
    );
CREATE INDEX IF NOT EXISTS brain_captures_recent ON brain_captures (seq DESC);"],
});

portos_server::store_schema!(
    /// Health logs: drinks, nicotine, weight, workouts. Every `local_date` is the user's local date, `YYYY-MM-DD`.
    HEALTH = Schema {
    component: "health",
    migrations: &["CREATE TABLE IF NOT EXISTS health_drinks (
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
CREATE INDEX IF NOT EXISTS health_workouts_by_date ON health_workouts (local_date);"],
});

portos_server::store_schema!(
    /// Goals with their notes.
    GOALS = Schema {
    component: "goals",
    migrations: &["CREATE TABLE IF NOT EXISTS goals (
        id         TEXT PRIMARY KEY,
        title      TEXT NOT NULL,
        horizon    TEXT NOT NULL,
        category   TEXT NOT NULL,
        urgency    REAL NOT NULL,
        progress   INTEGER NOT NULL CHECK (progress BETWEEN 0 AND 100),
        status     TEXT NOT NULL CHECK (status IN ('active', 'completed', 'archived')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
CREATE INDEX IF NOT EXISTS goals_by_urgency ON goals (status, urgency DESC);
CREATE TABLE IF NOT EXISTS goal_notes (
        id               TEXT PRIMARY KEY,
        goal_id          TEXT NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
        local_date       TEXT NOT NULL,
        note             TEXT NOT NULL,
        duration_minutes REAL,
        created_at       TEXT NOT NULL
    );
CREATE INDEX IF NOT EXISTS goal_notes_by_goal ON goal_notes (goal_id);"],
});

portos_server::store_schema!(
    /// The daily journal's segments.
    JOURNAL = Schema {
    component: "journal",
    migrations: &["CREATE TABLE IF NOT EXISTS journal_segments (
        id         TEXT PRIMARY KEY,
        local_date TEXT NOT NULL,
        text       TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
CREATE INDEX IF NOT EXISTS journal_segments_by_date ON journal_segments (local_date);"],
});

portos_server::store_schema!(
    /// The creative catalog's entries and user-defined types; `refs` is a JSON array of strings.
    CREATIVE_CATALOG = Schema {
    component: "creative-catalog",
    migrations: &["CREATE TABLE IF NOT EXISTS catalog_types (
        name       TEXT PRIMARY KEY,
        label      TEXT NOT NULL,
        active     INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
    );
CREATE TABLE IF NOT EXISTS catalog_entries (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        type       TEXT NOT NULL,
        body       TEXT NOT NULL,
        refs       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
CREATE INDEX IF NOT EXISTS catalog_entries_type ON catalog_entries (type);"],
});

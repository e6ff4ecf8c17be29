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

portos_server::store_schema!(
    /// The local world (one row, its id drawn here), its entities, chat log (AUTOINCREMENT, so a cursor is never reused), grants, peer worlds, and visits in both directions.
    EIDOVERSE = Schema {
    component: "eidoverse",
    migrations: &[
        "CREATE TABLE IF NOT EXISTS eidoverse_world (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        world_id      TEXT NOT NULL,
        name          TEXT NOT NULL,
        recipe        TEXT NOT NULL,
        setup         TEXT NOT NULL,
        presence_name TEXT NOT NULL,
        presence_seen TEXT,
        accept_guests INTEGER NOT NULL DEFAULT 0,
        created_at    TEXT NOT NULL
    );
INSERT OR IGNORE INTO eidoverse_world
        (id, world_id, name, recipe, setup, presence_name, accept_guests, created_at)
    VALUES (1, lower(hex(randomblob(16))), 'PortOS world', 'portos-garden',
        '{\"terrain\":{\"preset\":\"flat\",\"height\":0},\"grass\":{\"density\":0.5,\"color\":\"#4a7c3a\"},\"sky\":{\"preset\":\"day\",\"sunAngle\":60}}',
        'Chief of Staff', 0, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
CREATE TABLE IF NOT EXISTS eidoverse_entities (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        label      TEXT NOT NULL,
        x          REAL NOT NULL,
        y          REAL NOT NULL,
        z          REAL NOT NULL,
        components TEXT NOT NULL,
        source     TEXT NOT NULL,
        source_key TEXT,
        digest     TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
CREATE UNIQUE INDEX IF NOT EXISTS eidoverse_entities_source
        ON eidoverse_entities (source, source_key) WHERE source_key IS NOT NULL;
CREATE TABLE IF NOT EXISTS eidoverse_grants (
        subject    TEXT NOT NULL,
        permission TEXT NOT NULL,
        granted_at TEXT NOT NULL,
        PRIMARY KEY (subject, permission)
    );
CREATE TABLE IF NOT EXISTS eidoverse_chat (
        cursor      INTEGER PRIMARY KEY AUTOINCREMENT,
        author      TEXT NOT NULL,
        author_kind TEXT NOT NULL,
        visit_id    TEXT,
        text        TEXT NOT NULL,
        posted_at   TEXT NOT NULL
    );
CREATE TABLE IF NOT EXISTS eidoverse_peers (
        id         TEXT PRIMARY KEY,
        url        TEXT NOT NULL,
        name       TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
CREATE TABLE IF NOT EXISTS eidoverse_outgoing_visits (
        visit_id   TEXT PRIMARY KEY,
        peer_id    TEXT NOT NULL,
        peer_url   TEXT NOT NULL,
        world_name TEXT NOT NULL,
        started_at TEXT NOT NULL,
        left_at    TEXT
    );
CREATE TABLE IF NOT EXISTS eidoverse_guest_visits (
        visit_id   TEXT PRIMARY KEY,
        guest_name TEXT NOT NULL,
        started_at TEXT NOT NULL,
        left_at    TEXT
    );",
    ],
});

//! The tables of PortOS's domains that are not in a domain folder yet, one
//! [`Schema`] each (a domain folder keeps its own in its `store.rs`). The
//! first step of each uses `IF NOT EXISTS`, so a store written before
//! components existed (one numbered list for everything) is adopted without
//! change.

use portos_server::store::Schema;

portos_server::store_schema!(
    /// CoS tasks and their agent runs.
    COS = Schema {
    component: "cos",
    migrations: &["CREATE TABLE IF NOT EXISTS cos_tasks (
        id          TEXT PRIMARY KEY,
        description TEXT NOT NULL,
        app         TEXT,
        status      TEXT NOT NULL CHECK (status IN
                      ('pending', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled')),
        priority    TEXT NOT NULL CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        seq         INTEGER NOT NULL
    );
CREATE INDEX IF NOT EXISTS cos_tasks_recent ON cos_tasks (seq DESC);
CREATE INDEX IF NOT EXISTS cos_tasks_app ON cos_tasks (app, status);
CREATE TABLE IF NOT EXISTS cos_agent_runs (
        id             TEXT PRIMARY KEY,
        task_id        TEXT NOT NULL REFERENCES cos_tasks (id) ON DELETE CASCADE,
        phase          TEXT NOT NULL,
        started_at_ms  INTEGER NOT NULL,
        finished_at_ms INTEGER,
        outcome        TEXT CHECK (outcome IN ('completed', 'failed', 'cancelled'))
    );
CREATE INDEX IF NOT EXISTS cos_agent_runs_running ON cos_agent_runs (finished_at_ms, started_at_ms);
CREATE INDEX IF NOT EXISTS cos_agent_runs_task ON cos_agent_runs (task_id);"],
});

portos_server::store_schema!(
    /// Feed subscriptions and their items (replaced on refresh).
    FEEDS = Schema {
    component: "feeds",
    migrations: &["CREATE TABLE IF NOT EXISTS feeds (
        id           TEXT PRIMARY KEY,
        title        TEXT NOT NULL,
        custom_title INTEGER NOT NULL,
        source       TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        refreshed_at TEXT,
        seq          INTEGER NOT NULL
    );
CREATE TABLE IF NOT EXISTS feed_items (
        id           TEXT PRIMARY KEY,
        feed_id      TEXT NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
        guid         TEXT NOT NULL,
        title        TEXT NOT NULL,
        link         TEXT,
        published_at TEXT,
        fetched_at   TEXT NOT NULL,
        read         INTEGER NOT NULL DEFAULT 0,
        seq          INTEGER NOT NULL,
        UNIQUE (feed_id, guid)
    );
CREATE INDEX IF NOT EXISTS feed_items_unread ON feed_items (read, seq DESC);"],
});

portos_server::store_schema!(
    /// Calendar sources and events (API events have no source). Event starts are civil date-times with their zone (NULL: the user's zone), so a recurrence keeps its wall-clock time across DST.
    CALENDAR = Schema {
    component: "calendar",
    migrations: &["CREATE TABLE IF NOT EXISTS calendar_sources (
        id           TEXT PRIMARY KEY,
        title        TEXT NOT NULL,
        source       TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        refreshed_at TEXT,
        seq          INTEGER NOT NULL
    );
CREATE TABLE IF NOT EXISTS calendar_events (
        id         TEXT PRIMARY KEY,
        source_id  TEXT REFERENCES calendar_sources (id) ON DELETE CASCADE,
        uid        TEXT,
        title      TEXT NOT NULL,
        location   TEXT,
        all_day    INTEGER NOT NULL,
        start_at   TEXT NOT NULL,
        end_at     TEXT,
        tzid       TEXT,
        rrule      TEXT,
        exdates    TEXT,
        created_at TEXT NOT NULL
    );
CREATE INDEX IF NOT EXISTS calendar_events_source ON calendar_events (source_id);"],
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

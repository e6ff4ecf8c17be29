//! The eidoverse tables and every statement on them, one file per kind of
//! record: the world row, entities, chat, peers, visits (both directions),
//! grants, and the brain captures the world mirrors.

pub mod brain;
pub mod chat;
pub mod entities;
pub mod grants;
pub mod peers;
pub mod visits;
pub mod world;

use portos_server::store::Schema;

portos_server::store_schema!(
    /// The local world (one row, its id drawn here), its entities, chat log (AUTOINCREMENT, so a cursor is never reused), grants, peer worlds, and visits in both directions.
    EIDOVERSE = Schema {
        component: "eidoverse",
        migrations: &["
            CREATE TABLE IF NOT EXISTS eidoverse_world (
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
            INSERT INTO eidoverse_world
                (id, world_id, name, recipe, setup, presence_name, accept_guests, created_at)
            VALUES (1, portos_random_hex(16), 'PortOS world', 'portos-garden',
                '{\"terrain\":{\"preset\":\"flat\",\"height\":0},\"grass\":{\"density\":0.5,\"color\":\"#4a7c3a\"},\"sky\":{\"preset\":\"day\",\"sunAngle\":60}}',
                'Chief of Staff', 0, portos_utc_now())
            ON CONFLICT (id) DO NOTHING;

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
            );
        "],
    }
);

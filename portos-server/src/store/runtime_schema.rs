//! The runtime's own tables, migrated before any application's: every
//! step of the `portos-server` component, the job tables' included (the
//! store lies below the jobs that use them, so their SQL lives here).

use super::Schema;

/// The runtime's own tables: settings (grants, API access, Agent Tools, the
/// password hash), login sessions, and the durable jobs of long-running
/// tools.
pub(crate) const RUNTIME_SCHEMA: Schema = Schema {
    component: "portos-server",
    migrations: &[
        // 1: settings, login sessions (only a digest of each token is kept).
        // Until the user-actions ledger became an application's (PortOS's),
        // this step created its table too. The one edit ever made to a
        // shipped step: a database migrated before keeps the table and its
        // rows, and the application's own schema creates the same table
        // `IF NOT EXISTS`, so it reads and writes it either way and another
        // application no longer gets it.
        "CREATE TABLE IF NOT EXISTS settings (
            key        TEXT PRIMARY KEY,
            value      TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS auth_sessions (
            token_digest TEXT PRIMARY KEY,
            created_at   TEXT NOT NULL,
            expires_at   INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS auth_sessions_expiry ON auth_sessions (expires_at);",
        // 2: the durable jobs of long-running tools and their events.
        JOBS,
        // 3: the cluster's idempotency (`ledger`, PostgreSQL only): one row
        // per requestId, its fingerprint, and its result while kept.
        "CREATE TABLE IF NOT EXISTS tool_calls (
            seq            INTEGER PRIMARY KEY AUTOINCREMENT,
            request_id     TEXT NOT NULL UNIQUE,
            fingerprint    TEXT NOT NULL,
            state          TEXT NOT NULL CHECK (state IN ('running', 'kept', 'evicted')),
            lease_until_ms INTEGER NOT NULL,
            expires_at_ms  INTEGER NOT NULL,
            name           TEXT,
            failed         INTEGER,
            output         TEXT,
            error          TEXT
        );
        CREATE INDEX IF NOT EXISTS tool_calls_by_state ON tool_calls (state, seq);",
        // 4: which server runs each unfinished job, and until when it has
        // said it does (several servers on one database: `jobs`).
        JOB_RUNNERS,
        // 5: what a job's caller can answer and has answered (a tool that
        // asks its MCP client mid-job), and why the server could not finish
        // a job (no answer of its tool's).
        "ALTER TABLE tool_jobs ADD COLUMN asking TEXT;
        ALTER TABLE tool_jobs ADD COLUMN fault TEXT;",
    ],
};

/// Step 2: the job tables (`jobs` reads and writes them).
const JOBS: &str = "CREATE TABLE IF NOT EXISTS tool_jobs (
        job_id          TEXT PRIMARY KEY,
        request_id      TEXT NOT NULL UNIQUE,
        principal       TEXT NOT NULL,
        authenticated   INTEGER NOT NULL,
        tool            TEXT NOT NULL,
        arguments       TEXT NOT NULL,
        fingerprint     TEXT NOT NULL,
        state           TEXT NOT NULL CHECK (state IN
                            ('working', 'input_required', 'completed', 'failed', 'cancelled')),
        status_message  TEXT,
        progress        TEXT,
        input_request   TEXT,
        outcome         TEXT CHECK (outcome IN ('completed', 'failed')),
        output          TEXT,
        error           TEXT,
        created_at_ms   INTEGER NOT NULL,
        updated_at_ms   INTEGER NOT NULL,
        expires_at_ms   INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tool_jobs_open ON tool_jobs (state)
        WHERE state IN ('working', 'input_required');
    CREATE INDEX IF NOT EXISTS tool_jobs_expiry ON tool_jobs (expires_at_ms);
    CREATE TABLE IF NOT EXISTS tool_job_events (
        seq     INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id  TEXT NOT NULL REFERENCES tool_jobs (job_id) ON DELETE CASCADE,
        kind    TEXT NOT NULL,
        at_ms   INTEGER NOT NULL,
        data    TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tool_job_events_by_job ON tool_job_events (job_id, seq);";

/// Step 4: who runs each unfinished job
/// and until when it has said so: on a database several servers share, a
/// job whose server stopped saying so is taken over by another.
const JOB_RUNNERS: &str = "ALTER TABLE tool_jobs ADD COLUMN runner TEXT;
    ALTER TABLE tool_jobs ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;";

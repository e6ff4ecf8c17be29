//! A whole server in one file: a notebook of short notes as two governed
//! tools, over HTTP and MCP, on the embedded SQLite store.
//!
//! ```sh
//! # Writes over HTTP need a signed-in owner (the `writer` scope is
//! # `#[signed_in]`): set the password, then serve.
//! echo 'a long passphrase' | cargo run -p portos-server --example notes -- \
//!   --data-dir /tmp/notes-data --set-password
//! cargo run -p portos-server --example notes -- --data-dir /tmp/notes-data &
//! TOKEN=$(curl -s -X POST http://127.0.0.1:5555/api/auth/login -H 'content-type: application/json' \
//!   -d '{"password":"a long passphrase"}' | jq -r .token)
//! curl -X POST http://127.0.0.1:5555/api/tools/call -H "authorization: Bearer $TOKEN" \
//!   -H 'content-type: application/json' \
//!   -d '{"requestId":"n1","name":"notes.add","arguments":{"text":"water the plants"}}'
//! curl -X POST http://127.0.0.1:5555/api/tools/call -H "authorization: Bearer $TOKEN" \
//!   -H 'content-type: application/json' -d '{"requestId":"n2","name":"notes.list","arguments":{}}'
//! ```
//!
//! MCP clients reach the same tools at `http://127.0.0.1:5555/mcp` once the
//! owner turns MCP on and grants them (`PUT /api/settings/mcp` with
//! `{"enabled": true, "actions": {"readNotes": true}}`), or over stdio with
//! `--mcp-stdio`. `--help` lists every flag.

use portos_server::prelude::*;
use portos_server::store::sql::params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// The application's words: what may be granted, and who calls.
portos_core::vocabulary! {
    capabilities {
        /// Read the notes.
        READ_NOTES = "readNotes",
        /// Add notes.
        WRITE_NOTES = "writeNotes",
    }
    scopes {
        /// AI agents over MCP, holding what the owner grants them.
        #[grants]
        #[transport(mcp)]
        AGENT = "agent",
        /// The owner over HTTP.
        #[signed_in]
        #[transport(http)]
        WRITER = "writer",
    }
}

// The table, migrated when the server opens its store.
portos_server::store_schema!(
    /// The notes, oldest first.
    NOTES = Schema {
        component: "notes-example",
        migrations: &["CREATE TABLE IF NOT EXISTS notes (
            id   INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL
        );"],
    }
);

/// A note to add.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewNote {
    /// The note (1–500 characters).
    #[schemars(length(min = 1, max = 500))]
    text: String,
}

/// What a tool answers: a summary, and the notes when it read them.
#[derive(Debug, Serialize, JsonSchema)]
struct Answer {
    ok: bool,
    summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

/// Add a note.
#[portos_tool(
    name = "notes.add",
    scopes = ["agent", "writer"],
    capabilities = ["writeNotes"],
    side_effect = "write",
)]
async fn add(note: NewNote, store: Shared<Store>) -> Result<Answer, AdapterError> {
    store
        .run(move |connection| {
            Ok(connection.execute("INSERT INTO notes (text) VALUES (?1)", params![note.text])?)
        })
        .await?;
    Ok(Answer {
        ok: true,
        summary: "Noted.".to_owned(),
        notes: Vec::new(),
    })
}

/// Nothing to say: `notes.list` takes no arguments.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// Every note, oldest first.
#[portos_tool(
    name = "notes.list",
    scopes = ["agent", "writer"],
    capabilities = ["readNotes"],
    side_effect = "read",
)]
async fn list(_: NoArgs, store: Shared<Store>) -> Result<Answer, AdapterError> {
    let notes: Vec<String> = store
        .run(|connection| {
            let mut statement = connection.prepare_cached("SELECT text FROM notes ORDER BY id")?;
            let notes = statement
                .query_map(params![], |row| row.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(notes)
        })
        .await?;
    Ok(Answer {
        ok: true,
        summary: format!("{} note(s).", notes.len()),
        notes,
    })
}

/// The `notes` command line: the runtime's flags, none of its own.
#[derive(Debug)]
struct Notes;

impl Application for Notes {
    type Flags = NoFlags;
    type FileKeys = NoFileKeys;

    const COMMAND: &'static str = "notes";
    const ABOUT: &'static str = "Notes: a notebook as governed agent tools";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn builder(config: Config, _: &NoFlags, _: NoFileKeys) -> Result<ServerBuilder, String> {
        Ok(ServerBuilder::new("Notes", Self::VERSION, config))
    }
}

fn main() -> std::process::ExitCode {
    portos_server::cli::main::<Notes>()
}

//! The world's chat log: posts get increasing cursors (never reused), reads
//! page forward from a cursor. `eidoverse.say` posts as the CoS presence;
//! `eidoverse.chat` reads.

use portos_core::{AdapterError, ToolContext, portos_tool};
use rusqlite::{Connection, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::world;
use crate::store::{Store, StoreError};

/// The most messages one read returns.
pub const CHAT_PAGE: i64 = 50;
/// The longest message, in characters, after trimming.
pub const MESSAGE_MAX_CHARS: usize = 2000;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthorKind {
    /// The Chief of Staff's presence.
    Cos,
    /// The owner, through the REST route.
    Person,
    /// A visitor from another world.
    Guest,
}

impl AuthorKind {
    fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Cos => "cos",
            AuthorKind::Person => "person",
            AuthorKind::Guest => "guest",
        }
    }

    fn parse(text: &str) -> AuthorKind {
        match text {
            "cos" => AuthorKind::Cos,
            "guest" => AuthorKind::Guest,
            _ => AuthorKind::Person,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub cursor: i64,
    pub author: String,
    pub author_kind: AuthorKind,
    pub text: String,
    pub posted_at: String,
}

/// One page of messages after a cursor.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub messages: Vec<Message>,
    /// Pass as `after` to read on: the last cursor returned, or the one given.
    pub cursor: i64,
    /// More messages wait after this page.
    pub has_more: bool,
}

/// The trimmed text, or what to fix.
pub fn checked_text(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("text must not be empty".to_owned());
    }
    let chars = text.chars().count();
    if chars > MESSAGE_MAX_CHARS {
        return Err(format!(
            "text is {chars} characters; at most {MESSAGE_MAX_CHARS} are allowed"
        ));
    }
    Ok(text.to_owned())
}

/// Stores a message; it is readable as soon as this returns.
pub fn post(
    connection: &Connection,
    author: &str,
    kind: AuthorKind,
    visit_id: Option<&str>,
    text: &str,
) -> Result<Message, StoreError> {
    let posted_at = jiff::Timestamp::now().to_string();
    connection.execute(
        "INSERT INTO eidoverse_chat (author, author_kind, visit_id, text, posted_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![author, kind.as_str(), visit_id, text, posted_at],
    )?;
    Ok(Message {
        cursor: connection.last_insert_rowid(),
        author: author.to_owned(),
        author_kind: kind,
        text: text.to_owned(),
        posted_at,
    })
}

/// Messages with a cursor above `after`, oldest first, at most [`CHAT_PAGE`].
pub fn page(connection: &Connection, after: i64) -> Result<Page, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT cursor, author, author_kind, text, posted_at FROM eidoverse_chat
         WHERE cursor > ?1 ORDER BY cursor LIMIT ?2",
    )?;
    let mut messages = statement
        .query_map(params![after, CHAT_PAGE + 1], |row| {
            Ok(Message {
                cursor: row.get(0)?,
                author: row.get(1)?,
                author_kind: AuthorKind::parse(&row.get::<_, String>(2)?),
                text: row.get(3)?,
                posted_at: row.get(4)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let has_more = messages.len() as i64 > CHAT_PAGE;
    messages.truncate(CHAT_PAGE as usize);
    let cursor = messages.last().map_or(after, |message| message.cursor);
    Ok(Page {
        messages,
        cursor,
        has_more,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SayArgs {
    /// What the Chief of Staff says in the world (1..2000 characters, trimmed).
    #[schemars(length(min = 1, max = 2000), regex(pattern = r"\S"))]
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Said {
    pub ok: bool,
    pub message: Message,
    pub summary: String,
}

/// Say something in the Eidoverse world as the Chief of Staff's presence.
#[portos_tool(
    name = "eidoverse.say",
    aliases = ["eidoverse_say"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["manageEidoverse"],
    side_effect = "write",
    idempotent = false,
)]
pub async fn eidoverse_say(ctx: &ToolContext, args: SayArgs) -> Result<Said, AdapterError> {
    let text = checked_text(&args.text).map_err(AdapterError::new)?;
    let store = ctx.state::<Store>()?.clone();
    // The message is stored (and its cursor known) before the call resolves:
    // the world's acknowledgement is the committed row.
    let message = store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let presence = world::load(&transaction)?.presence.name;
            let message = post(&transaction, &presence, AuthorKind::Cos, None, &text)?;
            world::mark_presence_seen(&transaction, &message.posted_at)?;
            transaction.commit()?;
            Ok(message)
        })
        .await?;
    Ok(Said {
        ok: true,
        summary: format!(
            "{} said \"{}\" (message {}).",
            message.author,
            super::preview(&message.text),
            message.cursor
        ),
        message,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatArgs {
    /// Read messages after this cursor (default -1: from the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -1))]
    pub after: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatRead {
    pub ok: bool,
    #[serde(flatten)]
    pub page: Page,
    pub summary: String,
}

/// Read the Eidoverse world's chat since a cursor.
#[portos_tool(
    name = "eidoverse.chat",
    aliases = ["eidoverse_chat"],
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn eidoverse_chat(ctx: &ToolContext, args: ChatArgs) -> Result<ChatRead, AdapterError> {
    let after = args.after.unwrap_or(-1);
    let store = ctx.state::<Store>()?.clone();
    let page = store.run(move |connection| page(connection, after)).await?;
    Ok(ChatRead {
        ok: true,
        summary: page_summary(&page),
        page,
    })
}

/// "3 messages (latest from X: …)" or "No new messages."
pub fn page_summary(page: &Page) -> String {
    match page.messages.last() {
        None => "No new messages.".to_owned(),
        Some(last) => format!(
            "{} message{}{}; latest from {}: \"{}\".",
            page.messages.len(),
            if page.messages.len() == 1 { "" } else { "s" },
            if page.has_more { " (more follow)" } else { "" },
            last.author,
            super::preview(&last.text)
        ),
    }
}

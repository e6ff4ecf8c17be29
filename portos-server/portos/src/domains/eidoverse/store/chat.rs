//! The chat log rows: posting, and reading a page after a cursor.

use portos_server::store::sql::{Connection, params};

use crate::domains::eidoverse::chat::{AuthorKind, CHAT_PAGE, Message, Page};
use crate::store::StoreError;

/// Stores a message; it is readable as soon as this returns.
pub fn post(
    connection: &Connection,
    author: &str,
    kind: AuthorKind,
    visit_id: Option<&str>,
    text: &str,
) -> Result<Message, StoreError> {
    let posted_at = jiff::Timestamp::now().to_string();
    let cursor = connection.query_row(
        "INSERT INTO eidoverse_chat (author, author_kind, visit_id, text, posted_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         RETURNING cursor",
        params![author, kind.as_str(), visit_id, text, posted_at],
        |row| row.get(0),
    )?;
    Ok(Message {
        cursor,
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

//! Feed subscriptions and their items in SQLite: the tables and every
//! statement on them. A refresh adds the items not seen before (by guid, or
//! link), keeping each item's read state.
//!
//! Functions take the connection so callers compose them inside
//! `Store::run` (and a transaction where several statements must agree).

use portos_server::store::Schema;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};

use super::model::{AlreadySubscribed, Feed, FeedItem, RefreshOutcome};
use super::parse;
use crate::store::StoreError;

portos_server::store_schema!(
    /// Feed subscriptions and their items (replaced on refresh).
    FEEDS = Schema {
        component: "feeds",
        migrations: &["
            CREATE TABLE IF NOT EXISTS feeds (
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
            CREATE INDEX IF NOT EXISTS feed_items_unread ON feed_items (read, seq DESC);
        "],
    }
);

const FEED_COLUMNS: &str = "f.id, f.title, f.source, f.created_at, f.refreshed_at,
    (SELECT COUNT(*) FROM feed_items i WHERE i.feed_id = f.id AND i.read = 0),
    (SELECT COUNT(*) FROM feed_items i WHERE i.feed_id = f.id)";

const ITEM_COLUMNS: &str = "i.id, i.feed_id, f.title, i.title, i.link, i.published_at,
    i.fetched_at, i.read";

/// Newest first: by publication date when known, else when first seen.
const ITEM_ORDER: &str = "ORDER BY COALESCE(i.published_at, i.fetched_at) DESC, i.seq ASC";

fn feed_from(row: &Row<'_>) -> portos_server::store::sql::Result<Feed> {
    Ok(Feed {
        id: row.get(0)?,
        title: row.get(1)?,
        source: row.get(2)?,
        created_at: row.get(3)?,
        refreshed_at: row.get(4)?,
        unread: row.get(5)?,
        items: row.get(6)?,
    })
}

fn item_from(row: &Row<'_>) -> portos_server::store::sql::Result<FeedItem> {
    Ok(FeedItem {
        id: row.get(0)?,
        feed_id: row.get(1)?,
        feed_title: row.get(2)?,
        title: row.get(3)?,
        link: row.get(4)?,
        published_at: row.get(5)?,
        fetched_at: row.get(6)?,
        read: row.get::<_, i64>(7)? != 0,
    })
}

pub fn list(connection: &Connection) -> Result<Vec<Feed>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {FEED_COLUMNS} FROM feeds f ORDER BY f.seq"
    ))?;
    let feeds = statement.query_map([], feed_from)?;
    Ok(feeds.collect::<Result<_, _>>()?)
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<Feed>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {FEED_COLUMNS} FROM feeds f WHERE f.id = ?1"
    ))?;
    Ok(statement.query_row([id], feed_from).optional()?)
}

/// Subscribes to `source` (already checked to be a URL or a path). Without a
/// title the source stands in until a refresh reads the feed's own.
pub fn subscribe(
    connection: &Connection,
    source: &str,
    title: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Result<Feed, AlreadySubscribed>, StoreError> {
    let existing: Option<String> = connection
        .query_row("SELECT id FROM feeds WHERE source = ?1", [source], |row| {
            row.get(0)
        })
        .optional()?;
    if let Some(id) = existing
        && let Some(feed) = get(connection, &id)?
    {
        return Ok(Err(AlreadySubscribed(feed)));
    }
    let id = uuid::Uuid::new_v4().to_string();
    connection.execute(
        "INSERT INTO feeds (id, title, custom_title, source, created_at, seq)
         VALUES (?1, ?2, ?3, ?4, ?5, (SELECT COALESCE(MAX(seq), 0) + 1 FROM feeds))",
        params![
            id,
            title.unwrap_or(source),
            title.is_some(),
            source,
            now.to_string()
        ],
    )?;
    get(connection, &id)?
        .map(Ok)
        .ok_or_else(|| StoreError::Worker("the new feed vanished".into()))
}

/// Removes a subscription and its items; false when there was none.
pub fn unsubscribe(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM feeds WHERE id = ?1", [id])? > 0)
}

/// Stores a parsed document for feed `id`: new items are added unread, known
/// ones keep their read state (their title and link follow the feed).
/// `None` when the feed no longer exists.
pub fn store_refresh(
    connection: &mut Connection,
    id: &str,
    parsed: &parse::ParsedFeed,
    now: jiff::Timestamp,
) -> Result<Option<RefreshOutcome>, StoreError> {
    let transaction = connection.transaction()?;
    let custom_title: Option<bool> = transaction
        .query_row(
            "SELECT custom_title FROM feeds WHERE id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?;
    let Some(custom_title) = custom_title else {
        return Ok(None);
    };
    if !custom_title && let Some(title) = &parsed.title {
        transaction.execute(
            "UPDATE feeds SET title = ?2 WHERE id = ?1",
            params![id, title],
        )?;
    }
    let now_text = now.to_string();
    transaction.execute(
        "UPDATE feeds SET refreshed_at = ?2 WHERE id = ?1",
        params![id, now_text],
    )?;
    let mut added = 0;
    {
        let mut insert = transaction.prepare_cached(
            "INSERT INTO feed_items (id, feed_id, guid, title, link, published_at, fetched_at, seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT COALESCE(MAX(seq), 0) + 1 FROM feed_items))
             ON CONFLICT (feed_id, guid) DO NOTHING",
        )?;
        let mut update = transaction.prepare_cached(
            "UPDATE feed_items SET title = ?3, link = ?4, published_at = COALESCE(?5, published_at)
             WHERE feed_id = ?1 AND guid = ?2",
        )?;
        for item in &parsed.items {
            let published = item.published.map(|at| at.to_string());
            let inserted = insert.execute(params![
                uuid::Uuid::new_v4().to_string(),
                id,
                item.guid,
                item.title,
                item.link,
                published,
                now_text,
            ])?;
            if inserted > 0 {
                added += 1;
            } else {
                update.execute(params![id, item.guid, item.title, item.link, published])?;
            }
        }
    }
    transaction.commit()?;
    let feed = get(connection, id)?
        .ok_or_else(|| StoreError::Worker("the refreshed feed vanished".into()))?;
    Ok(Some(RefreshOutcome {
        feed,
        added,
        seen: parsed.items.len(),
    }))
}

/// Items, newest first, optionally only unread and/or of one feed.
pub fn items(
    connection: &Connection,
    unread_only: bool,
    feed_id: Option<&str>,
    limit: usize,
) -> Result<Vec<FeedItem>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {ITEM_COLUMNS} FROM feed_items i JOIN feeds f ON f.id = i.feed_id
         WHERE (?1 = 0 OR i.read = 0) AND (?2 IS NULL OR i.feed_id = ?2)
         {ITEM_ORDER} LIMIT ?3"
    ))?;
    let rows = statement.query_map(
        params![
            unread_only,
            feed_id,
            i64::try_from(limit).unwrap_or(i64::MAX)
        ],
        item_from,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn unread_count(connection: &Connection) -> Result<i64, StoreError> {
    Ok(connection.query_row(
        "SELECT COUNT(*) FROM feed_items WHERE read = 0",
        [],
        |row| row.get(0),
    )?)
}

/// Marks one item read; `None` when there is no such item.
pub fn mark_item_read(connection: &Connection, id: &str) -> Result<Option<FeedItem>, StoreError> {
    connection.execute("UPDATE feed_items SET read = 1 WHERE id = ?1", [id])?;
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {ITEM_COLUMNS} FROM feed_items i JOIN feeds f ON f.id = i.feed_id WHERE i.id = ?1"
    ))?;
    Ok(statement.query_row([id], item_from).optional()?)
}

/// Marks every unread item read (of one feed when given); how many changed.
pub fn mark_all_read(connection: &Connection, feed_id: Option<&str>) -> Result<usize, StoreError> {
    Ok(connection.execute(
        "UPDATE feed_items SET read = 1 WHERE read = 0 AND (?1 IS NULL OR feed_id = ?1)",
        params![feed_id],
    )?)
}

//! The feed operations the tools and the REST routes both perform, each
//! written once: subscribing, refreshing, listing items and marking them
//! read (by id, by title, or all of them).

use super::model::{
    AlreadySubscribed, Feed, FeedItem, ITEM_WINDOW, MarkReadOutcome, RefreshOutcome,
};
use super::{parse, store};
use crate::shared::source_fetch::Location;
use crate::shared::subscriptions::{LoadFailure, load_document};
use crate::shared::title_match;
use crate::store::{Store, StoreError};
use portos_server::outbound::OutboundPolicy;

/// Why a refresh changed nothing.
#[derive(Debug)]
pub enum RefreshError {
    /// No feed has that id (or it went while being refreshed).
    NotFound,
    Load(LoadFailure),
    /// The document is not a feed; the message names the source.
    Parse(String),
    Store(StoreError),
}

impl From<StoreError> for RefreshError {
    fn from(error: StoreError) -> RefreshError {
        RefreshError::Store(error)
    }
}

/// Subscribes to `location` (nothing is fetched yet).
pub async fn subscribe(
    store: &Store,
    location: &Location,
    title: Option<String>,
) -> Result<Result<Feed, AlreadySubscribed>, StoreError> {
    let source = location.as_source();
    let now = jiff::Timestamp::now();
    store
        .run(move |connection| store::subscribe(connection, &source, title.as_deref(), now))
        .await
}

/// Fetches and parses feed `id`'s document and adds the items not seen
/// before. A fetch or parse failure changes nothing.
pub async fn refresh(
    store: &Store,
    outbound: &OutboundPolicy,
    id: String,
) -> Result<RefreshOutcome, RefreshError> {
    let lookup = id.clone();
    let feed = store
        .run(move |connection| store::get(connection, &lookup))
        .await?
        .ok_or(RefreshError::NotFound)?;
    let bytes = load_document(&feed.source, outbound)
        .await
        .map_err(RefreshError::Load)?;
    let parsed = parse::parse(&bytes)
        .map_err(|reason| RefreshError::Parse(format!("{} is {reason}", feed.source)))?;
    let now = jiff::Timestamp::now();
    store
        .run(move |connection| store::store_refresh(connection, &id, &parsed, now))
        .await?
        .ok_or(RefreshError::NotFound)
}

/// Items newest first, at most `limit`: only unread ones with
/// `unread_only`, only feed `feed_id`'s when given.
pub async fn items(
    store: &Store,
    unread_only: bool,
    feed_id: Option<String>,
    limit: usize,
) -> Result<Vec<FeedItem>, StoreError> {
    store
        .run(move |connection| store::items(connection, unread_only, feed_id.as_deref(), limit))
        .await
}

/// The newest `limit` unread items, and how many are unread in all (read
/// together, so they agree).
pub async fn unread(store: &Store, limit: usize) -> Result<(Vec<FeedItem>, i64), StoreError> {
    store
        .run(move |connection| {
            Ok((
                store::items(connection, true, None, limit)?,
                store::unread_count(connection)?,
            ))
        })
        .await
}

/// Marks item `id` read; `None` when there is no such item.
pub async fn mark_read(store: &Store, id: String) -> Result<Option<FeedItem>, StoreError> {
    store
        .run(move |connection| store::mark_item_read(connection, &id))
        .await
}

/// Marks read the unread item whose title best matches `query`.
pub async fn mark_read_by_title(
    store: &Store,
    query: String,
) -> Result<MarkReadOutcome, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let unread = store::items(&transaction, true, None, ITEM_WINDOW)?;
            let Some(item) = title_match::best(&query, &unread, |item| &item.title) else {
                return Ok(MarkReadOutcome::NoItemMatches(query));
            };
            store::mark_item_read(&transaction, &item.id)?;
            transaction.commit()?;
            Ok(MarkReadOutcome::Item(item.clone()))
        })
        .await
}

/// Marks every unread item read, of the feed whose title best matches
/// `feed_query` when one is given.
pub async fn mark_all_read(
    store: &Store,
    feed_query: Option<String>,
) -> Result<MarkReadOutcome, StoreError> {
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            let feed = match feed_query {
                None => None,
                Some(wanted) => {
                    let feeds = store::list(&transaction)?;
                    match title_match::best(&wanted, &feeds, |feed| &feed.title) {
                        Some(feed) => Some(feed.clone()),
                        None => return Ok(MarkReadOutcome::NoFeedMatches { wanted, feeds }),
                    }
                }
            };
            let marked =
                store::mark_all_read(&transaction, feed.as_ref().map(|feed| feed.id.as_str()))?;
            transaction.commit()?;
            Ok(MarkReadOutcome::All { feed, marked })
        })
        .await
}
